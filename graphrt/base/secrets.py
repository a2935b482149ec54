"""What counts as a secret, for the places that must not show one (errors, traces, logs, saved config).

Checkpoints are not such a place for data: they hold a run's real values (see
graphrt.durable). Only credentials - an API key, a password in a URL - are kept
out of everything graphrt writes or shows.
"""

from __future__ import annotations

import re

__all__ = ["SECRET_KEY", "hide_url_passwords", "url_passwords"]

SECRET_KEY = re.compile(
    r"(api[-_]?key|authorization|password|passwd|secret|token|cookie|credentials?|private[-_]?key)$", re.IGNORECASE
)
"""A mapping key whose value is a credential (`apiKey`, `Authorization`, `db_password`, ...)."""

# scheme://user:password@host - the password is what lies between the first ':' after the user and the '@'.
_URL_PASSWORD = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:]*:)([^\s/?#@]+)(@)")


def hide_url_passwords(text: str, mask: str = "***") -> str:
    """`https://me:hunter2@host/v1` -> `https://me:***@host/v1`; other text unchanged."""
    return _URL_PASSWORD.sub(lambda found: f"{found[1]}{mask}{found[3]}", text)


def url_passwords(text: str) -> list[str]:
    """The passwords written into URLs in `text`."""
    return [found[2] for found in _URL_PASSWORD.finditer(text)]
