"""Multi-GPU communication of a data-parallel step: what the sharding sends, over which link,
and how much of it the compute hides.

Volumes per GPU and step (ring collectives; ZeRO paper, Rajbhandari et al. 2020, section 7):

    DDP        all-reduce of the gradients:   2 (n - 1) / n x gradient bytes, once per
               optimizer step (no_sync during gradient accumulation)
    FSDP       per micro-step, all-gather of the weights for the forward and again for the
               backward: (n - 1) / n x bytes each (FULL_SHARD, reshard after forward; PyTorch
               FSDP paper, Zhao et al. 2023); the reduce-scatter of the gradients, (n - 1) / n
               x gradient bytes, only on the last micro-step of an optimizer step (see below)
    ZeRO-2     all-gather once (forward), reduce-scatter in the backward of every micro-step
               (FSDP SHARD_GRAD_OP, DeepSpeed ZeRO stage 2)

Gradient accumulation (the HF Trainer's loop, transformers 5.24 trainer.py: every micro-batch
but the last runs under ``accelerator.no_sync(model)``, except under DeepSpeed):

* DDP: ``no_sync`` (torch/nn/parallel/distributed.py ``DistributedDataParallel.no_sync``:
  ``require_backward_grad_sync = False``, the reducer's hooks only accumulate) defers the
  all-reduce to the last micro-step: charged once per optimizer step, in ``optimizer``.
* FSDP2: accelerate 1.15 ``Accelerator.no_sync`` calls ``model.set_requires_gradient_sync(False)``
  (torch 2.13 torch/distributed/fsdp/_fully_shard/_fully_shard.py: ``reduce_grads =
  all_reduce_grads = False`` on every param group), so ``FSDPParamGroup.post_backward`` skips
  the reduce-scatter and keeps the unsharded gradient; ``reshard_after_backward`` stays True
  (only ``set_reshard_after_backward`` changes it, which neither the Trainer nor accelerate
  calls) and ``reshard_after_forward=True`` too, so the parameters are all-gathered in the
  forward and again in the backward of every micro-step. ``Volumes.reduce`` is the part of
  the backward volume sent on the last micro-step only; ``exposed`` returns its exposed time
  as ``backward_sync``, which ``roofline.combine`` charges once.
* DeepSpeed ZeRO-2: the Trainer syncs every micro-batch (no ``no_sync`` under DeepSpeed), and
  ZeRO-2 reduces each gradient as its bucket fills in every backward (deepspeed/runtime/zero/
  stage_1_and_2.py at edaa722 ``reduce_ready_partitions_and_remove_grads``: ``if
  self.partition_gradients or self.is_gradient_accumulation_boundary()``; stage 2 partitions
  gradients): charged every micro-step.

Bandwidth: inside a node, NCCL's ring bus bandwidth over NVLink reaches about 80% of the
unidirectional link rate (stas00/ml-engineering network/README.md: 235 GB/s all-reduce busbw on
an A100 node's 300 GB/s unidirectional NVLink, 367 GB/s ring on an H100 node's 450 GB/s); cards
without NVLink go through PCIe and the host; across nodes the ring runs at each GPU's share of
the node's network (the catalog's ``network_gbps``), about 85% of it (an EFA 400 Gb/s node:
340 Gb/s effective in all-reduce tests, same source).

Overlap: DDP reduces bucket by bucket during the backward (25 MB buckets, torch DDP
bucket_cap_mb), so all but the last bucket can hide behind the backward; FSDP prefetches the next
layer's all-gather during the current layer's compute (forward_prefetch / backward_prefetch),
so only the first layer's gather and what exceeds the phase's compute are exposed.
"""

from __future__ import annotations

from dataclasses import dataclass

NVLINK_BUSBW_FRACTION = 0.80
PCIE_BUSBW_FRACTION = 0.40
"""All-reduce bus bandwidth between PCIe cards without NVLink as a share of one direction of
their PCIe link: the traffic crosses the host's root complex (and on GeForce cards P2P is
disabled, so NCCL stages through host memory): ~10-15 GB/s on Gen4 x16 (32 GB/s) servers."""
NETWORK_BUSBW_FRACTION = 0.85
DDP_BUCKET_BYTES = 25 * 1024**2  # torch.nn.parallel.DistributedDataParallel bucket_cap_mb=25


