"""`python -m advisor.pilot.job --workdir DIR --spec-b64 SPEC`: one pilot as a Ray job's entrypoint.

The Ray launcher (advisor/pilot/launchers/ray.py) submits this. It writes the spec into
``DIR/<pilot id>/``, runs the runner there (the same ``run_pilot`` as ``python -m advisor.pilot``)
and echoes every event the runner writes to stdout, one line each, prefixed with
``ADVISOR_PILOT_EVENT ``: Ray keeps the job's stdout as its logs, which is how the launcher on
the bot's side reads the events back (``JobSubmissionClient.get_job_logs``) without a shared
filesystem. SIGTERM (Ray's ``stop_job``) reaches the runner, which reports failed/cancelled.
"""

from __future__ import annotations

import argparse
import base64
import sys
import threading
from pathlib import Path

EVENT_PREFIX = "ADVISOR_PILOT_EVENT "
TAIL_EVERY_S = 0.2


def _tail(path: Path, stop: threading.Event) -> None:
    from advisor.pilot.events import read_events

    offset = 0
    while True:
        ended = stop.wait(TAIL_EVERY_S)
        events, offset = read_events(path, offset)
        for event in events:
            sys.stdout.write(EVENT_PREFIX + event.model_dump_json() + "\n")
        sys.stdout.flush()
        if ended:
            return


def main(argv: list[str] | None = None) -> int:
    from advisor.pilot.runner import run_pilot
    from advisor.pilot.spec import PilotSpec

    parser = argparse.ArgumentParser(prog="python -m advisor.pilot.job", description=__doc__)
    parser.add_argument("--workdir", required=True, help="where the pilot's run directory is made on this node")
    parser.add_argument("--spec-b64", required=True, help="PilotSpec JSON, URL-safe base64")
    args = parser.parse_args(argv)
    pspec = PilotSpec.model_validate_json(base64.urlsafe_b64decode(args.spec_b64.encode()))
    run_dir = Path(args.workdir).resolve() / pspec.pilot_id
    run_dir.mkdir(parents=True, exist_ok=True)
    pspec = pspec.model_copy(update={"output_dir": pspec.output_dir or str(run_dir)})
    (run_dir / "spec.json").write_text(pspec.model_dump_json(indent=2))
    events = run_dir / "events.jsonl"
    stop = threading.Event()
    tail = threading.Thread(target=_tail, args=(events, stop), daemon=True)
    tail.start()
    try:
        return run_pilot(pspec, events)
    finally:
        stop.set()
        tail.join(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
