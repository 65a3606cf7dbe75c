"""The Ray launcher: a pilot as a detached actor on a Ray cluster (``ray`` extra, imported lazily).

The actor asks for ``num_gpus`` and the catalog's ``accelerator_type`` (A100-80G, H100, L40S...),
so Ray places it only on a node of the GPU type the user chose. On the node it runs the same
``python -m advisor.pilot`` subprocess the local launcher runs (through a ``LocalLauncher`` on that
node) and serves its events. Being detached and named, it outlives the process that submitted it:
a restarted bot finds it again by name (``ray.get_actor``) and reads the events it kept.

    pending          the actor is not placed yet (no free node of that type); after
                     ``pending_timeout_s`` it is removed and the pilot fails with pending_timeout
    node lost        the actor died or vanished (node failure, cluster restart): failed/node_lost,
                     with the last progress the store kept
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from advisor.errors import MissingExtra, PilotError
from advisor.pilot.events import Event
from advisor.pilot.launchers.base import PilotHandle, PilotStatus
from advisor.pilot.spec import PilotSpec

NAMESPACE = "advisor-pilots"
# How long a pilot may wait for a node of its GPU type before it is reported as never started.
# Autoscaled clusters bring up a GPU node in 3-10 minutes (KubeRay / cloud VM start-up).
PENDING_TIMEOUT_S = 15 * 60
# How long a status call waits for the actor to answer before calling it pending.
PING_TIMEOUT_S = 2.0
# A finished actor whose result nobody collected exits after this long (the bot that asked for
# it is gone for good); a bot that comes back within it still gets the result.
UNCLAIMED_RESULT_TTL_S = 24 * 3600


def _ray():
    try:
        import ray
    except ImportError:
        raise MissingExtra("The Ray launcher", "ray", "ray") from None
    return ray


def actor_name(pilot_id: str) -> str:
    return f"advisor-pilot-{pilot_id}"


class PilotAgent:
    """Runs on the GPU node (as a Ray actor): one pilot through a node-local LocalLauncher."""

    def __init__(self, workdir: str, spec_json: str, ttl_s: float = UNCLAIMED_RESULT_TTL_S):
        import socket
        import threading

        from advisor.pilot.launchers.local import LocalLauncher

        self.launcher = LocalLauncher(workdir)
        spec = PilotSpec.model_validate_json(spec_json)
        self.handle = self.launcher.submit(spec)
        self.host = socket.gethostname()
        self.ttl_s = ttl_s
        self._ended: float | None = None
        threading.Thread(target=self._reaper, daemon=True).start()

    def _reaper(self) -> None:
        import ray

        while True:
            time.sleep(30)
            st = self.launcher.status(self.handle)
            if st.terminal and self._ended is None:
                self._ended = time.time()
            if self._ended is not None and time.time() - self._ended > self.ttl_s:
                ray.actor.exit_actor()

    def info(self) -> dict[str, Any]:
        return {"host": self.host, "pid": os.getpid(), "handle": self.handle.model_dump()}

    def status(self) -> dict[str, Any]:
        return self.launcher.status(self.handle).model_dump()

    def events(self, since: int) -> list[dict[str, Any]]:
        return [e.model_dump() for e in self.launcher.events(self.handle, since)]

    def cancel(self) -> dict[str, Any]:
        self.launcher.cancel(self.handle)
        return self.status()


class RayLauncher:
    """Submits pilots to the Ray cluster at ``address`` (the caller passes RAY_ADDRESS in)."""

    name = "ray"

    def __init__(self, address: str | None, workdir: str | Path, *, pending_timeout_s: float = PENDING_TIMEOUT_S,
                 runtime_env: dict[str, Any] | None = None, num_cpus: float = 1):
        self.address = address
        self.workdir = str(Path(workdir).resolve())
        self.pending_timeout_s = pending_timeout_s
        self.runtime_env = runtime_env
        self.num_cpus = num_cpus
        self._actors: dict[str, Any] = {}  # actors this process submitted (no GCS lookup needed)

    def _connect(self):
        ray = _ray()
        if not ray.is_initialized():
            if not self.address:
                raise PilotError("The Ray launcher needs a cluster address: set RAY_ADDRESS "
                                 "(e.g. ray://head:10001 or the head's GCS address host:6379).")
            ray.init(address=self.address, namespace=NAMESPACE, ignore_reinit_error=True,
                     log_to_driver=False, logging_level="warning")
        return ray

    def submit(self, spec: PilotSpec) -> PilotHandle:
        ray = self._connect()
        options: dict[str, Any] = {"name": actor_name(spec.pilot_id), "namespace": NAMESPACE,
                                   "lifetime": "detached", "max_concurrency": 4, "num_cpus": self.num_cpus,
                                   "max_restarts": 0}
        if spec.device != "cpu" and spec.gpu is not None:
            options["num_gpus"] = 1
            if spec.accelerator_type:
                options["accelerator_type"] = spec.accelerator_type
        if self.runtime_env:
            options["runtime_env"] = self.runtime_env
        agent = ray.remote(PilotAgent).options(**options)
        self._actors[spec.pilot_id] = agent.remote(self.workdir, spec.model_dump_json())
        return PilotHandle(pilot_id=spec.pilot_id, launcher="ray", submitted_at=time.time(),
                           ref={"actor": actor_name(spec.pilot_id), "namespace": NAMESPACE,
                                "address": self.address, "num_gpus": options.get("num_gpus", 0),
                                "accelerator_type": options.get("accelerator_type")})

    def _actor(self, handle: PilotHandle):
        ray = self._connect()
        if handle.pilot_id in self._actors:
            return self._actors[handle.pilot_id]
        try:
            return ray.get_actor(handle.ref["actor"], namespace=handle.ref.get("namespace", NAMESPACE))
        except ValueError:
            return None

    def _call(self, handle: PilotHandle, method: str, *args: Any, timeout: float = PING_TIMEOUT_S):
        """(answered, value): answered is False while the actor is not placed yet."""
        ray = self._connect()
        actor = self._actor(handle)
        if actor is None:
            raise _Lost("the pilot's actor is gone from the cluster (node lost or cluster restarted)")
        ref = getattr(actor, method).remote(*args)
        ready, _ = ray.wait([ref], timeout=timeout)
        if not ready:
            return False, None
        try:
            return True, ray.get(ref)
        except ray.exceptions.RayActorError as exc:
            raise _Lost(f"the pilot's actor died: {str(exc).splitlines()[0][:300]}") from None

    def events(self, handle: PilotHandle, since: int = 0) -> list[Event]:
        try:
            answered, value = self._call(handle, "events", since)
        except _Lost:
            return []
        return [Event.model_validate(e) for e in value] if answered else []

    def status(self, handle: PilotHandle) -> PilotStatus:
        try:
            answered, value = self._call(handle, "status")
        except _Lost as lost:
            return PilotStatus(state="failed", reason="node_lost", message=str(lost))
        if answered:
            return PilotStatus.model_validate(value)
        waited = time.time() - handle.submitted_at
        if waited > self.pending_timeout_s:
            self._kill(handle)
            want = handle.ref.get("accelerator_type") or "GPU"
            return PilotStatus(state="failed", reason="pending_timeout",
                               message=f"no node with a free {want} (num_gpus={handle.ref.get('num_gpus')}) "
                                       f"took the pilot within {self.pending_timeout_s:.0f} s")
        return PilotStatus(state="pending", message=f"waiting for a node for {waited:.0f} s")

    def _kill(self, handle: PilotHandle) -> None:
        actor = self._actor(handle)
        self._actors.pop(handle.pilot_id, None)
        if actor is not None:
            self._connect().kill(actor, no_restart=True)

    def cancel(self, handle: PilotHandle) -> None:
        try:
            answered, _ = self._call(handle, "cancel", timeout=30)
        except _Lost:
            return
        if not answered:  # never placed: nothing runs, remove the request
            self._kill(handle)

    def release(self, handle: PilotHandle) -> None:
        """The result is stored: the actor may go (its run directory stays on the node)."""
        self._kill(handle)


class _Lost(Exception):
    pass
