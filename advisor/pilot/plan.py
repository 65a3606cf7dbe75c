"""What a pilot of an answer's plan runs and measures, when the plan is more GPUs than a pilot.

A pilot is one process on one GPU (advisor.pilot.runner trains one model in one process; the
local launcher starts one subprocess and the Ray launcher asks for ``entrypoint_num_gpus=1``:
advisor/pilot/launchers/ray.py). A plan of N GPUs is therefore piloted on one card, and what that
card measures depends on how the plan splits the job:

- **DDP** (``sharding="ddp"``): every rank holds the whole model and trains the same micro-batch
  (torch.nn.parallel.DistributedDataParallel replicates the module and all-reduces gradients in
  buckets during backward: torch/nn/parallel/distributed.py, ``_DDPSink`` and ``dist.Reducer``, torch 2.13). One
  replica on one card is the plan's per-GPU memory and per-GPU step compute exactly; what it does
  not measure is the gradient all-reduce between the N GPUs.
- **FSDP / ZeRO** (``fsdp``, ``zero2``, ``zero3``): each rank keeps 1/N of the sharded state
  (FSDP2 ``fully_shard`` keeps a DTensor shard of every parameter and all-gathers a layer's
  weights before its forward and backward: torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py,
  ``FSDPParamGroup.unshard`` before compute, ``post_backward`` reduce-scatters the gradients; torch 2.13). One card cannot hold "1/N of the state" with
  nobody to gather the rest from, so the per-GPU memory of the plan cannot be measured on one
  card. What one card can run is the *unsharded* step of the same micro-batch: the same forward
  and backward compute every rank does (each rank computes the whole model on its own
  micro-batch with all-gathered weights), but the whole model's memory, which is more than the
  plan's shard and may not fit.

``pilot_plan`` decides the pilot's spec (its GPU count and sharding) from the plan's, with a code
the renderers word (advisor/i18n/pilot.py ``pilot.plan.*``); numbers first, words at the edge.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from advisor.spec import SpecRequest

SHARDED = ("fsdp", "zero2", "zero3")


@dataclass(frozen=True)
class PilotPlan:
    """The answer's plan and the pilot that stands for it.

    ``code``: "same" (the plan is one GPU: the pilot is the plan), "replica" (a DDP plan: one
    replica measured), "unsharded" (a sharded plan: the unsharded step on one card)."""

    plan_gpus: int
    plan_sharding: str | None
    request: SpecRequest  # what the pilot runs (num_gpus / sharding set for the runner)
    code: str

    @property
    def fewer(self) -> bool:
        return self.plan_gpus > 1


def pilot_plan(request: SpecRequest, num_gpus: int | None, sharding: str | None) -> PilotPlan:
    """The pilot for a plan of ``num_gpus`` GPUs split by ``sharding`` (None: the request's own, or
    FSDP for more than one GPU, as advisor.recommend shards every count past the first)."""
    n = max(1, int(num_gpus or request.num_gpus or 1))
    if n == 1:
        return PilotPlan(1, sharding or request.sharding, request.model_copy(update={"num_gpus": 1}), "same")
    split = sharding or request.sharding or "fsdp"
    if split in SHARDED:
        # one card runs the whole model (num_gpus 1, no sharding): the runner refuses a sharded spec
        # (advisor.pilot.spec.one_gpu_only), and a 1-GPU "shard" is the whole state anyway
        return PilotPlan(n, split, request.model_copy(update={"num_gpus": 1, "sharding": "ddp"}), "unsharded")
    # DDP: the runner trains one replica and notes it (advisor.pilot.runner, the ddp_replica note)
    return PilotPlan(n, split, request.model_copy(update={"num_gpus": n, "sharding": split}), "replica")


def plan_json(plan: PilotPlan, request: SpecRequest, catalog, models=None) -> dict[str, Any]:
    """The plan beside a pilot's prediction (``prediction["plan"]``): its count, sharding, what the
    pilot measures of it (``code``), and for a plan of more GPUs its own per-GPU device memory
    (advisor.memory at the plan's count, as the answer's table shows it)."""
    out: dict[str, Any] = {"num_gpus": plan.plan_gpus, "sharding": plan.plan_sharding, "code": plan.code}
    if plan.fewer:
        from advisor.memory import estimate_memory
        from advisor.resolve import resolve_request

        planned = resolve_request(request.model_copy(update={"num_gpus": plan.plan_gpus,
                                                             "sharding": plan.plan_sharding}), catalog, models)
        out["device_bytes"] = estimate_memory(planned.spec, planned.arch).device_bytes
    return out
