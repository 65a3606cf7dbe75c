"""The Ray launcher: a pilot as a Ray job, submitted through the Ray Jobs API (``ray[default]``
extra, imported lazily; ray.job_submission.JobSubmissionClient, ray 2.60
ray/dashboard/modules/job/sdk.py ``submit_job``).

- **One submission id per pilot**, ``advisor-pilot-<pilot id>``: the handle is that id and the
  cluster's address, so a restarted bot (or another replica) finds the job again with
  ``get_job_info``; submitting a pilot twice (a start resumed after a crash) adopts the job
  already submitted instead of starting a second one.
- **Placement as Ray means it**: ``entrypoint_num_gpus=1`` and ``entrypoint_resources=
  {"accelerator_type:<label>": 0.001}``, the catalog's accelerator label (advisor/catalog/data/
  gpus.csv, ``ray_accelerator_label``). That is the resource Ray itself asks for when a task
  says ``accelerator_type=...`` (ray 2.60 ray/_common/utils.py ``resources_from_ray_options``:
  ``resources[f"accelerator_type:{accelerator_type}"] = 0.001``); nodes carry it with quantity 1,
  detected from NVML or added by the operator for labels Ray cannot detect (A100-80G, H100-SXM).
  The job's entrypoint (the driver) itself is what needs the GPU: the runner trains in it.
- **Events through the job's logs**: the entrypoint (``python -m advisor.pilot.job``) runs the
  runner and echoes each event line to stdout with a prefix; ``events``/``status`` read them
  back with ``get_job_logs``; ``logs`` returns the rest.
- **Stop**: ``cancel`` is ``stop_job`` (SIGTERM to the entrypoint, which the runner turns into a
  failed/cancelled event with what it measured).
- **Secrets stay out**: the entrypoint starts through ``python -m advisor.cli.clean_exec``, which
  execs the runner without any SLACK_* variable or denied name of the node's environment, and
  the job's ``runtime_env`` carries only what the launcher was given.

States: ``PENDING`` longer than ``pending_timeout_s`` (no node with a free GPU of that label) is
stopped and reported failed/pending_timeout; a job that is gone or whose node died is
failed/node_lost with the last progress the store kept.
"""

from __future__ import annotations

import base64
import itertools
import json
import shlex
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from advisor.errors import MissingExtra, PilotError
from advisor.pilot.events import Event
from advisor.pilot.launchers.base import PilotHandle, PilotStatus, status_from_events, wait_until_terminal
from advisor.pilot.launchers.env import DEFAULT_DENY
from advisor.pilot.spec import PilotSpec

# How long a pilot may wait for a node of its GPU type before it is reported as never started.
# Autoscaled clusters bring up a GPU node in 3-10 minutes (KubeRay / cloud VM start-up).
PENDING_TIMEOUT_S = 15 * 60
# The quantity of the accelerator-label resource a job asks for: what Ray's own accelerator_type
# option asks for (ray/_common/utils.py), so many jobs fit on one labelled node and placement is
# decided by num_gpus.
ACCELERATOR_QUANTITY = 0.001
EVENT_PREFIX = "ADVISOR_PILOT_EVENT "
# A head whose job agent is not up yet refuses submissions for a while after it starts.
SUBMIT_RETRY_S = 60.0
LOG_TAIL_CHARS = 1500


def _ray_jobs():
    try:
        from ray.job_submission import JobStatus, JobSubmissionClient
    except ImportError:
        raise MissingExtra("The Ray launcher", "ray", "ray[default]") from None
    return JobSubmissionClient, JobStatus


def submission_id(pilot_id: str) -> str:
    return f"advisor-pilot-{pilot_id}"


def parse_log(text: str) -> tuple[list[Event], str]:
    """(events echoed by the entrypoint, every other log line) of a job's logs."""
    events, other = [], []
    for line in text.splitlines():
        if line.startswith(EVENT_PREFIX):
            try:
                events.append(Event.model_validate(json.loads(line[len(EVENT_PREFIX):])))
            except ValueError:
                other.append(line)  # half a line at the end of a log being written
        else:
            other.append(line)
    return events, "\n".join(other)


