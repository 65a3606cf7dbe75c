"""How long the exact fake-tensor traces take on this machine, and what they find.

    python benchmarks/trace_speed.py [--quick] [--hf-only | --reference-only] [--original]
    python benchmarks/trace_speed.py --commands [--repeat N]

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

``--commands`` times what a user runs, as the issue's Done-when does: each ``advisor trace
--runtime hf --model llama-3.1-8b --method lora|qlora --seq-len 4096 --json`` (and the reference
QLoRA trace) as its own process, imports and interpreter start included, next to a bare process
that imports the same stack and runs the same step under FakeTensorMode with no tracker, no
step-time recorder and no allocator replay (``run_hf_step(..., cuda_kernels=False)``); wall and
CPU (user + system of the child, from ``os.wait4``), the command's own ``trace_seconds``, and the
command/bare ratio. ``--repeat N`` runs the pairs N times, interleaved, and prints each.
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
    parser.add_argument("--commands", action="store_true",
                        help="time the advisor trace commands as processes, beside a bare step process")
    parser.add_argument("--repeat", type=int, default=1, help="with --commands: rounds to run")
    args = parser.parse_args()
    print("load average", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    if args.commands:
        commands(args.repeat)
        print("load average", " ".join(f"{x:.2f}" for x in os.getloadavg()))
        return
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


_BARE = """
import sys
from advisor.catalog import Catalog
from advisor.resolve import resolve_request
from advisor.spec import SpecRequest
from advisor.pilot import hf_stack
from advisor.hftrace import run_hf_step
resolved = resolve_request(SpecRequest(model="llama-3.1-8b", method=sys.argv[1], seq_len=4096), Catalog.in_memory())
hf_stack.imports(resolved.spec)
run_hf_step(resolved.spec, resolved.arch, cuda_kernels=False)
sys.stdout.flush()
import os
os._exit(0)  # the step's cost, not the interpreter's teardown (the command skips it too)
"""


def _child(argv: list[str]) -> tuple[float, float, str]:
    """(wall s, CPU s of the child: user + system, its stdout) of one process."""
    import subprocess  # noqa: PLC0415

    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited with {proc.returncode}")
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime, out


def commands(repeat: int) -> None:
    import json  # noqa: PLC0415
    import sys  # noqa: PLC0415

    py = sys.executable
    base = [py, "-m", "advisor", "trace", "--model", "llama-3.1-8b", "--seq-len", "4096", "--json"]
    for i in range(repeat):
        for method in ("lora", "qlora"):
            bwall, bcpu, _ = _child([py, "-c", _BARE, method])
            wall, cpu, out = _child(base + ["--runtime", "hf", "--method", method])
            traced = json.loads(out)["trace_seconds"]
            print(f"[{i + 1}] advisor trace --runtime hf --method {method:<5} {wall:6.1f} s wall {cpu:6.1f} s cpu "
                  f"(trace_seconds {traced:5.1f})   bare process {bwall:5.1f} s wall {bcpu:5.1f} s cpu   "
                  f"command/bare {cpu / bcpu:.2f}x cpu", flush=True)
        wall, cpu, out = _child(base + ["--runtime", "reference", "--method", "qlora"])
        print(f"[{i + 1}] advisor trace --runtime reference --method qlora {wall:6.1f} s wall {cpu:6.1f} s cpu "
              f"(trace_seconds {json.loads(out)['trace_seconds']:5.1f})", flush=True)


def _reference_imports() -> None:
    import torch  # noqa: F401, PLC0415
    from torch._subclasses.fake_tensor import FakeTensorMode  # noqa: PLC0415

    FakeTensorMode()  # imports torch._dynamo (fake_tensor.py FakeTensorMode.__init__)
    from advisor.model import quant  # noqa: PLC0415
    import advisor.model  # noqa: F401, PLC0415

    quant.register_ops()


if __name__ == "__main__":
    main()
