"""How long `advisor.parse.parse_message` takes per message (target: about a millisecond).

Runs every phrasing of tests/data/phrasings.json (with its thread request where it has one) after
one warm-up call that builds the catalog matcher, and prints the building time, the mean, the
median and the 99th percentile per message, and the slowest phrasing.

    python benchmarks/parse_speed.py [--rounds 20]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from advisor.catalog import Catalog
from advisor.errors import ParseError
from advisor.parse import parse_message
from advisor.parse.names import Matcher
from advisor.spec import SpecRequest

PHRASINGS = Path(__file__).resolve().parent.parent / "tests" / "data" / "phrasings.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    catalog = Catalog.in_memory()
    start = time.perf_counter()
    Matcher(catalog)
    build_ms = (time.perf_counter() - start) * 1e3
    entries = json.loads(PHRASINGS.read_text(encoding="utf-8"))
    cases = [(e["text"], SpecRequest(**e["previous"]) if "previous" in e else None) for e in entries]
    parse_message(cases[0][0], catalog)  # warm-up: matcher, regexes, message catalog
    times: list[tuple[float, str]] = []
    for _ in range(args.rounds):
        for text, previous in cases:
            t0 = time.perf_counter()
            try:
                parse_message(text, catalog, previous=previous)
            except ParseError:
                pass
            times.append(((time.perf_counter() - t0) * 1e3, text))
    ms = sorted(t for t, _ in times)
    slowest = max(times)
    print(f"matcher build: {build_ms:.1f} ms (once per catalog)")
    print(f"{len(cases)} phrasings x {args.rounds} rounds: mean {statistics.fmean(ms):.3f} ms, "
          f"median {statistics.median(ms):.3f} ms, p99 {ms[int(len(ms) * 0.99)]:.3f} ms per message")
    print(f"slowest: {slowest[0]:.2f} ms for {slowest[1][:70]!r}")


if __name__ == "__main__":
    main()
