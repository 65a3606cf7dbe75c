"""The pilot state machine, between a launcher and the store: confirm, start, follow, cancel,
re-attach, and "could not start". Every state change of a pilot goes through these functions
(and ``PilotStore.transition``, one conditional UPDATE), so the CLI, the bot and a second bot
replica can drive one pilot without two of them confirming, starting or ending it.

    proposed --confirm--> pending --launch--> pending+handle --sync--> running --> finished
        |                    |                                            |-----> failed (oom, ...)
        +--> declined        +--> failed: could not start (the launcher refused, or the start
                                  was interrupted and never resumed: ``abandon_unstarted``)

A confirmed pilot is never left without a handle: ``launch`` records the handle or the failure,
and a start interrupted between the confirmation and the handle (a killed process) is resumed
by the job that confirmed it (``launch`` again: launchers' ``submit`` is idempotent per pilot id)
or, once ``abandon_unstarted``'s grace has passed, marked failed with the reason.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from advisor.errors import PilotError
from advisor.pilot.launchers.base import PilotStatus
from advisor.pilot.store import PilotRecord, PilotStore

LauncherFactory = Callable[[str], object]  # launcher name -> launcher
# A confirmed pilot whose start has not been recorded after this long was interrupted for good
# (the job that confirmed it is retried for a few minutes: bot/outbox.py).
START_GRACE_S = 15 * 60


def confirm(store: PilotStore, pilot_id: str, user: str | None, now: float | None = None) -> bool:
    """proposed -> pending, once (False: it was not proposed any more)."""
    return store.transition(pilot_id, ("proposed",), "pending", confirmed_by=user,
                            confirmed_at=time.time() if now is None else now)


def decline(store: PilotStore, pilot_id: str, *, message: str | None = None, notified: bool = False) -> bool:
    """proposed -> declined, once (False: it was not proposed any more). ``notified``: the
    caller says it in the proposal's own message (the bot edits it), so no final is posted."""
    fields = {"notified": 1} if notified else {}
    if message is not None:
        fields["message"] = message
    return store.transition(pilot_id, ("proposed",), "declined", reason="cancelled", **fields)


def launch(store: PilotStore, pilot_id: str, launcher, *, confirmed_by: str | None = None) -> PilotRecord:
    """Start a confirmed (or still proposed) pilot and record its handle; resumes a start that was
    interrupted (pending without a handle). Raises PilotError when it was already started or
    ended, and when the launcher refused it (the pilot is then failed: could not start)."""
    rec = store.require(pilot_id)
    if rec.state == "proposed":
        confirm(store, pilot_id, confirmed_by)
        rec = store.require(pilot_id)
    if rec.state != "pending" or rec.handle is not None:
        raise PilotError(f"Pilot {pilot_id} is already {rec.state}; it was not started again.")
    try:
        handle = launcher.submit(rec.pilot_spec)
    except Exception as exc:
        store.transition(pilot_id, ("pending",), "failed", reason="error", message=f"could not start: {exc}"[:2000])
        raise PilotError(f"Pilot {pilot_id} could not start: {exc}") from exc
    if not store.set_handle(pilot_id, handle):  # cancelled while it was being submitted
        launcher.cancel(handle)
        launcher.release(handle)
        return store.require(pilot_id)
    return store.require(pilot_id)


def abandon_unstarted(store: PilotStore, older_than_s: float = START_GRACE_S, now: float | None = None) -> list[str]:
    """Confirmed pilots whose start was interrupted and never resumed: failed, with the reason."""
    now = time.time() if now is None else now
    ended = []
    for rec in store.records(states=("pending",), limit=10_000):
        if rec.handle is None and (rec.confirmed_at or rec.created_at) < now - older_than_s:
            if store.transition(rec.id, ("pending",), "failed", reason="error",
                                message="could not start: the start was interrupted and not resumed in "
                                        f"{older_than_s / 60:.0f} minutes"):
                ended.append(rec.id)
    return ended


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
        decline(store, pilot_id, message="declined before it started")
        return store.require(pilot_id)
    if rec.terminal:
        return rec
    if rec.handle is None:
        store.transition(pilot_id, ("pending",), "failed", reason="cancelled", message="cancelled before it was submitted")
        return store.require(pilot_id)
    launcher = launcher_factory(rec.launcher)
    launcher.cancel(rec.handle)
    status = launcher.status(rec.handle)
    if status.state != "finished":  # whatever the launcher saw after a cancel (a killed process, a stopped job)
        status = status.model_copy(update={"state": "failed", "reason": "cancelled",
                                           "message": status.message if status.reason == "cancelled" else "cancelled"})
    rec = store.apply_status(pilot_id, status)
    launcher.release(rec.handle)
    return rec


def follow(store: PilotStore, pilot_id: str, launcher, *, poll_s: float = 0.2, timeout_s: float | None = None,
           on_update: Callable[[PilotRecord, PilotStatus], None] | None = None,
           on_event: Callable[[PilotRecord, object], None] | None = None) -> PilotRecord:
    """Poll until the pilot ends (or ``timeout_s``). ``on_update(rec, status)`` is called when its
    events move; ``on_event(rec, event)`` once for every event the runner wrote, in order, even
    those written between two polls (a fast pilot's progress is never skipped)."""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    seen, delivered = -1, 0
    rec = store.require(pilot_id)
    while True:
        rec, status = sync(store, rec, launcher)
        if on_event is not None and rec.handle is not None:
            for event in launcher.events(rec.handle, since=delivered):
                on_event(rec, event)
                delivered = event.seq + 1
        if status is not None and on_update is not None and (status.events != seen or status.terminal):
            seen = status.events
            on_update(rec, status)
        if rec.terminal or (deadline is not None and time.monotonic() >= deadline):
            return rec
        time.sleep(poll_s)
