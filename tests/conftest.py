"""Shared pytest configuration: anyio runs async tests on asyncio (and trio where a test asks)."""

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
