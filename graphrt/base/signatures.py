"""How `graphrt serve` signs the webhooks it calls, and how a receiver checks them (no extra needed).

A webhook request carries `Graphrt-Signature: t=<unix seconds>,v1=<hex>`, where the hex is
HMAC-SHA256, keyed with the server's API key, of `"<t>."` followed by the raw request body. The
time is inside what is signed, so a receiver that refuses old times (`tolerance`, 5 minutes by
default) refuses a recorded request played again later; within that window, the `delivery_id`
of the body (also the `Graphrt-Delivery` header, the same on every retry of one delivery) tells
a receiver a delivery it has had already.

    from graphrt.base.signatures import verify_webhook
    if not verify_webhook(API_KEY, request_body_bytes, request.headers["Graphrt-Signature"]):
        return 401
"""

from __future__ import annotations

import hashlib
import hmac
import time

__all__ = ["SIGNATURE_HEADER", "sign_webhook", "verify_webhook"]

SIGNATURE_HEADER = "Graphrt-Signature"
DEFAULT_TOLERANCE = 300.0  # seconds a signature's time may be from the receiver's clock
_TIME_DIGITS = 15  # the longest time a signature may give: Unix seconds have 10 digits until the year 2286


def _digest(key: str, body: bytes, timestamp: int) -> str:
    return hmac.new(key.encode("utf-8"), f"{timestamp}.".encode("ascii") + body, hashlib.sha256).hexdigest()


def sign_webhook(key: str, body: bytes, timestamp: int | None = None) -> str:
    """The Graphrt-Signature header value for `body`, signed now (or at `timestamp`)."""
    timestamp = int(time.time()) if timestamp is None else timestamp
    return f"t={timestamp},v1={_digest(key, body, timestamp)}"


def verify_webhook(key: str, body: bytes, header: str, *, tolerance: float = DEFAULT_TOLERANCE,
                   now: float | None = None) -> bool:
    """Whether `header` signs `body` with `key` at a time within `tolerance` seconds of `now`.

    Anything else is False, never an error: a header that is malformed, or whose time is not a plain number.
    """
    fields: dict[str, list[str]] = {}
    for part in header.split(","):
        name, _, value = part.strip().partition("=")
        fields.setdefault(name, []).append(value)
    given_time = fields.get("t", [""])[0]
    # Unix seconds as sign_webhook writes them: ASCII digits, a few of them (int() would also take "1_000",
    # "+1" or other scripts' digits, and a 400-digit time overflows the float it is compared with)
    if not (given_time.isascii() and given_time.isdigit() and len(given_time) <= _TIME_DIGITS):
        return False
    timestamp = int(given_time)
    if abs((time.time() if now is None else now) - timestamp) > tolerance:
        return False
    expected = _digest(key, body, timestamp)
    return any(hmac.compare_digest(expected, given) for given in fields.get("v1", []))
