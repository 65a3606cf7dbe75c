"""Progress of a long CLI command on a terminal: a spinner with the phase, and a bar of steps.

`advisor trace` spends 20-30 s building and tracing before it prints a line, `advisor pilot
run` a minute or more: on a terminal both say what they are doing. The progress goes to stderr,
and only when stderr is a terminal and the command was not asked for ``--json``: a pipe, a log
file, a test or a script reading the JSON sees nothing of it (stdout stays exactly the result).

rich (``pip install rich``, the ``progress`` extra) draws it: ``rich.progress.Progress`` with a
spinner, the phase text, a bar and the elapsed time, ``transient`` so the finished command
leaves only its result on the screen. Every phase change refreshes at once
(``Progress.update(..., refresh=True)``, rich/progress.py), so a phase shorter than rich's
auto-refresh period (10 per second) is still drawn. Without rich a plain line is rewritten in
place with a carriage return.

Tests inject a console (``use_console``): ``rich.console.Console(file=..., force_terminal=True)``
makes rich draw as on a terminal into a buffer.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from typing import Any, TextIO

_CONSOLE: Any = None  # an injected rich Console (tests), else one on stderr


@contextlib.contextmanager
def use_console(console: Any) -> Iterator[None]:
    """Draw progress on ``console`` (a rich Console) for the duration, whatever stderr is."""
    global _CONSOLE
    previous, _CONSOLE = _CONSOLE, console
    try:
        yield
    finally:
        _CONSOLE = previous


def _rich():
    """rich's Console class, or None when rich is not installed (the plain fallback)."""
    try:
        from rich.console import Console
    except ImportError:
        return None
    return Console


class Progress:
    """``phase(text)`` names what runs now; ``steps(done, total)`` moves the bar; ``note(text)``
    adds a detail (a layer count) after the phase. Does nothing when disabled."""

    def __init__(self, enabled: bool, *, console: Any = None, stream: TextIO | None = None):
        self.enabled = enabled
        self._phase, self._detail = "", ""
        self._done, self._total = 0, None
        self._bar = self._task = None
        self._stream = stream or sys.stderr
        self._started = time.perf_counter()
        self._last_plain = 0.0
        if not enabled:
            return
        console_class = _rich()
        if console is None and console_class is not None:
            console = console_class(stderr=True)
        if console is not None:
            from rich.progress import BarColumn, MofNCompleteColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(
                SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                TimeElapsedColumn(), console=console, transient=True)
            self._bar.start()
            self._task = self._bar.add_task("", total=None)

    # --- what the commands call ----------------------------------------------------------------

    def phase(self, text: str) -> None:
        self._phase, self._detail = text, ""
        self._draw(force=True)

    def note(self, text: str) -> None:
        """A detail of the phase (often many per second: drawn at most 10 times a second)."""
        self._detail = text
        self._draw(force=False)

    def steps(self, done: int, total: int | None) -> None:
        self._done, self._total = done, total
        self._draw(force=True)

    def close(self) -> None:
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
        elif self._last_plain:
            self._stream.write("\r" + " " * 79 + "\r")
            self._stream.flush()
        self.enabled = False

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- drawing -------------------------------------------------------------------------------

    def _text(self) -> str:
        return f"{self._phase}: {self._detail}" if self._detail else self._phase

    def _draw(self, *, force: bool) -> None:
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(self._task, description=self._text(), completed=self._done, total=self._total,
                             refresh=force)
            return
        now = time.perf_counter()
        if not force and now - self._last_plain < 0.1:
            return
        self._last_plain = now
        count = f" [{self._done}/{self._total}]" if self._total else ""
        line = f"  {now - self._started:5.1f} s  {self._text()}{count}"
        self._stream.write("\r" + f"{line:<79.79}")
        self._stream.flush()


def progress_for(as_json: bool) -> Progress:
    """The progress of a command: on the injected console, else on stderr when it is a terminal;
    disabled with ``--json`` or when stderr is not a terminal."""
    if as_json:
        return Progress(False)
    if _CONSOLE is not None:
        return Progress(True, console=_CONSOLE)
    return Progress(sys.stderr.isatty())
