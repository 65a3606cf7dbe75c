"""Trace a spec's step at a few lengths and fit the ``StepProgram`` the replay runs (needs torch).

Three traces (``advisor.trace.trace_step``, two steps each so the second is the steady one) at
lengths chosen by ``trace_lengths``; the program interpolates between them and extrapolates
exactly when every storage's size is a polynomial of degree <= 2 in the length (checked by the
tests against a fourth trace). A trace already made at the spec's own length can be passed in
and is reused.
"""

from __future__ import annotations

from advisor.allocator.events import EventLog, StepProgram
from advisor.arch import Architecture
from advisor.spec import FinetuneSpec
from advisor.stacks import StackProfile, profile

SMALL_TRACE_TOKENS = 128
"""The short lengths traced besides the spec's own: 128 and 256 tokens (multiples of every
stack's loss chunk count, 8 and 16, so chunked losses split evenly; short enough to trace fast)."""


def trace_lengths(seq_len: int, stack: str = "hf") -> tuple[int, ...]:
    """Three distinct lengths to trace for a run whose batches are at most ``seq_len`` long:
    two short ones and ``seq_len`` itself (two lengths when the sequence is too short for three)."""
    chunks = max(1, profile(stack).loss_chunks)
    q = SMALL_TRACE_TOKENS
    while q > chunks and 2 * q >= seq_len:
        q //= 2
    q = max(chunks, q - q % chunks)
    out = sorted({q, 2 * q, seq_len})
    if len(out) < 2:
        out = sorted({max(1, seq_len // 2), seq_len})
    return tuple(out[-3:]) if len(out) >= 3 else tuple(out)


def trace_program(spec: FinetuneSpec, arch: Architecture, *, lengths: tuple[int, ...] | None = None,
                  traced: dict[int, object] | None = None, stack: StackProfile | None = None) -> StepProgram:
    """The spec's step as a program over lengths. ``traced``: {length: TraceResult} already
    made (with their tracker), reused instead of tracing again. ``stack`` overrides the profile
    ``spec.stack`` names (``advisor.trace.trace_step``'s own override)."""
    from advisor.trace import trace_step

    lengths = lengths or trace_lengths(spec.seq_len, spec.stack)
    logs: dict[int, EventLog] = {}
    # the other lengths are traced the way the given trace was (its runtime and step count), so the
    # logs are the same program; one traced step is steady (advisor.trace makes the optimizer state
    # before the first step)
    given = next((r for r in (traced or {}).values() if getattr(r, "tracker", None) is not None), None)
    runtime, steps = getattr(given, "runtime", "reference"), getattr(given, "steps", 2)
    for length in lengths:
        result = (traced or {}).get(length)
        if result is None or getattr(result, "tracker", None) is None:
            result = trace_step(spec.model_copy(update={"seq_len": length}), arch, steps=steps, stack=stack,
                                runtime=runtime)
        logs[length] = EventLog.from_tracker(result.tracker)
    return StepProgram.from_logs(logs, micro_batch=spec.micro_batch)
