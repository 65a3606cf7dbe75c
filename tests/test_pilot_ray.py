"""The Ray launcher on a real local Ray cluster through the Ray Jobs API.

The cluster is ``ray start --head --block`` on loopback with the dashboard (the Jobs API), token
authentication on (Ray's default), one fake GPU and the accelerator label of an H100 SXM
(``accelerator_type:H100-SXM``), started from an environment that holds Slack secrets, as an
operator's shell might: the pilot's runner must not see them. Pilots run on this CPU (tiny
model, fp32); placement, events, logs, stop, re-attach and the runner's environment are real."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT, have
from tests.rayhead import RayHead
from tests.pilot_helpers import tiny_pilot

pytestmark = [pytest.mark.ray, pytest.mark.torch, pytest.mark.slow,
              pytest.mark.skipif(not (have("ray") and have("torch")), reason="needs the ray and pilot extras")]

LABEL = "H100-SXM"
START_TIMEOUT_S = 180
PILOT_TIMEOUT_S = 240
LONG = 10_000  # steps: a pilot still running when the test acts on it
CLUSTER_SECRETS = {"SLACK_BOT_TOKEN": "xoxb-cluster-secret", "SLACK_SIGNING_SECRET": "cluster-signing"}


@pytest.fixture(scope="module")
def cluster():
    """(dashboard address) of a head node of our own (tests/rayhead.py: token authentication on,
    this process its client); torn down by process group."""
    with RayHead(num_cpus=2, num_gpus=1, resources={f"accelerator_type:{LABEL}": 1}, start_timeout_s=START_TIMEOUT_S,
                 env={**CLUSTER_SECRETS, "PYTHONPATH": str(ROOT),
                      "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}) as head:
        yield head.address


def launcher_for(address, workdir, **kwargs):
    from advisor.pilot.launchers.ray import RayLauncher

    return RayLauncher(address, workdir, python=sys.executable, **kwargs)


def wait(launcher, handle, until, timeout=PILOT_TIMEOUT_S):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        st = launcher.status(handle)
        if until(st):
            return st
        time.sleep(0.3)
    raise AssertionError(f"pilot did not reach the expected state; last {st}\nlog: {launcher.logs(handle)[-2000:]}")


def runner_pids(workdir: Path) -> list[int]:
    out = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"advisor.pilot.job" in cmd and str(workdir).encode() in cmd:
            out.append(int(proc.name))
    return out


def test_a_pilot_is_a_ray_job_on_the_labelled_gpu_and_finishes(cluster, tmp_path):
    from ray.job_submission import JobSubmissionClient

    launcher = launcher_for(cluster, tmp_path)
    handle = launcher.submit(tiny_pilot(tmp_path, gpu="h100-sxm", steps=2))
    st = wait(launcher, handle, lambda s: s.terminal)
    assert (handle.ref["accelerator_type"], handle.ref["num_gpus"]) == (LABEL, 1)
    assert handle.ref["resources"] == {f"accelerator_type:{LABEL}": 0.001}
    assert st.state == "finished" and st.result["gpu"] == "h100-sxm" and len(st.result["step_s"]) == 2
    assert [e.type for e in launcher.events(handle)][-1] == "finished"
    info = JobSubmissionClient(cluster).get_job_info(handle.ref["submission_id"])
    assert info.metadata["pilot_id"] == handle.pilot_id and "advisor.pilot.job" in info.entrypoint
    assert "Running entrypoint" in launcher.logs(handle)  # the log without the event lines


def test_the_runner_on_the_cluster_has_no_slack_secrets_even_when_the_node_does(cluster, tmp_path):
    launcher = launcher_for(cluster, tmp_path)
    handle = launcher.submit(tiny_pilot(tmp_path, gpu="h100-sxm", steps=LONG))
    try:
        wait(launcher, handle, lambda s: s.last_progress is not None or s.terminal)
        [pid] = runner_pids(tmp_path)
        raw = Path(f"/proc/{pid}/environ").read_bytes()
        names = {item.split(b"=", 1)[0].decode() for item in raw.split(b"\0") if b"=" in item}
        assert not [n for n in names if n.startswith("SLACK_")] and "RAY_AUTH_TOKEN" not in names
        assert b"xoxb-cluster-secret" not in raw and "CUDA_VISIBLE_DEVICES" in names  # Ray's GPU assignment stays
    finally:
        launcher.cancel(handle)
    st = wait(launcher, handle, lambda s: s.terminal)
    assert (st.state, st.reason) == ("failed", "cancelled")


def test_a_gpu_label_no_node_has_stays_pending_then_times_out(cluster, tmp_path):
    launcher = launcher_for(cluster, tmp_path, pending_timeout_s=3)
    handle = launcher.submit(tiny_pilot(tmp_path, gpu="a100-80gb", steps=1))
    assert launcher.status(handle).state == "pending" and handle.ref["accelerator_type"] == "A100-80G"
    last = wait(launcher, handle, lambda s: s.terminal, timeout=60)
    assert (last.state, last.reason) == ("failed", "pending_timeout") and "A100-80G" in last.message


def test_a_new_driver_reattaches_by_submission_id_and_a_second_submit_adopts(cluster, tmp_path):
    """Submit from another process that then exits (a bot restart); follow from this one."""
    from advisor.pilot.launchers.base import PilotHandle
    from ray.job_submission import JobSubmissionClient

    pspec = tiny_pilot(tmp_path, gpu="h100-sxm", steps=1)
    spec_path = tmp_path / "spec.json"
    spec_path.write_text(pspec.model_dump_json())
    code = ("import sys; from advisor.pilot.launchers.ray import RayLauncher; from advisor.pilot.spec import PilotSpec;"
            f"h = RayLauncher({cluster!r}, {str(tmp_path)!r}, python={sys.executable!r}).submit("
            f"PilotSpec.model_validate_json(open({str(spec_path)!r}).read())); print(h.model_dump_json())")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True)
    handle = PilotHandle.model_validate_json(out.stdout.strip().splitlines()[-1])
    launcher = launcher_for(cluster, tmp_path)
    again = launcher.submit(pspec)  # a start resumed after a crash: the same job, not a second one
    assert again.ref["submission_id"] == handle.ref["submission_id"]
    jobs = [j for j in JobSubmissionClient(cluster).list_jobs() if j.submission_id == handle.ref["submission_id"]]
    assert len(jobs) == 1
    st = wait(launcher, handle, lambda s: s.terminal)
    assert st.state == "finished"
