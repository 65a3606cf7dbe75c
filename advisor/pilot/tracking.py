"""Between a launcher and the store: start a confirmed pilot, follow it, re-attach to it.

The CLI and the bot both drive pilots through these functions, so a pilot started by one can be
followed (or cancelled) by the other, and a restarted process picks up where the last one was.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from advisor.errors import PilotError
from advisor.pilot.launchers.base import PilotStatus
from advisor.pilot.store import PilotRecord, PilotStore

LauncherFactory = Callable[[str], Any]  # launcher name -> launcher


def launch(store: PilotStore, pilot_id: str, launcher, *, confirmed_by: str | None = None) -> PilotRecord:
    """Submit a stored pilot (state proposed or pending) and record its handle.

    Raises PilotError when it was already launched (a second Confirm click) or declined."""
    rec = store.require(pilot_id)
    if not store.transition(pilot_id, ("proposed",), "pending", confirmed_by=confirmed_by, confirmed_at=time.time()):
        rec = store.require(pilot_id)
        if rec.state != "pending" or rec.handle is not None:
            raise PilotError(f"Pilot {pilot_id} is already {rec.state}; it was not started again.")
    try:
        handle = launcher.submit(rec.pilot_spec)
    except Exception as exc:
        store.update(pilot_id, state="failed", reason="error", message=f"could not start: {exc}")
        raise
    return store.update(pilot_id, handle=handle)


def sync(store: PilotStore, rec: PilotRecord, launcher) -> tuple[PilotRecord, PilotStatus | None]:
    """Ask the launcher how the pilot is doing and record it (terminal pilots are left alone)."""
    if rec.terminal or rec.handle is None:
        return rec, None
    status = launcher.status(rec.handle)
    rec = store.apply_status(rec.id, status)
    if rec.terminal:
        launcher.release(rec.handle)
    return rec, status


def cancel(store: PilotStore, pilot_id: str, launcher_factory: LauncherFactory) -> PilotRecord:
    rec = store.require(pilot_id)
    if rec.state == "proposed":
        store.transition(pilot_id, ("proposed",), "declined", reason="cancelled", message="declined before it started")
        return store.require(pilot_id)
    if rec.terminal:
        return rec
    if rec.handle is None:
        store.update(pilot_id, state="failed", reason="cancelled", message="cancelled before it was submitted")
        return store.require(pilot_id)
    launcher = launcher_factory(rec.launcher)
    launcher.cancel(rec.handle)
    status = launcher.status(rec.handle)
    if status.state != "finished":  # whatever the launcher saw after a cancel (a killed process, a removed actor)
        status = status.model_copy(update={"state": "failed", "reason": "cancelled",
                                           "message": status.message if status.reason == "cancelled" else "cancelled"})
    rec = store.apply_status(pilot_id, status)
    launcher.release(rec.handle)
    return rec


def follow(store: PilotStore, pilot_id: str, launcher, *, poll_s: float = 0.2, timeout_s: float | None = None,
           on_update: Callable[[PilotRecord, PilotStatus], None] | None = None) -> PilotRecord:
    """Poll until the pilot ends (or ``timeout_s``), calling ``on_update`` when its events move."""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    seen = -1
    rec = store.require(pilot_id)
    while True:
        rec, status = sync(store, rec, launcher)
        if status is not None and on_update is not None and (status.events != seen or status.terminal):
            seen = status.events
            on_update(rec, status)
        if rec.terminal or (deadline is not None and time.monotonic() >= deadline):
            return rec
        time.sleep(poll_s)
