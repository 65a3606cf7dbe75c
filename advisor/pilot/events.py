"""The runner's event stream: one JSON object per line, appended to a file the launcher reads.

    started   the model is about to be built: device, versions, the spec
    progress  every few steps (at most one per ``progress_every_s``): step, phase, live figures
    finished  the result object (the same one ``advisor pilot run --json`` prints)
    failed    reason (oom, cancelled, timed_out, error, missing_extra; launchers add killed,
              node_lost, pending_timeout), a message a person can act on, and what was measured
              before it stopped

A line is written with one ``os.write`` on a file opened with O_APPEND, so a reader never sees
half an event except the line being written; ``read_events`` leaves an unterminated last line for
the next read.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

EventType = Literal["started", "progress", "finished", "failed"]
TERMINAL: tuple[str, ...] = ("finished", "failed")
FailureReason = Literal[
    "oom", "cancelled", "timed_out", "error", "missing_extra", "killed", "node_lost", "pending_timeout"
]


class Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    type: EventType
    pilot_id: str
    seq: int
    at: float
    data: dict[str, Any] = {}

    @property
    def terminal(self) -> bool:
        return self.type in TERMINAL


class EventWriter:
    """Appends events to ``path``; numbering continues where an existing file left off."""

    def __init__(self, path: str | Path, pilot_id: str):
        self.path = Path(path)
        self.pilot_id = pilot_id
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._seq = len(read_events(self.path)[0])

    def emit(self, type_: EventType, **data: Any) -> Event:
        event = Event(type=type_, pilot_id=self.pilot_id, seq=self._seq, at=time.time(), data=data)
        line = (event.model_dump_json() + "\n").encode()
        os.write(self._fd, line)
        self._seq += 1
        return event

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> "EventWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_events(path: str | Path, offset: int = 0) -> tuple[list[Event], int]:
    """Complete events from byte ``offset`` on, and the offset after the last complete line."""
    p = Path(path)
    if not p.exists():
        return [], offset
    with p.open("rb") as fh:
        fh.seek(offset)
        chunk = fh.read()
    end = chunk.rfind(b"\n") + 1
    events = []
    for raw in chunk[:end].splitlines():
        if raw.strip():
            events.append(Event.model_validate(json.loads(raw)))
    return events, offset + end
