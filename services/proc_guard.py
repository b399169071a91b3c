"""Child processes that never outlive the command that started them.

:func:`child_guard` gives a ``preexec_fn`` for :class:`subprocess.Popen`: on Linux it
asks the kernel (``prctl(PR_SET_PDEATHSIG, SIGTERM)``) to send the child SIGTERM when
the thread that started it ends, however that happens (SIGKILL, a crash). It is a
backstop: the commands also stop their children in order on SIGINT, SIGTERM and SIGHUP
(:data:`ENDING_SIGNALS`).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys
import threading
from collections.abc import Callable
from functools import cache

PR_SET_PDEATHSIG = 1
"""``linux/prctl.h``: deliver a signal to this process when its parent thread dies."""

ENDING_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""The signals after which a command stops in order (its ``finally`` blocks run)."""


@cache
def _libc() -> ctypes.CDLL:
    # Loaded in the parent: loading a library between fork and exec could deadlock.
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def child_guard() -> Callable[[], None] | None:
    """The ``preexec_fn`` that makes a child die with this process, or None.

    None off Linux, and off the main thread: the kernel ties the signal to the *thread*
    that forks, so a worker thread ending would kill a healthy child.
    """
    if not sys.platform.startswith("linux"):
        return None
    if threading.current_thread() is not threading.main_thread():
        return None
    libc = _libc()
    parent = os.getpid()

    def die_with_parent() -> None:
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl: no signal will come
            os._exit(1)

    return die_with_parent


def on_ending_signals(
    add_handler: Callable[[int, Callable[[], object]], object], callback: Callable[[], object]
) -> None:
    """Call ``callback`` on SIGINT, SIGTERM and SIGHUP.

    ``add_handler`` is ``loop.add_signal_handler`` of the running asyncio loop (ignored
    where the platform has no such signal or handlers).
    """
    for sig in ENDING_SIGNALS:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            add_handler(sig, callback)
