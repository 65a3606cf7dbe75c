"""The local launcher with real runner subprocesses: finish, cancel, a killed runner, re-attach."""

from __future__ import annotations

import os
import signal
import time

import pytest

from advisor.pilot.launchers.local import LocalLauncher
from tests.conftest import have
from tests.pilot_helpers import tiny_pilot

pytestmark = [pytest.mark.torch, pytest.mark.skipif(not have("torch"), reason="needs the pilot extra (torch)")]
LONG = 10_000  # steps: a pilot that is still running when the test acts on it


def _wait_progress(launcher, handle, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        st = launcher.status(handle)
        if st.last_progress or st.terminal:
            return st
        time.sleep(0.05)
    raise AssertionError("no progress event in time")


def test_local_pilot_runs_to_a_result(tmp_path):
    launcher = LocalLauncher(tmp_path)
    handle = launcher.submit(tiny_pilot(tmp_path, steps=2))
    assert launcher.status(handle).state in ("pending", "running")
    st = launcher.wait(handle, timeout_s=90)
    assert st.state == "finished" and st.result["checkpoint"]["kind"] == "adapter"
    assert [e.type for e in launcher.events(handle)][0] == "started" and launcher.events(handle, since=st.events) == []


def test_a_killed_runner_is_failed_with_its_last_progress(tmp_path):
    launcher = LocalLauncher(tmp_path)
    handle = launcher.submit(tiny_pilot(tmp_path, steps=LONG))
    progress = _wait_progress(launcher, handle).last_progress
    os.kill(handle.ref["pid"], signal.SIGKILL)
    launcher._children[handle.ref["pid"]].wait(timeout=10)  # noqa: SLF001 - reap, as the launcher does
    st = launcher.status(handle)
    assert (st.state, st.reason) == ("failed", "killed") and "exit status -9" in st.message
    assert st.last_progress["steps_completed"] >= progress["steps_completed"]


def test_a_new_launcher_reattaches_and_cancel_keeps_the_last_progress(tmp_path):
    first = LocalLauncher(tmp_path)
    handle = first.submit(tiny_pilot(tmp_path, steps=LONG))
    _wait_progress(first, handle)
    second = LocalLauncher(tmp_path)  # a restarted bot: not the runner's parent
    assert second.status(handle).state == "running"
    second.cancel(handle)
    first._children[handle.ref["pid"]].wait(timeout=20)  # noqa: SLF001 - the parent reaps it
    st = second.status(handle)
    assert (st.state, st.reason) == ("failed", "cancelled") and st.last_progress["steps_completed"] >= 1
    assert st.result["where"]["steps_completed"] >= 1


def test_a_recycled_pid_is_not_taken_for_the_runner(tmp_path):
    from advisor.pilot.launchers.base import PilotHandle

    stale = PilotHandle(pilot_id="p-old", launcher="local", submitted_at=0,
                        ref={"pid": os.getpid(), "start_time": "1", "dir": str(tmp_path),
                             "events": str(tmp_path / "none.jsonl"), "log": str(tmp_path / "none.log")})
    st = LocalLauncher(tmp_path).status(stale)
    assert (st.state, st.reason) == ("failed", "killed")
