"""How close the analytic memory model is to published measurements.

For every usable row of ``tests/data/published_measurements.json`` this builds the spec the row
describes (stack, model, method, sequence length, micro-batch, checkpointing, LoRA rank and
targets, quantization, optimizer, precision), asks ``advisor.memory.estimate_memory`` for the
quantity the row measured (``max_allocated`` -> allocated_bytes, ``max_reserved`` ->
reserved_bytes, ``nvidia_smi`` -> device_bytes), converts the row's unit (GB = 1e9 bytes,
GiB = 2^30) and prints the median and 90th-percentile absolute percentage error per method and
overall, next to a per-size rule of thumb (the LLaMA-Factory README "Hardware Requirement" table).

    python benchmarks/memory_accuracy.py [--rows]

``tests/test_published.py`` calls ``evaluate`` and ``summarize`` from here, so the figures this
prints and the bar the test asserts come from one function.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

from advisor.arch import Architecture
from advisor.catalog import Catalog
from advisor.memory import estimate_memory
from advisor.spec import FinetuneSpec

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "published_measurements.json"
UNITS = {"GB": 1e9, "GiB": 2**30}
MEASURED_FIELD = {"max_allocated": "allocated_bytes", "max_reserved": "reserved_bytes",
                  "nvidia_smi": "device_bytes"}
# Published precision names -> FinetuneSpec.precision. litgpt's "bf16-true" is pure bf16.
PRECISIONS = {"bf16-true": "bf16", "bf16": "bf16", "bf16-mixed": "bf16-mixed",
              "fp16-mixed": "fp16-mixed", "fp32": "fp32"}
# Published LoRA target lists -> FinetuneSpec.lora_targets (attention-only or every linear).
TARGETS = {"q,v": "attention", "q,k,v,o": "attention", "q,k,v,proj,mlp,head": "all-linear",
           "all-linear": "all-linear"}

# The rule of thumb: LLaMA-Factory README, "Hardware Requirement" (hiyouga/LLaMA-Factory,
# README.md): estimated GPU memory per billion parameters, "Full (bf16 or fp16) 32-bit: 18x GB",
# "Full (pure_bf16) 16: 8x GB", "Freeze/LoRA/GaLore/APOLLO/BAdam 16: 2x GB", "QLoRA 8: x GB",
# "QLoRA 4: x/2 GB". It ignores sequence length, batch, stack and what was measured.
RULE_GB_PER_B = {("full", "mixed"): 18.0, ("full", "pure"): 8.0, ("lora", None): 2.0,
                 ("qlora", "int8"): 1.0, ("qlora", "nf4"): 0.5}


def load_rows(path: Path = DATA, usable_only: bool = True) -> list[dict]:
    rows = json.loads(path.read_text(encoding="utf-8"))["rows"]
    return [r for r in rows if r.get("use", True)] if usable_only else rows


def row_arch(row: dict, catalog: Catalog) -> Architecture:
    """The row's architecture: its own config.json numbers when the catalog lacks the model."""
    if row.get("arch"):
        return Architecture(**{k: v for k, v in row["arch"].items() if k != "source"})
    return catalog.model(row["model"]).arch


def row_spec(row: dict, catalog: Catalog) -> FinetuneSpec:
    """The FinetuneSpec a published row describes (evaluated under the stack it was measured with)."""
    fields = {
        "model": "tiny-test",  # the architecture comes from row_arch; the spec needs some model
        "method": row["method"], "stack": row["stack"], "seq_len": row["seq_len"],
        "micro_batch": row["micro_batch"], "gradient_checkpointing": row["gradient_checkpointing"],
        "precision": PRECISIONS[row["precision"]], "optimizer": row["optimizer"],
        "num_gpus": row["num_gpus"],
    }
    if row["method"] != "full":
        if row.get("lora_rank"):
            fields["lora_rank"] = row["lora_rank"]
        if row.get("lora_alpha"):
            fields["lora_alpha"] = row["lora_alpha"]
        if row.get("lora_targets"):
            fields["lora_targets"] = TARGETS[row["lora_targets"]]
        if row.get("lora_dropout") is not None:
            fields["lora_dropout"] = row["lora_dropout"]
    if row["method"] == "qlora":
        fields["quant"] = row["quant"]
        fields["double_quant"] = bool(row.get("double_quant"))
    for key in ("optimizer_impl", "attention", "sharding"):
        if row.get(key):
            fields[key] = row[key]
    return FinetuneSpec(**fields)


def measured_bytes(row: dict) -> float:
    return row["value"] * UNITS[row["unit"]]


