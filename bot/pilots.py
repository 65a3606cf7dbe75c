"""The pilot flow in Slack: "Run pilot on <GPU>" and `/finetune pilot ...` ask for confirmation
with the estimated cost and duration; an allowed user confirms; one status message in the thread
is edited in place while the pilot runs; the end (results beside the prediction, or the failure)
is posted in the thread. A watcher thread follows every running pilot through the state database,
so a restarted bot re-attaches to them and never loses a result.

    flow = register(app, store=PilotStore(path), policy=PilotPolicy(...),
                    launcher_factory=lambda name: make_launcher(name, workdir=...), catalog=catalog)

``flow`` also satisfies ``bot.services.PilotFlow`` (``register(app)``, ``start_from_command``).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from slack_bolt import Ack
from slack_sdk import WebClient

from advisor.errors import AdvisorError, PilotError
from advisor.i18n import t
from advisor.pilot import tracking
from advisor.pilot.calibration import PilotCalibration
from advisor.pilot.predict import predict
from advisor.pilot.spec import pilot_spec_for
from advisor.pilot.store import PilotRecord, PilotStore
from advisor.resolve import resolve_request
from advisor.spec import SpecRequest
from bot import pilots_render as render
from bot.audit import AuditLog
from bot.errors import where_from_body
from bot.listeners.submit import submit
from bot.pilots_policy import PilotPolicy, PilotSettings, start_of_day

logger = logging.getLogger(__name__)

ACTION_RUN = "run_pilot"  # value: {"spec": {SpecRequest fields}, "gpu": id, "lang": "en"|"es"}
ACTION_RUN_ANSWER = "pilot_run"  # bot/render/answer.py's button, value {"gpu", "num_gpus"}
# Slack allows about one message per second per channel (chat.postMessage rate limits; chat.update
# is Tier 3): progress edits of a channel are coalesced to at most one per this interval.
MIN_UPDATE_INTERVAL_S = 1.0
POLL_S = 0.5


class ChannelLimiter:
    """At most one write per channel per interval; progress edits skip, final messages wait."""

    def __init__(self, interval_s: float = MIN_UPDATE_INTERVAL_S):
        self.interval_s = interval_s
        self._last: dict[str, float] = {}
        self._lock = threading.Lock()

    def try_acquire(self, channel: str) -> bool:
        with self._lock:
            now = time.monotonic()
            if now - self._last.get(channel, -1e9) < self.interval_s:
                return False
            self._last[channel] = now
            return True

    def acquire(self, channel: str) -> None:
        while not self.try_acquire(channel):
            time.sleep(0.05)


def _acked() -> None:
    """The ack a deferred handler receives: Slack was already answered."""


class PilotFlow:
    def __init__(self, *, store: PilotStore, policy: PilotPolicy, launcher_factory: Callable[[str], Any],
                 catalog, steps: int = 10, launcher: str = "local", poll_s: float = POLL_S,
                 min_update_interval_s: float = MIN_UPDATE_INTERVAL_S, audit: AuditLog | None = None):
        self.store, self.policy, self.catalog = store, policy, catalog
        self.audit = audit  # every proposal, start and refusal (bot.audit), when given
        self.steps, self.launcher_name, self.poll_s = steps, launcher, poll_s
        self._factory, self._launchers = launcher_factory, {}
        self.limiter = ChannelLimiter(min_update_interval_s)
        self.calibration = PilotCalibration(store)
        self.client: WebClient | None = None
        self._seen: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _record(self, action: str, user: str, outcome: str, target: str | None = None, **detail: Any) -> None:
        if self.audit is not None:
            self.audit.record(actor=user, action=action, outcome=outcome, target=target, detail=detail)

    def launcher(self, name: str):
        """One launcher per kind for the process (the local one keeps its child processes)."""
        if name not in self._launchers:
            self._launchers[name] = self._factory(name)
        return self._launchers[name]

    # --- wiring --------------------------------------------------------------------------------

    def register(self, app) -> None:
        self.client = app.client
        app.action(ACTION_RUN)(self._after_ack(self.on_run, with_context=True))
        app.action(ACTION_RUN_ANSWER)(self._after_ack(self.on_run, with_context=True))
        app.action(render.ACTION_CONFIRM)(self._after_ack(self.on_confirm))
        app.action(render.ACTION_DECLINE)(self._after_ack(self.on_decline))
        app.action(render.ACTION_CANCEL)(self._after_ack(self.on_cancel))
        self.start_watcher()

    @staticmethod
    def _after_ack(handler: Callable[..., None], *, with_context: bool = False) -> Callable[..., None]:
        """The HTTP response to Slack leaves when the listener returns (process_before_response),
        so acknowledge at once and make the Slack calls and the launch on the answer pool."""

        def listener(ack: Ack, body: dict[str, Any], client: WebClient, context) -> None:
            ack()
            args = (_acked, body, client, context) if with_context else (_acked, body, client)
            services = context.get("services") if hasattr(context, "get") else None
            if services is None:  # registered on a bare app (tests of the flow alone)
                handler(*args)
                return
            submit(services.answers, client, where_from_body(body), handler, *args)

        return listener

    def start_watcher(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._watch, name="pilot-watcher", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    # --- asking --------------------------------------------------------------------------------

    def on_run(self, ack: Ack, body: dict[str, Any], client: WebClient, context) -> None:
        ack()
        action = body["actions"][0]
        channel = body["container"].get("channel_id") or body["channel"]["id"]
        message_ts = body["container"].get("message_ts")
        user = body["user"]["id"]
        answers = context["services"].store if "services" in context else None
        stored = answers.answer(channel, message_ts) if answers and message_ts else None
        lang = stored.lang if stored else "en"
        try:  # not a button we rendered (an old message, a forged payload): say so, no apology
            value = json.loads(action.get("value") or "{}")
            if not isinstance(value, dict):
                raise ValueError("not a JSON object")
            request = SpecRequest(**value["spec"]) if value.get("spec") else (stored.request if stored else None)
            if request is None:
                raise ValueError("no spec")
        except (ValueError, TypeError):  # pydantic's ValidationError is a ValueError
            self._ephemeral(client, channel, user, *render.notice("pilot.bad_button", lang))
            return
        lang = value["lang"] if value.get("lang") in ("en", "es") else lang
        thread_ts = (stored.thread_ts if stored else None) or body["container"].get("thread_ts") or message_ts
        request = request.model_copy(update={"gpu": value.get("gpu") or request.gpu})
        self.propose(client, request, user=user, channel=channel, thread_ts=thread_ts, lang=lang)

    def start_from_command(self, services, client: WebClient, command: dict[str, Any], text: str, lang: str) -> None:
        """`/finetune pilot <text>`: the text is a spec ("qlora llama-3.1-8b seq 4096 on A100")."""
        answer = services.advisor.ask(text)
        lang = getattr(answer, "lang", None) or lang
        user, channel = command["user_id"], command["channel_id"]
        if getattr(answer, "request", None) is None:
            self._ephemeral(client, channel, user, *render.notice("pilot.bad_request", lang, message=answer.text))
            return
        self.propose(client, answer.request, user=user, channel=channel, thread_ts=None, lang=lang)

    def propose(self, client: WebClient, request: SpecRequest, *, user: str, channel: str,
                thread_ts: str | None, lang: str) -> PilotRecord | None:
        """Post the confirmation (cost, duration, predicted memory) or say why not."""
        if not self.policy.configured:
            self._record("pilot.propose", user, "refused", request.gpu, reason="not_configured", channel=channel)
            self._ephemeral(client, channel, user, *render.notice("pilot.not_configured", lang))
            return None
        if not self.policy.channel_allowed(channel):
            self._record("pilot.propose", user, "refused", request.gpu, reason="channel", channel=channel)
            self._ephemeral(client, channel, user, *render.notice(
                "pilot.denied_channel", lang, channels=", ".join(f"<#{c}>" for c in sorted(self.policy.channels))))
            return None
        if request.gpu is None:
            self._ephemeral(client, channel, user, *render.notice("pilot.need_gpu", lang))
            return None
        try:
            resolved = resolve_request(request, self.catalog)
            gpu = self.catalog.gpu(resolved.spec.gpu)
            if gpu.price_usd_per_hour is None:
                self._ephemeral(client, channel, user, *render.notice("pilot.no_price", lang, gpu=gpu.display_name))
                return None
            if resolved.spec.num_gpus > 1 and resolved.spec.sharding == "fsdp":
                raise PilotError("a pilot runs on one GPU and cannot reproduce FSDP sharding; ask for 1 GPU")
            pspec = pilot_spec_for(resolved, gpu, steps=self.steps)
            prediction = predict(pspec, gpu, self.calibration)
        except AdvisorError as exc:
            self._record("pilot.propose", user, "invalid", request.gpu, error=str(exc), channel=channel)
            self._ephemeral(client, channel, user, *render.notice("pilot.bad_request", lang, message=str(exc)))
            return None
        problem = self.policy.cost_problem(prediction["cost_usd"], self.store.spent_since(start_of_day()))
        if problem:
            self._record("pilot.propose", user, "refused", gpu.id, reason=problem[0], channel=channel, **problem[1])
            self._post(client, channel, thread_ts, *render.notice(problem[0], lang, **problem[1]))
            return None
        rec = self.store.create(pspec, launcher=self.launcher_name, requested_by=user, channel=channel,
                                thread_ts=thread_ts, lang=lang, prediction=prediction,
                                estimated_cost_usd=prediction["cost_usd"], estimated_duration_s=prediction["duration_s"])
        posted = self._post(client, channel, thread_ts, *render.confirmation(rec, resolved.label, lang))
        if thread_ts is None:  # a slash command: the confirmation starts the thread
            rec = self.store.update(rec.id, thread_ts=posted["ts"])
        self._record("pilot.propose", user, "ok", rec.id, gpu=gpu.id, estimated_cost_usd=prediction["cost_usd"],
                     channel=channel)
        return rec

    # --- deciding ------------------------------------------------------------------------------

    def _members(self, client: WebClient) -> Callable[[str], set[str]]:
        def members(group: str) -> set[str]:
            try:
                return set(client.usergroups_users_list(usergroup=group).get("users") or [])
            except Exception:  # a missing scope or unknown group: nobody is a member
                logger.warning("could not list members of user group %s", group, exc_info=True)
                return set()

        return members

    def _decision(self, body: dict[str, Any], client: WebClient) -> tuple[PilotRecord | None, str, str, str]:
        pilot_id = body["actions"][0]["value"]
        channel = body["container"].get("channel_id") or body["channel"]["id"]
        user = body["user"]["id"]
        rec = self.store.get(pilot_id)
        if rec is None:
            self._ephemeral(client, channel, user, *render.notice("pilot.unknown", "en", id=pilot_id))
        return rec, channel, user, body["container"].get("message_ts")

    def on_confirm(self, ack: Ack, body: dict[str, Any], client: WebClient) -> None:
        ack()
        rec, channel, user, message_ts = self._decision(body, client)
        if rec is None:
            return
        lang = rec.lang
        if not self.policy.may_confirm(user, self._members(client)):
            self._record("pilot.start", user, "refused", rec.id, reason="not_allowed", channel=channel)
            self._ephemeral(client, channel, user, *render.notice("pilot.denied", lang, who=self.policy.who_to_ask()))
            return
        if rec.state != "proposed":
            self._record("pilot.start", user, "refused", rec.id, reason="already", state=rec.state)
            self._ephemeral(client, channel, user, *render.notice("pilot.already", lang, id=rec.id, state=rec.state))
            return
        problem = self.policy.cost_problem(rec.estimated_cost_usd, self.store.spent_since(start_of_day()))
        if problem:
            self._record("pilot.start", user, "refused", rec.id, reason=problem[0], channel=channel, **problem[1])
            self._ephemeral(client, channel, user, *render.notice(problem[0], lang, **problem[1]))
            return
        if not self.store.transition(rec.id, ("proposed",), "pending", confirmed_by=user, confirmed_at=time.time()):
            self._record("pilot.start", user, "refused", rec.id, reason="already", state="confirmed")
            self._ephemeral(client, channel, user, *render.notice("pilot.already", lang, id=rec.id, state="confirmed"))
            return
        rec = self.store.require(rec.id)
        text, blocks = render.decided(rec, "pilot.confirmed", user, lang)
        client.chat_update(channel=channel, ts=message_ts, text=text, blocks=blocks)
        status = self._post(client, channel, rec.thread_ts, *render.status(rec, lang))
        self.store.update(rec.id, status_ts=status["ts"])
        try:
            tracking.launch(self.store, rec.id, self.launcher(rec.launcher), confirmed_by=user)
        except Exception as exc:
            logger.exception("pilot %s could not be started", rec.id)
            self.store.update(rec.id, state="failed", reason="error", message=f"could not start: {exc}")
            self._record("pilot.start", user, "failed", rec.id, error=str(exc)[:500])
            return
        self._record("pilot.start", user, "ok", rec.id, gpu=rec.gpu, estimated_cost_usd=rec.estimated_cost_usd,
                     channel=channel)

    def on_decline(self, ack: Ack, body: dict[str, Any], client: WebClient) -> None:
        ack()
        rec, channel, user, message_ts = self._decision(body, client)
        if rec is None:
            return
        if user != rec.requested_by and not self.policy.may_confirm(user, self._members(client)):
            self._ephemeral(client, channel, user, *render.notice("pilot.denied", rec.lang, who=self.policy.who_to_ask()))
            return
        if self.store.transition(rec.id, ("proposed",), "declined", reason="cancelled", notified=1):
            text, blocks = render.decided(rec, "pilot.declined", user, rec.lang)
            client.chat_update(channel=channel, ts=message_ts, text=text, blocks=blocks)

    def on_cancel(self, ack: Ack, body: dict[str, Any], client: WebClient) -> None:
        ack()
        rec, channel, user, _ = self._decision(body, client)
        if rec is None:
            return
        if user != rec.confirmed_by and not self.policy.may_confirm(user, self._members(client)):
            self._ephemeral(client, channel, user, *render.notice("pilot.denied", rec.lang, who=self.policy.who_to_ask()))
            return
        tracking.cancel(self.store, rec.id, self.launcher)  # the watcher posts the end

    # --- following -----------------------------------------------------------------------------

    def _watch(self) -> None:
        while not self._stop.wait(self.poll_s):
            try:
                self.tick()
            except Exception:  # the watcher must survive a Slack hiccup; the next tick retries
                logger.exception("pilot watcher tick failed")

    def tick(self) -> None:
        """One pass: sync every pilot started from Slack, edit its status, post its end."""
        for rec in self.store.unnotified():
            self._finish(rec)
        for rec in self.store.active():
            if rec.channel is None or rec.handle is None:
                continue
            rec, status = tracking.sync(self.store, rec, self.launcher(rec.launcher))
            if rec.terminal:
                self._finish(rec)
            elif status is not None and self._seen.get(rec.id) != (status.events, rec.state):
                if rec.status_ts and self.limiter.try_acquire(rec.channel):
                    self._seen[rec.id] = (status.events, rec.state)
                    text, blocks = render.status(rec, rec.lang)
                    self.client.chat_update(channel=rec.channel, ts=rec.status_ts, text=text, blocks=blocks)

    def _finish(self, rec: PilotRecord) -> None:
        if rec.status_ts:
            self.limiter.acquire(rec.channel)
            text, blocks = render.status(rec, rec.lang)
            self.client.chat_update(channel=rec.channel, ts=rec.status_ts, text=text, blocks=blocks)
        self.limiter.acquire(rec.channel)
        self._post(self.client, rec.channel, rec.thread_ts, *render.final(rec, rec.lang, self._calibration_note(rec)))
        self.store.update(rec.id, notified=1)
        self._seen.pop(rec.id, None)

    def _calibration_note(self, rec: PilotRecord) -> str | None:
        if rec.state != "finished" or not rec.pilot_spec.gpu:
            return None
        gpu = rec.pilot_spec.gpu_name or rec.pilot_spec.gpu
        if not (rec.result or {}).get("on_target_gpu"):
            return t("pilot.final.not_calibrating", rec.lang, gpu=gpu)
        self.calibration.invalidate()  # the result this note is about was just recorded
        measured = self.calibration.mfu(rec.pilot_spec.gpu, rec.pilot_spec.spec.method)
        return t("pilot.final.calibrated", rec.lang, gpu=gpu, n=measured[1] if measured else 1)

    # --- Slack ---------------------------------------------------------------------------------

    @staticmethod
    def _post(client: WebClient, channel: str, thread_ts: str | None, text: str, blocks: list) -> dict:
        return client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=text, blocks=blocks).data

    @staticmethod
    def _ephemeral(client: WebClient, channel: str, user: str, text: str, blocks: list) -> None:
        client.chat_postEphemeral(channel=channel, user=user, text=text, blocks=blocks)


def register(app, *, store: PilotStore, policy: PilotPolicy, launcher_factory: Callable[[str], Any], catalog,
             **options: Any) -> PilotFlow:
    """Register the pilot listeners on ``app`` and start following pilots (re-attach included)."""
    flow = PilotFlow(store=store, policy=policy, launcher_factory=launcher_factory, catalog=catalog, **options)
    flow.register(app)
    return flow


def flow_from_settings(settings: PilotSettings, *, state_db: str | Path, catalog) -> PilotFlow:
    """A PilotFlow from settings read once at start (``bot.settings.Settings.pilots``)."""
    from advisor.pilot.launchers import make_launcher

    return PilotFlow(store=PilotStore(state_db), policy=settings.policy, catalog=catalog, steps=settings.steps,
                     launcher=settings.launcher, audit=AuditLog(state_db),
                     launcher_factory=lambda name: make_launcher(name, workdir=settings.workdir,
                                                                 ray_address=settings.ray_address))
