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
        ("https://example.org:0/", "webhook_url_invalid"),
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


@pytest.mark.parametrize(
    "address",
    [
        "::127.0.0.1",  # IPv4-compatible (deprecated): loopback inside
        "64:ff9b::10.0.0.1",  # NAT64's well-known prefix: a NAT64 gateway reaches 10/8
        "64:ff9b::a9fe:a9fe",  # ... or the metadata address
        "64:ff9b:1::a00:1",  # NAT64's local-use prefix (not globally reachable)
        "2002:7f00:1::",  # 6to4 of 127.0.0.1
        "2002:a00:1::1",  # 6to4 of 10.0.0.1
        "fec0::1",  # site-local (deprecated, still routed in old networks)
        "::ffff:0:a00:1",  # IPv4-translated 10.0.0.1
    ],
)
async def test_an_ipv6_address_carrying_a_private_one_is_not_public(address: str) -> None:
    url = f"https://[{address}]/hook"
    assert _rule(url) == "webhook_address_not_public"
    target = Target(url, address, 443, True)  # as if a name resolved to it when sent
    with pytest.raises(WebhookUrlInvalid) as refused:
        await public_addresses(target)
    assert refused.value.rule == "webhook_address_not_public"


@pytest.mark.parametrize("address", ["64:ff9b::8.8.8.8", "2002:808:808::1", "2606:4700::1111"])
def test_an_ipv6_address_of_a_public_host_is_taken(address: str) -> None:
    assert check_url(f"https://[{address}]/hook").host == address


@pytest.mark.parametrize(
    "url",
    ["https://a..example.org/", "https://.example.org/", f"https://{'a' * 64}.example.org/"],
)
def test_a_host_that_is_no_host_name_is_refused(url: str) -> None:
    assert _rule(url) == "webhook_url_invalid"


def test_an_international_host_name_is_taken_as_its_ascii_form() -> None:
    assert check_url("https://Bücher.example/h").host == "xn--bcher-kva.example"
    fullwidth = "\uff25\uff38\uff21\uff2d\uff30\uff2c\uff25"  # EXAMPLE
    assert check_url(f"https://{fullwidth}.org/h").host == "example.org"


@pytest.mark.parametrize(
    "url",
    [
        "https://2130706433/",  # 127.0.0.1 in the spellings the resolver takes too
        "https://0x7f.1/",
        "https://0177.0.0.1/",
        "https://127.1/",
        "https://0/",
        "https://0xa9.0xfe.0xa9.0xfe/latest/meta-data",
        "https://127.0.0.1./",
        "https://localhost./",
        "https://metadata.google.internal./",
        "https://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54/",  # fullwidth
    ],
)
def test_other_spellings_of_a_private_address_or_a_local_name_are_refused_when_set(
    url: str,
) -> None:
    assert _rule(url) == "webhook_address_not_public"


def test_a_public_address_in_another_spelling_is_taken() -> None:
    assert check_url("https://16843009/").host == "16843009"  # 1.1.1.1
