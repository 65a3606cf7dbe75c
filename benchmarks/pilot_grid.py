"""The GPU verification grid (issue 7, item 7): measured pilots beside the estimate and the exact
trace, on whatever GPU this node has. Needs CUDA; run it through scripts/gpu_pilot_grid.sh.

Rows: full fine-tune of Llama 3.2 1B, LoRA and QLoRA of Llama 3.1 8B, each at two sequence
lengths, with and without gradient checkpointing, on the reference runtime (advisor's decoder)
and on the hf runtime (transformers + PEFT + bitsandbytes: ``--runtime hf``), 24 pilots. Each
row records the spec, the analytic estimate (advisor.memory + advisor.throughput), the exact
trace of the same runtime (advisor.trace / advisor.hftrace, fake tensors on this node's CPU) and
the measured pilot (``python -m advisor.pilot`` in a fresh process, so each row starts from an
empty CUDA context), and the errors of both against the measurement.

    python benchmarks/pilot_grid.py --out $OUT/pilot_grid.json [--steps 5] [--only qlora] [--runtime hf]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from advisor.catalog import Catalog  # noqa: E402
from advisor.pilot.events import read_events  # noqa: E402
from advisor.pilot.predict import compare, predict  # noqa: E402
from advisor.pilot.spec import matches_gpu, pilot_spec_for  # noqa: E402
from advisor.resolve import resolve_request  # noqa: E402
from advisor.spec import SpecRequest  # noqa: E402

GRID = [  # (name, request fields); each at SEQ_LENS x gradient checkpointing on/off
    ("full-1b", {"model": "llama-3.2-1b", "method": "full"}),
    ("lora-8b", {"model": "llama-3.1-8b", "method": "lora"}),
    ("qlora-8b", {"model": "llama-3.1-8b", "method": "qlora"}),
]
SEQ_LENS = (1024, 4096)
# Reference runtime: the decoder the estimate and the trace model. Stack hf: its memory profile.
COMMON = {"stack": "hf", "micro_batch": 1, "precision": "bf16-mixed", "optimizer": "adamw"}


def detect_gpu(catalog: Catalog):
    import torch

    if not torch.cuda.is_available():
        raise SystemExit("No CUDA GPU here: the pilot grid measures real GPUs (run it on a GPU node).")
    props = torch.cuda.get_device_properties(0)
    for gpu in catalog.gpus():
        probe = pilot_spec_for(resolve_request(SpecRequest(model="tiny-test"), catalog), gpu)
        if matches_gpu(probe, props.name, props.total_memory):
            return gpu, props
    raise SystemExit(f"{props.name} ({props.total_memory / 2**30:.1f} GiB) is not in the catalog; add it first.")


RUNTIMES = ("reference", "hf")


def trace_of(spec, arch, runtime: str) -> dict:
    try:
        from advisor.trace import trace_step
    except ImportError as exc:
        return {"error": f"advisor.trace unavailable: {exc}"}
    try:
        tr = trace_step(spec, arch, runtime=runtime)
    except Exception as exc:  # a grid row must not stop the grid
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {"runtime": tr.runtime, "versions": tr.versions, "allocated_bytes": tr.allocated_bytes,
            "breakdown": tr.breakdown, "by_phase": tr.by_phase, "seconds": tr.seconds}


def run_row(name, fields, gpu, catalog, steps, workdir: Path, time_limit: float, runtime: str = "reference") -> dict:
    resolved = resolve_request(SpecRequest(**{**COMMON, **fields}), catalog)
    pspec = pilot_spec_for(resolved, gpu, steps=steps, pilot_id=name, device="cuda", runtime=runtime,
                           output_dir=str(workdir / name), time_limit_s=time_limit)
    prediction = predict(pspec, gpu)
    row = {"name": name, "runtime": runtime, "spec": resolved.spec.model_dump(mode="json"), "gpu": gpu.id,
           "estimate": prediction,
           "trace": trace_of(resolved.spec.model_copy(update={"num_gpus": 1}), resolved.arch, runtime)}
    spec_path, events_path = workdir / f"{name}.spec.json", workdir / f"{name}.events.jsonl"
    spec_path.write_text(pspec.model_dump_json())
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "advisor.pilot", "--spec", str(spec_path), "--events", str(events_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=time_limit + 120)
    events = read_events(events_path)[0]
    last = events[-1] if events else None
    row["wall_s"] = time.monotonic() - started
    row["exit_status"] = proc.returncode
    if last is not None and last.type == "finished":
        row["measured"] = last.data["result"]
        row["comparison"] = compare(prediction, last.data["result"])
        trace_peak = row["trace"].get("allocated_bytes")
        measured = last.data["result"]["memory"]["peak_allocated_bytes"]
        row["trace_error"] = (trace_peak - measured) / measured if trace_peak and measured else None
    else:
        row["failed"] = last.data if last is not None else {"reason": "no events", "stderr": proc.stderr[-3000:]}
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--only", default=None, help="run only rows whose name contains this")
    parser.add_argument("--time-limit", type=float, default=240)
    parser.add_argument("--runtime", choices=RUNTIMES, default=None, help="only rows of this runtime")
    args = parser.parse_args()
    catalog = Catalog.open(ROOT / "catalog.db")
    gpu, props = detect_gpu(catalog)
    out = Path(args.out)
    workdir = out.parent / "pilot-grid-runs"
    workdir.mkdir(parents=True, exist_ok=True)
    rows = []
    for runtime in RUNTIMES if args.runtime is None else (args.runtime,):
        for base, fields in GRID:
            for seq in SEQ_LENS:
                for gc in (True, False):
                    name = f"{runtime}-{base}-seq{seq}-{'gc' if gc else 'nogc'}"
                    if args.only and args.only not in name:
                        continue
                    row = run_row(name, {**fields, "seq_len": seq, "gradient_checkpointing": gc}, gpu, catalog,
                                  args.steps, workdir, args.time_limit, runtime)
                    rows.append(row)
                    errs = {c["metric"]: c["error"] for c in row.get("comparison", [])}
                    print(f"{name:<38} " + (f"alloc err {errs.get('peak_allocated_bytes')}, tokens/s err "
                                            f"{errs.get('tokens_per_s')}, trace err {row.get('trace_error')}"
                                            if "measured" in row else f"FAILED {row['failed'].get('reason')}"),
                          flush=True)
                    out.write_text(json.dumps({"gpu": gpu.id, "device": props.name, "rows": rows}, indent=1,
                                              default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
