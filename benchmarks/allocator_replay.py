"""How long the caching-allocator replay takes for an 8B model over 200 steps.

Traces Llama-3.1-8B (LoRA by default, the advisor's default stack and settings, seq 2048) at the
three lengths the replay interpolates between, draws 200 micro-batch lengths from a length
distribution (default: samples between 200 and 2048 tokens, mean 600), and replays the run
through ``advisor.allocator`` with the default allocator settings and with
``expandable_segments:True``. Prints the trace time, the replay time of each, and what the
replay found. The target (issue 17): replay under 2 s.

    python benchmarks/allocator_replay.py [--method lora|qlora|full] [--steps 200]
        [--length-distribution 200,2048,600] [--repeat 3] [--exact]

The replay skips a step that is no longer than one already replayed from the same allocator
state without changing it (``replay_run(exact=False)``, the default); ``--exact`` replays every
step too and prints the difference (measured: at most 0.12% of reserved, always below).
"""

from __future__ import annotations

import argparse
import time

from advisor.allocator import AllocatorConfig
from advisor.allocator.lengths import batch_lengths
from advisor.allocator.program import trace_program
from advisor.allocator.replay import replay_run
from advisor.catalog import Catalog
from advisor.resolve import resolve_request
from advisor.spec import SpecRequest, parse_length_distribution

GIB = 2**30


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="llama-3.1-8b")
    ap.add_argument("--method", default="lora", choices=["lora", "qlora", "full"])
    ap.add_argument("--seq-len", type=int, default=2048)
    ap.add_argument("--micro-batch", type=int, default=1)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--accumulation", type=int, default=1)
    ap.add_argument("--length-distribution", default="200,2048,600")
    ap.add_argument("--repeat", type=int, default=3, help="replays timed (the best is printed too)")
    ap.add_argument("--exact", action="store_true",
                    help="also replay every step (no skipping of steps no longer than one already replayed "
                         "from the same state) and print the difference")
    args = ap.parse_args()

    dist = parse_length_distribution(args.length_distribution)
    resolved = resolve_request(SpecRequest(model=args.model, method=args.method, seq_len=args.seq_len,
                                           micro_batch=args.micro_batch, length_distribution=dist),
                               Catalog.open())
    spec, arch = resolved.spec, resolved.arch
    started = time.perf_counter()
    program = trace_program(spec, arch)
    traced = time.perf_counter() - started
    lengths = batch_lengths(dist, spec.seq_len, spec.micro_batch, args.steps, seed=0)
    print(f"{resolved.label} {spec.method} seq {spec.seq_len} micro-batch {spec.micro_batch}, "
          f"lengths {dist.summary}; {args.steps} steps, accumulation {args.accumulation}")
    print(f"trace at {', '.join(map(str, program.lengths))} tokens: {traced:.1f} s "
          f"({len(program.micro) + len(program.opt)} events per steady step)")
    for config in (AllocatorConfig(), AllocatorConfig().with_expandable()):
        times = []
        for _ in range(args.repeat):
            result = replay_run(program, lengths, accumulation=args.accumulation, config=config)
            times.append(result.seconds)
        print(f"replay [{config.label}]: {times[-1]:.2f} s (best of {args.repeat}: {min(times):.2f} s; "
              f"{result.simulated_steps} of {result.steps} steps simulated) -> reserved "
              f"{result.reserved_bytes / GIB:.2f} GiB, allocated {result.allocated_bytes / GIB:.2f} GiB, "
              f"slack {result.slack:.3f}, {result.segments} segments, "
              f"largest free block {result.largest_free_block / GIB:.2f} GiB")
        if args.exact:
            exact = replay_run(program, lengths, accumulation=args.accumulation, config=config, exact=True)
            print(f"  exact replay [{config.label}]: {exact.seconds:.2f} s, reserved {exact.reserved_bytes / GIB:.3f} GiB "
                  f"({100 * (result.reserved_bytes - exact.reserved_bytes) / exact.reserved_bytes:+.2f}% fast vs exact)")
    print("target: replay under 2 s")


if __name__ == "__main__":
    main()
