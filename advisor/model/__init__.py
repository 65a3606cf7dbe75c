"""The reference decoder the exact trace and the measured pilot both run (needs torch).

    build_model(spec, arch, device) -> model
    make_optimizer(model, spec) -> optimizer
    synthetic_batch(spec, arch, device, seed) -> {"input_ids", "labels"}
    train_step(model, optimizer, batch, spec, on_phase=None) -> loss (detached)
"""

from advisor.model.build import LORA_TARGETS, build_model, dtype_policy
from advisor.model.optim import make_optimizer
from advisor.model.step import synthetic_batch, train_step

__all__ = ["LORA_TARGETS", "build_model", "dtype_policy", "make_optimizer", "synthetic_batch", "train_step"]
