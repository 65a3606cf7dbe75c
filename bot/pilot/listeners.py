"""The pilot wing's listeners: each button of the flow records its click as an outbox job (the
pilot's lane, so one pilot's clicks run in order) and acks; ``bot.pilot.flow.PilotFlow`` runs the
jobs. Plain functions with ``register(app)`` beside them (the bolt-python starter template), so
each is unit-tested with a mocked ``ack`` (tests/test_listeners.py).

    "Run pilot on <GPU>" (the answer's button, or a ``/finetune pilot`` proposal's)  -> pilot_run
    "Confirm"                                                                       -> pilot_confirm
    "Decline" on a proposal                                                         -> pilot_decline
    "Cancel" on a running pilot's status                                            -> pilot_cancel
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from slack_bolt import Ack, App

from bot.errors import where_from_body
from bot.listeners.actions.clicked import slim
from bot.listeners.record import record
from bot.pilot.render import ACTION_CANCEL, ACTION_CONFIRM, ACTION_DECLINE
from bot.render.answer import ACTION_PILOT
from bot.store import NewJob

ACTION_RUN = "run_pilot"  # value: {"spec": {SpecRequest fields}, "gpu": id, "lang": "en"|"es"}
ACTION_RUN_ANSWER = ACTION_PILOT  # bot/render/answer.py's button, value {"gpu", "num_gpus"}


def _record_click(kind: str, ack: Ack, body: dict[str, Any], context: Any, *, per_pilot: bool) -> None:
    services = context["services"]
    value = str(((body.get("actions") or [{}])[0]).get("value") or "")[:100]
    key = f"click:{body.get('trigger_id') or hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()}"
    where = where_from_body(body)
    job = NewJob(key, kind, {"body": slim(body), "where": where}, lane=f"pilot:{value}" if per_pilot else None)
    record(services, context, job, [], where)
    ack()


def on_run(ack: Ack, body: dict[str, Any], context: Any) -> None:
    _record_click("pilot_run", ack, body, context, per_pilot=False)


def on_confirm(ack: Ack, body: dict[str, Any], context: Any) -> None:
    _record_click("pilot_confirm", ack, body, context, per_pilot=True)


def on_decline(ack: Ack, body: dict[str, Any], context: Any) -> None:
    _record_click("pilot_decline", ack, body, context, per_pilot=True)


def on_cancel(ack: Ack, body: dict[str, Any], context: Any) -> None:
    _record_click("pilot_cancel", ack, body, context, per_pilot=True)


def register(app: App) -> None:
    """Before the generic click listener (bot/listeners/actions), so these win."""
    app.action(ACTION_RUN)(on_run)
    app.action(ACTION_RUN_ANSWER)(on_run)
    app.action(ACTION_CONFIRM)(on_confirm)
    app.action(ACTION_DECLINE)(on_decline)
    app.action(ACTION_CANCEL)(on_cancel)
