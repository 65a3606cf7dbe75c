"""The analytic estimate (``advisor estimate --stack hf --num-gpus N --sharding fsdp``) against
torch FSDP2 traced over N fake ranks in the real stack (``advisor trace --runtime hf``,
advisor.hftrace.fsdp), on real model shapes.

    python benchmarks/hf_fsdp_agreement.py [--models llama-3.2-1b,llama-3.2-3b] [--gpus 2,4,8]
        [--methods lora,full] [--seq-len 1024] [--micro-batch 1] [--accumulation 1,4]
        [--checkpointing on,off] [--liger-kernel]

``--accumulation``: gradient accumulation steps; above 1 the hf step runs every micro-batch but the
last without gradient sync, as the Trainer does (advisor.pilot.hf_stack ``no_sync``), so each rank
keeps the unsharded gradients between them (advisor.memory ``_fsdp_unsharded_grads``).

``--liger-kernel``: Liger's kernels (advisor.hftrace.liger's stand-ins) under FSDP2, as
``advisor trace --runtime hf --liger-kernel --num-gpus N --sharding fsdp`` traces them.

One line per case: the traced peak of rank 0, the estimate, their difference, the trace's seconds
(noisy on a shared machine: not a speed target), and the largest categories of each. The bar the
tests assert is 3% (tests/test_hftrace_fsdp.py, the same bar as tests/test_agreement.py).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from advisor.catalog import Catalog  # noqa: E402
from advisor.cli.common import catalog_path  # noqa: E402
from advisor.spec import FinetuneSpec  # noqa: E402

MIB = 2**20


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="llama-3.2-1b,llama-3.2-3b")
    parser.add_argument("--gpus", default="2,4,8")
    parser.add_argument("--methods", default="lora,full")
    parser.add_argument("--seq-len", type=int, default=1024)
    parser.add_argument("--micro-batch", type=int, default=1)
    parser.add_argument("--accumulation", default="1")
    parser.add_argument("--checkpointing", default="on,off")
    parser.add_argument("--liger-kernel", action="store_true")
    args = parser.parse_args(argv)
    from advisor.hftrace import trace_hf
    from advisor.memory import estimate_memory

    catalog = Catalog.open(catalog_path(None))
    worst, rows = 0.0, 0
    if args.liger_kernel:
        print("with Liger kernel (fused linear cross-entropy, RMSNorm, SwiGLU, RoPE)")
    print(f"{'model':<14} {'method':<6} {'N':>2} {'acc':>3} {'ckpt':>4} {'trace MiB':>10} {'est MiB':>10} {'diff':>7} "
          f"{'s':>5}")
    checkpointing = [{"on": True, "off": False}[c] for c in args.checkpointing.split(",")]
    for model, method, n, acc, gc in itertools.product(args.models.split(","), args.methods.split(","),
                                                       [int(g) for g in args.gpus.split(",")],
                                                       [int(a) for a in args.accumulation.split(",")], checkpointing):
        arch = catalog.model(model).arch
        spec = FinetuneSpec(model=model, method=method, seq_len=args.seq_len, micro_batch=args.micro_batch,
                            num_gpus=n, sharding="fsdp", gradient_checkpointing=gc, liger_kernel=args.liger_kernel,
                            gradient_accumulation_steps=acc)
        started = time.perf_counter()
        traced = trace_hf(spec, arch)
        seconds = time.perf_counter() - started
        est = estimate_memory(spec, arch)
        diff = (est.allocated_bytes - traced.allocated_bytes) / traced.allocated_bytes
        worst, rows = max(worst, abs(diff)), rows + 1
        print(f"{model:<14} {method:<6} {n:>2} {acc:>3} {'on' if gc else 'off':>4} {traced.allocated_bytes / MIB:>10.1f} "
              f"{est.allocated_bytes / MIB:>10.1f} {100 * diff:>+6.2f}% {seconds:>5.0f}", flush=True)
    print(f"{rows} cases, largest difference {100 * worst:.2f}% (bar: 3%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
