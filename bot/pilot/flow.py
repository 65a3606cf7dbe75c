"""The pilot flow in Slack: "Run pilot on <GPU>" and `/finetune pilot ...` ask for confirmation
with the estimated cost and duration; an allowed user confirms; one status message in the thread
is edited in place while the pilot runs; the end (results beside the prediction, or the failure)
is posted in the thread, once.

Every click is an outbox job (bot/outbox.py), recorded before the ack; jobs of one pilot run one
at a time (lane ``pilot:<id>``). State changes belong to ``advisor.pilot.tracking``: a confirmed
pilot is started *before* any Slack call, so a rate-limited or failed ``chat.update`` can delay
the messages (the job is retried) but never leaves a confirmed pilot without a handle; a start
interrupted by a crash is resumed by the retried job (launchers' ``submit`` is idempotent), or
failed as "could not start" by the watcher after ``tracking.START_GRACE_S``.

A watcher thread follows every running pilot through the state database. It runs in every bot
process but acts only in the one holding the ``pilot-watcher`` lease (bot/store.py ``hold``), so
two replicas never both edit a status or post an end. The end is a ``pilot_final`` job keyed by
the pilot id and posted with an idempotency key (bot/delivery.py), ``notified`` recorded in the
same transaction: a crash during the final post never gives two finals.

The wing: this module (the flow: its jobs and the watcher), bot/pilot/listeners.py (the buttons),
bot/pilot/policy.py (who, where, how much), bot/pilot/render.py (the messages). Every state
change goes through advisor.pilot.tracking.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


from advisor.errors import AdvisorError, PilotError
from advisor.i18n import t
from advisor.pilot import tracking
from advisor.pilot.calibration import PilotCalibration
from advisor.pilot.plan import PilotPlan, pilot_plan, plan_json
from advisor.pilot.predict import predict
from advisor.pilot.spec import pilot_spec_for
from advisor.pilot.store import PilotRecord, PilotStore
from advisor.resolve import resolve_request
from advisor.spec import SpecRequest
from advisor.statedb import Tx
from bot.payload import place
from bot.pilot import render
from bot.audit import AuditLog
from bot.delivery import post_once
from bot.pilot.policy import PilotPolicy, PilotSettings, start_of_day
from bot.store import Job, NewJob, StateStore

logger = logging.getLogger(__name__)

# Slack allows about one message per second per channel (chat.postMessage rate limits; chat.update
# is Tier 3): progress edits of a channel are coalesced to at most one per this interval.
MIN_UPDATE_INTERVAL_S = 1.0
POLL_S = 0.5
WATCHER_LEASE = "pilot-watcher"
# The watcher lease: renewed every tick; a replica that stops ticking hands it over this late.
WATCHER_LEASE_S = 15.0


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


def _planned(value: dict[str, Any], data: dict[str, Any], gpu: str | None
             ) -> tuple[int | None, str | None, dict[str, Any]]:
    """The GPU count and sharding of the answer's plan on ``gpu``: the stored answer's option for
    that GPU (advisor.answer_model.Option: ``num_gpus``, ``sharding``), else the button's count;
    and what of the plan one card runs (schema 3 ``Option.plan``: its per-GPU micro-batch and
    accumulation, which keep the global batch on the plan's count, and the levers it applies)."""
    for option in data.get("options") or []:
        if option.get("gpu") == gpu and option.get("num_gpus"):
            return int(option["num_gpus"]), option.get("sharding"), _plan_fields(option.get("plan"))
    n = value.get("num_gpus")
    return (int(n) if isinstance(n, int) and 0 < n <= 4096 else None), None, {}


def _plan_fields(plan: dict[str, Any] | None) -> dict[str, Any]:
    """A stored plan's per-GPU batch, sequence length and changes as request fields (its count and
    sharding are pilot_plan's); {} for an answer stored before plans (schema 1-2) or a bad one."""
    if not plan:
        return {}
    from advisor.answer_model import Plan
    from advisor.recommend import plan_update

    try:
        update = plan_update(Plan.model_validate(plan))
    except ValueError:
        logger.warning("stored plan not readable, the pilot runs the request as asked", exc_info=True)
        return {}
    return {k: v for k, v in update.items() if k not in ("num_gpus", "sharding", "gpu")}


def pilot_id_for(job_key: str) -> str:
    """The pilot a proposal job makes: the same id however often the job runs (a retried job
    never proposes a second pilot)."""
    return "p-" + hashlib.sha256(job_key.encode()).hexdigest()[:10]


class PilotFlow:
    def __init__(self, *, store: PilotStore, policy: PilotPolicy, launcher_factory: Callable[[str], Any],
                 catalog, steps: int = 10, launcher: str = "local", poll_s: float = POLL_S,
                 min_update_interval_s: float = MIN_UPDATE_INTERVAL_S, audit: AuditLog | None = None):
        self.store, self.policy, self.catalog = store, policy, catalog
        self.audit = audit  # every proposal, start and refusal (bot.audit), when given
        self.steps, self.launcher_name, self.poll_s = steps, launcher, poll_s
        self._factory, self._launchers = launcher_factory, {}
        self._launchers_lock = threading.Lock()
        self.limiter = ChannelLimiter(min_update_interval_s)
        self.calibration = PilotCalibration(store)
        self.services = None  # bot.services.Services, attached by bot.app.build_app
        self._seen: dict[str, tuple] = {}
        self._owner = f"pilot-flow:{id(self)}:{time.time():.0f}"  # replaced by the process's worker id
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # --- wiring --------------------------------------------------------------------------------

    def attach(self, services) -> None:
        self.services = services

    @property
    def client(self):
        return self.services.client

    @property
    def bot_store(self) -> StateStore:
        return self.services.store

    def _record(self, action: str, user: str, outcome: str, target: str | None = None, **detail: Any) -> None:
        if self.audit is not None:
            self.audit.record(actor=user, action=action, outcome=outcome, target=target, detail=detail)

    def launcher(self, name: str):
        """One launcher per kind for the process (the local one keeps its child processes)."""
        with self._launchers_lock:
            if name not in self._launchers:
                self._launchers[name] = self._factory(name)
            return self._launchers[name]

    def register(self, app) -> None:
        from bot.pilot import listeners

        listeners.register(app)

    def handlers(self) -> dict[str, Callable[[Job], None]]:
        return {"pilot_run": self.on_run, "pilot_confirm": self.on_confirm, "pilot_decline": self.on_decline,
                "pilot_cancel": self.on_cancel, "pilot_command": self.on_command, "pilot_final": self.on_final}

    def start_watcher(self, owner: str) -> None:
        if self._thread is None:
            self._owner = owner
            self._thread = threading.Thread(target=self._watch, name="pilot-watcher", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    # --- asking --------------------------------------------------------------------------------

    def on_run(self, job: Job) -> None:
        body = job.payload["body"]
        action = body["actions"][0]
        at = place(body)
        channel, message_ts, user = at.channel, at.message_ts, at.user
        stored = self.bot_store.answer(channel, message_ts) if message_ts else None
        lang = stored.lang if stored else "en"
        try:  # not a button we rendered (an old message, a forged payload): say so, no apology
            value = json.loads(action.get("value") or "{}")
            if not isinstance(value, dict):
                raise ValueError("not a JSON object")
            request = SpecRequest(**value["spec"]) if value.get("spec") else (stored.request if stored else None)
            if request is None:
                raise ValueError("no spec")
        except (ValueError, TypeError):  # pydantic's ValidationError is a ValueError
            self._ephemeral(channel, user, *render.notice("pilot.bad_button", lang))
            return
        lang = value["lang"] if value.get("lang") in ("en", "es") else lang
        thread_ts = (stored.thread_ts if stored else None) or at.thread_ts
        request = request.model_copy(update={"gpu": value.get("gpu") or request.gpu})
        num_gpus, sharding, fields = _planned(value, stored.data if stored else {}, request.gpu)
        request = request.model_copy(update=fields)  # what one card of the plan runs
        self.propose(job, request, user=user, channel=channel, thread_ts=thread_ts, lang=lang,
                     plan=pilot_plan(request, num_gpus, sharding))

    def on_command(self, job: Job) -> None:
        """`/finetune pilot <text>`: the text is a spec ("qlora llama-3.1-8b seq 4096 on A100")."""
        command, text = job.payload["command"], job.payload["text"]
        answer = self.services.advisor.ask(text)
        lang = getattr(answer, "lang", None) or job.payload["lang"]
        user, channel = command["user_id"], command["channel_id"]
        if getattr(answer, "request", None) is None:
            self._ephemeral(channel, user, *render.notice("pilot.bad_request", lang, message=answer.text))
            return
        self.propose(job, answer.request, user=user, channel=channel, thread_ts=None, lang=lang)

    def propose(self, job: Job, request: SpecRequest, *, user: str, channel: str, thread_ts: str | None,
                lang: str, plan: PilotPlan | None = None) -> PilotRecord | None:
        """Post the confirmation (cost, duration, predicted memory) once, or say why not. ``plan``:
        the answer's plan (its GPU count and sharding) the pilot stands for (advisor.pilot.plan):
        the pilot runs what one card can of it and the confirmation says what that measures."""
        if not self.policy.configured:
            self._record("pilot.propose", user, "refused", request.gpu, reason="not_configured", channel=channel)
            self._ephemeral(channel, user, *render.notice("pilot.not_configured", lang))
            return None
        if not self.policy.channel_allowed(channel):
            self._record("pilot.propose", user, "refused", request.gpu, reason="channel", channel=channel)
            self._ephemeral(channel, user, *render.notice(
                "pilot.denied_channel", lang, channels=", ".join(f"<#{c}>" for c in sorted(self.policy.channels))))
            return None
        if request.gpu is None:
            self._ephemeral(channel, user, *render.notice("pilot.need_gpu", lang))
            return None
        pilot_id = pilot_id_for(job.key)
        rec = self.store.get(pilot_id)
        if rec is None:
            plan = plan or pilot_plan(request, request.num_gpus, request.sharding)
            try:
                resolved = resolve_request(plan.request, self.catalog)
                gpu = self.catalog.gpu(resolved.spec.gpu)
                if gpu.price_usd_per_hour is None:
                    self._ephemeral(channel, user, *render.notice("pilot.no_price", lang, gpu=gpu.display_name))
                    return None
                pspec = pilot_spec_for(resolved, gpu, steps=self.steps, pilot_id=pilot_id)
                prediction = predict(pspec, gpu, self.calibration)
                prediction["plan"] = plan_json(plan, request, self.catalog)
            except AdvisorError as exc:
                self._record("pilot.propose", user, "invalid", request.gpu, error=str(exc), channel=channel)
                self._ephemeral(channel, user, *render.notice("pilot.bad_request", lang, message=str(exc)))
                return None
            problem = self.policy.cost_problem(prediction["cost_usd"], self.store.spent_since(start_of_day()), lang)
            if problem:
                self._record("pilot.propose", user, "refused", gpu.id, reason=problem[0], channel=channel, **problem[1])
                self._post(f"{job.key}#refused", channel, thread_ts, *render.notice(problem[0], lang, **problem[1]),
                           job=job)
                return None
            rec = self.store.create(pspec, launcher=self.launcher_name, requested_by=user, channel=channel,
                                    thread_ts=thread_ts, lang=lang, prediction=prediction,
                                    estimated_cost_usd=prediction["cost_usd"],
                                    estimated_duration_s=prediction["duration_s"])
            self._record("pilot.propose", user, "ok", rec.id, gpu=gpu.id, estimated_cost_usd=prediction["cost_usd"],
                         channel=channel)
            label = resolved.label
        else:
            label = rec.pilot_spec.model_id or rec.pilot_spec.hub_id or "model"

        def on_posted(tx: Tx, ts: str) -> None:
            if thread_ts is None:  # a slash command: the confirmation starts the thread
                self.store.update(rec.id, tx=tx, thread_ts=ts)
            self.bot_store.finish(job, {"pilot": rec.id, "ts": ts}, tx)

        self._post(f"{job.key}#confirm", channel, thread_ts, *render.confirmation(rec, label, lang), job=job,
                   on_posted=on_posted)
        return self.store.require(rec.id)

    # --- deciding ------------------------------------------------------------------------------

    def _members(self) -> Callable[[str], set[str]]:
        def members(group: str) -> set[str]:
            try:
                return set(self.client.usergroups_users_list(usergroup=group).get("users") or [])
            except Exception:  # a missing scope or unknown group: nobody is a member
                logger.warning("could not list members of user group %s", group, exc_info=True)
                return set()

        return members

    def _decision(self, job: Job) -> tuple[PilotRecord | None, str, str, str | None]:
        body = job.payload["body"]
        at = place(body)
        pilot_id = str(body["actions"][0].get("value") or "")
        rec = self.store.get(pilot_id) if pilot_id else None
        if rec is None:
            self._ephemeral(at.channel, at.user, *render.notice("pilot.unknown", "en", id=pilot_id))
        return rec, at.channel, at.user, at.message_ts

    def on_confirm(self, job: Job) -> None:
        rec, channel, user, message_ts = self._decision(job)
        if rec is None:
            return
        lang = rec.lang
        # A retried confirm job (a Slack call failed after the confirmation, or its process died)
        # goes on from where the pilot is: it never refuses its own confirmation as "already".
        resumed = job.attempts > 1 and rec.state not in ("proposed", "declined") and rec.confirmed_by == user
        if not resumed:
            if not self.policy.may_confirm(user, self._members()):
                self._record("pilot.start", user, "refused", rec.id, reason="not_allowed", channel=channel)
                self._ephemeral(channel, user, *render.notice("pilot.denied", lang, who=self.policy.who_to_ask()))
                return
            if rec.state != "proposed":
                self._record("pilot.start", user, "refused", rec.id, reason="already", state=rec.state)
                self._ephemeral(channel, user, *render.notice("pilot.already", lang, id=rec.id, state=rec.state))
                return
            problem = self.policy.cost_problem(rec.estimated_cost_usd, self.store.spent_since(start_of_day()), lang)
            if problem:
                self._record("pilot.start", user, "refused", rec.id, reason=problem[0], channel=channel, **problem[1])
                self._ephemeral(channel, user, *render.notice(problem[0], lang, **problem[1]))
                return
            if not tracking.confirm(self.store, rec.id, user):
                self._record("pilot.start", user, "refused", rec.id, reason="already", state="confirmed")
                self._ephemeral(channel, user, *render.notice("pilot.already", lang, id=rec.id, state="confirmed"))
                return
        rec = self.store.require(rec.id)
        if rec.state == "pending" and rec.handle is None:
            # Start first: whatever Slack does next, the pilot has a handle or a failure.
            try:
                tracking.launch(self.store, rec.id, self.launcher(rec.launcher), confirmed_by=user)
                self._record("pilot.start", user, "ok", rec.id, gpu=rec.gpu, estimated_cost_usd=rec.estimated_cost_usd,
                             channel=channel)
            except PilotError as exc:
                logger.warning("pilot %s could not be started: %s", rec.id, exc)
                self._record("pilot.start", user, "failed", rec.id, error=str(exc)[:500])
        rec = self.store.require(rec.id)
        text, blocks = render.decided(rec, "pilot.confirmed", user, lang)
        if message_ts:
            self.client.chat_update(channel=channel, ts=message_ts, text=text, blocks=blocks)

        def on_posted(tx: Tx, ts: str) -> None:
            self.store.update(rec.id, tx=tx, status_ts=ts)
            self.bot_store.finish(job, {"pilot": rec.id, "status_ts": ts}, tx)

        if not rec.terminal or rec.status_ts is None:
            self._post(f"pilot:{rec.id}#status", channel, rec.thread_ts, *render.status(rec, lang), job=job,
                       on_posted=on_posted)

    def on_decline(self, job: Job) -> None:
        rec, channel, user, message_ts = self._decision(job)
        if rec is None:
            return
        if user != rec.requested_by and not self.policy.may_confirm(user, self._members()):
            self._ephemeral(channel, user, *render.notice("pilot.denied", rec.lang, who=self.policy.who_to_ask()))
            return
        moved = tracking.decline(self.store, rec.id, notified=True)
        if (moved or (job.attempts > 1 and self.store.require(rec.id).state == "declined")) and message_ts:
            text, blocks = render.decided(rec, "pilot.declined", user, rec.lang)
            self.client.chat_update(channel=channel, ts=message_ts, text=text, blocks=blocks)

    def on_cancel(self, job: Job) -> None:
        rec, channel, user, _ = self._decision(job)
        if rec is None:
            return
        if user != rec.confirmed_by and not self.policy.may_confirm(user, self._members()):
            self._ephemeral(channel, user, *render.notice("pilot.denied", rec.lang, who=self.policy.who_to_ask()))
            return
        tracking.cancel(self.store, rec.id, self.launcher)  # the watcher posts the end

    # --- following -----------------------------------------------------------------------------

    def _watch(self) -> None:
        while not self._stop.wait(self.poll_s):
            try:
                self.tick()
            except Exception:  # the watcher must survive a Slack or database hiccup; the next tick retries
                logger.exception("pilot watcher tick failed")

    def tick(self) -> None:
        """One pass, in the process holding the watcher lease: resume or fail interrupted starts,
        sync every pilot started from Slack, edit its status, queue its end."""
        if not self.bot_store.hold(WATCHER_LEASE, self._owner, WATCHER_LEASE_S):
            return
        for pilot_id in tracking.abandon_unstarted(self.store):
            logger.warning("pilot %s: its start was interrupted and not resumed; marked failed", pilot_id)
        for rec in self.store.unnotified():
            self._queue_final(rec)
        for rec in self.store.active():
            if rec.channel is None or rec.handle is None:
                continue
            rec, status = tracking.sync(self.store, rec, self.launcher(rec.launcher))
            if rec.terminal:
                self._queue_final(rec)
            elif status is not None and self._seen.get(rec.id) != (status.events, rec.state):
                if rec.status_ts and self.limiter.try_acquire(rec.channel):
                    self._seen[rec.id] = (status.events, rec.state)
                    text, blocks = render.status(rec, rec.lang)
                    try:
                        self.client.chat_update(channel=rec.channel, ts=rec.status_ts, text=text, blocks=blocks)
                    except Exception:  # a progress edit is skipped; the next one (or the end) follows
                        logger.warning("could not edit the status of pilot %s", rec.id, exc_info=True)

    def _queue_final(self, rec: PilotRecord) -> None:
        if self.bot_store.add_job(NewJob(f"pilot-final:{rec.id}", "pilot_final", {
                "pilot_id": rec.id, "where": {"channel": rec.channel, "thread_ts": rec.thread_ts, "lang": rec.lang}},
                lane=f"pilot:{rec.id}")):
            self.services.wake()
        self._seen.pop(rec.id, None)

    def on_final(self, job: Job) -> None:
        """The end in the thread, once: the status edited one last time, then the final message,
        ``notified`` recorded in the transaction of its delivery."""
        rec = self.store.require(job.payload["pilot_id"])
        if rec.notified:
            return
        if rec.status_ts:
            self.limiter.acquire(rec.channel)
            text, blocks = render.status(rec, rec.lang)
            self.client.chat_update(channel=rec.channel, ts=rec.status_ts, text=text, blocks=blocks)
        self.limiter.acquire(rec.channel)

        def on_posted(tx: Tx, ts: str) -> None:
            self.store.update(rec.id, tx=tx, notified=1)
            self.bot_store.finish(job, {"final_ts": ts}, tx)
            from bot.pilot.recalibrate import queue_after_final  # the thread's re-estimate (#16 item 8)
            queue_after_final(self.bot_store, rec, tx)

        self._post(f"pilot-final:{rec.id}#final", rec.channel, rec.thread_ts,
                   *render.final(rec, rec.lang, self._calibration_note(rec)), job=job, on_posted=on_posted)

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

    def _post(self, key: str, channel: str, thread_ts: str | None, text: str, blocks: list, *, job: Job,
              on_posted: Callable[[Tx, str], None] | None = None) -> str:
        return post_once(self.bot_store, self.client, key, channel=channel, thread_ts=thread_ts, text=text,
                         blocks=blocks, job_id=job.id, on_posted=on_posted)

    def _ephemeral(self, channel: str, user: str, text: str, blocks: list) -> None:
        self.client.chat_postEphemeral(channel=channel, user=user, text=text, blocks=blocks)


def flow_from_settings(settings: PilotSettings, *, state: str | Path, catalog, env: dict[str, str],
                       env_deny: tuple[str, ...]) -> PilotFlow:
    """A PilotFlow from settings read once at start (``bot.settings.Settings.pilots``). ``env`` is
    the runners' explicit environment (no SLACK_*, no denied names)."""
    from advisor.pilot.launchers import make_launcher

    return PilotFlow(store=PilotStore(state), policy=settings.policy, catalog=catalog, steps=settings.steps,
                     launcher=settings.launcher, audit=AuditLog(state),
                     launcher_factory=lambda name: make_launcher(name, workdir=settings.workdir, env=env,
                                                                 env_deny=env_deny, ray_address=settings.ray_address))
