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
@db_option
@json_option
def trace(request: SpecRequest, steps: int, lang: str, db: str | None, as_json: bool) -> None:
    """Exact peak memory of one training step, traced with fake tensors (needs the pilot extra)."""
    from advisor.trace import trace_step

    resolved = resolve_request(request, Catalog.open(catalog_path(db)), hub_reader())
    spec, arch = resolved.spec, resolved.arch
    result = trace_step(spec, arch, steps=steps)
    estimate = _estimate(spec, arch, result.allocated_bytes)
    if as_json:
        out = {"spec": spec.model_dump(mode="json"), "memory": result.to_json(),
               "trace_seconds": round(result.seconds, 3), "notes": result.notes}
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
    for note in result.notes:
        click.echo(note)
    click.echo(t("trace.seconds", lang, steps=result.steps, seconds=result.seconds))
