"""Shared pytest configuration: hypothesis profiles.

``fast`` (default) keeps the default run within minutes on 2 cores; ``thorough`` is selected
with ``SLR_HYPOTHESIS_PROFILE=thorough`` (``tox -e thorough`` does this; CI runs the fast profile).
"""
import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "fast", max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "thorough", max_examples=400, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("SLR_HYPOTHESIS_PROFILE", "fast"))
