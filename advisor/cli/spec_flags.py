"""SPEC FLAGS: one option per FinetuneSpec field (docs/DESIGN.md), collected into a SpecRequest."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click
from pydantic import ValidationError

from advisor.errors import SpecError
from advisor.spec import LengthDistribution, SpecRequest, explain_validation, parse_length_distribution

_CHOICES = {
    "method": ("full", "lora", "qlora"),
    "stack": ("hf", "torchtune", "litgpt", "reference"),
    "lora_targets": ("all-linear", "attention"),
    "quant": ("nf4", "int8"),
    "optimizer": ("adamw", "adamw-8bit", "paged-adamw-8bit", "sgd"),
    "optimizer_impl": ("foreach", "fused", "for-loop"),
    "precision": ("bf16-mixed", "bf16", "fp16-mixed", "fp32"),
    "attention": ("flash", "eager"),
    "sharding": ("ddp", "fsdp"),
}

_COST_FLAGS = ("failed_run_fraction", "eval_fraction", "evals_per_epoch", "checkpoints_kept", "storage_months")


def _length_distribution(ctx, param, value: str | None) -> LengthDistribution | None:
    """``--length-distribution``: MIN,MAX,MEAN, key=value pairs, or @FILE of tokenized lengths
    (one per line, or separated by commas or spaces)."""
    if value is None:
        return None
    try:
        if value.startswith("@"):
            path = value[1:]
            try:
                text = open(path, encoding="utf-8").read()
            except OSError as exc:
                raise click.BadParameter(f"cannot read {path}: {exc.strerror}") from None
            words = text.replace(",", " ").replace("[", " ").replace("]", " ").split()
            try:
                lengths = tuple(int(w) for w in words)
            except ValueError:
                raise click.BadParameter(f"{path} must hold whole numbers (tokenized sample lengths)") from None
            if not lengths:
                raise click.BadParameter(f"{path} holds no lengths")
            return LengthDistribution(lengths=lengths)
        return parse_length_distribution(value)
    except (SpecError, ValidationError) as exc:
        raise click.BadParameter(str(exc)) from None


def spec_options(fn: Callable) -> Callable:
    """Add every SPEC FLAG to a command; the command receives ``request: SpecRequest``."""
    opts = [
        click.option("--method", type=click.Choice(_CHOICES["method"])),
        click.option("--stack", type=click.Choice(_CHOICES["stack"]),
                     help="Training stack whose memory behaviour to model (default hf)."),
        click.option("--model", metavar="ID", help="Catalog model id or alias (e.g. llama-3.1-8b)."),
        click.option("--params-b", type=float, metavar="X", help="Model size in billions, without a catalog model."),
        click.option("--layers", type=int), click.option("--hidden", type=int),
        click.option("--intermediate", type=int), click.option("--heads", type=int),
        click.option("--kv-heads", type=int), click.option("--vocab", type=int),
        click.option("--tied-embeddings/--untied-embeddings", default=None),
        click.option("--seq-len", type=int), click.option("--micro-batch", type=int),
        click.option("--gradient-checkpointing/--no-gradient-checkpointing", default=None),
        click.option("--lora-rank", type=int), click.option("--lora-alpha", type=float),
        click.option("--lora-dropout", type=float),
        click.option("--lora-targets", type=click.Choice(_CHOICES["lora_targets"])),
        click.option("--quant", type=click.Choice(_CHOICES["quant"])),
        click.option("--double-quant/--no-double-quant", default=None),
        click.option("--optimizer", type=click.Choice(_CHOICES["optimizer"])),
        click.option("--optimizer-impl", type=click.Choice(_CHOICES["optimizer_impl"])),
        click.option("--precision", type=click.Choice(_CHOICES["precision"])),
        click.option("--attention", type=click.Choice(_CHOICES["attention"])),
        click.option("--num-gpus", type=int), click.option("--sharding", type=click.Choice(_CHOICES["sharding"])),
        click.option("--dataset-tokens", type=int), click.option("--epochs", type=float),
        click.option("--gpu", metavar="ID", help="Catalog GPU id or alias."),
        click.option("--region", metavar="ID"),
        click.option("--length-distribution", metavar="MIN,MAX,MEAN", callback=_length_distribution,
                     help="Tokenized sample lengths when batches are padded to their longest sample: "
                          "MIN,MAX,MEAN (e.g. 200,2048,600), 'mean=600,max=2048[,min=..][,std=..][,drop]', "
                          "or @FILE with one length per line. Without it every batch is --seq-len long."),
        click.option("--failed-run-fraction", type=float, help="Extra GPU time for failed/exploratory runs (0.3 = 30%)."),
        click.option("--eval-fraction", type=float, help="Evaluation tokens per epoch / training tokens."),
        click.option("--evals-per-epoch", type=int),
        click.option("--checkpoints-kept", type=int),
        click.option("--storage-months", type=float),
    ]
    for opt in reversed(opts):
        fn = opt(fn)

    def wrapper(**kwargs: Any) -> Any:
        costs = {k: kwargs.pop(k) for k in _COST_FLAGS if kwargs.get(k) is not None}
        for k in _COST_FLAGS:
            kwargs.pop(k, None)
        fields = {k: kwargs.pop(k) for k in list(kwargs) if k in SpecRequest.model_fields}
        try:
            request = SpecRequest(**{k: v for k, v in fields.items() if v is not None},
                                  costs=costs or None)
        except ValidationError as exc:
            raise SpecError(explain_validation(exc)) from None
        return fn(request=request, **kwargs)

    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    wrapper.__click_params__ = getattr(fn, "__click_params__", [])  # type: ignore[attr-defined]
    return wrapper
