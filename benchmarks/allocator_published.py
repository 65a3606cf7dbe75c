"""The simulated reserved peak against published measurements of variable-length runs.

For every row of ``tests/data/allocator_measurements.json``: build the spec the row describes,
trace its step (``advisor.allocator.program.trace_program``; one program per model and method,
reused for every max length, since programs are parametrized by length), draw the run's batch
lengths from the row's dataset (its published token statistics, ``advisor.allocator.lengths``;
as many samples as the run trained on, the overflow policy it used, micro-batch 1), replay the
run through the caching-allocator model on the row's GPU and print the published reserved peak,
the simulated one (the median over several draws of the lengths for short runs, whose peak
depends on the order of their few long batches; the spread of the draws is printed), and the
simulated allocated peak and the fixed-length reserved peak beside it. The median absolute error is over the usable rows (``use: true``); excluded rows are shown
for context. Nothing in advisor is fitted to these rows.

    python benchmarks/allocator_published.py [--only SUBSTRING] [--seeds N]

``tests/test_allocator_published.py`` calls ``evaluate`` from here.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from advisor.allocator.lengths import batch_lengths
from advisor.allocator.program import trace_program
from advisor.allocator.replay import replay_run
from advisor.arch import Architecture
from advisor.spec import FinetuneSpec, LengthDistribution

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "allocator_measurements.json"
UNITS = {"GB": 1e9, "GiB": 2**30, "MiB": 2**20}
GIB = 2**30
CUDA_CONTEXT = 600 * 2**20  # advisor.stacks default: what the device holds outside torch's allocator


def load(path: Path = DATA) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def row_spec(row: dict) -> FinetuneSpec:
    fields = {"model": "tiny-test", "method": row["method"], "stack": row["stack"], "seq_len": row["seq_len"],
              "micro_batch": row["micro_batch"], "gradient_checkpointing": row["gradient_checkpointing"],
              "precision": row["precision"], "optimizer": row["optimizer"]}
    for key in ("lora_rank", "lora_alpha", "lora_targets", "lora_dropout", "attention", "optimizer_impl"):
        if row.get(key) is not None:
            fields[key] = row[key]
    return FinetuneSpec(**fields)


def row_arch(row: dict) -> Architecture:
    return Architecture(**{k: v for k, v in row["arch"].items() if k != "source"})


def row_distribution(row: dict, datasets: dict) -> LengthDistribution:
    ds = datasets[row["lengths"]["dataset"]]
    return LengthDistribution(mean=ds["mean"], std=ds["std"], min=ds["min"], max=ds["max"],
                              overflow=row["lengths"]["overflow"])


def run_steps(row: dict, dist: LengthDistribution, seed: int) -> list[int]:
    """The run's micro-batch lengths: the samples it drew, after its overflow policy."""
    import random

    from advisor.allocator.lengths import sample_lengths

    drawn = sample_lengths(dist.model_copy(update={"overflow": "truncate"}), row["lengths"]["samples"],
                           10**7, random.Random(seed))
    if dist.overflow == "drop":
        drawn = [x for x in drawn if x <= row["seq_len"]]
    return [min(x, row["seq_len"]) for x in drawn] or [row["seq_len"]]


def auto_seeds(steps: int) -> int:
    """Length draws for a run of ``steps`` micro-batches: the fewer the steps, the more the peak
    depends on the order of the few long batches, and the cheaper each replay; up to 9 draws
    (the median is kept), one for runs of 2000 steps or more."""
    return max(1, min(9, 2000 // max(steps, 1)))


def evaluate(rows: list[dict] | None = None, datasets: dict | None = None, seeds: int | None = None,
             log=None) -> list[dict]:
    """One result per row; ``seeds`` draws per row (None: ``auto_seeds``)."""
    data = load()
    rows = data["rows"] if rows is None else rows
    datasets = datasets or data["datasets"]
    programs: dict[tuple, object] = {}
    out = []
    for row in rows:
        spec, arch = row_spec(row), row_arch(row)
        key = (json.dumps(row["arch"], sort_keys=True), spec.model_copy(update={"seq_len": 1}).model_dump_json())
        if key not in programs:
            started = time.perf_counter()
            programs[key] = trace_program(spec, arch, lengths=(128, 256, 384))
            if log:
                log(f"traced {row['model']} {row['method']} in {time.perf_counter() - started:.0f} s")
        program = programs[key]
        dist = row_distribution(row, datasets)
        capacity = int(row["device_total_gib"] * GIB) - CUDA_CONTEXT
        sims = []
        n_seeds = seeds or auto_seeds(len(run_steps(row, dist, 0)))
        for seed in range(n_seeds):
            lengths = run_steps(row, dist, seed)
            sims.append(replay_run(program, lengths, accumulation=row["gradient_accumulation"],
                                   capacity=capacity, device_total=int(row["device_total_gib"] * GIB)))
        fixed = replay_run(program, [row["seq_len"]] * 2 * row["gradient_accumulation"],
                           accumulation=row["gradient_accumulation"], capacity=capacity)
        sim = sorted(sims, key=lambda r: r.reserved_bytes)[len(sims) // 2]
        truth = row["value"] * UNITS[row["unit"]]
        out.append({"id": row["id"], "use": row["use"], "truth": truth, "reserved": sim.reserved_bytes,
                    "allocated": sim.allocated_bytes, "fixed_reserved": fixed.reserved_bytes,
                    "steps": sim.steps, "seeds": n_seeds, "oom": sim.oom_step is not None,
                    "spread": (max(r.reserved_bytes for r in sims) - min(r.reserved_bytes for r in sims)) / truth,
                    "err": 100.0 * (sim.reserved_bytes - truth) / truth})
    return out


def summarize(results: list[dict]) -> dict:
    used = [abs(r["err"]) for r in results if r["use"]]
    return {"rows": len(used), "median_abs_err": statistics.median(used) if used else float("nan"),
            "mean_signed_err": statistics.mean(r["err"] for r in results if r["use"]) if used else float("nan")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="rows whose id contains this")
    ap.add_argument("--seeds", type=int, default=None, help="length draws per row (the median is kept; "
                    "default: more for shorter runs, see auto_seeds)")
    args = ap.parse_args()
    data = load()
    rows = [r for r in data["rows"] if args.only in r["id"]]
    results = evaluate(rows, data["datasets"], seeds=args.seeds, log=lambda m: print(m, file=sys.stderr))
    print("| row | published | simulated reserved | error | spread of draws | sim. allocated | "
          "sim. fixed-length reserved | steps x draws |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in results:
        mark = "" if r["use"] else " (not used)"
        print(f"| {r['id']}{mark} | {r['truth'] / GIB:.2f} GiB | {r['reserved'] / GIB:.2f} GiB"
              f"{' OOM' if r['oom'] else ''} | {r['err']:+.1f}% | {100 * r['spread']:.0f}% | "
              f"{r['allocated'] / GIB:.2f} GiB | {r['fixed_reserved'] / GIB:.2f} GiB | {r['steps']} x {r['seeds']} |")
    s = summarize(results)
    print(f"\nusable rows: {s['rows']}; median absolute error {s['median_abs_err']:.1f}% "
          f"(mean signed {s['mean_signed_err']:+.1f}%); bar: 10%")


if __name__ == "__main__":
    main()
