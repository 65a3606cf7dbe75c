"""`advisor trace`: the exact peak memory of one training step, traced with fake tensors."""

from __future__ import annotations

import importlib

import click

from advisor.catalog import Catalog
from advisor.cli.common import catalog_path, db_option, emit_json, hub_reader, json_option
from advisor.cli.spec_flags import spec_options
from advisor.format import gib
from advisor.i18n import t
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


@click.command()
@spec_options
@click.option("--steps", type=click.IntRange(1, 10), default=2, show_default=True,
              help="Training steps to trace (the optimizer state appears in the first).")
@click.option("--lang", type=click.Choice(["en", "es"]), default="en", show_default=True)
@click.option("--replay-steps", type=click.IntRange(1, 100_000), default=200, show_default=True,
              help="Micro-batches replayed through the caching-allocator model for reserved memory.")
@click.option("--alloc-conf", metavar="SETTINGS", default="",
              help="PYTORCH_CUDA_ALLOC_CONF to simulate (e.g. max_split_size_mb:512).")
@db_option
@json_option
def trace(request: SpecRequest, steps: int, lang: str, replay_steps: int, alloc_conf: str, db: str | None,
          as_json: bool) -> None:
    """Exact peak memory of one training step, traced with fake tensors (needs the pilot extra),
    and what the caching allocator reserves over a run of such steps."""
    from advisor.allocator import AllocatorConfig, AllocatorConfigError
    from advisor.allocator.simulate import simulate_reserved
    from advisor.trace import trace_step

    from advisor.steptime.traced import text_lines, traced_step_time

    try:
        config = AllocatorConfig.parse(alloc_conf)
    except AllocatorConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="--alloc-conf") from None
    catalog = Catalog.open(catalog_path(db))
    resolved = resolve_request(request, catalog, hub_reader())
    spec, arch = resolved.spec, resolved.arch
    result = trace_step(spec, arch, steps=max(steps, 2))
    reserved = simulate_reserved(spec, arch, trace=result, steps=replay_steps, config=config)
    estimate = _estimate(spec, arch, result.allocated_bytes)
    gpus = [catalog.gpu(spec.gpu)] if spec.gpu else catalog.gpus(offered_only=True)
    step_time = traced_step_time(spec, arch, gpus, steps=steps)  # the step's operators, priced per GPU
    if as_json:
        out = {"spec": spec.model_dump(mode="json"), "memory": {**result.to_json(), **reserved.to_json()},
               "trace_seconds": round(result.seconds, 3), "notes": result.notes, "step_time": step_time}
        if estimate is not None:
            out["estimate"] = estimate
        emit_json(out)
        return
    click.echo(t("trace.title", lang, label=resolved.label, method=t(f"method.{spec.method}", lang),
                 seq_len=spec.seq_len, micro_batch=spec.micro_batch, stack=spec.stack))
    if spec.num_gpus > 1:
        click.echo(t("trace.per_gpu", lang, num_gpus=spec.num_gpus, sharding=spec.sharding.upper()))
    peak = result.allocated_bytes
    click.echo(t("trace.peak", lang, size=gib(peak, 2)))
    click.echo("")
    click.echo(f"  {t('trace.col.part', lang):<28} {t('trace.col.size', lang):>12} {t('trace.col.share', lang):>8}")
    for name, size in result.breakdown.items():
        if size:
            click.echo(f"  {t('trace.cat.' + name, lang):<28} {gib(size, 2):>12} {100 * size / peak:7.1f}%")
    click.echo("")
    click.echo(t("trace.by_phase", lang) + ":")
    for phase, size in result.by_phase.items():
        click.echo(f"  {t('trace.phase.' + phase, lang):<28} {gib(size, 2):>12}")
    if estimate is not None:
        click.echo(t("trace.estimate", lang, size=gib(estimate["allocated_bytes"], 2), error=estimate["error_pct"]))
    run = reserved.run
    if reserved.distribution is None:
        lengths = t("alloc.lengths.fixed", lang, seq_len=spec.seq_len)
    else:
        lengths = t("alloc.lengths.variable", lang, mean=sum(reserved.lengths) / len(reserved.lengths),
                    longest=max(reserved.lengths))
    click.echo(t("alloc.reserved", lang, steps=run.steps, lengths=lengths,
                 size=gib(run.reserved_bytes, 2), segments=run.segments, slack=100 * (run.slack - 1),
                 allocated=gib(run.allocated_bytes, 2), device=gib(reserved.device_bytes, 2)))
    if reserved.expandable is not None:
        click.echo(t("alloc.expandable", lang, size=gib(reserved.expandable.reserved_bytes, 2),
                     slack=100 * (reserved.expandable.slack - 1)))
    if run.oom_step is not None:
        click.echo(t("alloc.oom", lang, step=run.oom_step, message=run.oom_message))
    for note in result.notes:
        click.echo(note)
    click.echo(t("trace.seconds", lang, steps=result.steps, seconds=result.seconds))
    click.echo("")
    click.echo("\n".join(text_lines(step_time, lang)))
