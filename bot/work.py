"""Work that runs after the ack: bounded thread pools whose failures reach the error handler.

Bolt (``process_before_response=False``) runs each listener on its own executor and answers Slack
as soon as the listener calls ``ack()``. If the listener then computed the answer on that same
executor, a burst of commands would queue their *acks* behind earlier answers. So a listener only
acks and submits; the answer, the trace and the chart run here, on pools sized for the CPU, with
a bounded queue (a flood gets a polite "busy" instead of an ever-growing backlog).

An exception inside submitted work is not lost: it goes to ``on_error`` (the same function Bolt
calls as its global ``@app.error`` handler), which logs the traceback and apologises in the thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

logger = logging.getLogger(__name__)

ErrorHandler = Callable[[BaseException, dict[str, Any]], None]


class Busy(RuntimeError):
    """The pool's queue is full; the caller tells the user to try again in a moment."""


class WorkPool:
    """A ThreadPoolExecutor with a bounded backlog and error routing."""

    def __init__(self, name: str, workers: int, max_pending: int, on_error: ErrorHandler):
        self.name = name
        self.max_pending = max_pending
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=f"bot-{name}")
        self._slots = threading.BoundedSemaphore(max_pending)
        self._pending = 0
        self._lock = threading.Lock()
        self._on_error = on_error

    @property
    def pending(self) -> int:
        """Jobs submitted and not finished (running + queued)."""
        with self._lock:
            return self._pending

    def submit(self, fn: Callable[..., Any], *args: Any, where: dict[str, Any] | None = None,
               **kwargs: Any) -> Future:
        """Run ``fn(*args, **kwargs)`` on the pool. ``where`` (channel, thread_ts, lang, user)
        tells the error handler where to apologise. Raises Busy when the backlog is full."""
        if not self._slots.acquire(blocking=False):
            raise Busy(f"{self.name} pool has {self.max_pending} jobs pending")
        with self._lock:
            self._pending += 1
        context = dict(where or {})

        def run() -> Any:
            try:
                return fn(*args, **kwargs)
            except BaseException as exc:  # routed to the global error handler, never dropped
                try:
                    self._on_error(exc, context)
                except Exception:
                    logger.exception("error handler failed while handling %r", exc)
                return None
            finally:
                with self._lock:
                    self._pending -= 1
                self._slots.release()

        return self._executor.submit(run)

    def shutdown(self, wait: bool = True) -> None:
        self._executor.shutdown(wait=wait, cancel_futures=not wait)
