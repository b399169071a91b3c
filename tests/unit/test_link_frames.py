"""The engine link's framing (services.engine.transport.link_frames, issue 16): frames come out
of a byte stream whole and in order however the stream is cut, and anything that is no
frame of the link, or too large, is refused before its payload is held."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.engine.transport.link_client import parse_target
from services.engine.transport.link_frames import (
    BATCH,
    END,
    FINISH,
    HEADER_BYTES,
    HELLO,
    FrameError,
    FrameReader,
    FrameTooLarge,
    frame,
)

frames_st = st.lists(
    st.tuples(st.sampled_from([HELLO, BATCH, FINISH, END]), st.binary(max_size=300)),
    max_size=12,
)


@given(frames_st, st.lists(st.integers(min_value=0, max_value=4000), max_size=20))
def test_frames_come_out_whole_and_in_order_however_the_bytes_are_cut(
    frames: list[tuple[int, bytes]], cuts: list[int]
) -> None:
    wire = b"".join(frame(kind, payload) for kind, payload in frames)
    points = sorted({min(cut, len(wire)) for cut in cuts} | {0, len(wire)})
    reader = FrameReader(max_payload=300)
    read: list[tuple[int, bytes]] = []
    for start, end in itertools.pairwise(points):
        read += reader.feed(wire[start:end])
    assert read == frames


def test_a_frame_is_its_length_kind_and_payload() -> None:
    assert frame(BATCH, b"abc") == b"\x00\x00\x00\x04Babc"
    assert frame(FINISH) == b"\x00\x00\x00\x01F"
    assert HEADER_BYTES == 5


def test_a_frame_over_the_limit_is_refused_from_its_header_alone() -> None:
    reader = FrameReader(max_payload=10)
    assert reader.feed(frame(BATCH, b"x" * 10)) == [(BATCH, b"x" * 10)]
    with pytest.raises(FrameTooLarge, match=r"11 vs\. 10"):
        reader.feed(frame(BATCH, b"x" * 11)[:HEADER_BYTES])


@pytest.mark.parametrize(
    "wire",
    [
        b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",  # a gRPC client on the link's port
        b"\x00\x00\x00\x03Zab",  # an unknown kind
        b"\x00\x00\x00\x00B",  # no kind at all (length 0)
    ],
)
def test_what_is_no_frame_of_the_link_is_refused(wire: bytes) -> None:
    with pytest.raises(FrameError):
        FrameReader(max_payload=1 << 20).feed(wire)


def test_the_limit_may_grow_between_reads() -> None:
    reader = FrameReader(max_payload=4)
    assert reader.feed(frame(HELLO, b"hi")) == [(HELLO, b"hi")]
    reader.max_payload = 100
    assert reader.feed(frame(BATCH, b"y" * 50)) == [(BATCH, b"y" * 50)]


@pytest.mark.parametrize(
    ("target", "pairs"),
    [
        ("127.0.0.1:50053", [("127.0.0.1", 50053)]),
        ("[::1]:50053", [("::1", 50053)]),
        ("engine:50053", [("engine", 50053)]),
        ("[::1]:1,[::1]:2", [("::1", 1), ("::1", 2)]),
        ("10.0.0.1:1,10.0.0.2:2", [("10.0.0.1", 1), ("10.0.0.2", 2)]),
        ("dns:///engine-link.teoti.svc:50053", [("engine-link.teoti.svc", 50053)]),
        ("ipv4:10.0.0.1:1,10.0.0.2:2", [("10.0.0.1", 1), ("10.0.0.2", 2)]),
        ("ipv6:[::1]:7", [("::1", 7)]),
    ],
)
def test_link_targets_are_read_as_the_engine_option_takes_them(
    target: str, pairs: list[tuple[str, int]]
) -> None:
    assert parse_target(target) == pairs


@pytest.mark.parametrize("target", ["", "engine", "engine:", ":50053", "engine:port"])
def test_a_link_target_without_host_and_port_is_refused(target: str) -> None:
    with pytest.raises(ValueError):
        parse_target(target)
