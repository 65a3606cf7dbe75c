"""A Ray head node of the test's own on loopback: ``ray start --head --block`` in its own process
group, every port it would otherwise take from Ray's fixed defaults chosen free, torn down by
process group. The Ray tests (tests/test_pilot_ray.py, tests/test_launch.py) share it.

Why every port: ``ray start`` and ``ray.init(address="local")`` default the dashboard agent's HTTP
port to 52365 (ray/_private/ray_constants.py DEFAULT_DASHBOARD_AGENT_LISTEN_PORT; RayParams in
ray/_private/parameter.py), the GCS to 6379, the client server to 10001 and the dashboard to 8265.
With a second Ray head on the machine (a second test run, an operator's cluster) the agent cannot
bind 52365; ray/dashboard/agent.py ``DashboardAgent.run`` then logs "Failed to start HTTP server"
and "stays alive but the HTTP service will be disabled", persisting port -1, so the job head's
``choose_agent`` (ray/dashboard/modules/job/job_head.py) refuses every submission with "No
available agent to submit job, please try again later" for as long as the head lives. That is
what a wall-clock wait lost to in a parallel pair of CI runs (a74f42a): no wait would have won.

Readiness is read from the head itself: the dashboard answering /api/version, then one job
submitted and finished (the agent registered and serving); a failure of the agent's HTTP server
in its own log, or the head process exiting, ends the wait at once with the log's tail."""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.fakeslack import free_port

# The agent's own words when its HTTP server did not start (ray/dashboard/agent.py
# DashboardAgent.run; ray/dashboard/http_server_agent.py HttpServerAgent.start_server's last retry).
AGENT_HTTP_FAILED = ("Failed to start HTTP server", "failed to bind after")


