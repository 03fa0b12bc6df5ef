"""Shared settings and fixtures for the test suite."""

import sys

import pytest
from hypothesis import settings

settings.register_profile("qifkit", max_examples=60, deadline=None)
settings.load_profile("qifkit")


@pytest.fixture
def unguarded_str():
    """Python's own ``str`` with its 4300-digit guard lifted for the one call: an independent way to
    write huge ints and fractions, to compare the package's writers with."""

    def write(value):
        old = sys.get_int_max_str_digits()
        sys.set_int_max_str_digits(0)
        try:
            return str(value)
        finally:
            sys.set_int_max_str_digits(old)

    return write


def pytest_collection_modifyitems(config, items):
    """Slow tests first: in the README's parallel run (pytest-xdist) the longest one (the complete
    n = 5 local-DP polytope, about 6 minutes) then overlaps the rest of the suite instead of
    starting last."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
