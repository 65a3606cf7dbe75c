"""Ranking benchmark: the full ranking over the catalog for typical specs, in-process.

    python benchmarks/ranking.py [--calls N]

Prints median and p99 milliseconds per ``recommend`` call (warm-up first, like nanoGPT's
bench.py), wall-clock and CPU time of this process (on a shared machine the wall clock also
counts other people's work). Target: under 5 ms median, so the bot answers well inside Slack's
3 s window. Not a test: speed depends on the machine.
"""

from __future__ import annotations

import argparse
import statistics
import time

from advisor.catalog import Catalog
from advisor.recommend import recommend
from advisor.report import render_text
from advisor.resolve import resolve_request
from advisor.spec import SpecRequest

TARGET_MEDIAN_MS = 5.0
WARMUP_CALLS = 20
SPECS = {
    "lora 8b seq 4096, 50M tokens x 3": dict(model="llama-3.1-8b", method="lora", seq_len=4096,
                                             dataset_tokens=50_000_000, epochs=3),
    "qlora 70b seq 8192 (no dataset)": dict(model="llama-3-70b", method="qlora", seq_len=8192),
    "full 70b seq 4096, 100M tokens": dict(model="llama-3.1-70b", method="full", seq_len=4096,
                                           dataset_tokens=100_000_000),
    "full 405b seq 8192 (nothing fits)": dict(model="llama-3.1-405b", method="full", seq_len=8192),
}


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def bench(catalog: Catalog, request: SpecRequest, calls: int) -> dict[str, float]:
    resolved = resolve_request(request, catalog)
    for _ in range(WARMUP_CALLS):
        recommend(resolved, catalog)
    wall, cpu = [], []
    for _ in range(calls):
        start, start_cpu = time.perf_counter(), time.process_time()
        recommend(resolved, catalog)
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    render_start = time.perf_counter()
    render_text(recommend(resolved, catalog), "en")
    return {"median": statistics.median(wall), "p99": _p99(wall), "cpu_median": statistics.median(cpu),
            "cpu_p99": _p99(cpu), "render": (time.perf_counter() - render_start) * 1000}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    catalog = Catalog.open()
    print(f"{len(catalog.gpus())} catalog GPUs, {args.calls} calls per spec after {WARMUP_CALLS} warm-up calls")
    print(f"{'spec':<36} {'wall median':>11} {'wall p99':>9} {'cpu median':>11} {'cpu p99':>8} {'+render':>8}  (ms)")
    typical = None
    for name, said in SPECS.items():
        r = bench(catalog, SpecRequest(**said), args.calls)
        typical = typical or r
        print(f"{name:<36} {r['median']:>11.2f} {r['p99']:>9.2f} {r['cpu_median']:>11.2f} {r['cpu_p99']:>8.2f} "
              f"{r['render']:>8.2f}")
    verdict = "meets" if typical["median"] < TARGET_MEDIAN_MS else "MISSES"
    print(f"typical spec (first row): {typical['median']:.2f} ms median wall: {verdict} the "
          f"{TARGET_MEDIAN_MS:g} ms target")


if __name__ == "__main__":
    main()
