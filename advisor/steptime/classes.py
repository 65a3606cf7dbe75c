"""Operator classes of a training step: what the roofline, the overheads, the fitted stack
efficiencies and the pilot calibration all group operators by.

Each class has one achievable-fraction model on a GPU (``advisor.steptime.device``) and at most
one fitted efficiency factor per stack (``advisor.steptime.fit``). The names are the ones the
answer's detail shows ("matmuls 61%, attention 14%, dequantize 9%, optimizer 5%").
"""

from __future__ import annotations

MATMUL = "matmul"  # GEMMs: linears and their input/weight gradients, LoRA A/B, the LM head
ATTENTION = "attention"  # fused scaled-dot-product attention kernels (flash, memory-efficient)
DEQUANTIZE = "dequantize"  # 4-bit / 8-bit weight dequantization before each quantized matmul
ELEMENTWISE = "elementwise"  # norms, activations, rotary, casts, dropout, residual adds, copies
LOSS = "loss"  # the (batch, seq, vocab) work of the loss: upcast, log-softmax, NLL and backward
OPTIMIZER = "optimizer"  # the optimizer step over the trainable parameters (and zero_grad)
COMMUNICATION = "communication"  # collective time not hidden behind compute (multi-GPU)
OVERHEAD = "overhead"  # host time the GPU waits for: kernel launches, Python, data loading

CLASSES = (MATMUL, ATTENTION, DEQUANTIZE, ELEMENTWISE, LOSS, OPTIMIZER, COMMUNICATION, OVERHEAD)
COMPUTE_CLASSES = (MATMUL, ATTENTION, DEQUANTIZE, ELEMENTWISE, LOSS, OPTIMIZER)
"""Classes whose time is GPU kernel time (the roofline's), as opposed to waiting."""

FITTED_CLASSES = (MATMUL, ATTENTION, DEQUANTIZE, ELEMENTWISE, LOSS, OPTIMIZER, OVERHEAD)
"""Classes that can carry one fitted efficiency factor per stack (communication is modelled
from the interconnect and has none)."""

PHASES = ("forward", "backward", "optimizer")
