"""The plan a launch config runs: the spec at the GPU type, count and sharding chosen for it.

``plan_from_ranking`` is the one place that reads the ranking's answer (today a
``Recommendation`` of ``GpuOption`` rows, advisor/recommend.py); when the answer becomes a typed
``Answer`` (issue #15), only that function changes. ``choose_plan`` resolves a request, ranks it
and returns the plan: the recommendation, or the GPU the user named at the smallest count that
fits (or the count they named, when it fits).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from advisor.arch import Architecture
from advisor.catalog import Catalog, Gpu, ModelEntry
from advisor.catalog.store import Region
from advisor.errors import LaunchError
from advisor.format import gib
from advisor.resolve import Resolved, resolve_request
from advisor.spec import FinetuneSpec, SpecRequest
from advisor.throughput import GPUS_PER_NODE


@dataclass(frozen=True)
class Plan:
    """One run to launch: every figure a launch config needs, none of the ranking's objects."""

    spec: FinetuneSpec  # num_gpus and sharding as the plan runs them
    arch: Architecture
    gpu: Gpu
    model: ModelEntry | None  # None: a size without a catalog model (no Hub id)
    model_label: str
    region: Region | None  # None: the user named none (any region that offers the GPU)
    memory_bytes: int  # predicted device memory per GPU
    tokens_per_s: float | None
    hours: float | None
    cost_usd: float | None
    chosen: Literal["recommended", "named"]
    node_gpus: int | None = None  # GPUs per machine of the rented node shape (advisor.catalog.shapes)

    @property
    def num_gpus(self) -> int:
        return self.spec.num_gpus

    @property
    def nodes(self) -> int:
        """Machines the plan spans: the ranking's node shape, else GPUS_PER_NODE cards per node."""
        return math.ceil(self.num_gpus / self.gpus_per_node)

    @property
    def gpus_per_node(self) -> int:
        return min(self.num_gpus, self.node_gpus or GPUS_PER_NODE)

    @property
    def hub_id(self) -> str | None:
        if self.model is None or self.model.hub_id.startswith("none/"):
            return None
        return self.model.hub_id

    @property
    def gradient_accumulation_steps(self) -> int:
        """Micro-batches per optimizer step per GPU. The spec gains this field with issue #11;
        until then every estimate assumes one (tokens per step = seq x micro-batch x GPUs)."""
        return int(getattr(self.spec, "gradient_accumulation_steps", None) or 1)

    def summary(self) -> str:
        """One line for the config's header."""
        parts = [f"{self.model_label} {self.spec.method}", f"{self.num_gpus} x {self.gpu.display_name}",
                 f"{gib(self.memory_bytes)} per GPU predicted (usable {gib(self.gpu.usable_memory_bytes)})"]
        if self.hours is not None:
            parts.append(f"about {self.hours:,.1f} h")
        if self.cost_usd is not None:
            parts.append(f"${self.cost_usd:,.2f} to an accepted checkpoint")
        return ", ".join(parts)


def plan_from_ranking(ranking: Any, resolved: Resolved, catalog: Catalog, gpu_id: str | None = None,
                      region: Region | None = None) -> Plan:
    """The plan for ``gpu_id`` (or the recommendation) from the ranking's answer. The only
    function that knows the answer's type (``advisor.answer_model.Answer``)."""
    chosen: Literal["recommended", "named"] = "named" if gpu_id else "recommended"
    gpu_id = gpu_id or ranking.recommended
    if gpu_id is None:
        raise LaunchError(
            f"No GPU we rent fits {resolved.label} {resolved.spec.method} at any count we offer, so there "
            "is no plan to launch. Try `advisor estimate` with the same flags for the levers that make it fit."
        )
    option = ranking.option(gpu_id)
    gpu = catalog.gpu(gpu_id)
    if not option.fits or option.num_gpus is None:
        why = option.reason
        detail = (f": needs {gib(why.need_bytes)} on one GPU, {gib(why.usable_bytes)} usable"
                  + (f", {gib(why.need_at_max_bytes)} each on {why.max_gpus}" if why.need_at_max_bytes else "")
                  if why is not None and why.need_bytes is not None else "")
        raise LaunchError(
            f"{resolved.label} {resolved.spec.method} does not fit on {gpu.display_name} at any count up to "
            f"{why.max_gpus if why is not None and why.max_gpus else 'the largest we try'} GPUs"
            f"{detail}. Drop --gpu for the recommended plan."
        )
    if option.plan is not None:  # schema 3: the row's plan, with its node shape and the levers it applies
        from advisor.recommend import plan_spec

        spec = plan_spec(resolved.spec, option.plan)
        node_gpus = option.plan.gpus_per_node
    else:
        spec = resolved.spec.model_copy(update={"num_gpus": option.num_gpus,
                                                "sharding": option.sharding or resolved.spec.sharding, "gpu": gpu.id})
        node_gpus = None
    return Plan(spec=spec, arch=resolved.arch, gpu=gpu, model=resolved.model, model_label=resolved.label,
                region=region, memory_bytes=option.device_bytes, tokens_per_s=option.tokens_per_s,
                hours=option.hours, cost_usd=option.cost_usd, chosen=chosen, node_gpus=node_gpus)


def choose_plan(request: SpecRequest, catalog: Catalog, *, calibration: Any = None, max_gpus: int | None = None) -> Plan:
    """Resolve, rank and pick the plan for ``request``.

    With ``request.gpu`` the plan runs on that GPU (at ``request.num_gpus`` when it fits there,
    else a LaunchError that names the count that does); without, on the recommendation. A
    ``request.region`` must offer the GPU.
    """
    from advisor.recommend import recommend

    named_count = request.num_gpus
    resolved = resolve_request(request, catalog)
    region = catalog.region(resolved.spec.region) if resolved.spec.region else None
    from advisor.catalog.shapes import DEFAULT_MAX_GPUS

    ranking = recommend(resolved, catalog, calibration=calibration, max_gpus=max_gpus or DEFAULT_MAX_GPUS)
    picked = ranking.option(resolved.spec.gpu) if resolved.spec.gpu else ranking.best
    if named_count is not None and (picked is None or not picked.fits):
        # the ranking keeps a stated count (advisor.recommend): rank without it to name the count that fits
        ranking = recommend(resolved, catalog, calibration=calibration, max_gpus=max_gpus or DEFAULT_MAX_GPUS,
                            keep_count=False)
    plan = plan_from_ranking(ranking, resolved, catalog, gpu_id=resolved.spec.gpu, region=region)
    if named_count is not None and plan.num_gpus != named_count:
        raise LaunchError(
            f"{resolved.label} {resolved.spec.method} does not fit on {named_count} x {plan.gpu.display_name} "
            f"({resolved.spec.sharding.upper()}); the smallest count that fits is {plan.num_gpus} "
            f"({plan.spec.sharding.upper()}, {gib(plan.memory_bytes)} per GPU). Use --num-gpus {plan.num_gpus}, "
            "or drop --num-gpus."
        )
    if region is not None and region.id not in plan.gpu.regions:
        where = ", ".join(plan.gpu.regions) or "no region"
        raise LaunchError(f"{plan.gpu.display_name} is not offered in {region.display_name} (offered in: {where}).")
    return plan
