"""How long `advisor.parse.parse_message` takes per message (target: p99 under 2 ms).

Runs every phrasing of tests/data/phrasings.json (with its thread request where it has one) and
``--generated`` messages of each split of tests/phrasegen.py (pasted configs, typos and Slack
markup included) after one warm-up call that builds the catalog matcher, for ``--rounds`` rounds,
and prints the matcher's building time and, per message:

- wall time (``perf_counter``): the mean, median and 99th percentile of every call;
- CPU time of this process (``process_time``): the same, and each message's fastest round. On a
  shared machine (this one runs several engineers' test suites on 2 cores) wall time includes the
  time the process waited for a core; CPU time and the best round are what parsing costs;
- the slowest message, by its set and index only: the held-out splits' text is never printed, and the
  oldest generation the garbage collector collected during that call (a full, generation-2 collection
  walks every object the process holds, the benchmark's ten thousand messages included).

The load average is printed beside the figures: read the wall-clock line with it.

    python benchmarks/parse_speed.py [--rounds 5] [--generated 1000]
"""

from __future__ import annotations

import argparse
import gc
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


def _p(values: list[float], q: float) -> float:
    return values[min(len(values) - 1, int(len(values) * q))]


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
    labels = [f"table #{i}" for i in range(len(entries))]
    if args.generated:
        sys.path.insert(0, str(ROOT))
        from tests import phrasegen

        for split in phrasegen.SPLITS:
            generated = phrasegen.generate(args.generated, split=split, catalog=catalog, seed=11)
            labels += [f"generated/{split} #{i}" for i in range(len(generated))]
            entries += generated
    cases = [(e["text"], SpecRequest(**e["previous"]) if "previous" in e else None) for e in entries]
    parse_message(cases[0][0], catalog)  # warm-up: matcher, regexes, message catalog
    wall: list[tuple[float, str]] = []
    cpu: list[float] = []
    best_wall = [float("inf")] * len(cases)
    best_cpu = [float("inf")] * len(cases)
    load = os.getloadavg()[0]
    collected: list[int] = []  # the generation of each collection the garbage collector starts
    gc.callbacks.append(lambda phase, info: collected.append(info["generation"]) if phase == "start" else None)
    gc_gen: list[int] = []  # per call, the oldest generation collected during it (-1: none)
    for _ in range(args.rounds):
        for i, (text, previous) in enumerate(cases):
            collected.clear()
            t0, c0 = time.perf_counter(), time.process_time()
            try:
                parse_message(text, catalog, previous=previous)
            except ParseError:
                pass
            c1, t1 = time.process_time(), time.perf_counter()
            wall.append(((t1 - t0) * 1e3, labels[i], len(gc_gen)))
            gc_gen.append(max(collected, default=-1))
            cpu.append((c1 - c0) * 1e3)
            best_wall[i] = min(best_wall[i], (t1 - t0) * 1e3)
            best_cpu[i] = min(best_cpu[i], (c1 - c0) * 1e3)
    load = max(load, os.getloadavg()[0])
    ms = sorted(t for t, _, _ in wall)
    cpu.sort()
    best_wall.sort()
    best_cpu.sort()
    slowest = max(wall)
    print(f"matcher build: {build_ms:.1f} ms (once per catalog); load average up to {load:.1f} on {os.cpu_count()} CPUs")
    print(f"{len(cases)} messages x {args.rounds} rounds")
    print(f"wall time per call:     mean {statistics.fmean(ms):.3f} ms, median {statistics.median(ms):.3f} ms, "
          f"p99 {_p(ms, 0.99):.3f} ms")
    print(f"CPU time per call:      mean {statistics.fmean(cpu):.3f} ms, median {statistics.median(cpu):.3f} ms, "
          f"p99 {_p(cpu, 0.99):.3f} ms")
    # each message's fastest round: what parsing costs, without the pauses a shared machine adds
    print(f"best of {args.rounds} rounds, wall: median {statistics.median(best_wall):.3f} ms, "
          f"p99 {_p(best_wall, 0.99):.3f} ms, max {best_wall[-1]:.3f} ms")
    print(f"best of {args.rounds} rounds, CPU:  median {statistics.median(best_cpu):.3f} ms, "
          f"p99 {_p(best_cpu, 0.99):.3f} ms, max {best_cpu[-1]:.3f} ms")
    during = gc_gen[slowest[2]]
    print(f"slowest call: {slowest[0]:.2f} ms for {slowest[1]} (seed 11); garbage collection during it: "
          + (f"generation {during}" if during >= 0 else "none"))
    full = sum(g == 2 for g in gc_gen)
    print(f"calls during which a full (generation-2) garbage collection ran: {full} of {len(gc_gen)}")


if __name__ == "__main__":
    main()
