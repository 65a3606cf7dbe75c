"""How long the exact fake-tensor traces take on this machine, and what they find.

    python benchmarks/trace_speed.py [--quick] [--hf-only | --reference-only] [--original]

Prints one line per case: seconds (wall and process CPU, so a busy shared machine shows), peak
allocated in GiB and the three largest parts. For the real hf stack it also times the bare step
(transformers + PEFT under FakeTensorMode, no tracker, bitsandbytes' fake kernels as they are) in
the same run and prints the ratio: the trace's own overhead. Targets (issue 11): an 8B LoRA or
QLoRA hf trace at seq 4096 under 15 s when the machine is quiet and at most 1.5x the bare step;
the reference trace of the same QLoRA spec under 10 s. Import time is paid once per process
and reported apart (torch, and torch._dynamo, which FakeTensorMode's constructor imports); the
first trace of a process still pays FakeTensorMode's first dispatches (its class-wide cache
fills, meta kernels load). On a busy shared machine compare the cpu columns: the step is
single-threaded Python dispatch, so its process CPU time is what a quiet machine's wall time is;
the load average is printed before and after. ``--original`` also times each reference case
with the tracker's original path (``trace_step(..., fast=False)``) right after the fast one, in
the same process, and checks that both found the same peak, breakdown and event log (the
original runs second, on the caches the fast run filled: the ratio flatters the original).
"""

from __future__ import annotations

import argparse
import os
import time

from advisor.catalog import Catalog
from advisor.resolve import resolve_request
from advisor.spec import SpecRequest
from advisor.trace import trace_step

GIB = 1024**3
HF_CASES = [
    dict(model="llama-3.1-8b", method="lora", seq_len=4096),
    dict(model="llama-3.1-8b", method="qlora", seq_len=4096),
]
REFERENCE_CASES = [
    dict(model="llama-3.1-8b", method="qlora", seq_len=4096),
    dict(model="llama-3.1-8b", method="lora", seq_len=2048),
    dict(model="llama-3.1-8b", method="full", precision="bf16", gradient_checkpointing=False, optimizer_impl="foreach"),
    dict(model="llama-3.1-8b", method="full", precision="bf16", gradient_checkpointing=False, optimizer_impl="fused"),
    dict(model="llama-3.1-70b", method="qlora", seq_len=2048),
]


def _timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def _line(label: str, result, wall: float, cpu: float, extra: str = "") -> str:
    top = sorted(result.breakdown.items(), key=lambda kv: -kv[1])[:3]
    parts = ", ".join(f"{k} {v / GIB:.2f}" for k, v in top)
    return (f"{label:<58} {wall:6.1f} s wall {cpu:6.1f} s cpu  peak {result.allocated_bytes / GIB:7.2f} GiB "
            f"({parts}){extra}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="only the first case of each runtime")
    parser.add_argument("--hf-only", action="store_true")
    parser.add_argument("--reference-only", action="store_true")
    parser.add_argument("--original", action="store_true",
                        help="also time the tracker's original path (fast=False) on each reference case")
    args = parser.parse_args()
    print("load average", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    catalog = Catalog.in_memory()
    if not args.reference_only:
        from advisor.hftrace import run_hf_step

        _, imp, _ = _timed(lambda: __import__("advisor.pilot.hf_stack").pilot.hf_stack.imports(
            resolve_request(SpecRequest(**HF_CASES[1]), catalog).spec))
        print(f"hf stack imports (torch, transformers, peft, bitsandbytes): {imp:.1f} s, once per process")
        for case in HF_CASES[:1] if args.quick else HF_CASES:
            resolved = resolve_request(SpecRequest(**case), catalog)
            spec, arch = resolved.spec, resolved.arch
            _, bare, bare_cpu = _timed(lambda: run_hf_step(spec, arch, cuda_kernels=False))
            result, wall, cpu = _timed(lambda: trace_step(spec, arch, runtime="hf"))
            label = "hf " + " ".join(f"{k}={v}" for k, v in case.items())
            print(_line(label, result, wall, cpu, f"  bare step {bare:.1f} s wall {bare_cpu:.1f} s cpu, "
                                                  f"trace/bare {wall / bare:.2f}x wall {cpu / bare_cpu:.2f}x cpu"))
    if not args.hf_only:
        _, imp, imp_cpu = _timed(_reference_imports)
        print(f"reference imports (torch, torch._dynamo via FakeTensorMode, advisor.model): {imp:.1f} s wall "
              f"{imp_cpu:.1f} s cpu, once per process")
        for case in REFERENCE_CASES[:1] if args.quick else REFERENCE_CASES:
            resolved = resolve_request(SpecRequest(**case), catalog)
            label = "reference " + " ".join(f"{k}={v}" for k, v in case.items())
            result, wall, cpu = _timed(lambda: trace_step(resolved.spec, resolved.arch))
            print(_line(label, result, wall, cpu))
            if args.original:
                old, owall, ocpu = _timed(lambda: trace_step(resolved.spec, resolved.arch, fast=False))
                same = (old.allocated_bytes, old.breakdown, old.event_log()) == \
                    (result.allocated_bytes, result.breakdown, result.event_log())
                print(_line("  same, original tracker path (fast=False)", old, owall, ocpu,
                            f"  fast/original {cpu / ocpu:.2f}x cpu, identical log: {same}"))
    print("load average", " ".join(f"{x:.2f}" for x in os.getloadavg()))


def _reference_imports() -> None:
    import torch  # noqa: F401, PLC0415
    from torch._subclasses.fake_tensor import FakeTensorMode  # noqa: PLC0415

    FakeTensorMode()  # imports torch._dynamo (fake_tensor.py FakeTensorMode.__init__)
    from advisor.model import quant  # noqa: PLC0415
    import advisor.model  # noqa: F401, PLC0415

    quant.register_ops()


if __name__ == "__main__":
    main()