class RayLauncher:
    """Submits pilots as Ray jobs to the cluster at ``address`` (the Ray dashboard, e.g.
    ``http://head:8265``, or anything ``JobSubmissionClient`` accepts; the caller passes
    RAY_ADDRESS in)."""

    name = "ray"

    def __init__(self, address: str | None, workdir: str | Path, *, pending_timeout_s: float = PENDING_TIMEOUT_S,
                 runtime_env: dict[str, Any] | None = None, env: Mapping[str, str] | None = None,
                 env_deny: Iterable[str] = DEFAULT_DENY, python: str = "python", num_cpus: float = 1):
        self.address = address
        self.workdir = str(workdir)  # on the node: where the runner writes its run directory
        self.pending_timeout_s = pending_timeout_s
        self.runtime_env = dict(runtime_env or {})
        self.env_deny = tuple(d for d in env_deny if d)
        self.python = python
        self.num_cpus = num_cpus
        self._client = None
        del env  # the job's environment is the node's (filtered by clean_exec), not this process's

    def _jobs(self):
        if self._client is None:
            if not self.address:
                raise PilotError("The Ray launcher needs a cluster address: set RAY_ADDRESS to the Ray dashboard "
                                 "(e.g. http://head:8265), where the Jobs API listens.")
            client_cls, _ = _ray_jobs()
            try:
                self._client = client_cls(self.address)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise PilotError(f"Cannot reach the Ray Jobs API at {self.address}: {exc}") from None
        return self._client

    def entrypoint(self, spec: PilotSpec) -> str:
        payload = base64.urlsafe_b64encode(spec.model_dump_json().encode()).decode()
        deny = " ".join(f"--deny {shlex.quote(d)}" for d in self.env_deny)
        return (f"{self.python} -m advisor.cli.clean_exec {deny} -- {self.python} -m advisor.pilot.job "
                f"--workdir {shlex.quote(self.workdir)} --spec-b64 {payload}")

    def submit(self, spec: PilotSpec) -> PilotHandle:
        sid = submission_id(spec.pilot_id)
        num_gpus = 1 if spec.device != "cpu" and spec.gpu is not None else 0
        resources = {f"accelerator_type:{spec.accelerator_type}": ACCELERATOR_QUANTITY} \
            if num_gpus and spec.accelerator_type else {}
        client = self._jobs()
        deadline = time.monotonic() + SUBMIT_RETRY_S
        for attempt in itertools.count():
            try:
                client.submit_job(entrypoint=self.entrypoint(spec), submission_id=sid,
                                  entrypoint_num_cpus=self.num_cpus, entrypoint_num_gpus=num_gpus,
                                  entrypoint_resources=resources or None, runtime_env=self.runtime_env or None,
                                  metadata={"pilot_id": spec.pilot_id, "gpu": spec.gpu or "", "advisor": "pilot"})
                break
            except RuntimeError as exc:
                text = str(exc)
                if "already" in text.lower():  # "Job with submission_id ... already exists": a resumed start
                    info = client.get_job_info(sid)
                    if (info.metadata or {}).get("pilot_id") != spec.pilot_id:
                        raise PilotError(f"Ray job {sid} exists but is not pilot {spec.pilot_id}") from None
                    break
                # The head answers before its job agent is up ("No available agent to submit job,
                # please try again later": ray/dashboard/modules/job/job_head.py): transient.
                if "try again later" in text and time.monotonic() < deadline:
                    time.sleep(min(5.0, 0.5 * 2 ** attempt))
                    continue
                raise PilotError(f"The Ray cluster refused pilot {spec.pilot_id}: {text[:500]}") from None
        return PilotHandle(pilot_id=spec.pilot_id, launcher="ray", submitted_at=time.time(),
                           ref={"submission_id": sid, "address": self.address, "num_gpus": num_gpus,
                                "accelerator_type": spec.accelerator_type if num_gpus else None,
                                "resources": resources})

    # --- reading -------------------------------------------------------------------------------

    def _info(self, handle: PilotHandle):
        try:
            return self._jobs().get_job_info(handle.ref["submission_id"])
        except RuntimeError as exc:
            if "does not exist" in str(exc) or "404" in str(exc) or "not found" in str(exc).lower():
                return None
            raise

    def _log(self, handle: PilotHandle) -> str:
        try:
            return self._jobs().get_job_logs(handle.ref["submission_id"])
        except RuntimeError:
            return ""

    def events(self, handle: PilotHandle, since: int = 0) -> list[Event]:
        return [e for e in parse_log(self._log(handle))[0] if e.seq >= since]

    def logs(self, handle: PilotHandle) -> str:
        """The job's log without the event lines (the runner's own output, Ray's messages)."""
        return parse_log(self._log(handle))[1]

    def status(self, handle: PilotHandle) -> PilotStatus:
        _, job_status = _ray_jobs()
        info = self._info(handle)
        if info is None:
            return PilotStatus(state="failed", reason="node_lost",
                               message="the pilot's Ray job is gone from the cluster (the cluster was restarted?)")
        events, rest = parse_log(self._log(handle))
        known = status_from_events(events)
        if known is not None and known.terminal:
            return known
        progress = known.last_progress if known else None
        state = info.status
        if state == job_status.PENDING:
            waited = time.time() - handle.submitted_at
            if waited > self.pending_timeout_s:
                self.cancel(handle)
                want = handle.ref.get("accelerator_type") or "GPU"
                return PilotStatus(state="failed", reason="pending_timeout",
                                   message=f"no node with a free {want} (num_gpus={handle.ref.get('num_gpus')}) "
                                           f"took the pilot within {self.pending_timeout_s:.0f} s")
            return PilotStatus(state="pending", message=f"waiting for a node for {waited:.0f} s")
        if state == job_status.RUNNING:
            return known or PilotStatus(state="pending", message="the job started; the runner is loading")
        tail = rest.strip()[-LOG_TAIL_CHARS:]
        note = f"; log tail: {tail}" if tail else ""
        if state == job_status.STOPPED:
            return PilotStatus(state="failed", reason="cancelled", last_progress=progress, events=len(events),
                               message="the Ray job was stopped before the runner reported" + note)
        lost = "node" in (info.message or "").lower() or "raylet" in (info.message or "").lower()
        return PilotStatus(state="failed", reason="node_lost" if lost else "killed", last_progress=progress,
                           events=len(events),
                           message=f"the Ray job ended without a result ({state}: {info.message or 'no message'})"
                                   + note)

    # --- control -------------------------------------------------------------------------------

    def cancel(self, handle: PilotHandle) -> None:
        try:
            self._jobs().stop_job(handle.ref["submission_id"])
        except RuntimeError:
            pass  # already ended, or gone

    def release(self, handle: PilotHandle) -> None:
        """Nothing to free: the job has ended; its logs stay on the cluster for the operator."""

    def wait(self, handle: PilotHandle, timeout_s: float, poll_s: float = 0.5) -> PilotStatus:
        return wait_until_terminal(self, handle, timeout_s, poll_s)
