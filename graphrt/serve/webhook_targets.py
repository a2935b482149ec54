"""Which URLs a webhook may call: what keeps a per-run URL, which any API client may give, from reaching inside.

A URL given with a run (`"webhook"` in POST /graphs/{name}/runs) is the server
calling wherever a client says: server-side request forgery, the way to a
cloud's metadata service (169.254.169.254), an admin port on loopback or a
host of the private network that the client itself cannot reach. So, by default:

- only `http` and `https`, with a host and no `user:password@` part;
- every address the host resolves to must be global (not loopback, private,
  link-local, shared, multicast, reserved or unspecified; an IPv6 address that
  spells an IPv4 one, ::ffff:a.b.c.d, ::a.b.c.d, 64:ff9b::a.b.c.d or 6to4's
  2002:AABB:CCDD::, is judged by that IPv4 address), checked when the run is
  submitted and again at each attempt, and the request goes to the address that was
  checked (a name that resolves elsewhere a second later is not followed: no DNS
  rebinding), with the name kept for Host and TLS;
- redirects are not followed.

`allow_private=True` (`graphrt serve --webhook-allow-private`) lets per-run URLs
name any host (for a server whose receivers are on its own network, or tests on
127.0.0.1); the schemes stay http(s). The server's own URL (`--webhook-url`) is the
operator's choice and is called as given.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

import anyio

from graphrt.base.errors import RequestError

__all__ = ["Target", "WebhookRefused", "check_url", "resolve_target", "shown_url"]

_MAX_URL = 2048


class WebhookRefused(RequestError):
    """Raised for a webhook URL the server will not call (scheme, credentials, or where it leads)."""

    status = 400


@dataclass(frozen=True)
class Target:
    """Where one attempt goes: `url` (with a checked address in place of the name, if pinned) and what to send
    the name in (`host` header, TLS name)."""

    url: str
    host_header: str | None = None
    tls_name: str | None = None


def check_url(url: object) -> str:
    """The URL if it is one a webhook may have (http or https, a host, no credentials), else WebhookRefused."""
    if not isinstance(url, str) or not url:
        raise WebhookRefused("'webhook' must be a URL (a string)")
    if len(url) > _MAX_URL:
        raise WebhookRefused(f"the webhook URL is longer than {_MAX_URL} characters")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises for a port that is not a number
    except ValueError as error:
        raise WebhookRefused(f"the webhook URL is not a URL: {error}") from None
    if parts.scheme not in ("http", "https"):
        raise WebhookRefused(f"a webhook URL must be http or https, not {parts.scheme or 'without a scheme'!r}")
    if not parts.hostname:
        raise WebhookRefused("the webhook URL has no host")
    if parts.username is not None or parts.password is not None:
        raise WebhookRefused("a webhook URL may not hold a user or password (they would be saved with the run); "
                             "the server signs each call with its API key instead")
    return url


def shown_url(url: str) -> str:
    """The URL as logs show it: scheme, host, port and path (its query, which may hold a token, left out)."""
    parts = urlsplit(url)
    netloc = parts.hostname or ""
    if ":" in netloc:
        netloc = f"[{netloc}]"
    if parts.port is not None:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


_IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")  # deprecated (RFC 4291), and Python deems it global
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")  # RFC 6052's well-known prefix: a translator's IPv4 address


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one spells, if it is one of the forms that do (mapped, compatible, NAT64, 6to4)."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _IPV4_COMPATIBLE or address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def _refused_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether `address` is not global, or is an IPv6 spelling of an IPv4 address that is not (::127.0.0.1 is
    127.0.0.1, as ::ffff:127.0.0.1 is)."""
    embedded = _embedded_ipv4(address) if isinstance(address, ipaddress.IPv6Address) else None
    return not (embedded or address).is_global


async def resolve_target(url: str, *, allow_private: bool) -> Target:
    """Where an attempt to call `url` goes: a checked global address of its host (WebhookRefused if it has none
    that is allowed), or the URL as given when private hosts are allowed."""
    check_url(url)
    if allow_private:
        return Target(url)
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        literal = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None:
        addresses = [literal]
    else:
        try:
            found = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as error:
            raise WebhookRefused(f"the webhook host {host!r} does not resolve: {error}") from None
        addresses = [ipaddress.ip_address(entry[4][0].split("%")[0]) for entry in found]
    refused = [str(address) for address in addresses if _refused_address(address)]
    if refused or not addresses:
        raise WebhookRefused(f"the webhook host {host!r} is {', '.join(refused) or 'no address'}, which is not a "
                             "public address: the server calls per-run webhooks on public addresses only "
                             "(graphrt serve --webhook-allow-private lifts that)")
    pinned = str(addresses[0])
    netloc = f"[{pinned}]" if ":" in pinned else pinned
    if parts.port is not None:
        netloc += f":{parts.port}"
    host_header = host if parts.port is None else f"{host}:{parts.port}"
    return Target(urlunsplit((parts.scheme, netloc, parts.path, parts.query, "")), host_header=host_header,
                  tls_name=host if parts.scheme == "https" else None)
