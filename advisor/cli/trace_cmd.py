"""`advisor trace`: the exact peak memory of one training step, traced with fake tensors."""

from __future__ import annotations

import importlib
import sys
import time

import click

from advisor.catalog import Catalog
from advisor.cli.common import catalog_path, db_option, emit_json, hub_reader, json_option
from advisor.cli.spec_flags import spec_options
from advisor.errors import MissingExtra, SpecError
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


def hf_unavailable(spec, arch) -> str | None:
    """Why the real hf stack cannot trace this spec here (None when it can)."""
    if spec.stack != "hf":
        return f"the {spec.stack} stack is not transformers + PEFT (its behaviour is traced in the reference decoder)"
    if spec.liger_kernel:
        return ("Liger's kernels are Triton kernels, which do not run on fake CPU tensors "
                "(the estimate models their memory from liger_kernel's source)")
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
    return None


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


class _Progress:
    """One self-overwriting status line on stderr, only when stderr is a terminal."""

    def __init__(self, enabled: bool):
        self.enabled, self.started, self.last = enabled, time.perf_counter(), 0.0

    def __call__(self, text: str) -> None:
        now = time.perf_counter()
        if not self.enabled or now - self.last < 0.1:
            return
        self.last = now
        sys.stderr.write(f"\r  tracing ({now - self.started:4.1f} s): {text:<40}")
        sys.stderr.flush()

    def done(self) -> None:
        if self.enabled and self.last:
            sys.stderr.write("\r" + " " * 70 + "\r")
            sys.stderr.flush()


@click.command()
@spec_options
@click.option("--runtime", type=click.Choice(["auto", "reference", "hf"]), default="auto", show_default=True,
              help="hf: the real transformers + PEFT step at the installed versions; reference: advisor's "
                   "decoder with the stack's switches; auto: hf for --stack hf when the hf extra is installed.")
@click.option("--steps", type=click.IntRange(1, 10), default=1, show_default=True,
              help="Training steps to trace (the optimizer state is made before the first).")
@click.option("--lang", type=click.Choice(["en", "es"]), default="en", show_default=True)
@db_option
@json_option
def trace(request: SpecRequest, runtime: str, steps: int, lang: str, db: str | None, as_json: bool) -> None:
    """Exact peak memory of one training step, traced with fake tensors (needs the pilot extra;
    --runtime hf the hf extra)."""
    from advisor.trace import trace_step

    resolved = resolve_request(request, Catalog.open(catalog_path(db)), hub_reader())
    spec, arch = resolved.spec, resolved.arch
    chosen, why = choose_runtime(runtime, spec, arch)
    progress = _Progress(sys.stderr.isatty())
    try:
        result = trace_step(spec, arch, steps=steps, runtime=chosen, progress=progress)
    finally:
        progress.done()
    estimate = _estimate(spec, arch, result.allocated_bytes)
    notes = list(result.notes)
    if runtime == "auto" and why and spec.stack == "hf":
        notes.append(f"traced with the reference decoder: {why}")
    if as_json:
        out = {"spec": spec.model_dump(mode="json"), "memory": result.to_json(), "runtime": result.runtime,
               "versions": result.versions, "trace_seconds": round(result.seconds, 3), "notes": notes}
        if estimate is not None:
            out["estimate"] = estimate
        emit_json(out)
        return
    click.echo(t("trace.title", lang, label=resolved.label, method=t(f"method.{spec.method}", lang),
                 seq_len=spec.seq_len, micro_batch=spec.micro_batch, stack=spec.stack))
    click.echo(t("trace.runtime", lang, runtime=result.runtime,
                 versions=", ".join(f"{k} {v}" for k, v in result.versions.items()) or "advisor.model"))
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
    for note in notes:
        click.echo(note)
    click.echo(t("trace.seconds", lang, steps=result.steps, seconds=result.seconds))
