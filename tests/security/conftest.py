"""Hypothesis profiles for the property tests: `fast` (default, keeps the suite quick) and `deep`.

    HYPOTHESIS_PROFILE=deep .venv/bin/python -m pytest tests/security    # thousands of examples each
"""

import os

from hypothesis import HealthCheck, settings

# A hang shows up as an example past the deadline.
settings.register_profile("fast", max_examples=100, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("deep", max_examples=5000, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))

# The serve and PostgreSQL fixtures, for the attacks on the server and its stores.
from ..durable.conftest import postgres_server, postgres_url  # noqa: E402,F401
from ..serve.conftest import serve  # noqa: E402,F401
