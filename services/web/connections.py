"""The web face's HTTP/1.1 connections, bounded (issue 30, items 1 and 2).

uvicorn's httptools protocol keeps a request's line and headers in Python without a
limit and closes no connection that has not finished its first request. This subclass
keeps httptools' parser and adds: the request line and headers together at most
``MAX_HEAD_BYTES`` and ``MAX_HEADERS`` fields (over: ``431`` and the connection closed);
a request's headers complete within ``HEADER_TIMEOUT_S`` of the connection opening (or
of the request's first byte on a kept-alive connection; over: ``408`` and closed); at
most ``MAX_CONNECTIONS_PER_ADDRESS`` open per client address (beyond: closed at once). An
open stream (SSE or a WebSocket) has a complete request and is never cut by this.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

MAX_HEAD_BYTES = 32 * 1024
"""Bytes of request line plus headers (as nginx's 4 x 8 KiB buffers; the face's own
requests need well under 4 KiB). One socket read may go past it before the refusal."""
MAX_HEADERS = 100
"""Header fields per request (as Python's http.client)."""
HEADER_TIMEOUT_S = 5.0
"""Seconds a connection may take to send a request's headers."""
MAX_CONNECTIONS_PER_ADDRESS = 256
"""Open web connections (streams and WebSockets included) per client address (an IPv6
client per /64), far below the gateway's 20,000 file descriptors; beyond it a new
connection is closed at once, nothing read or kept."""


def address_key(host: str | None) -> str:
    """The client an address stands for: itself, or its /64 for IPv6 (one host's share)."""
    if not host:
        return ""
    if ":" in host:
        return ":".join(host.split(":")[:4])
    return host


class _Refused(Exception):
    """A parser callback found the request's head over a bound."""


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the bounds above (class attributes, settable
    per server by :func:`bounded_protocol`)."""

    max_head_bytes = MAX_HEAD_BYTES
    max_headers = MAX_HEADERS
    header_timeout_s = HEADER_TIMEOUT_S
    max_per_address = MAX_CONNECTIONS_PER_ADDRESS
    open_per_address: dict[str, int] = {}
    """Per server (:func:`bounded_protocol` gives each its own)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_bytes = 0
        self._head_count = 0
        self._in_head = False
        self._head_timer: asyncio.TimerHandle | None = None
        self._closed_by_us = False
        self._address: str | None = None
        self._refused_at_open = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        peer = transport.get_extra_info("peername")
        key = address_key(peer[0] if isinstance(peer, tuple) and peer else None)
        if self.open_per_address.get(key, 0) >= self.max_per_address:
            self.transport = transport
            self._closed_by_us = self._refused_at_open = True
            transport.close()  # nothing written, nothing read: the descriptor goes now
            return
        self._address = key
        self.open_per_address[key] = self.open_per_address.get(key, 0) + 1
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._release()
        if self._refused_at_open:  # uvicorn never saw it
            return
        super().connection_lost(exc)

    def _release(self) -> None:
        """Give the address's slot back (once)."""
        key, self._address = self._address, None
        if key is None:
            return
        left = self.open_per_address.get(key, 1) - 1
        if left > 0:
            self.open_per_address[key] = left
        else:
            self.open_per_address.pop(key, None)

    def handle_websocket_upgrade(self) -> None:
        """The WebSocket protocol takes the transport (and this one is never told it is
        lost): the slot goes back when the WebSocket's connection is lost."""
        super().handle_websocket_upgrade()
        socket_protocol = self.transport.get_protocol()
        lost = socket_protocol.connection_lost

        def release_then(exc: Exception | None) -> None:
            self._release()
            lost(exc)

        setattr(socket_protocol, "connection_lost", release_then)  # noqa: B010

    def _arm(self) -> None:
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(self.header_timeout_s, self._too_slow)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _too_slow(self) -> None:
        self._head_timer = None
        self._refuse(408, "the request's headers did not arrive in time")

    def _refuse(self, status: int, reason: str) -> None:
        """Answer ``status`` (when no response is under way) and close; nothing kept."""
        if self._closed_by_us or self.transport.is_closing():
            return
        self._closed_by_us = True
        if self.cycle is None or self.cycle.response_complete:
            body = reason.encode("ascii")
            self.transport.write(
                b"HTTP/1.1 %d %s\r\ncontent-type: text/plain; charset=utf-8\r\n"
                b"content-length: %d\r\nconnection: close\r\n\r\n%s"
                % (
                    status,
                    b"Request Timeout" if status == 408 else b"Request Header Fields Too Large",
                    len(body),
                    body,
                )
            )
        self.headers = []
        self.url = b""
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self._closed_by_us:
            return
        was_in_head = self._in_head
        try:
            self._unset_keepalive_if_required()
            self.parser.feed_data(data)
        except httptools.HttpParserError as error:  # uvicorn's 400, or ours: 431
            if isinstance(error.__context__, _Refused):
                self._refuse(431, "the request line and headers are too large")
                return
            self.send_400_response("Invalid HTTP request received.")
            return
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
            return
        if was_in_head and self._in_head:
            # The whole read was head: httptools holds an unfinished header in Python.
            self._head_bytes += len(data)
            if self._head_bytes > self.max_head_bytes:
                self._refuse(431, "the request line and headers are too large")

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head_bytes = 0
        self._head_count = 0
        self._in_head = True
        self._arm()

    def on_url(self, url: bytes) -> None:
        self._count(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._head_count += 1
        if self._head_count > self.max_headers:
            raise _Refused
        self._count(len(name) + len(value) + 4)
        super().on_header(name, value)

    def _count(self, size: int) -> None:
        self._head_bytes += size
        if self._head_bytes > self.max_head_bytes:
            raise _Refused

    def on_headers_complete(self) -> None:
        self._in_head = False
        self._disarm()
        super().on_headers_complete()


def bounded_protocol(
    max_head_bytes: int = MAX_HEAD_BYTES,
    max_headers: int = MAX_HEADERS,
    header_timeout_s: float = HEADER_TIMEOUT_S,
    max_per_address: int = MAX_CONNECTIONS_PER_ADDRESS,
) -> type[BoundedHttpToolsProtocol]:
    """The protocol class for one server's settings (uvicorn's ``http=``)."""
    return type(
        "BoundedHttpToolsProtocol",
        (BoundedHttpToolsProtocol,),
        {
            "max_head_bytes": max_head_bytes,
            "max_headers": max_headers,
            "header_timeout_s": header_timeout_s,
            "max_per_address": max_per_address,
            "open_per_address": {},
        },
    )
