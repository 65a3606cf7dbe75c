"""What a provider rents: node shapes per GPU type and region, and the GPU counts they make.

A shape (catalog migration 4, ``data/node_shapes.csv``) is one machine of ``gpus_per_node``
GPUs; a multi-node shape can be rented as several whole machines joined by ``network_gbps`` per
node. So the counts a plan may use are the shapes' sizes (1, 2, 4, 8 on most offers) and, where
multi-node is offered, ``nodes x gpus_per_node`` for whole nodes, never past the ceiling the
caller sets (``DEFAULT_MAX_GPUS``; the CLI's ``--max-gpus`` / ``ADVISOR_MAX_GPUS``, the bot's
setting of the same name).

A count nobody rents is rounded up to one that is rented (3 -> 4 on a 4-GPU node): the job is
billed for the machine it runs on.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

DEFAULT_MAX_GPUS = 8
"""The most GPUs a plan proposes unless told otherwise: one 8-GPU node, the largest machine every
GPU type in our catalog is rented as. Past it a job needs a cluster (a reservation, a fabric, a
launcher across machines, more ways to fail: the step-time model's inter-node term), which a team
asks for on purpose (``--max-gpus 32``), not one an advisor should volunteer as "the cheapest"."""

DEFAULT_GPUS_PER_NODE = 8
"""Shapes assumed for a GPU the provider does not rent (the catalog's comparison rows): the
8-card servers of the catalog's ``gpus_per_node`` (migration 2)."""


class NodeShape(BaseModel):
    """One machine shape of a GPU type in a region (a row of ``node_shapes``)."""

    model_config = ConfigDict(frozen=True)

    gpu: str
    region: str
    gpus_per_node: int
    multi_node: bool = False
    network_gbps: float | None = None  # per node, between nodes (multi-node shapes)
    source: str = ""


@dataclass(frozen=True)
class Layout:
    """How a plan's GPUs are rented: ``nodes`` machines of ``gpus_per_node`` each, in ``region``
    (None: a GPU we do not rent, laid out on the default shapes)."""

    num_gpus: int
    gpus_per_node: int
    nodes: int
    network_gbps: float | None
    region: str | None

    @property
    def multi_node(self) -> bool:
        return self.nodes > 1


def default_shapes(gpu_id: str, gpus_per_node: int = DEFAULT_GPUS_PER_NODE,
                   network_gbps: float | None = None) -> list[NodeShape]:
    """Powers of two up to one node; the whole node clustered when a network figure is known."""
    sizes = [n for n in (1, 2, 4, 8, 16) if n <= gpus_per_node] or [gpus_per_node]
    if sizes[-1] != gpus_per_node:
        sizes.append(gpus_per_node)
    return [NodeShape(gpu=gpu_id, region="", gpus_per_node=n, multi_node=bool(network_gbps) and n == gpus_per_node,
                      network_gbps=network_gbps if n == gpus_per_node else None, source="default")
            for n in sizes]


def layouts(shapes: Iterable[NodeShape], max_gpus: int) -> list[Layout]:
    """Every rentable count up to ``max_gpus``, smallest first, each on its best layout: one node
    when a shape holds it, otherwise the fewest whole multi-node machines (then the faster
    network). Shapes of several regions are merged; each layout keeps the region it is in."""
    best: dict[int, Layout] = {}

    def offer(lay: Layout) -> None:
        have = best.get(lay.num_gpus)
        key = (lay.nodes, -(lay.network_gbps or 0))
        if have is None or key < (have.nodes, -(have.network_gbps or 0)):
            best[lay.num_gpus] = lay

    for s in shapes:
        if s.gpus_per_node <= max_gpus:
            offer(Layout(s.gpus_per_node, s.gpus_per_node, 1, s.network_gbps, s.region or None))
        if s.multi_node and s.network_gbps:
            for nodes in range(2, max_gpus // s.gpus_per_node + 1):
                offer(Layout(nodes * s.gpus_per_node, s.gpus_per_node, nodes, s.network_gbps, s.region or None))
    return [best[n] for n in sorted(best)]


def round_up(n: int, options: list[Layout]) -> Layout | None:
    """The smallest rentable layout holding ``n`` GPUs (None: none within the ceiling)."""
    return next((lay for lay in options if lay.num_gpus >= n), None)


def nodes_needed(n: int, gpus_per_node: int) -> int:
    return math.ceil(n / gpus_per_node)
