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
