"""Issue 12: limits per client, not per connection (services/rpc/limits.py)."""

from __future__ import annotations

import re

import grpc
import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.engine.domain.game_seats import hash_token
from services.engine.transport.status_mapping import status_for
from services.rpc.limits import (
    ClientRateLimiter,
    CreationQuota,
    RateLimited,
    StreamBudget,
    TooManyStreams,
    TooManyWatchers,
    WatcherLimit,
    hashed_token_key,
    peer_address,
    token_key,
)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_peer_address_drops_the_connection_port() -> None:
    assert peer_address("ipv4:10.1.2.3:5555") == "ipv4:10.1.2.3"
    assert peer_address("ipv6:[::1]:5555") == "ipv6:[::1]"
    assert peer_address("unix:/tmp/sock") == "unix:/tmp/sock"
    assert peer_address("garbage") == "garbage"


def admitted(limiter: ClientRateLimiter, calls: list[tuple[str, str]]) -> int:
    ok = 0
    for peer, token in calls:
        try:
            limiter.admit(peer, token)
            ok += 1
        except RateLimited:
            pass
    return ok


def test_fresh_connections_share_their_address_budget() -> None:
    limiter = ClientRateLimiter(rate=1, burst=5, clock=Clock())
    calls = [(f"ipv4:10.0.0.1:{40000 + i}", "") for i in range(50)]  # 50 connections
    assert admitted(limiter, calls) == 5


def test_a_seat_token_keeps_its_budget_across_connections_and_addresses() -> None:
    limiter = ClientRateLimiter(rate=1, burst=5, clock=Clock())
    calls = [(f"ipv4:10.0.{i}.1:{40000 + i}", "tok") for i in range(20)]
    assert admitted(limiter, calls) == 5
    # Another seat behind the same address (a NAT) has its own budget.
    assert admitted(limiter, [("ipv4:10.0.0.1:1", "other")] * 20) == 5


def test_inventing_tokens_buys_no_more_than_the_address_ceiling() -> None:
    limiter = ClientRateLimiter(rate=1, burst=5, clock=Clock(), address_factor=4)
    calls = [("ipv4:10.0.0.9:1", f"made-up-{i}") for i in range(200)]
    assert admitted(limiter, calls) == 20  # 4 x burst


def test_budgets_refill_at_the_rate() -> None:
    clock = Clock()
    limiter = ClientRateLimiter(rate=2, burst=2, clock=clock)
    assert admitted(limiter, [("ipv4:1.1.1.1:1", "t")] * 5) == 2
    clock.now += 1.0
    assert admitted(limiter, [("ipv4:1.1.1.1:2", "t")] * 5) == 2
    with pytest.raises(RateLimited) as raised:
        limiter.admit("ipv4:1.1.1.1:3", "t")
    assert 0 < raised.value.retry_after_s <= 0.5


def test_rate_zero_is_unlimited() -> None:
    limiter = ClientRateLimiter(rate=0)
    assert admitted(limiter, [("ipv4:1.1.1.1:1", "")] * 1000) == 1000


def test_creation_quota_is_per_caller_address() -> None:
    clock = Clock()
    quota = CreationQuota(per_hour=3600, burst=3, clock=clock)
    refused = 0
    for i in range(10):
        try:
            quota.admit(f"ipv4:10.0.0.1:{i}")
        except RateLimited:
            refused += 1
    assert refused == 7
    quota.admit("ipv4:10.0.0.2:1")  # another caller is not affected
    clock.now += 2.0  # one game per second refills
    quota.admit("ipv4:10.0.0.1:99")
    quota.admit("ipv4:10.0.0.1:99")
    with pytest.raises(RateLimited):
        quota.admit("ipv4:10.0.0.1:99")
    unlimited = CreationQuota(per_hour=0)
    for _ in range(1000):
        unlimited.admit("ipv4:10.0.0.1:1")


@given(st.text(max_size=80), st.text(max_size=80))
def test_token_keys_are_digests_one_per_token(token: str, other: str) -> None:
    key = token_key(token)
    assert key.startswith("seat:") and len(key) == 37
    assert set(key[5:]) <= set("0123456789abcdef")  # a digest, never the token itself
    assert (token_key(other) == key) == (other == token)


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80))
def test_a_hashed_token_keys_the_same_bucket(token: str) -> None:
    """The gateway hashes a request's token once (``hash_token``) for the seat check and
    the limiter: the key from that digest is the token's own key."""
    assert hashed_token_key(hash_token(token)) == token_key(token)


def test_a_call_spends_the_same_bucket_with_or_without_its_token_hash() -> None:
    limiter = ClientRateLimiter(rate=1, burst=5, clock=Clock())
    for _ in range(3):
        limiter.admit("ipv4:10.0.0.1:1", "tok-a", hash_token("tok-a"))
    assert admitted(limiter, [("ipv4:10.0.0.2:1", "tok-a")] * 5) == 2


