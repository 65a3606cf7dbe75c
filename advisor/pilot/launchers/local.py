"""The local launcher: `python -m advisor.pilot` as a subprocess on this machine.

Each pilot gets a directory ``<workdir>/<pilot_id>/`` holding ``spec.json``, ``events.jsonl``
(the runner's event stream), ``runner.log`` (its stdout and stderr), ``handle.json`` and the
checkpoint with its manifest. The handle records the process id and the process start time (so
a recycled pid is not mistaken for our runner), which is all a new process needs to re-attach
after a restart. ``submit`` is idempotent per pilot id: submitting a pilot that already has a run
directory returns the handle of the runner started for it (a start resumed after a crash never
starts a second runner).

The runner starts with the environment it is given (``env``, required): the bot and the CLI pass
``advisor.pilot.launchers.env.child_environment(...)``, never their own environment as is.

A runner that disappears without a final event (killed, crashed) is reported as failed/killed
with the last progress it sent; a cancel sends SIGTERM to the runner's process group (the runner
reports failed/cancelled itself) and SIGKILL after ``KILL_GRACE_S``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from advisor.errors import PilotError
from advisor.pilot.events import Event, read_events
from advisor.pilot.launchers.base import PilotHandle, PilotStatus, status_from_events, wait_until_terminal
from advisor.pilot.spec import PilotSpec

# How long a cancelled runner may take to write its final event before it is killed: one
# optimizer step of a 70B QLoRA pilot at 8k is ~10 s on an A100 (the step in flight finishes).
KILL_GRACE_S = 15.0
# Beyond the runner's own time limit, how long before the launcher kills it and says so.
HARD_LIMIT_GRACE_S = 60.0
CANCEL_MARKER = "cancel-requested"
# How long release() waits for a runner that has reported its end to exit (CUDA teardown of a
# large model takes a few seconds).
RELEASE_WAIT_S = 20.0
LOG_TAIL_CHARS = 1500


def _proc_start_time(pid: int) -> str | None:
    """Field 22 of /proc/<pid>/stat (start time in clock ticks since boot); None if gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2:].split()
    if fields[0] == "Z":  # a zombie has exited; only its exit status is left
        return None
    return fields[19]


def _alive(pid: int, start_time: str | None) -> bool:
    if Path("/proc").is_dir():
        now = _proc_start_time(pid)
        return now is not None and (start_time is None or now == start_time)
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def log_tail(path: Path, chars: int = LOG_TAIL_CHARS) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return text[-chars:].strip()


