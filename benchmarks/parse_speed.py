"""How long `advisor.parse.parse_message` takes per message (target: p99 under 2 ms).

Runs every phrasing of tests/data/phrasings.json (with its thread request where it has one) and
``--generated`` messages of each split of tests/phrasegen.py (pasted configs, typos and Slack
markup included) after one warm-up call that builds the catalog matcher, and prints the building
time, the mean, the median and the 99th percentile per message, and the slowest message.

    python benchmarks/parse_speed.py [--rounds 5] [--generated 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

from advisor.catalog import Catalog
from advisor.errors import ParseError
from advisor.parse import parse_message
from advisor.parse.names import Matcher
from advisor.spec import SpecRequest

ROOT = Path(__file__).resolve().parent.parent
PHRASINGS = ROOT / "tests" / "data" / "phrasings.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--generated", type=int, default=1000, help="generated messages per split")
    args = parser.parse_args()
    catalog = Catalog.in_memory()
    start = time.perf_counter()
    Matcher(catalog)
    build_ms = (time.perf_counter() - start) * 1e3
    entries = json.loads(PHRASINGS.read_text(encoding="utf-8"))
    if args.generated:
        sys.path.insert(0, str(ROOT))
        from tests import phrasegen

        for split in phrasegen.SPLITS:
            entries += phrasegen.generate(args.generated, split=split, catalog=catalog, seed=11)
    cases = [(e["text"], SpecRequest(**e["previous"]) if "previous" in e else None) for e in entries]
    parse_message(cases[0][0], catalog)  # warm-up: matcher, regexes, message catalog
    times: list[tuple[float, str]] = []
    best = [float("inf")] * len(cases)
    for _ in range(args.rounds):
        for i, (text, previous) in enumerate(cases):
            t0 = time.perf_counter()
            try:
                parse_message(text, catalog, previous=previous)
            except ParseError:
                pass
            elapsed = (time.perf_counter() - t0) * 1e3
            times.append((elapsed, text))
            best[i] = min(best[i], elapsed)
    ms = sorted(t for t, _ in times)
    fastest = sorted(best)
    slowest = max(times)
    print(f"matcher build: {build_ms:.1f} ms (once per catalog); load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} CPUs")
    print(f"{len(cases)} messages x {args.rounds} rounds: mean {statistics.fmean(ms):.3f} ms, "
          f"median {statistics.median(ms):.3f} ms, p99 {ms[int(len(ms) * 0.99)]:.3f} ms per message")
    # each message's fastest round: what parsing costs, without the pauses a shared machine adds
    print(f"best of {args.rounds} rounds per message: median {statistics.median(fastest):.3f} ms, "
          f"p99 {fastest[int(len(fastest) * 0.99)]:.3f} ms, max {fastest[-1]:.3f} ms")
    print(f"slowest: {slowest[0]:.2f} ms for {slowest[1][:70]!r}")


if __name__ == "__main__":
    main()