def test_open_watchers_are_capped_per_client_and_released() -> None:
    limit = WatcherLimit(per_client=2)
    with limit.hold("ipv4:10.0.0.1"), limit.hold("ipv4:10.0.0.1"):
        with pytest.raises(TooManyWatchers) as raised, limit.hold("ipv4:10.0.0.1"):
            pass
        code, reason, _ = status_for(raised.value) or (None, "", {})
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and reason == "too_many_watchers"
        with limit.hold("ipv4:10.0.0.2"):  # another client is not affected
            pass
    with limit.hold("ipv4:10.0.0.1"), limit.hold("ipv4:10.0.0.1"):
        pass  # both released when their streams ended
    unlimited = WatcherLimit(per_client=0)
    holds = [unlimited.hold("x") for _ in range(5000)]
    for hold in holds:
        hold.__enter__()
    assert ClientRateLimiter.client_key("ipv4:1.2.3.4:5", "") == "ipv4:1.2.3.4"
    assert ClientRateLimiter.client_key("ipv4:1.2.3.4:5", "t") == token_key("t")


def test_streams_under_invented_tokens_stop_at_the_address_ceiling() -> None:
    limit = WatcherLimit(per_client=1, address_factor=3)
    address = "ipv4:10.0.0.1"
    holds = [limit.hold(token_key(f"invented-{i}"), address) for i in range(3)]
    for hold in holds:
        hold.__enter__()
    with pytest.raises(TooManyWatchers), limit.hold(token_key("invented-3"), address):
        pass
    with limit.hold(token_key("invented-3"), "ipv4:10.0.0.2"):
        pass  # another address has its own ceiling
    holds[0].__exit__(None, None, None)
    with limit.hold(token_key("invented-3"), address):
        pass  # a closed stream gives its place back


def _stated_waits(refusal: RateLimited) -> tuple[float, float]:
    """The wait a refused client is told: in the message, and in the RetryInfo detail."""
    from google.rpc import error_details_pb2

    from services.engine.transport.status_mapping import rich_status

    said = re.search(r"retry in ([0-9.]+)s", str(refusal))
    status = rich_status(refusal)
    assert said is not None and status is not None
    infos = []
    for detail in status.details:
        info = error_details_pb2.RetryInfo()
        if detail.Unpack(info):
            infos.append(info.retry_delay.seconds + info.retry_delay.nanos / 1e9)
    assert len(infos) == 1
    return float(said.group(1)), infos[0]


@pytest.mark.parametrize("refill_s", [0.0, 0.0049, 0.004999, 0.00001])
@pytest.mark.parametrize("token", ["", "tok"])
def test_a_refusal_states_a_real_wait_after_which_a_call_is_admitted(
    refill_s: float, token: str
) -> None:
    """Issue 30 item 9: a spent bucket said "retry in 0.00s" (a fraction of a token, at
    200 per second, is under 5 ms: rounded to nothing) and a client retrying after the
    stated wait was refused again."""
    clock = Clock()
    limiter = ClientRateLimiter(rate=200, burst=1, clock=clock)
    peer = "ipv4:10.0.0.1:1"
    limiter.admit(peer, token)
    clock.now += refill_s  # part of the next token has refilled
    with pytest.raises(RateLimited) as raised:
        limiter.admit(peer, token)
    in_message, in_retry_info = _stated_waits(raised.value)
    assert in_message > 0 and in_retry_info > 0
    assert in_message >= raised.value.retry_after_s and in_retry_info >= raised.value.retry_after_s
    clock.now += min(in_message, in_retry_info)  # the client waits what it was told
    limiter.admit(peer, token)


def test_a_refused_seat_call_spends_nothing_of_its_address_ceiling() -> None:
    """A call its token's bucket refuses takes nothing from the address's ceiling: a seat
    hammering past its rate does not eat its neighbours' (same address) budget."""
    limiter = ClientRateLimiter(rate=1, burst=2, clock=Clock(), address_factor=2)
    peer = "ipv4:10.0.0.1:1"
    assert admitted(limiter, [(peer, "hammer")] * 50) == 2
    assert admitted(limiter, [(peer, "neighbour")] * 10) == 2


def test_the_stream_budget_gives_each_address_its_share_and_keeps_a_total() -> None:
    """Issue 30 item 3: WatchGame and Play streams together, per address and in all."""
    budget = StreamBudget(total=5, per_address=2)
    holds = [budget.hold(address) for address in ("ipv4:10.0.0.1",) * 2 + ("ipv4:10.0.0.2",) * 2]
    for hold in holds:
        hold.__enter__()
    with pytest.raises(TooManyStreams) as mine, budget.hold("ipv4:10.0.0.1"):
        pass
    assert mine.value.scope == "address" and mine.value.limit == 2
    with budget.hold("ipv4:10.0.0.3"):
        assert budget.held == 5
        with pytest.raises(TooManyStreams) as full, budget.hold("ipv4:10.0.0.4"):
            pass
        assert full.value.scope == "server" and full.value.limit == 5
        code, reason, metadata = status_for(full.value) or (None, "", {})
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and reason == "too_many_streams"
        assert metadata["scope"] == "server"
    holds[0].__exit__(None, None, None)
    with budget.hold("ipv4:10.0.0.1"):  # a closed stream gives its place back
        pass
    assert budget.held == 3
