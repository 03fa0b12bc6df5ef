"""Shared settings for the test suite."""

from hypothesis import settings

settings.register_profile("qifkit", max_examples=60, deadline=None)
settings.load_profile("qifkit")
