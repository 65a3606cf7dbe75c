"""The analytic hf profile with Liger kernel against the real stack traced with Liger's own patch.

    python benchmarks/memory_liger.py [--quick]

For every case of tests/test_agreement.py's ``HF_LIGER_GRID`` (1B/3B/8B, LoRA/QLoRA,
checkpointing on/off, sequence length 512-8192, micro-batch 1-4) this traces the step through
transformers + PEFT (+ bitsandbytes) with ``use_liger_kernel`` applied as transformers' Trainer
applies it (``advisor.hftrace``; Liger's Triton kernels stood in for by ``advisor.hftrace.liger``)
and prints the trace's peak, the estimate's (``advisor.memory.estimate_memory``, the ``liger``
terms), their difference (the test's bar is 3%), the saving against the same step without Liger
(estimate), and the seconds of each trace (wall and process CPU: the machine is shared).
``--quick``: the 8B LoRA and QLoRA cases at seq 4096 only (the issue's timing cases).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from advisor.catalog import Catalog  # noqa: E402
from advisor.memory import estimate_memory  # noqa: E402
from advisor.spec import FinetuneSpec  # noqa: E402

GIB = 1024**3


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    from advisor.hftrace import liger, trace_hf

    started = time.perf_counter()
    liger.imports()
    print(f"liger_kernel imports: {time.perf_counter() - started:.1f} s, once per process")
    if args.quick:
        cases = [("llama-3.1-8b", "lora", True, 4096, 1), ("llama-3.1-8b", "qlora", True, 4096, 1)]
    else:
        from tests.test_agreement import HF_LIGER_GRID

        cases = HF_LIGER_GRID
    catalog = Catalog.in_memory()
    worst = 0.0
    print(f"{'case':<36} {'trace GiB':>9} {'est GiB':>8} {'est-trace':>9} {'vs no Liger':>11} {'wall s':>7} {'cpu s':>6}")
    for model, method, gc, seq, mb in cases:
        arch = catalog.model(model).arch
        spec = FinetuneSpec(model=model, method=method, stack="hf", gradient_checkpointing=gc, seq_len=seq,
                            micro_batch=mb, liger_kernel=True)
        wall, cpu = time.perf_counter(), time.process_time()
        traced = trace_hf(spec, arch)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        est = estimate_memory(spec, arch).allocated_bytes
        plain = estimate_memory(spec.model_copy(update={"liger_kernel": False}), arch).allocated_bytes
        err = 100.0 * (est - traced.allocated_bytes) / traced.allocated_bytes
        worst = max(worst, abs(err))
        label = f"{model} {method} gc={'on' if gc else 'off'} {seq}x{mb}"
        print(f"{label:<36} {traced.allocated_bytes / GIB:9.2f} {est / GIB:8.2f} {err:+8.2f}% "
              f"{100.0 * (est - plain) / plain:+10.1f}% {wall:7.1f} {cpu:6.1f}", flush=True)
    print(f"largest |est - trace|: {worst:.2f}% (bar: 3%); versions: {traced.versions}")


if __name__ == "__main__":
    main()
