"""Where a webhook may point: the server must not become a way into its own network.

A webhook's URL is a player's input that the server later connects to, so it is checked
twice (the OWASP SSRF prevention cheat sheet's advice):

- when set (:func:`check_url`): ``https`` only, no user name or password in it, a host
  name or a public IP address, at most MAX_URL_LENGTH characters;
- when sent (:func:`public_addresses`): every address the name resolves to then must be
  public (not loopback, private, link-local, multicast or reserved), and the request
  goes to one of those addresses (services.notices.webhook_sender), so a name that
  resolves elsewhere a second later (DNS rebinding) can't redirect it.

A deployment that delivers inside its own network (tests, a laptop) says so with
``allow_private`` (``teoti serve --webhooks-allow-private``): then ``http`` and private
addresses are accepted too.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

MAX_URL_LENGTH = 2048
"""Characters a webhook URL may have."""


class WebhookUrlInvalid(ValueError):
    """A webhook URL the server will not send to; ``rule`` is the reason a client sees
    (``webhook_url_invalid``, ``webhook_url_not_https``, ``webhook_address_not_public``)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


@dataclass(frozen=True, slots=True)
class Target:
    """A checked URL's parts: ``host`` (an address, or a name in its ASCII form),
    ``port``, ``https``."""

    url: str
    host: str
    port: int
    https: bool


_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
"""NAT64's well-known prefix: the last 32 bits are the IPv4 address it reaches."""
_GLOBAL_UNICAST = ipaddress.IPv6Network("2000::/3")
"""Where every public IPv6 address is (the rest is reserved, local or multicast)."""


def _is_public(address: str) -> bool:
    """Is ``address`` a public unicast address? An IPv6 address that reaches an IPv4 one
    (IPv4-mapped, NAT64's well-known prefix, 6to4) is judged by that IPv4 address; any
    other IPv6 address must be global unicast (not IPv4-compatible ``::a.b.c.d``,
    site-local or NAT64's local-use prefix)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        elif ip in _NAT64:
            ip = ipaddress.IPv4Address(int(ip) & 0xFFFF_FFFF)
        elif ip.sixtofour is not None:
            ip = ip.sixtofour
        elif ip not in _GLOBAL_UNICAST:
            return False
    return ip.is_global and not ip.is_multicast


def _ascii_name(host: str) -> str:
    """``host``, a name, in the ASCII form it is resolved and sent as (IDNA: ``bücher``
    is ``xn--bcher-kva``). Raises WebhookUrlInvalid if it is no host name (an empty
    label, a label over 63 characters)."""
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError as exc:
        raise WebhookUrlInvalid(
            "webhook_url_invalid", "a webhook URL's host is no valid host name"
        ) from exc


def _ipv4_spelled(name: str) -> ipaddress.IPv4Address | None:
    """The IPv4 address ``name`` spells as the resolver reads it too (``127.1``,
    ``0x7f.1``, ``0177.0.0.1``, ``2130706433``), or None if it is a name."""
    try:
        return ipaddress.IPv4Address(socket.inet_aton(name))
    except (OSError, ValueError):
        return None


def check_url(url: str, allow_private: bool = False) -> Target:
    """``url`` checked as a webhook's destination (see the module doc). Raises
    WebhookUrlInvalid naming the rule it breaks."""
    if not url or len(url) > MAX_URL_LENGTH or not url.isprintable() or " " in url:
        raise WebhookUrlInvalid(
            "webhook_url_invalid", f"a webhook URL is 1 to {MAX_URL_LENGTH} printable characters"
        )
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise WebhookUrlInvalid("webhook_url_invalid", "the webhook URL does not parse") from exc
    if port == 0:
        raise WebhookUrlInvalid("webhook_url_invalid", "a webhook URL's port is 1 to 65535")
    if parts.scheme not in ("https", "http"):
        raise WebhookUrlInvalid("webhook_url_invalid", "a webhook URL starts with https://")
    if parts.scheme == "http" and not allow_private:
        raise WebhookUrlInvalid("webhook_url_not_https", "a webhook URL starts with https://")
    if parts.username is not None or parts.password is not None:
        raise WebhookUrlInvalid(
            "webhook_url_invalid", "a webhook URL carries no user name or password"
        )
    host = parts.hostname or ""
    if not host:
        raise WebhookUrlInvalid("webhook_url_invalid", "a webhook URL names a host")
    if parts.fragment:
        raise WebhookUrlInvalid("webhook_url_invalid", "a webhook URL has no #fragment")
    try:
        literal = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is None:
        host = _ascii_name(host)
    if not allow_private:
        name = host.removesuffix(".")  # "localhost." is "localhost"
        if literal is None:
            literal = _ipv4_spelled(name)
        if literal is not None and not _is_public(str(literal)):
            raise WebhookUrlInvalid(
                "webhook_address_not_public", "a webhook is sent to public addresses only"
            )
        if name == "localhost" or name.endswith((".localhost", ".local", ".internal")):
            raise WebhookUrlInvalid(
                "webhook_address_not_public", "a webhook is sent to public addresses only"
            )
    https = parts.scheme == "https"
    return Target(url, host, port or (443 if https else 80), https)


async def public_addresses(target: Target, allow_private: bool = False) -> list[str]:
    """The addresses ``target``'s host resolves to now, every one of them public unless
    ``allow_private``. Raises WebhookUrlInvalid ``webhook_address_not_public`` (one is
    not), OSError if the name does not resolve."""
    infos = await asyncio.get_running_loop().getaddrinfo(
        target.host, target.port, type=socket.SOCK_STREAM
    )
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    if not addresses:
        raise OSError(f"{target.host} resolves to no address")
    if not allow_private and not all(_is_public(a) for a in addresses):
        raise WebhookUrlInvalid(
            "webhook_address_not_public",
            f"{target.host} resolves to an address that is not public",
        )
    return addresses
