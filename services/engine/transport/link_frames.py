"""The engine link's framing and socket options: what gateway and engine write on its TCP
connections, and how both sides set them up.

The engine link (issue 16) carries the same ExchangeBatches messages as the
EngineService.ExchangeBatches gRPC stream, one stream per connection, without gRPC: a
message on grpc.aio costs a hand-off to grpc's poller thread and a loop wake-up on each
side (about 60-200 µs of CPU per round trip on loopback against about 6 µs for a plain
asyncio connection, docs/performance.md). docs/operations.md, "Engine link", is the
protocol's description; this module is its one implementation.

A connection is a sequence of frames in each direction. A frame is its length (4 bytes,
big-endian, unsigned: the kind byte and the payload), its kind (1 byte) and its payload:

- ``H`` hello. The client's first frame: :data:`HELLO_MAGIC` then the bot credential
  (UTF-8, empty for none). The engine answers with its own hello, :data:`HELLO_MAGIC`
  alone, before anything else: the client writes no command before it.
- ``B`` batch. An ``EngineServiceExchangeBatchesRequest`` (client to engine) or
  ``EngineServiceExchangeBatchesResponse`` (engine to client), serialized.
- ``F`` finish (client to engine, empty): no more requests; the engine answers those in
  flight, then ends the connection (a half-close, as ``done_writing`` on the stream).
- ``E`` end (engine to client): a serialized ``google.rpc.Status``, the engine's last
  frame before it closes: code 0 when every request was answered, else why it ends the
  connection (a frame too large, a batch that does not parse, a version it does not
  serve). A connection that closes without one was lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct

DEFAULT_LINK_PORT = 50053
"""The engine link's port when ``teoti engine --link-port`` and ``$TEOTI_LINK_PORT`` name
none: beside the engine's gRPC port (50052), as deploy/k8s/base/engine.yaml has it."""

HELLO = ord("H")
BATCH = ord("B")
FINISH = ord("F")
END = ord("E")
KINDS = frozenset((HELLO, BATCH, FINISH, END))

HELLO_MAGIC = b"teoti-engine-link 1\n"
"""What every hello opens with: the protocol's name and version (1), ended by a newline.
An engine refuses a hello of another version with FAILED_PRECONDITION."""

HEADER = struct.Struct(">IB")
"""A frame's length and kind."""
HEADER_BYTES = HEADER.size

MAX_HELLO_BYTES = 4096
"""Largest hello payload either side accepts (the magic and a bot credential)."""


class FrameError(Exception):
    """The peer wrote something that is no frame of the link (an unknown kind, a frame
    larger than allowed, or no frame at all: another protocol on the port)."""


class FrameTooLarge(FrameError):
    """A frame over the reader's ``max_payload``."""


def frame(kind: int, payload: bytes = b"") -> bytes:
    """The bytes of one frame of ``kind`` carrying ``payload``."""
    return HEADER.pack(len(payload) + 1, kind) + payload


class FrameReader:
    """Splits the bytes read from a connection into frames, whatever their chunks.

    ``max_payload`` bounds a frame's payload in bytes (a larger one raises FrameError as
    soon as its header is read, before its payload is held); it may be changed between
    calls (the engine allows a hello less than a batch).
    """

    __slots__ = ("_buffer", "max_payload")

    def __init__(self, max_payload: int) -> None:
        self._buffer = bytearray()
        self.max_payload = max_payload

    def feed(self, data: bytes) -> list[tuple[int, bytes]]:
        """The frames (kind, payload) completed by ``data``, in order; a partial frame's
        bytes are kept for the next call. Raises FrameError for a frame of an unknown
        kind, of no kind (length 0), or over ``max_payload``."""
        buffer = self._buffer
        if not buffer and len(data) >= HEADER_BYTES:
            # The usual case: a chunk that is one whole frame, parsed without a copy
            # into the buffer first.
            length, kind = HEADER.unpack_from(data)
            if length - 1 == len(data) - HEADER_BYTES and length:
                self._check(length, kind)
                return [(kind, data[HEADER_BYTES:])]
        buffer += data
        frames: list[tuple[int, bytes]] = []
        start = 0
        while len(buffer) - start >= HEADER_BYTES:
            length, kind = HEADER.unpack_from(buffer, start)
            self._check(length, kind)
            end = start + 4 + length
            if end > len(buffer):
                break
            frames.append((kind, bytes(buffer[start + HEADER_BYTES : end])))
            start = end
        if start:
            del buffer[:start]
        return frames

    def _check(self, length: int, kind: int) -> None:
        if kind not in KINDS or length == 0:
            raise FrameError(f"not a frame of the engine link (kind byte {kind})")
        if length - 1 > self.max_payload:
            raise FrameTooLarge(
                f"frame larger than allowed ({length - 1} vs. {self.max_payload} bytes)"
            )


KEEPALIVE = (
    (socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1),
    (socket.IPPROTO_TCP, getattr(socket, "TCP_KEEPIDLE", 4), 20),
    (socket.IPPROTO_TCP, getattr(socket, "TCP_KEEPINTVL", 5), 10),
    (socket.IPPROTO_TCP, getattr(socket, "TCP_KEEPCNT", 6), 3),
)
"""TCP keepalive on every link connection (both sides): a peer that vanished without a
word (a host down, a cut network) is found within about a minute even while idle, as the
gRPC channel's keepalive found it."""


def tune(transport: asyncio.BaseTransport) -> None:
    """Set TCP_NODELAY (a batch goes out at once: the link batches by itself) and
    :data:`KEEPALIVE` on ``transport``'s socket, where it has one that takes them."""
    sock = transport.get_extra_info("socket")
    if sock is None or sock.family not in (socket.AF_INET, socket.AF_INET6):
        return
    options = ((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1), *KEEPALIVE)
    for level, name, value in options:
        with contextlib.suppress(OSError):  # a platform without that option
            sock.setsockopt(level, name, value)