def predicted_bytes(row: dict, catalog: Catalog) -> int:
    accumulates = None if row.get("gradient_accumulation") is None else row["gradient_accumulation"] > 1
    mem = estimate_memory(row_spec(row, catalog), row_arch(row, catalog), accumulates_gradients=accumulates)
    return getattr(mem, MEASURED_FIELD[row["measured"]])


def rule_of_thumb_bytes(row: dict, catalog: Catalog) -> float:
    """LLaMA-Factory's per-size figure for the row's method (GB, as the table prints it)."""
    billions = row_arch(row, catalog).params_total / 1e9
    if row["method"] == "full":
        key = ("full", "pure" if PRECISIONS[row["precision"]] in ("bf16", "fp32") else "mixed")
    elif row["method"] == "lora":
        key = ("lora", None)
    else:
        key = ("qlora", row["quant"])
    return RULE_GB_PER_B[key] * billions * 1e9


def evaluate(catalog: Catalog, rows: list[dict] | None = None) -> list[dict]:
    """One result per usable row: measured, ours, rule of thumb, and absolute % errors."""
    out = []
    for row in rows if rows is not None else load_rows():
        truth = measured_bytes(row)
        ours = predicted_bytes(row, catalog)
        rule = rule_of_thumb_bytes(row, catalog)
        out.append({"id": row["id"], "method": row["method"], "stack": row["stack"],
                    "measured": row["measured"], "truth": truth, "ours": ours, "rule": rule,
                    "err_ours": abs(ours - truth) / truth * 100, "err_rule": abs(rule - truth) / truth * 100,
                    "family": catalog_family(row, catalog),
                    "assumed": bool(row.get("measured_assumed"))})
    return out


def catalog_family(row: dict, catalog: Catalog) -> str:
    if row.get("family"):
        return row["family"]
    return catalog.model(row["model"]).family


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]


def summarize(results: list[dict]) -> dict[str, dict[str, float]]:
    """Per method and overall: rows, median and p90 absolute % error, ours and the rule."""
    groups: dict[str, list[dict]] = {"all": results}
    for r in results:
        groups.setdefault(r["method"], []).append(r)
    summary = {}
    for name, rs in groups.items():
        ours = [r["err_ours"] for r in rs]
        rule = [r["err_rule"] for r in rs]
        summary[name] = {"rows": len(rs), "median_ours": statistics.median(ours), "p90_ours": _p90(ours),
                         "median_rule": statistics.median(rule), "p90_rule": _p90(rule)}
    return summary


def time_per_call(catalog: Catalog, repeats: int = 2000) -> float:
    """Microseconds per estimate_memory call (the ranking calls it ~50 times per answer)."""
    spec = FinetuneSpec(model="llama-3.1-8b", method="qlora", seq_len=4096)
    arch = catalog.model("llama-3.1-8b").arch
    estimate_memory(spec, arch)
    start = time.perf_counter()
    for n in (1, 2, 4, 8) * (repeats // 4):
        estimate_memory(spec, arch, num_gpus=n)
    return (time.perf_counter() - start) / repeats * 1e6


def main(argv: list[str]) -> None:
    catalog = Catalog.in_memory()
    results = evaluate(catalog)
    if "--rows" in argv:
        print(f"{'row':58} {'meas':>6} {'GB/GiB':>7} {'ours':>7} {'rule':>7} {'err%':>6}")
        for r in results:
            scale = 1e9 if r["truth"] / 1e9 == round(r["truth"] / 1e9, 4) else 2**30
            print(f"{r['id'][:58]:58} {r['measured'][:6]:>6} {r['truth'] / scale:7.2f} "
                  f"{r['ours'] / scale:7.2f} {r['rule'] / scale:7.2f} {r['err_ours']:6.1f}")
    all_rows = load_rows(usable_only=False)
    families = sorted({r["family"] for r in results})
    print(f"published rows: {len(all_rows)}, usable: {len(results)} "
          f"({len(families)} families: {', '.join(families)})")
    print(f"{'method':8} {'rows':>5} {'ours median':>12} {'ours p90':>9} {'rule median':>12} {'rule p90':>9}")
    for name, s in summarize(results).items():
        print(f"{name:8} {s['rows']:5d} {s['median_ours']:11.1f}% {s['p90_ours']:8.1f}% "
              f"{s['median_rule']:11.1f}% {s['p90_rule']:8.1f}%")
    stated = summarize([r for r in results if not r["assumed"]])["all"]
    print(f"rows whose measured quantity is stated ({stated['rows']}): median {stated['median_ours']:.1f}%, "
          f"p90 {stated['p90_ours']:.1f}% (rule of thumb {stated['median_rule']:.1f}%)")
    print(f"estimate_memory: {time_per_call(catalog):.0f} us per call")


if __name__ == "__main__":
    main(sys.argv[1:])
