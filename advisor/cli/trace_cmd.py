"""`advisor trace`: the exact peak memory of one training step, traced with fake tensors."""

from __future__ import annotations

import importlib

import click

from advisor.catalog import Catalog
from advisor.cli.common import catalog_path, db_option, emit_json, hub_reader, json_option
from advisor.cli.spec_flags import spec_options
from advisor.errors import MissingExtra, SpecError
from advisor.format import gib
from advisor.i18n import t
from advisor.i18n.numbers import decimal, integer, percent, signed_percent
from advisor.resolve import resolve_request
from advisor.spec import SpecRequest


def register(main: click.Group) -> None:
    main.add_command(trace)


def _estimate(spec, arch, traced: int) -> dict | None:
    """The analytic estimate beside the trace, when advisor.memory exists in this version."""
    try:
        memory = importlib.import_module("advisor.memory")
    except ModuleNotFoundError:
        return None
    estimate_memory = getattr(memory, "estimate_memory", None)
    if estimate_memory is None:
        return None
    est = int(estimate_memory(spec, arch).allocated_bytes)
    return {"allocated_bytes": est, "error_pct": round(100.0 * (est - traced) / traced, 2)}


def hf_unavailable(spec, arch) -> str | None:
    """Why the real hf stack cannot trace this spec here (None when it can)."""
    if spec.stack != "hf":
        return f"the {spec.stack} stack is not transformers + PEFT (its behaviour is traced in the reference decoder)"
    if arch.mlp_kind != "gated" or arch.norm != "rmsnorm":
        return "transformers' Llama-family classes cannot express this architecture"
    if arch.experts:
        return ("transformers 5 keeps a mixture of experts' weights as 3-D parameters (MixtralExperts), which "
                "PEFT's target_modules do not adapt, and picks its experts kernel at run time: not traced as "
                "the estimate models it (LoRA on every expert, balanced routing)")
    if spec.method == "qlora" and spec.quant != "nf4":
        return "only NF4 4-bit (bitsandbytes Linear4bit) has a fake-tensor stand-in"
    try:
        import torch  # noqa: F401 - transformers without torch only warns; ask torch first
    except ImportError:
        return "torch is not installed (the pilot extra)"
    try:
        from advisor.pilot import hf_stack

        hf_stack.imports(spec)
    except MissingExtra as exc:
        return str(exc)
    from advisor.hftrace import fsdp  # --num-gpus N --sharding fsdp: FSDP2 over N fake ranks

    return fsdp.unavailable(spec)


def sharding_json(spec, result) -> dict | None:
    """What the JSON says about the GPUs the trace stands for: FSDP2 traced over fake ranks
    (hf runtime), or one GPU's trace with the sharded categories divided by the count."""
    if spec.num_gpus <= 1:
        return None
    traced = result.runtime == "hf" and spec.sharding == "fsdp"
    return {"num_gpus": spec.num_gpus, "sharding": spec.sharding,
            "traced": "fsdp2 fake ranks" if traced else ("replicated" if spec.sharding == "ddp" else "divided"),
            "fake_ranks": spec.num_gpus if traced else 0, "rank": 0 if traced else None}


def choose_runtime(runtime: str, spec, arch) -> tuple[str, str | None]:
    """(runtime to trace with, why hf was not used) for ``--runtime auto|reference|hf``."""
    if runtime == "reference":
        return "reference", None
    why = hf_unavailable(spec, arch)
    if runtime == "hf":
        if why:
            raise SpecError(f"Cannot trace --runtime hf: {why}. Use --runtime reference.")
        return "hf", None
    return ("reference", why) if why else ("hf", None)


def _step_recorder(arch):
    """advisor.steptime's operator recorder, kept to the last traced step (as its record_step
    keeps the steady one), and the phase listener that drives it."""
    from advisor.steptime.record import OpRecorder

    recorder = OpRecorder(vocab=arch.vocab)
    last = {"phase": "build"}

    def listen(phase: str) -> None:
        if phase == "forward" and last["phase"] in ("batch", "done"):
            recorder.reset()  # a new step begins: keep only the last one
        if phase != "batch":
            recorder.set_phase(phase)
        last["phase"] = phase

    return recorder, listen


