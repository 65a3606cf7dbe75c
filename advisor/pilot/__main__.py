"""`python -m advisor.pilot --spec SPEC.json --events EVENTS.jsonl`: run one pilot (GPU-node side).

The launchers start this; it can also be run by hand on a node. The result object is the
``finished`` event's ``result`` and is also printed on stdout as one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from advisor.pilot.events import read_events
from advisor.pilot.runner import run_pilot
from advisor.pilot.spec import PilotSpec


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m advisor.pilot", description=__doc__)
    parser.add_argument("--spec", required=True, help="PilotSpec JSON file")
    parser.add_argument("--events", required=True, help="JSON-lines event file (appended)")
    args = parser.parse_args(argv)
    pspec = PilotSpec.model_validate_json(Path(args.spec).read_text())
    code = run_pilot(pspec, args.events)
    events, _ = read_events(args.events)
    if events and events[-1].terminal:
        print(json.dumps(events[-1].model_dump(mode="json"), default=str))
    return code


if __name__ == "__main__":
    sys.exit(main())