@dataclass(frozen=True)
class Link:
    busbw: float  # bytes/s per GPU
    kind: str  # nvlink | pcie | network


def link(gpu, num_gpus: int) -> Link:
    """The slowest link a ring over ``num_gpus`` of ``gpu`` crosses.

    A ring all-reduce of S bytes over n GPUs takes t = 2 (n - 1) / n x S / B, B the bus bandwidth
    of the slowest hop (NCCL's nccl-tests doc/PERFORMANCE.md: busBw = algBw x 2 (n - 1) / n for
    all-reduce, (n - 1) / n for all-gather and reduce-scatter; Patarasuk & Yuan 2009). A plan that
    spans nodes (issue #16: nodes x ``gpus_per_node`` of its rented node shape, advisor.catalog.
    shapes) has that hop between machines: NCCL runs one ring per NIC (rail-optimized), so each
    GPU's share is the node's ``network_gbps`` over its GPUs, at NETWORK_BUSBW_FRACTION of line
    rate. The caller passes the GPU as the plan's machines have it (advisor.recommend._Ctx.on_layout:
    ``gpus_per_node`` and ``network_gbps`` of the shape); inside one node the ring runs on NVLink
    or PCIe."""
    per_node = int(getattr(gpu, "gpus_per_node", 8) or 8)
    if num_gpus > per_node:
        gbps = float(getattr(gpu, "network_gbps", 0.0) or 100.0)
        return Link(busbw=gbps / 8 * 1e9 / per_node * NETWORK_BUSBW_FRACTION, kind="network")
    if gpu.interconnect_gbs > 0:
        return Link(busbw=gpu.interconnect_gbs / 2 * 1e9 * NVLINK_BUSBW_FRACTION, kind="nvlink")
    pcie = float(getattr(gpu, "pcie_gbs", 0.0) or (64.0 if gpu.pcie_gen.startswith("Gen5") else 32.0))
    return Link(busbw=pcie * 1e9 * PCIE_BUSBW_FRACTION, kind="pcie")


@dataclass(frozen=True)
class Volumes:
    """Bytes each GPU sends per micro-step (forward, backward) and per optimizer step;
    ``reduce``: the part of ``backward`` sent on the last micro-step only (FSDP's
    reduce-scatter, skipped under gradient accumulation's no-sync)."""

    forward: float
    backward: float
    step: float
    layers: int
    reduce: float = 0.0


def volumes(sharding: str, num_gpus: int, weight_bytes: float, grad_bytes: float, layers: int) -> Volumes:
    if num_gpus <= 1:
        return Volumes(0.0, 0.0, 0.0, layers)
    share = (num_gpus - 1) / num_gpus
    if sharding == "ddp":
        return Volumes(0.0, 0.0, 2 * share * grad_bytes, layers)
    if sharding == "zero2":
        return Volumes(share * weight_bytes, share * grad_bytes, 0.0, layers)
    return Volumes(share * weight_bytes, share * (weight_bytes + grad_bytes), 0.0, layers, reduce=share * grad_bytes)


def exposed(vol: Volumes, lk: Link, forward_s: float, backward_s: float, sharding: str) -> dict[str, float]:
    """Communication seconds compute does not hide, per phase (forward and backward per
    micro-step, optimizer per step) and ``backward_sync``: what the last micro-step's backward
    adds (the volume of ``Volumes.reduce``; with one micro-step per optimizer step
    ``backward + backward_sync`` is that backward's exposed time)."""
    if lk.busbw <= 0:
        return {}
    fwd, bwd, step = vol.forward / lk.busbw, vol.backward / lk.busbw, vol.step / lk.busbw
    out = {"forward": 0.0, "backward": 0.0, "optimizer": 0.0}
    if sharding == "ddp":
        last_bucket = min(step, DDP_BUCKET_BYTES * 2 / lk.busbw)
        out["optimizer"] = max(0.0, step - backward_s) + last_bucket
        return out
    layers = max(vol.layers, 1)
    out["forward"] = max(0.0, fwd - forward_s) + fwd / layers

    def backward(seconds: float) -> float:  # the first layer's transfer is never hidden
        return max(0.0, seconds - backward_s) + seconds / layers

    gather = bwd - vol.reduce / lk.busbw  # sent on every micro-step
    out["backward"] = backward(gather)
    out["backward_sync"] = backward(bwd) - out["backward"]
    return out
