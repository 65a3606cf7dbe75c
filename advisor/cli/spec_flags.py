"""SPEC FLAGS: one option per FinetuneSpec field (docs/DESIGN.md), collected into a SpecRequest."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click
from pydantic import ValidationError

from typing import get_args

from advisor import spec as _spec
from advisor.errors import SpecError
from advisor.spec import SpecRequest, explain_validation

# every choice is the spec's own Literal, so a new value cannot be missing here
_CHOICES = {
    "method": get_args(_spec.Method), "stack": get_args(_spec.Stack), "lora_targets": get_args(_spec.LoraTargets),
    "quant": get_args(_spec.Quant), "optimizer": get_args(_spec.Optimizer),
    "optimizer_impl": get_args(_spec.OptimizerImpl), "precision": get_args(_spec.Precision),
    "attention": get_args(_spec.Attention), "sharding": get_args(_spec.Sharding),
}

_COST_FLAGS = ("failed_run_fraction", "eval_fraction", "evals_per_epoch", "checkpoints_kept", "storage_months")


def spec_options(fn: Callable) -> Callable:
    """Add every SPEC FLAG to a command; the command receives ``request: SpecRequest``."""
    opts = [
        click.option("--method", type=click.Choice(_CHOICES["method"])),
        click.option("--stack", type=click.Choice(_CHOICES["stack"]),
                     help="Training stack whose memory behaviour and recipe defaults to use (default hf)."),
        click.option("--model", metavar="ID", help="Catalog model id or alias (e.g. llama-3.1-8b)."),
        click.option("--params-b", type=float, metavar="X", help="Model size in billions, without a catalog model."),
        click.option("--layers", type=int), click.option("--hidden", type=int),
        click.option("--intermediate", type=int), click.option("--heads", type=int),
        click.option("--kv-heads", type=int), click.option("--vocab", type=int),
        click.option("--tied-embeddings/--untied-embeddings", default=None),
        click.option("--seq-len", type=int), click.option("--micro-batch", type=int),
        click.option("--gradient-accumulation-steps", type=int,
                     help="Micro-batches per optimizer step (1: gradients never meet the next forward)."),
        click.option("--gradient-checkpointing/--no-gradient-checkpointing", default=None),
        click.option("--lora-rank", type=int), click.option("--lora-alpha", type=float),
        click.option("--lora-dropout", type=float),
        click.option("--lora-targets", type=click.Choice(_CHOICES["lora_targets"])),
        click.option("--quant", type=click.Choice(_CHOICES["quant"])),
        click.option("--double-quant/--no-double-quant", default=None),
        click.option("--optimizer", type=click.Choice(_CHOICES["optimizer"])),
        click.option("--optimizer-impl", type=click.Choice(_CHOICES["optimizer_impl"])),
        click.option("--optimizer-in-backward/--no-optimizer-in-backward", default=None,
                     help="Step each parameter as backward makes its gradient (torchtune optimizer_in_bwd)."),
        click.option("--liger-kernel/--no-liger-kernel", default=None,
                     help="hf stack with Liger kernels (TrainingArguments use_liger_kernel)."),
        click.option("--precision", type=click.Choice(_CHOICES["precision"])),
        click.option("--attention", type=click.Choice(_CHOICES["attention"])),
        click.option("--num-gpus", type=int), click.option("--sharding", type=click.Choice(_CHOICES["sharding"])),
        click.option("--dataset-tokens", type=int), click.option("--epochs", type=float),
        click.option("--gpu", metavar="ID", help="Catalog GPU id or alias."),
        click.option("--region", metavar="ID"),
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
