"""One webhook request: POST a notice, signed, to an address checked just before.

The host is resolved here and every address it has must be public (unless the
deployment allows its own network, services.notices.webhook_url); the request then goes
to that address, with the URL's host name in ``Host`` and in TLS's SNI, so the
certificate is still checked against the name. Redirects are not followed (a 3xx is a
failure) and the answer's body is never read: a receiver can't make the server fetch
elsewhere, nor feed it an endless reply.

The signature is the Python client's ``teoti_client.webhooks.webhook_signature``: one
formula for the server that signs and the receivers that check it.
"""

from __future__ import annotations

import asyncio
import ipaddress
from urllib.parse import urlsplit, urlunsplit

import httpx
from teoti_client.webhooks import (
    NOTICE_ID_HEADER,
    SIGNATURE_HEADER,
    WEBHOOK_HEADER,
    webhook_signature,
)

from services.notices.webhook_url import (
    Target,
    WebhookUrlInvalid,
    check_url,
    public_addresses,
)
from services.players.webhooks import Webhook

TIMEOUT_S = 5.0
"""Seconds a webhook request may take in all, connecting and the answer's head included."""
USER_AGENT = "teotihuacan-server-webhooks/1"


def _with_address(url: str, address: str, port: int) -> str:
    """``url`` with its host replaced by ``address`` (bracketed if IPv6)."""
    parts = urlsplit(url)
    host = f"[{address}]" if ipaddress.ip_address(address).version == 6 else address
    return urlunsplit((parts.scheme, f"{host}:{port}", parts.path or "/", parts.query, ""))


def _host_header(target: Target) -> str:
    """The ``Host`` of a request to ``target``: its host (the ASCII form of a name,
    an IPv6 address bracketed) and the port if the URL names one."""
    host = f"[{target.host}]" if ":" in target.host else target.host
    port = urlsplit(target.url).port
    return host if port is None else f"{host}:{port}"


class WebhookSender:
    """Sends notices to webhooks.

    Args:
        allow_private: accept ``http`` and addresses of the deployment's own network
            (tests, a laptop; ``teoti serve --webhooks-allow-private``).
        timeout_s: seconds per request.
    """

    def __init__(self, allow_private: bool = False, timeout_s: float = TIMEOUT_S) -> None:
        self._allow_private = allow_private
        self._timeout_s = timeout_s
        self._client: httpx.AsyncClient | None = None
        """Made at the first request: its TLS context takes 30-70 ms to load the CA
        certificates, and most processes (every test stack) never send one."""

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                follow_redirects=False, timeout=httpx.Timeout(self._timeout_s), trust_env=False
            )
        return self._client

    async def send(self, webhook: Webhook, notice_id: str, body: bytes, now_s: int) -> str:
        """POST ``body`` (the notice ``notice_id``'s JSON) to ``webhook``, signed at
        ``now_s`` (unix seconds). Returns "" if it answered 2xx, else what went wrong in
        a few words (no URL, no secret: it is shown to the player and logged)."""
        try:
            target = check_url(webhook.url, self._allow_private)
            addresses = await public_addresses(target, self._allow_private)
        except WebhookUrlInvalid as exc:
            return f"refused: {exc.rule}"
        except OSError:
            return "the host name does not resolve"
        headers = {
            "Host": _host_header(target),
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            SIGNATURE_HEADER: webhook_signature(webhook.secret, body, now_s),
            NOTICE_ID_HEADER: notice_id,
            WEBHOOK_HEADER: webhook.credential_id,
        }
        extensions = {"sni_hostname": target.host} if target.https else {}
        url = _with_address(webhook.url, addresses[0], target.port)
        try:
            # The whole request, not each read: a receiver trickling its answer a byte
            # at a time must not hold a delivery slot longer than this either.
            async with (
                asyncio.timeout(self._timeout_s),
                self._http().stream(
                    "POST", url, content=body, headers=headers, extensions=extensions
                ) as response,
            ):
                status = response.status_code
        except (httpx.TimeoutException, TimeoutError):
            return "timed out"
        except httpx.HTTPError as exc:
            return f"could not connect ({type(exc).__name__})"
        if 200 <= status < 300:
            return ""
        if 300 <= status < 400:
            return f"HTTP {status} (redirects are not followed)"
        return f"HTTP {status}"

    async def close(self) -> None:
        """Close the connection pool (if a request made one)."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None
