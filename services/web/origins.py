"""Which pages may call the web face: the ``Origin`` check shared by the HTTP routes
and the Play WebSocket."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit


def origin_allowed(origin: str | None, host: str | None, allowed: Sequence[str]) -> bool:
    """May a request with this ``Origin`` header be served on ``host`` (the request's
    ``Host`` header)? Yes without an Origin (not a browser: it could send anything it
    likes anyway), for the face's own pages (the origin's host:port is ``host``), and for
    the CORS allowed origins (``*``: any). CORS only hides a reply from a page: a
    "simple" cross-site POST (no preflight) and a WebSocket still reach the server, so
    this is the check that keeps other sites' pages from acting (issue 30, item 8)."""
    if origin is None or "*" in allowed:
        return True
    normalized = origin.strip().rstrip("/").lower()
    if normalized in {entry.strip().rstrip("/").lower() for entry in allowed}:
        return True
    netloc = urlsplit(normalized).netloc
    return bool(netloc) and netloc == (host or "").strip().lower()
