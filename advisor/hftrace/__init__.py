"""The real stack's training step under fake tensors: transformers + PEFT (+ bitsandbytes), at
the versions installed (level 2b of docs/DESIGN.md "four levels of memory truth").

``run_hf_step`` builds the model, optimizer and batch of ``advisor.pilot.hf_stack`` — the very
functions ``advisor pilot run --runtime hf`` runs on a GPU — under ``FakeTensorMode`` on the
``cpu`` device, and runs the step. Nothing is allocated. Callers add their own dispatch modes
(``modes``: the live-storage tracker here, a FLOP/byte counter elsewhere) and phase callbacks.
``trace_hf`` is the memory trace on top of it: ``advisor.model.tracker.LiveBytes`` over the
whole run, returning the same ``advisor.trace.TraceResult`` as the reference trace (peak, its
breakdown by category, peak per phase, the event log).

How the step is made to run without a GPU (each is a stand-in for something that cannot run,
never for what the libraries do):

* ``fakeenv.fake_module_moves``: same-device ``Module.to`` is a no-op and dtype casts make new
  parameters, because torch swaps fake parameters with ``swap_tensors``, which fails here;
* ``fakeenv.cuda_behaviour``: dropout runs as on CUDA (``native_dropout``: a bool mask, not a
  noise tensor), ``torch.is_autocast_enabled()`` (which asks about CUDA) reports the CPU
  autocast that stands for it, and transformers' packed-sequence check, which cannot read fake
  values, is answered as real values answer it for an unpacked batch (no materialised mask);
* ``bnb4bit``: bitsandbytes' ``Params4bit`` cannot hold a fake tensor, so its bytes live in a
  plain parameter with its attributes; the CUDA fallback of ``gemm_4bit`` is replayed op by op
  so its dequantized-weight transient is seen (the fake kernel allocates only the output);
* ``liger`` (``spec.liger_kernel``): Liger's own monkey patch, applied as transformers' Trainer
  applies it, with each Triton kernel's autograd Function replaced by one that allocates and
  saves what Liger's does;
* the 8-bit AdamW of ``advisor.model.optim`` (bitsandbytes' byte layout) stands for
  bitsandbytes' CUDA optimizers; paged states live in CUDA unified memory, outside torch's
  allocator, in a real run.

The optimizer state is created before measuring (one optimizer step over zero gradients, as the
first real step makes it), so one traced step shows what every later step keeps alive.
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from advisor.arch import Architecture
from advisor.spec import FinetuneSpec

PHASES = ("forward", "backward", "optimizer")


@dataclass
class HfStep:
    """What ``run_hf_step`` built and ran (fake tensors: shapes and dtypes only)."""

    model: object
    optimizer: object
    input_ids: object
    versions: dict[str, str]
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _decoder_layers(model) -> list:
    base = model
    for attr in ("get_base_model",):
        if hasattr(base, attr):
            base = base.get_base_model()
    inner = getattr(base, "model", base)
    return list(getattr(inner, "layers", []))


def run_hf_step(spec: FinetuneSpec, arch: Architecture, *, modes: Sequence = (), steps: int = 1,
                on_phase: Callable[[str], None] | None = None,
                on_built: Callable[[HfStep], None] | None = None,
                progress: Callable[[str], None] | None = None,
                micro_batches: int | None = None, cuda_kernels: bool = True, fake: bool = True) -> HfStep:
    """Build the hf stack's model, optimizer and batch for ``spec`` under ``FakeTensorMode`` and
    run ``steps`` training steps (after creating the optimizer state).

    ``modes``: TorchDispatchModes entered in order after the fake mode, active from the first
    parameter made to the end (they see the build too: a tracker must know the weights);
    ``on_phase(phase)`` is called with "batch" before the batch is made, then "forward",
    "backward", "optimizer" as each starts and "done" after ``zero_grad``; ``on_built(step)``
    once the model, optimizer (with its state) and batch exist, before the first "forward"; ``progress(text)`` with a short status (layer counts) for terminals.
    ``micro_batches`` caps the micro-batches per step under gradient accumulation (default: two
    when the spec accumulates, since every one after the first keeps the same tensors alive;
    three under FSDP2, where a middle one keeps more than the last: ``fsdp.micro_batches``).
    ``cuda_kernels=False`` leaves bitsandbytes' fake kernels as they are (allocating only their
    outputs): the bare step, for timing the trace's own overhead. ``fake=False`` runs the same
    step on real CPU tensors (small shapes only, LoRA and full: the tests check that fake and
    real runs track the same bytes).
    """
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode

    from advisor.hftrace import bnb4bit, fsdp
    from advisor.hftrace.fakeenv import cuda_behaviour, fake_module_moves
    from advisor.pilot import hf_stack
    from advisor.trace_result import warm_optimizer

    if steps < 1:
        raise ValueError("steps must be at least 1")
    hf_stack.imports(spec)  # MissingExtra before anything is built
    started = time.perf_counter()
    qlora = spec.method == "qlora"
    notes: list[str] = []
    mark = on_phase or (lambda _phase: None)
    say = progress or (lambda _text: None)
    if micro_batches is None:
        micro_batches = fsdp.micro_batches(spec)  # two, three under FSDP2's no_sync accumulation
    kernels = bnb4bit.CudaKernelFootprint() if (qlora and cuda_kernels) else None
    with contextlib.ExitStack() as stack:
        stack.enter_context(torch.random.fork_rng(devices=[]))
        torch.manual_seed(0)
        wrap = stack.enter_context(fsdp.sharded(spec, modes))  # FSDP2 over fake ranks, else identity
        if fake:
            stack.enter_context(FakeTensorMode())
        elif qlora:
            raise ValueError("a real-tensor run of the hf QLoRA step needs bitsandbytes on CUDA")
        for mode in modes:
            stack.enter_context(mode)
        if kernels is not None:
            stack.enter_context(kernels)
        if qlora:
            stack.enter_context(bnb4bit.fake_quant_maps())
        if fake:
            stack.enter_context(fake_module_moves())
        stack.enter_context(cuda_behaviour())
        if spec.liger_kernel:  # Liger's Triton kernels cannot run on CPU tensors, fake or real
            from advisor.hftrace import liger

            stack.enter_context(liger.stand_ins())
        say("building the model")
        model = hf_stack.make_model(spec, arch, "cpu",
                                    make_linear4bit=bnb4bit.fake_linear4bit if qlora else None)
        model = wrap(hf_stack.prepare(model, spec))
        optimizer = hf_stack.make_optimizer(model, spec, stand_in_8bit=True)
        warm_optimizer(torch, model, optimizer)
        mark("batch")
        ids = hf_stack.make_batch(spec, arch, "cpu", seed=0)
        run = HfStep(model=model, optimizer=optimizer, input_ids=ids, versions=hf_stack.versions(spec), notes=notes)
        if on_built is not None:
            on_built(run)
        layers = _decoder_layers(model)
        state = {"phase": "", "layer": 0}

        def count(_module, _args):
            state["layer"] += 1
            say(f"{state['phase']}: layer {min(state['layer'], len(layers))}/{len(layers)}")

        hooks = [layer.register_forward_pre_hook(count) for layer in layers]

        def on(phase: str) -> None:
            state["phase"], state["layer"] = phase, 0
            if phase in PHASES:
                say(phase)
            mark(phase)

        step = hf_stack.make_step(model, optimizer, ids, spec, "cpu", micro_batches=micro_batches)
        inner = lambda phase: None if phase == "done" else on(phase)  # noqa: E731
        for _ in range(steps):
            step(inner)
            on("done")  # after the step returned: its loss is gone, as the next step would replace it
        for hook in hooks:
            hook.remove()
    if kernels is not None and kernels.fused_calls:
        notes.append(f"{kernels.fused_calls} 4-bit matmuls are small enough that some GPUs run bitsandbytes' "
                     "fused kernel instead of dequantize + matmul (counted as the latter)")
    if spec.liger_kernel:
        from advisor.hftrace import liger

        installed = run.versions.get("liger_kernel", "")
        if installed and installed != liger.MIRRORS:
            notes.append(f"Liger's kernels are stood in for as liger_kernel {liger.MIRRORS} allocates and saves "
                         f"(installed: {installed})")
    if qlora and bnb4bit.saves_input():
        notes.append("the installed bitsandbytes keeps each 4-bit matmul's input for backward (before 0.43.2)")
    run.seconds = time.perf_counter() - started
    return run


def quant_constants(model) -> list:
    """The quantization-state tensors of every 4-bit linear (absmax, second-level absmax and
    code, offset, code table), each once: they live in ``weight.quant_state``, not in parameters."""
    out, seen = [], set()
    for module in model.modules():
        state = getattr(getattr(module, "weight", None), "quant_state", None)
        while state is not None:
            for t in (state.absmax, state.code, getattr(state, "offset", None)):
                if t is not None and id(t.untyped_storage()) not in seen:  # the 8-bit code table is shared
                    seen.add(id(t.untyped_storage()))
                    out.append(t)
            state = getattr(state, "state2", None)
    return out


def trace_hf(spec: FinetuneSpec, arch: Architecture, *, steps: int = 1,
             progress: Callable[[str], None] | None = None, fake: bool = True, modes: Sequence = (),
             on_phase: Callable[[str], None] | None = None, fast: bool = True):
    """Exact memory of the hf stack's training step (``advisor.trace.TraceResult``); ``modes``
    and ``on_phase`` let another measurement ride along, ``fast=False`` runs the tracker's
    original path (see ``advisor.trace.trace_step``)."""
    from advisor.hftrace import fsdp
    from advisor.model.tracker import LiveBytes
    from advisor.trace_result import TraceResult, outside_allocator, sharding_scale

    started = time.perf_counter()
    traced_fsdp = fsdp.applies(spec)  # FSDP2 over fake ranks: the trace is one rank's, nothing to divide
    tracker = (fsdp.FsdpLiveBytes if traced_fsdp else LiveBytes)(vocab=arch.vocab, fast=fast)
    built: dict = {}

    def on_built(run: HfStep) -> None:
        built["run"] = run
        tracker.label_model(run.model, constants=quant_constants(run.model))
        tracker.label_optimizer(run.optimizer)

    listener = on_phase

    def mark(phase: str) -> None:
        if listener is not None:
            listener(phase)
        run = built.get("run")
        if phase == "optimizer":
            tracker.label_grads(run.model)
        if phase == "done":
            tracker.label_optimizer(run.optimizer)
            phase = "idle"
        tracker.set_phase(phase)

    # Everything alive before the step (the imported libraries: millions of objects) is moved to
    # the collector's permanent generation for the trace, so that the collection below scans only
    # what the step made (gc.freeze; a full collection scanned all of it: about 0.3 s)
    gc.freeze()
    try:
        run = run_hf_step(spec, arch, modes=(tracker, *modes), steps=steps, on_phase=mark, on_built=on_built,
                          progress=progress, fake=fake)
        run_notes, versions = run.notes, run.versions
        del built["run"], run  # the model, optimizer and batch die here: their frees end the log
        # FSDP's state and the modules refer to each other (advisor.hftrace.fsdp.collect), and a
        # PEFT model can be in a reference cycle too: without a collection here, whether its
        # frees end the event log or never reach it depended on when Python's cyclic collector
        # last ran (seen: a LoRA step traced after a QLoRA step in one process, 51 frees)
        gc.collect()
    finally:
        gc.unfreeze()
    tracker.settle()
    scale, notes = (None, [fsdp.note(spec)]) if traced_fsdp else sharding_scale(spec)
    versions = {**versions, **fsdp.versions()} if traced_fsdp else versions
    paged, paged_notes = outside_allocator(spec)
    notes += paged_notes
    replay = tracker.replay({**(scale or {}), **paged}, PHASES)
    return TraceResult(allocated_bytes=replay.peak_bytes, breakdown=replay.breakdown, by_phase=replay.by_phase,
                       baseline_bytes=replay.baseline_bytes, seconds=time.perf_counter() - started,
                       steps=steps, notes=run_notes + notes, runtime="hf", versions=versions,
                       tracker=tracker)
