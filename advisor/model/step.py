"""One training step of the reference decoder: the loss (with the stack's switches), a
synthetic batch, and forward + backward + optimizer step.

``train_step`` is what the exact trace runs under fake tensors and what a pilot runs on a GPU;
``on_phase`` lets a caller mark phases (the trace's tracker, a pilot's timers) without the step
knowing who listens.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import torch
import torch.nn.functional as F

from advisor.arch import Architecture
from advisor.spec import FinetuneSpec
from advisor.stacks import StackProfile

IGNORE_INDEX = -100  # transformers / torch cross_entropy ignore_index for unlabeled positions
# fp16-mixed: static loss scale. torch.amp.GradScaler starts at 2**16 (init_scale); its dynamic
# growth/backoff needs found_inf.item(), a data-dependent branch, so we keep the initial scale.
# The unscale is in place (as GradScaler's _amp_foreach_non_finite_check_and_unscale_).
FP16_LOSS_SCALE = 2.0**16
PHASES = ("forward", "backward", "optimizer")


def causal_lm_loss(stack: StackProfile) -> Callable:
    """Mean next-token cross-entropy from the final hidden states.

    loss_chunks > 1 (torchtune LinearCrossEntropyLoss, litgpt chunked_cross_entropy): the LM head
    runs per sequence chunk and only one chunk is upcast at a time; loss_keeps_logits: all 16-bit
    logit chunks are made first and kept to the end of the loss (litgpt), or each is dropped
    after its cross-entropy (torchtune). loss_upcast_fp32: logits.float() before cross-entropy
    (transformers ForCausalLMLoss). The loss runs outside autocast so its dtype does not depend
    on the device's autocast op lists.
    """

    def loss_fn(x: torch.Tensor, head_weight: torch.Tensor, labels: torch.Tensor, rt) -> torch.Tensor:
        from advisor.model.layers import QuantizedWeight, linear, quant_project

        if isinstance(head_weight, QuantizedWeight):  # a 4-bit LM head (StackProfile.quant_head)
            def project(xc):
                return quant_project(xc, head_weight, rt.compute_dtype, stack.keep_quant_input)
        else:
            w = rt.cast(head_weight)

            def project(xc):
                return linear(rt.activation(xc), w)
        chunks = max(1, min(stack.loss_chunks, x.shape[1]))

        def part(lg, lb):
            if stack.loss_upcast_fp32:
                lg = lg.float()
            return F.cross_entropy(lg.reshape(-1, lg.shape[-1]), lb.reshape(-1),
                                   ignore_index=IGNORE_INDEX, reduction="sum")

        with torch.autocast(x.device.type, enabled=False):
            pairs = zip(x.chunk(chunks, dim=1), labels.chunk(chunks, dim=1))
            if stack.loss_keeps_logits:  # every chunk's logits made first and kept (StackProfile)
                logits = [project(xc) for xc in x.chunk(chunks, dim=1)]
                parts = [part(lg, lb) for lg, lb in zip(logits, labels.chunk(chunks, dim=1))]
                del logits
            else:  # each chunk projected, upcast and dropped in turn (torchtune)
                parts = [part(project(xc), lb) for xc, lb in pairs]
            total = parts[0]
            for p in parts[1:]:
                total = total + p
            return total / (labels != IGNORE_INDEX).sum()

    return loss_fn


def synthetic_batch(spec: FinetuneSpec, arch: Architecture, device: torch.device | str = "cpu",
                    seed: int = 0) -> dict[str, torch.Tensor]:
    """micro_batch x seq_len random token ids and their next-token labels (last one ignored)."""
    gen = torch.Generator(device="cpu").manual_seed(seed)
    ids = torch.randint(0, arch.vocab, (spec.micro_batch, spec.seq_len), generator=gen)
    labels = torch.cat([ids[:, 1:], torch.full((spec.micro_batch, 1), IGNORE_INDEX, dtype=ids.dtype)], dim=1)
    return {"input_ids": ids.to(device), "labels": labels.to(device)}


def _autocast(model, device_type: str):
    rt = model.rt
    if not rt.mixed:
        return contextlib.nullcontext()
    # cache_enabled=False: the weight cache is the model's own (Runtime), so it behaves the same
    # on every device and follows StackProfile.autocast_weight_cache
    return torch.autocast(device_type, dtype=rt.compute_dtype, cache_enabled=False)


def train_step(model, optimizer, batch: dict[str, torch.Tensor], spec: FinetuneSpec,
               on_phase: Callable[[str], None] | None = None, micro_batches: int | None = None) -> torch.Tensor:
    """Forward (with the loss) and backward for each of ``spec.gradient_accumulation_steps``
    micro-batches (``micro_batches`` overrides the count: a trace runs two, since every one
    after the first keeps the same tensors alive, the accumulated gradients among them), then the
    optimizer step and zero_grad(set_to_none=True).

    Returns the last loss, detached. ``on_phase`` is called with "forward", "backward",
    "optimizer" as each starts and "done" at the end.
    """
    mark = on_phase or (lambda _phase: None)
    model.train()
    ids = batch["input_ids"]
    fp16 = spec.precision == "fp16-mixed"
    runs = spec.gradient_accumulation_steps if micro_batches is None else micro_batches
    for _ in range(max(1, runs)):
        mark("forward")
        with _autocast(model, ids.device.type):
            loss = model(ids, batch["labels"])
        mark("backward")
        (loss * FP16_LOSS_SCALE if fp16 else loss).backward()
    if fp16:
        grads = [p.grad for p in model.parameters() if p.grad is not None]
        if grads:
            torch._foreach_mul_(grads, 1.0 / FP16_LOSS_SCALE)
    mark("optimizer")
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    mark("done")
    return loss.detach()