# what each phase the traced step marks (advisor.trace / advisor.hftrace on_phase) is called on screen
_PHASE_WORDS = {"batch": "making the batch", "forward": "forward", "backward": "backward",
                "optimizer": "optimizer step"}


def _listen_progress(progress, steps: int, listen):
    """The trace's phase listener, also driving the terminal's progress: step i of N and its phase."""
    state = {"done": 0}

    def on_phase(phase: str) -> None:
        listen(phase)
        if phase == "done":
            state["done"] += 1
            progress.steps(state["done"], steps)
        elif phase in _PHASE_WORDS:
            step = min(state["done"] + 1, steps)
            word = _PHASE_WORDS[phase]
            progress.phase(word if phase == "batch" else f"tracing step {step} of {steps}: {word}")

    return on_phase


@click.command()
@spec_options
@click.option("--runtime", type=click.Choice(["auto", "reference", "hf"]), default="auto", show_default=True,
              help="hf: the real transformers + PEFT step at the installed versions; reference: advisor's "
                   "decoder with the stack's switches; auto: hf for --stack hf when the hf extra is installed.")
@click.option("--steps", type=click.IntRange(1, 10), default=1, show_default=True,
              help="Training steps to trace (the optimizer state is made before the first).")
@click.option("--lang", type=click.Choice(["en", "es"]), default="en", show_default=True)
@click.option("--replay-steps", type=click.IntRange(1, 100_000), default=200, show_default=True,
              help="Micro-batches replayed through the caching-allocator model for reserved memory.")
@click.option("--alloc-conf", metavar="SETTINGS", default="",
              help="PYTORCH_CUDA_ALLOC_CONF to simulate (e.g. max_split_size_mb:512).")
@db_option
@json_option
def trace(request: SpecRequest, runtime: str, steps: int, lang: str, replay_steps: int, alloc_conf: str,
          db: str | None, as_json: bool) -> None:
    """Exact peak memory of one training step, traced with fake tensors (needs the pilot extra;
    --runtime hf the hf extra), and what the caching allocator reserves over a run of such steps."""
    from advisor.cli.progress import progress_for

    with progress_for(as_json) as progress:
        _trace(request, runtime, steps, lang, replay_steps, alloc_conf, db, as_json, progress)