class LocalLauncher:
    """Runs pilots as subprocesses of this machine."""

    name = "local"

    def __init__(self, workdir: str | Path, *, env: Mapping[str, str], python: str | None = None,
                 kill_grace_s: float = KILL_GRACE_S):
        self.workdir = Path(workdir).resolve()
        self.python = python or sys.executable
        self.env = dict(env)
        self.kill_grace_s = kill_grace_s
        self._children: dict[int, subprocess.Popen] = {}

    def pilot_dir(self, pilot_id: str) -> Path:
        return self.workdir / pilot_id

    def submit(self, spec: PilotSpec) -> PilotHandle:
        run_dir = self.pilot_dir(spec.pilot_id)
        if run_dir.exists() and any(run_dir.iterdir()):
            return self._adopt(spec, run_dir)
        run_dir.mkdir(parents=True, exist_ok=True)
        spec = spec.model_copy(update={"output_dir": spec.output_dir or str(run_dir)})
        spec_path = run_dir / "spec.json"
        spec_path.write_text(spec.model_dump_json(indent=2))
        events = run_dir / "events.jsonl"
        log = run_dir / "runner.log"
        cmd = [self.python, "-m", "advisor.pilot", "--spec", str(spec_path), "--events", str(events)]
        with log.open("ab") as log_fh:
            proc = subprocess.Popen(cmd, stdout=log_fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    env=self.env, start_new_session=True, cwd=str(run_dir))
        self._children[proc.pid] = proc
        handle = PilotHandle(
            pilot_id=spec.pilot_id, launcher="local", submitted_at=time.time(),
            ref={"pid": proc.pid, "start_time": _proc_start_time(proc.pid), "dir": str(run_dir),
                 "events": str(events), "log": str(log),
                 "hard_limit_s": spec.time_limit_s + HARD_LIMIT_GRACE_S},
        )
        tmp = run_dir / "handle.json.tmp"
        tmp.write_text(handle.model_dump_json())
        tmp.replace(run_dir / "handle.json")
        return handle

    def _adopt(self, spec: PilotSpec, run_dir: Path) -> PilotHandle:
        """The runner already started for this pilot (a resumed start): its handle, from
        ``handle.json`` or, when the submitter died before writing it, from the live process
        whose command line names this pilot's spec."""
        saved = run_dir / "handle.json"
        if saved.exists():
            return PilotHandle.model_validate_json(saved.read_text())
        spec_path = str(run_dir / "spec.json")
        for proc in Path("/proc").glob("[0-9]*"):
            try:
                cmdline = (proc / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"advisor.pilot" in cmdline and spec_path.encode() in cmdline:
                pid = int(proc.name)
                handle = PilotHandle(
                    pilot_id=spec.pilot_id, launcher="local", submitted_at=(run_dir / "spec.json").stat().st_mtime,
                    ref={"pid": pid, "start_time": _proc_start_time(pid), "dir": str(run_dir),
                         "events": str(run_dir / "events.jsonl"), "log": str(run_dir / "runner.log"),
                         "hard_limit_s": spec.time_limit_s + HARD_LIMIT_GRACE_S})
                saved.write_text(handle.model_dump_json())
                return handle
        raise PilotError(f"Pilot {spec.pilot_id} already has a run directory at {run_dir} and no runner "
                         "is running for it; it was not started twice.")

    # --- reading -------------------------------------------------------------------------------

    def events(self, handle: PilotHandle, since: int = 0) -> list[Event]:
        return [e for e in read_events(handle.ref["events"])[0] if e.seq >= since]

    def _running(self, handle: PilotHandle) -> bool:
        pid = handle.ref["pid"]
        child = self._children.get(pid)
        if child is not None:
            return child.poll() is None
        return _alive(pid, handle.ref.get("start_time"))

    def status(self, handle: PilotHandle) -> PilotStatus:
        events = self.events(handle)
        known = status_from_events(events)
        if known is not None and known.terminal:
            return known
        progress = known.last_progress if known else None
        if self._running(handle):
            if time.time() - handle.submitted_at > handle.ref.get("hard_limit_s", float("inf")):
                self._kill(handle)
                return PilotStatus(state="failed", reason="timed_out", last_progress=progress,
                                   message="the runner passed its time limit and was stopped",
                                   events=len(events))
            return known or PilotStatus(state="pending", events=0)
        # the process is gone without a final event: re-read once (it may have just written it)
        events = self.events(handle)
        known = status_from_events(events)
        if known is not None and known.terminal:
            return known
        cancelled = (Path(handle.ref["dir"]) / CANCEL_MARKER).exists()
        child = self._children.get(handle.ref["pid"])
        code = child.returncode if child is not None else None
        exit_note = f" (exit status {code})" if code is not None else ""
        tail = log_tail(Path(handle.ref["log"]))
        return PilotStatus(
            state="failed", reason="cancelled" if cancelled else "killed",
            last_progress=progress, events=len(events),
            message=("cancelled before the runner reported" if cancelled else
                     f"the runner stopped without a result{exit_note}") + (f"; log tail: {tail}" if tail else ""),
        )

    # --- control -------------------------------------------------------------------------------

    def _signal(self, handle: PilotHandle, sig: int) -> None:
        pid = handle.ref["pid"]
        if not self._running(handle):
            return
        try:
            os.killpg(pid, sig)  # the runner leads its own session (start_new_session)
        except ProcessLookupError:
            pass

    def _kill(self, handle: PilotHandle) -> None:
        self._signal(handle, signal.SIGKILL)
        child = self._children.get(handle.ref["pid"])
        if child is not None:
            child.wait(timeout=10)

    def cancel(self, handle: PilotHandle) -> None:
        (Path(handle.ref["dir"]) / CANCEL_MARKER).write_text(str(time.time()))
        self._signal(handle, signal.SIGTERM)
        deadline = time.monotonic() + self.kill_grace_s
        while time.monotonic() < deadline and self._running(handle):
            time.sleep(0.05)
        if self._running(handle):
            self._kill(handle)

    def release(self, handle: PilotHandle) -> None:
        """Reap the runner (it exits right after its final event: interpreter and CUDA teardown)."""
        child = self._children.pop(handle.ref["pid"], None)
        if child is not None and child.poll() is None:
            try:
                child.wait(timeout=RELEASE_WAIT_S)
            except subprocess.TimeoutExpired:
                pass  # still tearing down; it is no longer ours to wait for

    def wait(self, handle: PilotHandle, timeout_s: float, poll_s: float = 0.1) -> PilotStatus:
        """Block until the pilot ends (or ``timeout_s`` passes; then its current status)."""
        return wait_until_terminal(self, handle, timeout_s, poll_s)
