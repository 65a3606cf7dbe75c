"""How long the exact fake-tensor trace takes on this machine, and what it finds.

    python benchmarks/trace_speed.py [--quick]

Prints one line per case: seconds (wall and process CPU, so a busy shared machine shows), peak
allocated in GiB and the three largest parts. Targets (issue 3): an 8B step well under a minute,
a 70B step in about a minute.
"""

from __future__ import annotations

import argparse
import time

from advisor.catalog import Catalog
from advisor.resolve import resolve_request
from advisor.spec import SpecRequest
from advisor.trace import trace_step

GIB = 1024**3
CASES = [
    dict(model="llama-3.1-8b", method="qlora", seq_len=4096),
    dict(model="llama-3.1-8b", method="lora", seq_len=2048),
    dict(model="llama-3.1-8b", method="full", precision="bf16", gradient_checkpointing=False),
    dict(model="llama-3.1-8b", method="full", precision="bf16", gradient_checkpointing=False, optimizer_impl="fused"),
    dict(model="llama-3.1-70b", method="qlora", seq_len=2048),
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="only the first case")
    args = parser.parse_args()
    catalog = Catalog.in_memory()
    for case in CASES[:1] if args.quick else CASES:
        resolved = resolve_request(SpecRequest(**case), catalog)
        wall, cpu = time.perf_counter(), time.process_time()
        result = trace_step(resolved.spec, resolved.arch)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        top = sorted(result.breakdown.items(), key=lambda kv: -kv[1])[:3]
        parts = ", ".join(f"{k} {v / GIB:.2f}" for k, v in top)
        label = " ".join(f"{k}={v}" for k, v in case.items())
        print(f"{label:<95} {wall:6.1f} s wall {cpu:6.1f} s cpu  peak {result.allocated_bytes / GIB:7.2f} GiB  ({parts})")


if __name__ == "__main__":
    main()
