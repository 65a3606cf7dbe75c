"""SPEC FLAGS: one option per FinetuneSpec field (docs/DESIGN.md), collected into a SpecRequest.

Quantities are read the way the chat reads them (``Quantity``, a click ParamType over
``advisor.parse.numbers.read_quantity``): ``--seq-len 4k`` is 4096 (k = 1024 in a length),
``--dataset-tokens 50M`` is 50,000,000 (k = 1000 in a count), ``--params-b 350M`` is 0.35.
``--model`` takes a catalog id or alias, or a Hugging Face id ("Qwen/Qwen3-4B", read from the Hub's
config.json: ``advisor.hub``); ``--config path/to/config.json`` reads an architecture from a file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, get_args

import click
from pydantic import ValidationError

from advisor import spec as _spec
from advisor.errors import SpecError
from advisor.spec import LengthDistribution, SpecRequest, explain_validation, parse_length_distribution

# a plain integer: no unit, no separator, no decimal point ("4.096" is 4096 to read_quantity)
_PLAIN = re.compile(r"[0-9]{1,9}")


class Quantity(click.ParamType):
    """A number as the chat reads it: "4k", "4,096", "50M", "1.2B", "7b" (``read_quantity``)."""

    def __init__(self, kind: str, *, integer: bool = False):
        self.kind, self.integer = kind, integer
        self.name = {"seq": "TOKENS", "params": "BILLIONS"}.get(kind, "INTEGER" if integer else "NUMBER")

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            number = float(value)
        else:
            text = str(value)
            if _PLAIN.fullmatch(text):
                number = float(text)  # what read_quantity reads in it (tests/test_cli_quantities.py)
            else:
                # imported here: advisor.parse compiles the chat parser's expressions at import
                # (about 0.6 s of CPU), which a command given plain numbers never needs
                from advisor.parse.numbers import read_quantity  # noqa: PLC0415

                try:
                    number = read_quantity(text, self.kind)
                except ValueError as exc:
                    self.fail(str(exc), param, ctx)
        if self.integer:
            if number != int(number):
                self.fail(f"{value!r} is {number:g}, not a whole number", param, ctx)
            return int(number)
        return number


SEQ = Quantity("seq", integer=True)
COUNT = Quantity("count", integer=True)
PARAMS_B = Quantity("params")
NUMBER = Quantity("count")

# every choice is the spec's own Literal, so a new value cannot be missing here
_CHOICES = {
    "method": get_args(_spec.Method), "stack": get_args(_spec.Stack), "lora_targets": get_args(_spec.LoraTargets),
    "quant": get_args(_spec.Quant), "optimizer": get_args(_spec.Optimizer),
    "optimizer_impl": get_args(_spec.OptimizerImpl), "precision": get_args(_spec.Precision),
    "attention": get_args(_spec.Attention), "sharding": get_args(_spec.Sharding),
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
                     help="Training stack whose memory behaviour and recipe defaults to use (default hf)."),
        click.option("--model", metavar="ID", help="Catalog model id or alias (e.g. llama-3.1-8b), or a Hugging Face id "
                     "(Qwen/Qwen3-4B: its config.json is read from the Hub, HF_ENDPOINT)."),
        click.option("--config", "config_path", metavar="PATH", type=click.Path(dir_okay=False),
                     help="A model's config.json: the architecture to size (instead of --model)."),
        click.option("--params-b", type=PARAMS_B, metavar="X", help="Model size in billions (7, 7b, 350M), without a catalog model."),
        click.option("--layers", type=int), click.option("--hidden", type=int),
        click.option("--intermediate", type=int), click.option("--heads", type=int),
        click.option("--kv-heads", type=int), click.option("--vocab", type=int),
        click.option("--tied-embeddings/--untied-embeddings", default=None),
        click.option("--seq-len", type=SEQ, help="Sequence length in tokens (4096, 4k, 128k)."),
        click.option("--micro-batch", type=COUNT),
        click.option("--gradient-accumulation-steps", type=COUNT,
                     help="Micro-batches per optimizer step (1: gradients never meet the next forward)."),
        click.option("--gradient-checkpointing/--no-gradient-checkpointing", default=None),
        click.option("--lora-rank", type=COUNT), click.option("--lora-alpha", type=NUMBER),
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
        click.option("--compile/--no-compile", default=None,
                     help="torch.compile the model (fuses memory-bound kernels; default off)."),
        click.option("--packing/--no-packing", default=None,
                     help="Samples packed into full sequences (default off: one sample per sequence)."),
        click.option("--num-gpus", type=COUNT), click.option("--sharding", type=click.Choice(_CHOICES["sharding"])),
        click.option("--dataset-tokens", type=COUNT, help="Training tokens per epoch (50M, 1.2B, 50,000,000)."),
        click.option("--epochs", type=NUMBER),
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
        from advisor.cli.common import external_model

        kwargs["model"] = external_model(kwargs.get("model"), kwargs.pop("config_path", None))
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