def _trace(request: SpecRequest, runtime: str, steps: int, lang: str, replay_steps: int, alloc_conf: str,
           db: str | None, as_json: bool, progress) -> None:
    progress.phase("importing torch")
    from advisor.allocator import AllocatorConfig, AllocatorConfigError
    from advisor.allocator.simulate import simulate_reserved
    from advisor.trace import _torch, trace_step

    _torch()  # the pilot extra, before anything below imports torch
    from advisor.steptime.record import RecordedStep
    from advisor.steptime.traced import text_lines, traced_step_time

    try:
        config = AllocatorConfig.parse(alloc_conf)
    except AllocatorConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="--alloc-conf") from None
    progress.phase("reading the model")
    catalog = Catalog.open(catalog_path(db))
    resolved = resolve_request(request, catalog, hub_reader())
    spec, arch = resolved.spec, resolved.arch
    chosen, why = choose_runtime(runtime, spec, arch)
    recorder, listen = _step_recorder(arch)  # the step time rides along the same traced run
    progress.phase(f"building the model ({chosen} runtime) and its optimizer state")
    progress.steps(0, steps)
    result = trace_step(spec, arch, steps=steps, runtime=chosen, progress=progress.note, modes=(recorder,),
                        on_phase=_listen_progress(progress, steps, listen))
    progress.phase(f"replaying the caching allocator over {replay_steps} micro-batches")
    reserved = simulate_reserved(spec, arch, trace=result, steps=replay_steps, config=config)
    progress.phase("estimating")
    estimate = _estimate(spec, arch, result.allocated_bytes)
    notes = list(result.notes)
    if runtime == "auto" and why and spec.stack == "hf":
        notes.append(f"traced with the reference decoder: {why}")
    gpus = [catalog.gpu(spec.gpu)] if spec.gpu else catalog.gpus(offered_only=True)
    recorded = RecordedStep(ops=list(recorder.ops), tokens=spec.seq_len * spec.micro_batch,
                            seconds=result.seconds, runtime=result.runtime)
    progress.phase("pricing the step's operators per GPU")
    step_time = traced_step_time(spec, arch, gpus, recorded=recorded)  # the step's operators, priced per GPU
    progress.close()  # the result alone on the screen
    if as_json:
        out = {"spec": spec.model_dump(mode="json"), "memory": {**result.to_json(), **reserved.to_json()},
               "runtime": result.runtime, "versions": result.versions, "trace_seconds": round(result.seconds, 3),
               "notes": notes, "step_time": step_time}
        if estimate is not None:
            out["estimate"] = estimate
        sharding = sharding_json(spec, result)
        if sharding is not None:
            out["sharding"] = sharding
        emit_json(out)
        return
    click.echo(t("trace.title", lang, label=resolved.label, method=t(f"method.{spec.method}", lang),
                 seq_len=spec.seq_len, micro_batch=spec.micro_batch, stack=spec.stack))
    click.echo(t("trace.runtime", lang, runtime=result.runtime,
                 versions=", ".join(f"{k} {v}" for k, v in result.versions.items()) or "advisor.model"))
    if spec.num_gpus > 1:
        click.echo(t("trace.per_gpu", lang, num_gpus=spec.num_gpus, sharding=spec.sharding.upper()))
    peak = result.allocated_bytes
    click.echo(t("trace.peak", lang, size=gib(peak, 2, lang)))
    click.echo("")
    click.echo(f"  {t('trace.col.part', lang):<28} {t('trace.col.size', lang):>12} {t('trace.col.share', lang):>8}")
    for name, size in result.breakdown.items():
        if size:
            click.echo(f"  {t('trace.cat.' + name, lang):<28} {gib(size, 2, lang):>12} {percent(size / peak, lang, 1):>8}")
    click.echo("")
    click.echo(t("trace.by_phase", lang) + ":")
    for phase, size in result.by_phase.items():
        click.echo(f"  {t('trace.phase.' + phase, lang):<28} {gib(size, 2, lang):>12}")
    if estimate is not None:
        click.echo(t("trace.estimate", lang, size=gib(estimate["allocated_bytes"], 2, lang), error=signed_percent(estimate["error_pct"] / 100, lang)))
    run = reserved.run
    if reserved.distribution is None:
        lengths = t("alloc.lengths.fixed", lang, seq_len=spec.seq_len)
    else:
        lengths = t("alloc.lengths.variable", lang, mean=integer(sum(reserved.lengths) / len(reserved.lengths), lang),
                    longest=max(reserved.lengths))
    click.echo(t("alloc.reserved", lang, steps=run.steps, lengths=lengths,
                 size=gib(run.reserved_bytes, 2, lang), segments=run.segments, slack=percent(run.slack - 1, lang),
                 allocated=gib(run.allocated_bytes, 2, lang), device=gib(reserved.device_bytes, 2, lang)))
    if reserved.expandable is not None:
        click.echo(t("alloc.expandable", lang, size=gib(reserved.expandable.reserved_bytes, 2, lang),
                     slack=percent(reserved.expandable.slack - 1, lang)))
    if run.oom_step is not None:
        click.echo(t("alloc.oom", lang, step=run.oom_step, message=run.oom_message))
    for note in notes:
        click.echo(note)
    click.echo(t("trace.seconds", lang, steps=result.steps, seconds=decimal(result.seconds, lang, 1)))
    click.echo("")
    click.echo("\n".join(text_lines(step_time, lang)))
