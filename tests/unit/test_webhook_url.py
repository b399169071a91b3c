"""Where a webhook may point (services.notices.webhook_url): https to public hosts only,
unless the deployment allows its own network (OWASP SSRF prevention)."""

from __future__ import annotations

import pytest

from services.notices.webhook_url import (
    MAX_URL_LENGTH,
    Target,
    WebhookUrlInvalid,
    check_url,
    public_addresses,
)


def _rule(url: str, allow_private: bool = False) -> str:
    with pytest.raises(WebhookUrlInvalid) as refused:
        check_url(url, allow_private)
    return refused.value.rule


def test_a_public_https_url_is_taken_with_its_port() -> None:
    assert check_url("https://bots.example.org/hook?x=1") == Target(
        "https://bots.example.org/hook?x=1", "bots.example.org", 443, True
    )
    assert check_url("https://93.184.215.14:8443/h").port == 8443


@pytest.mark.parametrize(
    ("url", "rule"),
    [
        ("", "webhook_url_invalid"),
        ("https://example.org/" + "a" * MAX_URL_LENGTH, "webhook_url_invalid"),
        ("ftp://example.org/", "webhook_url_invalid"),
        ("https://user:pw@example.org/", "webhook_url_invalid"),
        ("https://example.org/a b", "webhook_url_invalid"),
        ("https://example.org:99999/", "webhook_url_invalid"),
        ("https:///path", "webhook_url_invalid"),
        ("http://example.org/", "webhook_url_not_https"),
        ("https://127.0.0.1/", "webhook_address_not_public"),
        ("https://10.1.2.3/", "webhook_address_not_public"),
        ("https://169.254.169.254/latest/meta-data", "webhook_address_not_public"),
        ("https://[::1]/", "webhook_address_not_public"),
        ("https://[::ffff:127.0.0.1]/", "webhook_address_not_public"),
        ("https://localhost/", "webhook_address_not_public"),
        ("https://redis.internal/", "webhook_address_not_public"),
    ],
)
def test_urls_into_the_servers_own_network_are_refused(url: str, rule: str) -> None:
    assert _rule(url) == rule


def test_a_deployment_may_allow_its_own_network() -> None:
    assert check_url("http://127.0.0.1:8123/hook", allow_private=True).port == 8123
    assert _rule("ftp://127.0.0.1/", allow_private=True) == "webhook_url_invalid"


async def test_a_name_must_resolve_to_public_addresses_when_sent() -> None:
    local = check_url("http://localhost:9/", allow_private=True)
    assert "127.0.0.1" in await public_addresses(local, allow_private=True)
    with pytest.raises(WebhookUrlInvalid) as refused:
        await public_addresses(local, allow_private=False)
    assert refused.value.rule == "webhook_address_not_public"
