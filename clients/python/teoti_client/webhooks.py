"""Checking that a webhook request came from the server (docs/players.md "Webhooks").

The server POSTs each notice of a player to the webhook a credential set
(``GameServiceClient.set_player_webhook``), with the header::

    Teoti-Signature: t=<unix seconds>,v1=<hex of HMAC-SHA256(secret, f"{t}." + body)>

keyed with the webhook's secret (its UTF-8 bytes), over the raw body bytes as received.
The timestamp is inside the signed text, so a receiver that refuses one too far from its
own clock can't be replayed a captured request later. A header may carry several ``v1=``
values (e.g. while a secret is being replaced); one matching is enough.

A receiver checks the body before parsing it::

    from teoti_client.webhooks import verify_webhook_signature

    if not verify_webhook_signature(secret, request.headers["Teoti-Signature"], raw_body):
        return 400  # not from the server (or too old): ignore it

Only the standard library: a receiver needs nothing else of the client for this.
"""

from __future__ import annotations

import hashlib
import hmac
import time

SIGNATURE_HEADER = "Teoti-Signature"
"""The header carrying the signature."""
NOTICE_ID_HEADER = "Teoti-Notice-Id"
"""The header naming the notice (a retry of a delivery carries the same one)."""
WEBHOOK_HEADER = "Teoti-Webhook"
"""The header naming the webhook (the id of the credential that set it)."""
DEFAULT_TOLERANCE_S = 300
"""How far (seconds) a request's timestamp may be from the receiver's clock."""
_MAX_HEADER = 4096
"""Longer headers are refused unread (a real one is about 80 characters)."""


def webhook_signature(secret: str, body: bytes, timestamp_s: int) -> str:
    """The ``Teoti-Signature`` value the server sends with ``body`` at ``timestamp_s``
    (for tests of a receiver)."""
    return f"t={timestamp_s},v1={_mac(secret, timestamp_s, body)}"


def verify_webhook_signature(
    secret: str,
    signature_header: str,
    body: bytes,
    now_s: float | None = None,
    tolerance_s: int = DEFAULT_TOLERANCE_S,
) -> bool:
    """Did the server, holding ``secret``, sign ``body`` (the raw request body) with
    ``signature_header`` (the ``Teoti-Signature`` value) within ``tolerance_s`` seconds
    of ``now_s`` (default: this machine's clock)? False for a header that is not one
    (no ``t=`` or no ``v1=``, ``t=`` twice or not a whole number), a timestamp older or
    newer than the tolerance, or no ``v1=`` matching (compared in constant time)."""
    if not secret or len(signature_header) > _MAX_HEADER:
        return False
    timestamps: list[str] = []
    signatures: list[str] = []
    for part in signature_header.split(","):
        key, sep, value = part.strip().partition("=")
        if not sep:
            continue
        if key == "t":
            timestamps.append(value.strip())
        elif key == "v1":
            signatures.append(value.strip())
    if len(timestamps) != 1 or not signatures:
        return False
    text = timestamps[0]
    if not (text.isascii() and text.isdigit() and len(text) <= 12):
        return False
    timestamp = int(text)
    now = time.time() if now_s is None else now_s
    if not abs(now - timestamp) <= tolerance_s:  # fails closed: a NaN clock too
        return False
    expected = _mac(secret, timestamp, body).encode()
    # Every candidate is compared (no early exit), each in constant time.
    matched = False
    for candidate in signatures:
        if hmac.compare_digest(expected, candidate.encode("utf-8", "replace")):
            matched = True
    return matched


def _mac(secret: str, timestamp_s: int, body: bytes) -> str:
    signed = f"{timestamp_s}.".encode() + body
    return hmac.new(secret.encode("utf-8"), signed, hashlib.sha256).hexdigest()
