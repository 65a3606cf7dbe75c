"""The Ray launcher on a real local Ray cluster (CPU; one fake GPU of type H100 for scheduling)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT, have
from tests.pilot_helpers import tiny_pilot

pytestmark = [pytest.mark.ray, pytest.mark.torch, pytest.mark.slow,
              pytest.mark.skipif(not (have("ray") and have("torch")), reason="needs the ray and pilot extras")]


@pytest.fixture(scope="module")
def cluster():
    import ray

    ray.init(address="local", num_cpus=2, num_gpus=1, resources={"accelerator_type:H100": 1},
             include_dashboard=False, namespace="advisor-pilots", log_to_driver=False, logging_level="warning")
    yield ray.get_runtime_context().gcs_address
    ray.shutdown()


def test_a_pilot_lands_on_the_requested_gpu_type_and_finishes(cluster, tmp_path):
    from advisor.pilot.launchers.ray import RayLauncher

    launcher = RayLauncher(cluster, tmp_path)
    handle = launcher.submit(tiny_pilot(tmp_path, gpu="h100-sxm", steps=2))
    deadline, st = time.monotonic() + 120, None
    while time.monotonic() < deadline:
        st = launcher.status(handle)
        if st.terminal:
            break
        time.sleep(0.2)
    assert handle.ref["accelerator_type"] == "H100" and handle.ref["num_gpus"] == 1
    assert st.state == "finished" and st.result["gpu"] == "h100-sxm" and len(st.result["step_s"]) == 2
    assert [e.type for e in launcher.events(handle)][-1] == "finished"
    launcher.release(handle)


def test_a_gpu_type_no_node_has_stays_pending_then_times_out(cluster, tmp_path):
    from advisor.pilot.launchers.ray import RayLauncher

    launcher = RayLauncher(cluster, tmp_path, pending_timeout_s=3)
    handle = launcher.submit(tiny_pilot(tmp_path, gpu="a100-80gb", steps=1))
    first = launcher.status(handle)
    time.sleep(3.5)
    last = launcher.status(handle)
    assert first.state == "pending" and (last.state, last.reason) == ("failed", "pending_timeout")
    assert "A100-80G" in last.message


def test_a_new_driver_reattaches_by_actor_name(cluster, tmp_path):
    """Submit from another process that then exits (a bot restart); follow from this one."""
    from advisor.pilot.launchers.base import PilotHandle
    from advisor.pilot.launchers.ray import RayLauncher

    spec_path = tmp_path / "spec.json"
    spec_path.write_text(tiny_pilot(tmp_path, gpu="h100-sxm", steps=1).model_dump_json())
    code = ("import sys; from advisor.pilot.launchers.ray import RayLauncher; from advisor.pilot.spec import PilotSpec;"
            f"h = RayLauncher({cluster!r}, {str(tmp_path)!r}).submit(PilotSpec.model_validate_json(open({str(spec_path)!r}).read()));"
            "print(h.model_dump_json())")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True)
    handle = PilotHandle.model_validate_json(out.stdout.strip().splitlines()[-1])
    launcher = RayLauncher(cluster, tmp_path)
    deadline = time.monotonic() + 120
    while not (st := launcher.status(handle)).terminal and time.monotonic() < deadline:
        time.sleep(0.2)
    assert st.state == "finished"
    launcher.release(handle)
    assert launcher.status(handle).reason == "node_lost"  # released: the actor is gone
