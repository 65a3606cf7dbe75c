"""Host (CPU) time of a step: what the GPU waits for when operators are small.

In eager PyTorch every operator is launched by the host: Python and the dispatcher in the
forward, the autograd engine (C++) in the backward, Python again in the optimizer. The GPU runs
asynchronously behind the host, so a phase takes the longer of the two: its kernels' time or the
time the host needs to launch them (``advisor.steptime.roofline``). For small models and short
sequences the host is the longer one: the Qwen README's 1.8B LoRA on an A100 takes 1.0 s per
8 micro-steps at 256 and at 1024 tokens alike (tests/data/throughput_measurements.json), a step
time that does not depend on the work.

The costs below are priors of the right order; one fitted factor per stack (``overhead`` in
``advisor.steptime.fit``) scales them, because how much Python a stack runs per operator (PEFT's
LoRA layers, transformers' attention dispatch, bitsandbytes' quantization state) differs.
"""

from __future__ import annotations

HOST_COST_S = {
    # seconds of host time per operator call
    "eager": {
        # forward: Python -> pybind11 -> autograd recording -> ATen dispatch -> cudaLaunchKernel:
        # ~5-25 us per operator (PyTorch dispatch chain), nn.Module calls and hooks on top
        "forward": 10e-6,
        # backward: the autograd engine in C++ walks the graph and launches each kernel
        "backward": 6e-6,
        # optimizer: Python per foreach call plus grouping the tensor lists
        # (torch.optim.Optimizer._group_tensors_by_device_and_dtype)
        "optimizer": 20e-6,
        # a 4-bit/8-bit matmul's dequantization: the Python of bitsandbytes' MatMul4Bit /
        # dequantize_4bit (QuantState checks, ctypes call) on top of the launch
        "dequantize": 30e-6,
    },
    # torch.compile: inductor's generated wrapper launches each fused kernel with a few us of host
    # work; the backward graph is compiled too (AOTAutograd)
    "compiled": {"forward": 4e-6, "backward": 4e-6, "optimizer": 20e-6, "dequantize": 4e-6},
    # CUDA graphs: the whole region is one launch
    "graphs": {"forward": 0.3e-6, "backward": 0.3e-6, "optimizer": 20e-6, "dequantize": 0.3e-6},
}
HOST_SCALAR_S = 1.5e-6
"""A host-only operator on a CPU scalar (the optimizer's step counters: step += 1 and .item()
for the bias correction, per tensor: adam.py _get_value)."""
HOST_PER_FOREACH_TENSOR_S = 0.3e-6
"""Host work per tensor in a foreach call (building the TensorList, grouping by device)."""
HOST_MICRO_STEP_S = 2e-3
"""Per micro-batch: fetching and collating the batch in the training loop's process
(DataLoader with num_workers=0, HF Trainer's default), the host-to-device copy call, the
trainer's bookkeeping (accelerate's backward wrapper, loss accumulation): ~1-3 ms."""
HOST_OPTIMIZER_STEP_S = 1e-3
"""Per optimizer step: learning-rate scheduler, zero_grad, callbacks and logging: ~1 ms."""


def host_mode(kernels) -> str:
    if kernels.cuda_graphs:
        return "graphs"
    return "compiled" if kernels.compile else "eager"
