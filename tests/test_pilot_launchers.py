"""The local launcher with real runner subprocesses: finish, cancel, a killed runner, re-attach,
a resumed start that does not start a second runner, and the runner's own environment (read
from /proc/<pid>/environ) without the bot's secrets."""

from __future__ import annotations

import os
import signal
import time

import pytest

from advisor.pilot.launchers.env import child_environment
from advisor.pilot.launchers.local import LocalLauncher
from tests.conftest import have
from tests.pilot_helpers import tiny_pilot

pytestmark = [pytest.mark.torch, pytest.mark.skipif(not have("torch"), reason="needs the pilot extra (torch)")]
LONG = 10_000  # steps: a pilot that is still running when the test acts on it


def runner_env(**extra: str) -> dict[str, str]:
    """What the bot hands a launcher: this environment, filtered (advisor.pilot.launchers.env)."""
    return child_environment({**os.environ, **extra})


def _wait_progress(launcher, handle, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        st = launcher.status(handle)
        if st.last_progress or st.terminal:
            return st
        time.sleep(0.05)
    raise AssertionError("no progress event in time")


def test_local_pilot_runs_to_a_result(tmp_path):
    launcher = LocalLauncher(tmp_path, env=runner_env())
    handle = launcher.submit(tiny_pilot(tmp_path, steps=2))
    assert launcher.status(handle).state in ("pending", "running")
    st = launcher.wait(handle, timeout_s=90)
    assert st.state == "finished" and st.result["checkpoint"]["kind"] == "adapter"
    assert [e.type for e in launcher.events(handle)][0] == "started" and launcher.events(handle, since=st.events) == []


def test_a_killed_runner_is_failed_with_its_last_progress(tmp_path):
    launcher = LocalLauncher(tmp_path, env=runner_env())
    handle = launcher.submit(tiny_pilot(tmp_path, steps=LONG))
    progress = _wait_progress(launcher, handle).last_progress
    os.kill(handle.ref["pid"], signal.SIGKILL)
    launcher._children[handle.ref["pid"]].wait(timeout=10)  # noqa: SLF001 - reap, as the launcher does
    st = launcher.status(handle)
    assert (st.state, st.reason) == ("failed", "killed") and "exit status -9" in st.message
    assert st.last_progress["steps_completed"] >= progress["steps_completed"]


def test_a_new_launcher_reattaches_and_cancel_keeps_the_last_progress(tmp_path):
    first = LocalLauncher(tmp_path, env=runner_env())
    handle = first.submit(tiny_pilot(tmp_path, steps=LONG))
    _wait_progress(first, handle)
    second = LocalLauncher(tmp_path, env=runner_env())  # a restarted bot: not the runner's parent
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
    st = LocalLauncher(tmp_path, env=runner_env()).status(stale)
    assert (st.state, st.reason) == ("failed", "killed")


def environ_of(pid: int) -> dict[str, str]:
    raw = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
    return dict(item.decode(errors="replace").split("=", 1) for item in raw if b"=" in item)


def test_the_runner_starts_without_the_bots_secrets(tmp_path):
    secrets = {"SLACK_BOT_TOKEN": "xoxb-secret", "SLACK_SIGNING_SECRET": "s3cret", "SLACK_APP_TOKEN": "xapp-1",
               "ADVISOR_STATE_URL": "postgresql://bot:pw@db/state", "MY_DEPLOY_SECRET": "hush",
               "TEAM_API_KEY": "listed"}
    env = child_environment({**os.environ, **secrets}, deny=["ADVISOR_STATE_URL", "*_SECRET", "TEAM_API_KEY"])
    launcher = LocalLauncher(tmp_path, env=env)
    handle = launcher.submit(tiny_pilot(tmp_path, steps=LONG))
    try:
        _wait_progress(launcher, handle)
        seen = environ_of(handle.ref["pid"])
        assert not [k for k in seen if k.startswith("SLACK_")]
        assert not {"ADVISOR_STATE_URL", "MY_DEPLOY_SECRET", "TEAM_API_KEY"} & set(seen)
        assert "xoxb-secret" not in open(f"/proc/{handle.ref['pid']}/environ", "rb").read().decode(errors="replace")
        assert seen.get("PATH") == os.environ.get("PATH")  # what the runner needs is still there
    finally:
        launcher.cancel(handle)


def _cmdline(pid: str) -> bytes:
    """/proc/<pid>/cmdline, or b"" for a process that exited between listing /proc and reading it (any other
    process on the machine, e.g. a parallel test run's, may)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read()
    except OSError:
        return b""


def test_submitting_a_pilot_again_adopts_its_runner(tmp_path):
    """A start resumed after a crash (the handle was never stored) finds the runner started for
    the pilot instead of starting a second one."""
    first = LocalLauncher(tmp_path, env=runner_env())
    pspec = tiny_pilot(tmp_path, steps=LONG)
    handle = first.submit(pspec)
    try:
        again = LocalLauncher(tmp_path, env=runner_env()).submit(pspec)
        assert again.ref["pid"] == handle.ref["pid"]
        (tmp_path / pspec.pilot_id / "handle.json").unlink()  # killed before it wrote the handle
        found = LocalLauncher(tmp_path, env=runner_env()).submit(pspec)
        assert found.ref["pid"] == handle.ref["pid"]
        runners = [p for p in os.listdir("/proc") if p.isdigit() and pspec.pilot_id.encode() in _cmdline(p)]
        assert runners == [str(handle.ref["pid"])]
    finally:
        first.cancel(handle)
