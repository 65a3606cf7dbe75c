"""Published throughput rows (tests/data/throughput_measurements.json) as runs the model can
price: each row's spec, architecture, catalog GPU, kernel profile and gradient accumulation.

The rows' settings go beyond what a chat spec can say (LoRA on q and v only, an unchunked loss
in a stack that chunks by default, FSDP gathering fp32 parameters), so a row builds its
FinetuneSpec with ``model_copy`` (no validation of those extra values) and overrides the stack
profile where it says so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from advisor.arch import Architecture
from advisor.steptime.kernels import profile as kernel_profile

_SPEC_FIELDS = ("method", "seq_len", "micro_batch", "gradient_checkpointing", "lora_rank", "lora_alpha", "lora_dropout",
                "quant", "precision", "optimizer", "optimizer_impl", "attention")


@dataclass(frozen=True)
class Run:
    row: dict[str, Any]
    spec: Any
    arch: Architecture
    gpu: Any
    kernels: Any
    stack: Any  # advisor.stacks.StackProfile
    micro_steps: int
    num_gpus: int
    sharding: str
    weight_bytes: float | None

    @property
    def measured(self) -> float:
        return float(self.row["tokens_per_s_per_gpu"])

    @property
    def source(self) -> str:
        return self.row["source"]


UNITS = ("s/iter", "tokens/s/gpu", "tokens/s")


def tokens_per_s_per_gpu(row: dict[str, Any]) -> float:
    """A row's published figure in tokens per second per GPU: s/iter is one optimizer step of
    seq_len x micro_batch x grad_accum tokens per GPU (Qwen README: "batch size 1, gradient
    accumulation 8"); tokens/s is a total over the row's num_gpus GPUs."""
    m = row["measured"]
    value, unit = float(m["value"]), m["unit"]
    if unit == "s/iter":
        return row["seq_len"] * row["micro_batch"] * row.get("grad_accum", 1) / value
    if unit == "tokens/s/gpu":
        return value
    if unit == "tokens/s":
        return value / row.get("num_gpus", 1)
    raise ValueError(f"{row['id']}: unit {unit!r} is none of {UNITS}")


def load(path: str | Path) -> dict[str, Any]:
    return json.loads(Path(path).read_text())


def run_for(row: dict[str, Any], catalog) -> Run:
    """The run a row describes (raises KeyError/ValueError for a row the catalog cannot price)."""
    from advisor.spec import FinetuneSpec
    from advisor.stacks import profile as stack_profile

    if "arch" in row:
        arch = Architecture(**{k: v for k, v in row["arch"].items() if k != "source"})
    else:
        arch = catalog.model(row["model"]).arch
    said = {k: row[k] for k in _SPEC_FIELDS if row.get(k) is not None}
    if said.get("method") != "qlora":
        said.pop("quant", None)
    base = FinetuneSpec(params_b=1.0, stack=row.get("memory_stack", "hf"),
                        **{k: v for k, v in said.items() if k not in ("lora_targets",)})
    extra = {}
    if row.get("lora_targets"):
        extra["lora_targets"] = row["lora_targets"]
    spec = base.model_copy(update=extra)
    stack = stack_profile(row.get("memory_stack", "hf"))
    if row.get("loss_chunks") is not None:
        stack = replace(stack, loss_chunks=int(row["loss_chunks"]))
    kernels = kernel_profile(row["stack"], compile=bool(row.get("compile")))
    return Run(row=row, spec=spec, arch=arch, gpu=catalog.gpu(row["gpu"]), kernels=kernels, stack=stack,
               micro_steps=int(row.get("grad_accum", 1)), num_gpus=int(row.get("num_gpus", 1)),
               sharding=row.get("sharding", "ddp"), weight_bytes=row.get("fsdp_param_bytes"))


def runs(data: dict[str, Any], catalog, *, include_unused: bool = False) -> list[Run]:
    return [run_for(r, catalog) for r in data["rows"] if r.get("use", True) or include_unused]


def prepare_run(run: Run):
    from advisor.steptime.model import prepare

    return prepare(run.spec, run.arch, run.gpu, num_gpus=run.num_gpus, sharding=run.sharding, kernels=run.kernels,
                   stack=run.stack, micro_steps=run.micro_steps, weight_bytes=run.weight_bytes)
