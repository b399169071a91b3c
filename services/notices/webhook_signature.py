"""The signature a webhook request carries, so its receiver knows the server sent it.

``Teoti-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>." + body>``, keyed with
the webhook's secret (its UTF-8 bytes), as Stripe signs its webhooks: the timestamp is
inside the signed text, so a receiver that refuses old timestamps (5 minutes, say)
can't be replayed a captured request later. The Python client's
``teoti_client.webhooks.verify_webhook_signature`` checks one (docs/players.md).
"""

from __future__ import annotations

import hashlib
import hmac

SIGNATURE_HEADER = "Teoti-Signature"
NOTICE_ID_HEADER = "Teoti-Notice-Id"
WEBHOOK_HEADER = "Teoti-Webhook"


def signature(secret: str, body: bytes, timestamp_s: int) -> str:
    """The ``Teoti-Signature`` header value of ``body`` sent at ``timestamp_s`` (unix
    seconds) to a webhook with ``secret``."""
    mac = hmac.new(secret.encode("utf-8"), f"{timestamp_s}.".encode() + body, hashlib.sha256)
    return f"t={timestamp_s},v1={mac.hexdigest()}"