class RayHead:
    """One head node. ``address``: the dashboard (Jobs API) URL; ``gcs_address``: host:port of
    its GCS; ``temp``: its --temp-dir (short: Ray's socket paths must fit 107 bytes).
    ``agent_port``: the dashboard agent's HTTP port, free by default (a test names a taken one).
    Use it as a context (``with RayHead(...) as head``): started, ready, and this process its
    client inside; stopped by process group after."""

    def __init__(self, *, num_cpus: int, num_gpus: int, resources: dict | None = None,
                 env: dict | None = None, agent_port: int | None = None, start_timeout_s: float = 300):
        self.temp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")
        self.token = secrets.token_hex(16)
        self._saved: dict = {}
        self.start_timeout_s = start_timeout_s
        gcs_port, dashboard_port = free_port(), free_port()
        self.address = f"http://127.0.0.1:{dashboard_port}"
        self.gcs_address = f"127.0.0.1:{gcs_port}"
        self._log = open(Path(self.temp) / "head.log", "wb")
        args = [sys.executable, "-m", "ray.scripts.scripts", "start", "--head", "--block",
                f"--port={gcs_port}", "--node-ip-address=127.0.0.1", "--dashboard-host=127.0.0.1",
                f"--dashboard-port={dashboard_port}", f"--dashboard-agent-listen-port={agent_port or free_port()}",
                f"--ray-client-server-port={free_port()}", "--include-dashboard=true",
                f"--num-cpus={num_cpus}", f"--num-gpus={num_gpus}", f"--temp-dir={self.temp}",
                "--disable-usage-stats"]
        if resources:
            args.append(f"--resources={json.dumps(resources)}")
        # Token authentication, `ray start`'s default (its log: "Token authentication is enabled for
        # this Ray cluster"), with a token of this head's own; tests/conftest.py fixes the test
        # process's side of it (RAY_AUTH_MODE=token), which Ray reads once, at import.
        auth = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": self.token}
        self.head = subprocess.Popen(args, env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0", **(env or {}), **auth},
                                     stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True)

    # --- as a context: this process is the head's client while inside -------------------------

    def __enter__(self) -> "RayHead":
        """Ready (or the test fails with the reason), with this process holding the head's token:
        RAY_AUTH_TOKEN for the Jobs SDK, the GCS client and any `ray` CLI the test runs."""
        self._saved = {k: os.environ.get(k) for k in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN")}
        os.environ.update({"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": self.token})
        forget_cached_token()  # another head of this run may have made Ray load its token
        try:
            self.wait_ready(self.start_timeout_s)
        except BaseException:
            self._restore()
            raise
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.stop()
        finally:
            self._restore()

    def _restore(self) -> None:
        for k, v in self._saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        forget_cached_token()

    # --- readiness ------------------------------------------------------------------------------

    def wait_ready(self, timeout_s: float) -> None:
        """Until the dashboard answers and one job has run; stops the head and fails the test
        with the reason (the agent's own log line, or the head's exit) when it cannot be."""
        try:
            deadline = time.monotonic() + timeout_s
            self._wait_for_dashboard(deadline)
            wait_for_ray_job_agent(self.address, deadline, died=self.broken, why=self.log_tail)
        except BaseException:
            self.stop()
            raise

    def _wait_for_dashboard(self, deadline: float) -> None:
        headers = {"authorization": f"Bearer {self.token}"}
        while True:
            try:
                with urllib.request.urlopen(urllib.request.Request(f"{self.address}/api/version", headers=headers),
                                            timeout=2):
                    return
            except urllib.error.HTTPError as exc:  # it answers, and refuses us: no wait will change that
                pytest.fail(f"the Ray dashboard refused /api/version: {exc}\n{self.log_tail()}")
            except OSError:
                if self.broken() or time.monotonic() > deadline:
                    pytest.fail(f"the Ray head did not start:\n{self.log_tail()}")
                time.sleep(0.5)

    def broken(self) -> str:
        """Why this head can never take a job ('' while it still may): its process exited, or its
        dashboard agent logged that its HTTP server did not start."""
        if self.head.poll() is not None:
            return f"the head process exited with {self.head.returncode}"
        for log in Path(self.temp).glob("session_*/logs/dashboard_agent.log"):
            try:
                text = log.read_text(errors="replace")
            except OSError:
                continue
            for line in text.splitlines():
                if any(words in line for words in AGENT_HTTP_FAILED):
                    return f"{log.name}: {line.strip()}"
        return ""

    def log_tail(self) -> str:
        parts = [(Path(self.temp) / "head.log").read_text(errors="replace")[-3000:]]
        for log in Path(self.temp).glob("session_*/logs/dashboard_agent.log"):
            parts.append(f"--- {log}\n{log.read_text(errors='replace')[-3000:]}")
        reason = self.broken()
        return "\n".join(([f"reason: {reason}"] if reason else []) + parts)

    # --- teardown -------------------------------------------------------------------------------

    def stop(self) -> None:
        """SIGTERM to the head's process group (ray start --block tears its processes down), then
        SIGKILL whatever is left: only the processes this head started."""
        head = self.head
        for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
            try:
                os.killpg(head.pid, sig)
            except ProcessLookupError:
                break
            try:
                head.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                continue
            if sig == signal.SIGTERM:
                try:
                    os.killpg(head.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            break
        self._log.close()


def forget_cached_token() -> None:
    """Ray reads the auth token once per process (ray._raylet.AuthenticationTokenLoader, a
    singleton with reset_cache); the client must read the current head's."""
    try:
        from ray._raylet import AuthenticationTokenLoader
    except ImportError:  # a Ray without token authentication
        return
    AuthenticationTokenLoader.instance().reset_cache()


def wait_for_ray_job_agent(address: str, deadline: float, *, died=lambda: "", why=lambda: "") -> None:
    """Bounded poll until a Ray head's job agent accepts a job: the dashboard answers /api/version
    before the agent has registered, and until then every submission is refused with "No
    available agent to submit job, please try again later" (ray/dashboard/modules/job/job_head.py,
    ``choose_agent``). The tests start only on a cluster that has run one job. ``died``: a truthy
    reason when the head can never take one (stop waiting at once); ``why``: text for the failure
    (e.g. the head's log); ``deadline`` on time.monotonic, a bound for a head that hangs."""
    from ray.job_submission import JobStatus, JobSubmissionClient

    client = JobSubmissionClient(address)
    sid = None
    while sid is None:
        try:
            sid = client.submit_job(entrypoint="true", metadata={"advisor": "agent-probe"})
        except RuntimeError as exc:
            if "try again later" not in str(exc) or died() or time.monotonic() > deadline:
                pytest.fail(f"the Ray job agent did not come up: {exc}\n{why()}")
            time.sleep(1.0)
    while client.get_job_status(sid) not in (JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.STOPPED):
        if died() or time.monotonic() > deadline:
            pytest.fail(f"the Ray agent probe job did not finish: {client.get_job_status(sid)}\n{why()}")
        time.sleep(0.5)
