"""Fit the chat path's closed form for reserved memory to allocator simulations, out of fold.

The chat answer cannot trace and replay (seconds to minutes); it needs reserved memory in
microseconds from the analytic model's terms. This script

1. traces a grid of step programs (``advisor.allocator.program``): realistic widths and
   vocabularies (the allocator's thresholds are absolute: 2 MiB, 10 MiB, 20 MiB) at 4-8 layers,
   and four models at their real depth (16-32 layers), LoRA / QLoRA / full, with and without
   gradient checkpointing, micro-batches 1 and 4;
2. replays each over 200 micro-batches at several maximum lengths and length distributions
   (every batch at the maximum, and maximum-entropy distributions with means of 20%, 40% and
   70% of it), with the default allocator and with expandable segments;
3. fits ``advisor.allocator.closed_form`` (the form and its features are documented there) by
   least squares on relative error, leaving each architecture out in turn, and prints the
   out-of-fold error next to a constant reserved/allocated ratio;
4. with ``--write``, stores the coefficients fitted on all simulations in
   ``advisor/allocator/closed_form.json`` and the simulations in
   ``tests/data/allocator_simulations.json`` (the tests check the stored coefficients against
   simulations of architectures left out of the fit).

    python benchmarks/allocator_closed_form.py [--write] [--quick]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from advisor.allocator import AllocatorConfig
from advisor.allocator.closed_form import FEATURES, features, fit, slack_from
from advisor.allocator.lengths import batch_lengths
from advisor.allocator.program import trace_program
from advisor.allocator.replay import replay_run
from advisor.arch import Architecture
from advisor.memory import estimate_memory
from advisor.spec import FinetuneSpec, LengthDistribution

ROOT = Path(__file__).resolve().parent.parent
SIMS = ROOT / "tests" / "data" / "allocator_simulations.json"
COEF = ROOT / "advisor" / "allocator" / "closed_form.json"

# (name, layers, hidden, intermediate, heads, kv_heads, vocab): the widths and vocabularies of
# Llama-3.2-1B/3B, Llama-3.1-8B, Qwen2.5-7B, Mistral-7B, Gemma-like, at 4-8 layers
ARCHS = [
    ("w2048-v128k", 4, 2048, 8192, 32, 8, 128256),
    ("w3072-v128k", 6, 3072, 8192, 24, 8, 128256),
    ("w4096-v128k", 4, 4096, 14336, 32, 8, 128256),
    ("w3584-v152k", 4, 3584, 18944, 28, 4, 152064),
    ("w4096-v32k", 8, 4096, 14336, 32, 8, 32000),
    ("w1536-v152k", 8, 1536, 8960, 12, 2, 151936),
]
SETTINGS = [  # (method, gradient checkpointing, micro-batch)
    ("lora", True, 1), ("lora", False, 1), ("qlora", True, 1), ("full", True, 1), ("lora", True, 4),
]
# at their real depth (slower to trace): Llama-3.2-1B, Llama-3.2-3B, Qwen2.5-7B, Llama-3.1-8B
DEEP_ARCHS = [
    ("llama-3.2-1b", 16, 2048, 8192, 32, 8, 128256),
    ("llama-3.2-3b", 28, 3072, 8192, 24, 8, 128256),
    ("qwen2.5-7b", 28, 3584, 18944, 28, 4, 152064),
    ("llama-3.1-8b", 32, 4096, 14336, 32, 8, 128256),
]
DEEP_SETTINGS = [("lora", True, 1), ("lora", False, 1), ("qlora", True, 1), ("full", True, 1)]
MAX_LENGTHS = (512, 1024, 2048, 4096)
MEAN_SHARES = (None, 0.2, 0.4, 0.7)  # None: every batch at the maximum
STEPS = 200


def arch_of(entry) -> Architecture:
    _, layers, hidden, inter, heads, kv, vocab = entry
    return Architecture(layers=layers, hidden=hidden, intermediate=inter, heads=heads, kv_heads=kv,
                        head_dim=hidden // heads, vocab=vocab)


def simulate(quick: bool = False, log=print) -> list[dict]:
    grid = [(a, SETTINGS[:2]) for a in ARCHS[:2]] if quick else (
        [(a, SETTINGS) for a in ARCHS] + [(a, DEEP_SETTINGS) for a in DEEP_ARCHS])
    rows = []
    for entry, settings in grid:
        arch = arch_of(entry)
        for method, ckpt, mb in settings:
            spec0 = FinetuneSpec(model="tiny-test", method=method, gradient_checkpointing=ckpt, micro_batch=mb,
                                 seq_len=512)
            started = time.perf_counter()
            program = trace_program(spec0, arch, lengths=(128, 256, 384))
            log(f"{entry[0]} {method} ckpt={ckpt} mb={mb}: traced in {time.perf_counter() - started:.0f} s")
            for max_len in MAX_LENGTHS:
                for share in MEAN_SHARES:
                    dist = None if share is None else LengthDistribution(mean=max(17.0, share * max_len), min=16,
                                                                         max=max_len)
                    spec = spec0.model_copy(update={"seq_len": max_len, "length_distribution": dist})
                    lengths = batch_lengths(dist, max_len, mb, STEPS, seed=0)
                    terms = estimate_memory(spec, arch, accumulates_gradients=False)
                    for expandable in (False, True):
                        cfg = AllocatorConfig().with_expandable() if expandable else AllocatorConfig()
                        run = replay_run(program, lengths, config=cfg)
                        rows.append({"arch": entry[0], "method": method, "checkpointing": ckpt, "micro_batch": mb,
                                     "seq_len": max_len, "mean_share": share, "expandable": expandable,
                                     "mean_batch": float(np.mean(lengths)), "max_batch": int(max(lengths)),
                                     "reserved": run.reserved_bytes, "allocated": run.allocated_bytes,
                                     "requested": run.requested_bytes,
                                     "terms": dict(terms.terms), "analytic_allocated": terms.allocated_bytes})
    return rows


def _x(row: dict) -> list[float]:
    return features(row["terms"], row["mean_batch"], row["max_batch"], row["checkpointing"])


def oof(rows: list[dict]) -> dict:
    """Leave-one-architecture-out errors of the closed form and of a constant ratio."""
    out = {}
    for expandable in (False, True):
        sub = [r for r in rows if r["expandable"] == expandable]
        errs, errs_const, errs_e2e = [], [], []
        for held in sorted({r["arch"] for r in sub}):
            train = [r for r in sub if r["arch"] != held]
            test = [r for r in sub if r["arch"] == held]
            coef = fit([_x(r) for r in train], [r["reserved"] / r["allocated"] - 1 for r in train])
            ratio = statistics.median(r["reserved"] / r["allocated"] for r in train)
            for r in test:
                slack = slack_from(coef, r["terms"], r["mean_batch"], r["max_batch"], r["checkpointing"])
                pred = r["allocated"] * (1 + slack)
                errs.append(abs(pred - r["reserved"]) / r["reserved"] * 100)
                errs_const.append(abs(r["allocated"] * ratio - r["reserved"]) / r["reserved"] * 100)
                e2e = r["analytic_allocated"] * (1 + slack)
                errs_e2e.append(abs(e2e - r["reserved"]) / r["reserved"] * 100)
        out[expandable] = {"rows": len(sub), "median": statistics.median(errs), "p90": float(np.percentile(errs, 90)),
                           "max": max(errs), "median_const": statistics.median(errs_const),
                           "p90_const": float(np.percentile(errs_const, 90)),
                           "median_e2e": statistics.median(errs_e2e), "p90_e2e": float(np.percentile(errs_e2e, 90))}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="store the coefficients and the simulations")
    ap.add_argument("--quick", action="store_true", help="two architectures and two settings only")
    ap.add_argument("--from-file", action="store_true", help="refit the stored simulations, no tracing")
    args = ap.parse_args()
    if args.from_file:
        rows = json.loads(SIMS.read_text())["rows"]
    else:
        rows = simulate(args.quick, log=lambda m: print(m, file=sys.stderr))
    res = oof(rows)
    for expandable, s in res.items():
        label = "expandable_segments:True" if expandable else "default allocator"
        print(f"{label}: {s['rows']} simulations, leave-one-architecture-out error of reserved: "
              f"closed form median {s['median']:.1f}% p90 {s['p90']:.1f}% max {s['max']:.1f}%; "
              f"constant ratio median {s['median_const']:.1f}% p90 {s['p90_const']:.1f}%; "
              f"closed form on the analytic allocated (chat path end to end) median {s['median_e2e']:.1f}% "
              f"p90 {s['p90_e2e']:.1f}%")
    if args.write:
        coefs = {}
        for expandable in (False, True):
            sub = [r for r in rows if r["expandable"] == expandable]
            coefs["expandable" if expandable else "default"] = fit(
                [_x(r) for r in sub], [r["reserved"] / r["allocated"] - 1 for r in sub])
        COEF.write_text(json.dumps({"features": list(FEATURES), "coefficients": coefs,
                                    "fitted_on": f"{len(rows)} simulations, benchmarks/allocator_closed_form.py",
                                    "oof": {("expandable" if k else "default"): v for k, v in res.items()}},
                                   indent=1) + "\n")
        SIMS.write_text(json.dumps({"schema": 1, "rows": rows}) + "\n")
        print(f"wrote {COEF.relative_to(ROOT)} and {SIMS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
