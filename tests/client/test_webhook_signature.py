"""``teoti_client.webhooks.verify_webhook_signature`` (docs/players.md "Webhooks"): a
receiver accepts the server's signature of the body it got, and nothing else: not a
tampered body, another secret, a stale or future timestamp, a malformed header."""

from __future__ import annotations

import hashlib
import hmac
import subprocess
import sys

import pytest
from teoti_client import verify_webhook_signature
from teoti_client.webhooks import webhook_signature

SECRET = "whsec_" + "s" * 43
BODY = b'{"id":"1733500000000-0","v":1,"kind":"your_turn","at_ms":1733500000000,"data":{}}'
T = 1_733_500_000


def signed(secret: str, timestamp: int, body: bytes) -> str:
    """The formula, written out: hex HMAC-SHA256 of "<t>." + body, keyed by the secret."""
    return hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()


def test_the_servers_signature_is_accepted() -> None:
    header = f"t={T},v1={signed(SECRET, T, BODY)}"
    assert webhook_signature(SECRET, BODY, T) == header
    assert verify_webhook_signature(SECRET, header, BODY, now_s=T)
    assert verify_webhook_signature(SECRET, header, BODY, now_s=T + 299.5)
    assert verify_webhook_signature(SECRET, f" v1={signed(SECRET, T, BODY)} , t={T} ", BODY, T)


def test_a_tampered_body_or_another_secret_is_refused() -> None:
    header = webhook_signature(SECRET, BODY, T)
    assert not verify_webhook_signature(SECRET, header, BODY.replace(b"your_turn", b"game_ok"), T)
    assert not verify_webhook_signature(SECRET, header, BODY + b" ", T)
    assert not verify_webhook_signature("whsec_" + "x" * 43, header, BODY, T)
    assert not verify_webhook_signature("", header, BODY, T)
    # The timestamp is signed: moving it breaks the signature.
    moved = f"t={T + 1},v1={signed(SECRET, T, BODY)}"
    assert not verify_webhook_signature(SECRET, moved, BODY, T)


def test_a_stale_or_future_timestamp_is_refused() -> None:
    header = webhook_signature(SECRET, BODY, T)
    assert not verify_webhook_signature(SECRET, header, BODY, now_s=T + 301)
    assert not verify_webhook_signature(SECRET, header, BODY, now_s=T - 301)
    assert verify_webhook_signature(SECRET, header, BODY, now_s=T + 3000, tolerance_s=3600)
    assert not verify_webhook_signature(SECRET, header, BODY, now_s=T + 10, tolerance_s=5)
    assert not verify_webhook_signature(SECRET, header, BODY)  # now: long after T
    # A clock that is no number refuses, as a stale one (the check fails closed).
    assert not verify_webhook_signature(SECRET, header, BODY, now_s=float("nan"))
    assert not verify_webhook_signature(SECRET, header, BODY, now_s=T, tolerance_s=-1)


def test_one_matching_v1_among_several_is_enough() -> None:
    good = signed(SECRET, T, BODY)
    other = signed("whsec_old", T, BODY)
    assert verify_webhook_signature(SECRET, f"t={T},v1={other},v1={good}", BODY, T)
    assert verify_webhook_signature(SECRET, f"t={T},v0=abc,v1={good}", BODY, T)
    assert not verify_webhook_signature(SECRET, f"t={T},v1={other},v1=zz", BODY, T)


@pytest.mark.parametrize(
    "header",
    [
        "",
        "garbage",
        f"v1={signed(SECRET, T, BODY)}",  # no timestamp
        f"t={T}",  # no signature
        f"t={T},t={T},v1={signed(SECRET, T, BODY)}",  # two timestamps
        f"t=-{T},v1={signed(SECRET, T, BODY)}",
        f"t={T}.5,v1={signed(SECRET, T, BODY)}",
        f"t=\uff11\uff12,v1={signed(SECRET, T, BODY)}",  # full-width digits
        f"t={T},v1=é{signed(SECRET, T, BODY)[1:]}",  # not ASCII
        f"t={T},v1={signed(SECRET, T, BODY)}," + "x" * 5000,
    ],
)
def test_a_malformed_header_is_refused(header: str) -> None:
    assert not verify_webhook_signature(SECRET, header, BODY, now_s=T)


def test_the_module_imports_nothing_of_the_server() -> None:
    code = (
        "import sys, teoti_client.webhooks\n"
        "assert not [m for m in sys.modules if m == 'services' or m.startswith('services.')]\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_the_client_readmes_receiver_check_runs_as_written() -> None:
    import re
    import time
    from pathlib import Path

    readme = Path(__file__).resolve().parents[2] / "clients" / "python" / "README.md"
    match = re.search(r"```python webhook\n(.*?)```", readme.read_text("utf-8"), re.S)
    assert match is not None, "the client README shows a receiver's check"
    namespace: dict[str, object] = {}
    exec(compile(match.group(1), str(readme), "exec"), namespace)
    trusted = namespace["trusted"]
    assert callable(trusted)
    now = int(time.time())
    headers = {"Teoti-Signature": webhook_signature(SECRET, BODY, now)}
    assert trusted(SECRET, headers, BODY) is True
    assert trusted(SECRET, headers, BODY + b" ") is False
