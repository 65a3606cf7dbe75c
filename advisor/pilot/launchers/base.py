"""The launcher interface: where a pilot runs is the launcher's business, what it reports is not.

    submit(spec) -> PilotHandle     start (or queue) the pilot; returns at once
    status(handle) -> PilotStatus   pending | running | finished | failed (with reason)
    events(handle, since) -> [Event] the runner's events with seq >= since
    cancel(handle)                  stop it; the pilot ends as failed/cancelled
    release(handle)                 free what the launcher keeps once the result is stored

A handle is plain JSON (pilot id, launcher name, and a launcher-specific ``ref``: a process id and
event file, or a Ray job's submission id), so it can be stored and used again by a new process
after a bot restart: that is how pilots are re-attached. ``submit`` is idempotent per pilot id:
submitting a pilot that was already submitted returns the handle of what runs for it.
"""

from __future__ import annotations

import time
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from advisor.pilot.events import Event, FailureReason
from advisor.pilot.spec import PilotSpec

State = Literal["pending", "running", "finished", "failed"]


class PilotHandle(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    pilot_id: str
    launcher: Literal["local", "ray"]
    submitted_at: float
    ref: dict[str, Any]


class PilotStatus(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    state: State
    reason: FailureReason | None = None
    message: str | None = None
    last_progress: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    events: int = 0

    @property
    def terminal(self) -> bool:
        return self.state in ("finished", "failed")


@runtime_checkable
class Launcher(Protocol):
    name: str

    def submit(self, spec: PilotSpec) -> PilotHandle: ...

    def status(self, handle: PilotHandle) -> PilotStatus: ...

    def events(self, handle: PilotHandle, since: int = 0) -> list[Event]: ...

    def cancel(self, handle: PilotHandle) -> None: ...

    def release(self, handle: PilotHandle) -> None: ...


def wait_until_terminal(launcher: Launcher, handle: PilotHandle, timeout_s: float, poll_s: float) -> PilotStatus:
    """Poll ``launcher.status`` every ``poll_s`` until the pilot ends or ``timeout_s`` passes
    (then its current status): every launcher's ``wait``."""
    deadline = time.monotonic() + timeout_s
    while True:
        st = launcher.status(handle)
        if st.terminal or time.monotonic() >= deadline:
            return st
        time.sleep(poll_s)


def status_from_events(events: list[Event]) -> PilotStatus | None:
    """The status the events alone prove (None when they prove nothing yet)."""
    if not events:
        return None
    progress = next((e.data for e in reversed(events) if e.type == "progress"), None)
    terminal = next((e for e in events if e.terminal), None)
    if terminal is not None and terminal.type == "finished":
        return PilotStatus(state="finished", result=terminal.data.get("result"),
                           last_progress=progress, events=len(events))
    if terminal is not None:
        return PilotStatus(state="failed", reason=terminal.data.get("reason", "error"),
                           message=terminal.data.get("message"), result=terminal.data.get("result"),
                           last_progress=progress, events=len(events))
    return PilotStatus(state="running", last_progress=progress, events=len(events))
