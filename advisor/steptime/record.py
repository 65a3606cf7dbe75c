"""Every operator of a traced training step, with its FLOPs, bytes moved and kernel launches.

``OpRecorder`` is a ``TorchDispatchMode``: under ``FakeTensorMode`` it sees each ATen operator a
step runs (shapes, dtypes, strides; nothing is computed) and records what a GPU would have to do
for it. It is the per-operator half of PyTorch's own roofline estimator
(torch/distributed/_tools/runtime_estimator.py, ``RuntimeEstimator._roofline_estimate``, torch
2.13), with three differences:

* the estimator reads the peaks of the CUDA device it runs on; here the time is computed later,
  for any catalog GPU (``advisor.steptime.roofline``), so a CPU machine can price an H100 step;
* FLOPs come from ``torch.utils.flop_counter.flop_registry`` (mm, addmm, bmm, baddbmm, the SDPA
  kernels), plus formulas registered here for what that registry misses: the CPU flash-attention
  kernel that SDPA picks under fake ``cpu`` tensors (counted as zero there) and the causal mask
  (``sdpa_flop`` says "We aren't accounting for causal attention here"): a causal flash kernel
  skips the blocks above the diagonal, so it executes (n + 1) / 2n of the score blocks
  (``causal_fraction``);
* bytes follow ``torch.utils._runtime_estimation.get_transfer_time`` (inputs read + outputs
  written, a stride-0 dimension read once), except where that rule is wrong for a GPU kernel:
  views move nothing, an in-place operator writes its mutated arguments (not a second output),
  an embedding reads the rows it gathers (not the whole table), NLL reads one logit per row.

Note the estimator's own compute term (``flops_to_ns``) divides FLOPs by 2 before dividing by a
FLOPS peak and assumes 75% of it; ``advisor.steptime`` instead uses FLOPs against FLOPS with a
cited achievable fraction per operator class.

``record_step`` runs the reference decoder's step (``advisor.model``) under ``FakeTensorMode`` the
way ``advisor.trace.trace_step`` does, and keeps the ops of the last (steady-state) step. Any other
step (the real transformers + PEFT stack) can be recorded by running it with an ``OpRecorder``
among its dispatch modes and calling ``recorder.set_phase`` as phases start.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from torch._subclasses.fake_tensor import FakeTensor
from torch.utils._python_dispatch import TorchDispatchMode

from advisor.steptime import classes as C

aten = torch.ops.aten
_DEVICE = torch.ops.prim.device.default

# Multi-tensor apply (the foreach optimizer kernels): ATen/native/cuda/MultiTensorApply.cuh,
# depth_to_max_tensors = {110, 64, 48, 36, 30} tensors per launch for 1..5 tensor lists, at most
# depth_to_max_blocks = 320 blocks of kChunkSize = 65536 elements per launch.
FOREACH_MAX_TENSORS = (110, 64, 48, 36, 30)
FOREACH_MAX_BLOCKS = 320
FOREACH_CHUNK = 65536
FLASH_BLOCK = 128
"""Query/key block of the flash kernels that decides which blocks a causal mask skips
(FlashAttention-2, Dao 2023, Algorithm 1 with B_r = B_c = 128 for head dim 128 on A100/H100)."""

_METADATA_OPS = {aten._unsafe_view.default, aten._reshape_alias.default, aten.lift_fresh.default,
                 aten.lift_fresh_copy.default, aten.set_.source_Storage_storage_offset,
                 aten.empty.memory_format, aten.empty_like.default,
                 aten.empty_strided.default, aten.new_empty.default, aten.new_empty_strided.default,
                 aten.resize_.default, aten.sym_size.int, aten.sym_stride.int, aten.sym_numel.default}
_SKIP_NAMESPACES = ("prim", "profiler")
_MATMUL_OPS = {aten.mm.default, aten.addmm.default, aten.bmm.default, aten.baddbmm.default,
               aten._scaled_mm.default}
_CPU_FLASH = aten._scaled_dot_product_flash_attention_for_cpu.default
_CPU_FLASH_BWD = aten._scaled_dot_product_flash_attention_for_cpu_backward.default
_SDPA_FWD = {aten._scaled_dot_product_flash_attention.default, aten._scaled_dot_product_efficient_attention.default,
             aten._scaled_dot_product_cudnn_attention.default, _CPU_FLASH}
_SDPA_BWD = {aten._scaled_dot_product_flash_attention_backward.default,
             aten._scaled_dot_product_efficient_attention_backward.default,
             aten._scaled_dot_product_cudnn_attention_backward.default, _CPU_FLASH_BWD}
_IS_CAUSAL_ARG = {_CPU_FLASH: 4, _CPU_FLASH_BWD: 7, aten._scaled_dot_product_flash_attention.default: 4,
                  aten._scaled_dot_product_efficient_attention.default: 6,
                  aten._scaled_dot_product_cudnn_attention.default: 6,
                  aten._scaled_dot_product_flash_attention_backward.default: 9,
                  aten._scaled_dot_product_efficient_attention_backward.default: 9,
                  aten._scaled_dot_product_cudnn_attention_backward.default: 11}
# Kernels one SDPA call launches on CUDA: flash forward is one kernel; FlashAttention-2's backward
# is three (flash_bwd_dot_do_o preprocessing, the main kernel, the dq conversion:
# flash_bwd_launch_template.h run_flash_bwd_seqk_parallel).
_SDPA_BWD_KERNELS = 3
DEQUANT_OP_NAMES = ("advisor.dequantize_nf4", "advisor.dequantize_int8", "bitsandbytes.dequantize_4bit",
                    "bitsandbytes.dequantize_blockwise", "bitsandbytes.int8_vectorwise_dequant")


@dataclass(frozen=True)
class OpRecord:
    """One operator of a step: what it asks of a GPU."""

    phase: str  # forward | backward | optimizer
    op: str  # "aten.mm.default"
    cls: str  # advisor.steptime.classes
    flops: float
    bytes_read: float
    bytes_written: float
    dtype: str  # of the result ("bfloat16"); a matmul runs at this dtype's peak
    kernels: int  # CUDA kernel launches this op makes (0: a view or metadata)
    mnk: tuple[int, int, int] | None = None  # GEMM shape (batch folded into M)

    @property
    def bytes(self) -> float:
        return self.bytes_read + self.bytes_written


def causal_fraction(seq_q: int, seq_k: int, block: int = FLASH_BLOCK) -> float:
    """Share of the seq_q x seq_k score blocks a causal flash kernel computes: with n blocks
    per side it visits the n(n + 1)/2 blocks on and below the diagonal, (n + 1) / 2n of them
    (exactly 1/2 only for long sequences; 3/4 at two blocks)."""
    if seq_q != seq_k:
        return 1.0
    n = max(1, math.ceil(seq_q / block))
    return (n + 1) / (2 * n)


def tensor_bytes(t: torch.Tensor) -> int:
    """Bytes a kernel touches for ``t``: a dimension of stride 0 (an expanded tensor) is read
    once (torch.utils._runtime_estimation.get_num_bytes)."""
    numel = 1
    for size, stride in zip(t.shape, t.stride()):
        if stride != 0:
            numel *= int(size)
    return numel * t.element_size()


def _tensors(tree) -> list[torch.Tensor]:
    """The tensors in an operator's arguments or outputs, in ``tree_leaves`` order. Operators
    take and return tensors, (named) tuples and lists of them, dicts of keyword arguments and
    scalars, so a walk of those is ``tree_leaves`` filtered to tensors (a container pytree
    would not open holds no tensors here), without pytree's per-node registry lookups."""
    if isinstance(tree, torch.Tensor):
        return [tree]
    out: list[torch.Tensor] = []
    _collect(tree, out)
    return out


def _collect(tree, out: list) -> None:
    if isinstance(tree, torch.Tensor):
        out.append(tree)
    elif isinstance(tree, (tuple, list)):
        for item in tree:
            _collect(item, out)
    elif isinstance(tree, dict):
        for item in tree.values():
            _collect(item, out)


# per operator, what ``OpRecorder.measure`` reads from its name and schema: (name, skipped (a
# view, a metadata op or a namespace never recorded), names of the arguments it writes, names
# of all its arguments). An operator's schema never changes, so it is read once per process.
_FUNC_INFO: dict = {}


def _func_info(func) -> tuple[str, bool, tuple[str, ...], tuple[str, ...]]:
    name = str(func)
    skipped = (name.split(".", 1)[0] in _SKIP_NAMESPACES or bool(getattr(func, "is_view", False))
               or func in _METADATA_OPS)
    if skipped:
        return name, True, (), ()
    arguments = func._schema.arguments
    mutated = tuple(a.name for a in arguments if a.alias_info is not None and a.alias_info.is_write)
    return name, False, mutated, tuple(a.name for a in arguments)


def _sdpa_shapes(func, args):
    if func in _SDPA_BWD:
        return args[1].shape, args[2].shape, args[3].shape  # grad_out, q, k, v
    return args[0].shape, args[1].shape, args[2].shape


def _sdpa_flops(func, args, kwargs) -> float:
    """Forward: 2 bmm (QK^T, PV); backward: 5 (S recomputed, dV, dP, dQ, dK), as
    torch.utils.flop_counter.sdpa_flop_count / sdpa_backward_flop_count, with the causal share."""
    q, k, v = _sdpa_shapes(func, args)
    b, hq, sq, d = q
    sk, dv = k[2], v[3]
    per_bmm = 2 * b * hq * sq * sk * (d + dv) / 2  # QK^T (d) and PV (dv) share one count each
    n_bmm = 5 if func in _SDPA_BWD else 2
    causal_idx = _IS_CAUSAL_ARG.get(func)
    causal = bool(kwargs.get("is_causal", args[causal_idx] if causal_idx is not None and len(args) > causal_idx else False))
    return n_bmm * per_bmm * (causal_fraction(sq, sk) if causal else 1.0)


def _mnk(func, args) -> tuple[int, int, int] | None:
    if func in (aten.mm.default, aten._scaled_mm.default):
        a, b = args[0], args[1]
        return int(a.shape[0]), int(b.shape[1]), int(a.shape[1])
    if func is aten.addmm.default:
        a, b = args[1], args[2]
        return int(a.shape[0]), int(b.shape[1]), int(a.shape[1])
    if func in (aten.bmm.default, aten.baddbmm.default):
        a, b = (args[0], args[1]) if func is aten.bmm.default else (args[1], args[2])
        return int(a.shape[0] * a.shape[1]), int(b.shape[2]), int(a.shape[2])
    return None


def _foreach_kernels(func, args) -> int:
    lists = [a for a in args if isinstance(a, (list, tuple)) and a and isinstance(a[0], torch.Tensor)]
    if not lists:
        return 1
    depth = min(len(lists), len(FOREACH_MAX_TENSORS))
    n = len(lists[0])
    chunks = sum(math.ceil(t.numel() / FOREACH_CHUNK) for t in lists[0])
    return max(math.ceil(n / FOREACH_MAX_TENSORS[depth - 1]), math.ceil(chunks / FOREACH_MAX_BLOCKS), 1)


class OpRecorder(TorchDispatchMode):
    """Records an ``OpRecord`` per operator while ``phase`` is one of ``advisor.steptime.classes.PHASES``.

    ``vocab``: the vocabulary size, so that the loss's (batch, seq, vocab) work is told apart
    from the other memory-bound operators."""

    def __init__(self, vocab: int | None = None):
        super().__init__()
        self.vocab = vocab
        self.phase = "build"
        self.ops: list[OpRecord] = []
        self.marks: list[tuple[int, str]] = []

    def set_phase(self, phase: str) -> None:
        """``on_phase`` of ``advisor.model.train_step``: "forward", "backward", "optimizer", "done"."""
        self.phase = "idle" if phase == "done" else phase
        self.marks.append((len(self.ops), self.phase))

    def reset(self) -> None:
        self.ops.clear()
        self.marks.clear()

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        """No ``torch._disable_dynamo`` wrapper around ``__torch_dispatch__`` (as
        ``advisor.model.tracker.LiveBytes`` says why: the recorder runs only in eager traces, and
        the wrapper costs two more Python calls on every op)."""
        return False

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func is _DEVICE:
            # ``tensor.device`` of a fake tensor (about half of all calls): it moves nothing and
            # is never recorded, so answer it as FakeTensorMode's ``_device_handler`` does
            # (fake_tensor.py, torch 2.13) instead of walking down the mode stack
            t = args[0] if len(args) == 1 else None
            if isinstance(t, FakeTensor):
                return torch.device("meta") if t.fake_mode.in_kernel_invocation else t.fake_device
            return func(*args, **(kwargs or {}))
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if self.phase in C.PHASES:
            rec = self.measure(func, args, kwargs, out)
            if rec is not None:
                self.ops.append(rec)
        return out

    # --- what one operator costs ---------------------------------------------------------------

    def measure(self, func, args, kwargs, out) -> OpRecord | None:
        info = _FUNC_INFO.get(func)
        if info is None:
            info = _FUNC_INFO[func] = _func_info(func)
        name, skipped, mutated, arg_names = info
        if skipped:
            return None
        outs = _tensors(out)
        result_dtype = str(outs[0].dtype).removeprefix("torch.") if outs else ""
        if mutated:
            named = dict(zip(arg_names, args)) | kwargs
            written_tensors = _tensors([named.get(n) for n in mutated])
            read_tensors = _tensors((args, kwargs))
            if func is aten.copy_.default:
                read_tensors = _tensors(args[1])
            elif name.startswith(("aten.zero_", "aten.fill_")):
                read_tensors = []
        else:
            written_tensors, read_tensors = outs, _tensors((args, kwargs))
        read = float(sum(tensor_bytes(t) for t in read_tensors))
        written = float(sum(tensor_bytes(t) for t in written_tensors))
        flops = 0.0
        kernels = 1
        mnk = None
        cls = C.ELEMENTWISE
        if func in _MATMUL_OPS:
            from torch.utils.flop_counter import flop_registry

            flops = float(flop_registry[func._overloadpacket](*args, **kwargs, out_val=out))
            mnk = _mnk(func, args)
            cls = C.MATMUL
        elif func in _SDPA_FWD or func in _SDPA_BWD:
            flops = _sdpa_flops(func, args, kwargs)
            cls = C.ATTENTION
            kernels = _SDPA_BWD_KERNELS if func in _SDPA_BWD else 1
            if func is _CPU_FLASH or func is _CPU_FLASH_BWD:
                result_dtype = str(args[1].dtype).removeprefix("torch.")
        elif func is aten.embedding.default:
            read = float(tensor_bytes(args[1]) + sum(tensor_bytes(t) for t in outs))  # indices + gathered rows
        elif func is aten.nll_loss_forward.default:
            target = args[1]
            read = float(tensor_bytes(target) + target.numel() * args[0].element_size())
        elif func is aten.nll_loss_backward.default:
            read = float(tensor_bytes(args[2]))  # target; the gradient is written whole
        elif name.startswith("aten._foreach_"):
            kernels = _foreach_kernels(func, args)
            if all(t.dim() == 0 for t in read_tensors + written_tensors):
                kernels, read, written = 0, 0.0, 0.0  # step counters: CPU scalars (capturable=False)

        elif name.startswith(("aten._fused_adam_", "aten._fused_adamw_")):
            # the schema marks grads mutable (for grad_scale); without one the kernel reads params,
            # grads, exp_avgs, exp_avg_sqs and writes params, exp_avgs, exp_avg_sqs
            read = float(sum(tensor_bytes(t) for t in _tensors(list(args[:4]))))
            written = float(sum(tensor_bytes(t) for t in _tensors([args[0], args[2], args[3]])))
            kernels = _foreach_kernels(func, args[:4])
        elif name.startswith("aten._fused_sgd_"):
            # _fused_sgd_(params, grads, momentum_buffer_list, ...): the schema marks grads mutable
            # (for grad_scale); without one the kernel reads params, grads (and momentum buffers)
            # and writes params (and momentum buffers) (torch 2.13 native_functions.yaml)
            read = float(sum(tensor_bytes(t) for t in _tensors(list(args[:3]))))
            written = float(sum(tensor_bytes(t) for t in _tensors([args[0], args[2]])))
            kernels = _foreach_kernels(func, args[:2])
        elif func is aten._local_scalar_dense.default:
            kernels, read, written = 0, 0.0, 0.0  # .item() of a CPU step counter: host work only
        elif self.phase == "optimizer" and all(t.dim() == 0 for t in read_tensors + written_tensors):
            kernels, read, written = 0, 0.0, 0.0  # step_t += 1 on a CPU step counter
        if name.startswith(DEQUANT_OP_NAMES):
            cls = C.DEQUANTIZE
        elif self.phase == "optimizer":
            cls = C.OPTIMIZER
        elif cls is C.ELEMENTWISE and self.vocab and self._touches_vocab(read_tensors + outs):
            cls = C.LOSS
        if cls is not C.MATMUL and cls is not C.ATTENTION:
            flops = float(sum(t.numel() for t in (written_tensors or read_tensors)))  # ~1 op per element
        return OpRecord(phase=self.phase, op=name, cls=cls, flops=flops, bytes_read=read, bytes_written=written,
                        dtype=result_dtype, kernels=kernels, mnk=mnk)

    def _touches_vocab(self, tensors: list[torch.Tensor]) -> bool:
        """(batch, seq, vocab) or (tokens, vocab) tensors are the loss's (the embedding table,
        (vocab, hidden), is not: its last dimension is the hidden size)."""
        return any(1 <= t.dim() <= 3 and t.shape[-1] == self.vocab for t in tensors)


# --- running a step ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RecordedStep:
    ops: list[OpRecord]
    tokens: int  # tokens of the micro-batch the step trained on
    seconds: float  # wall-clock of the recording (fake tensors: nothing is computed)
    runtime: str = "reference"
    notes: list[str] = field(default_factory=list)

    def totals(self) -> dict[str, dict[str, float]]:
        """Per class: flops, bytes, kernels, ops (summed over the phases)."""
        out: dict[str, dict[str, float]] = {}
        for r in self.ops:
            t = out.setdefault(r.cls, {"flops": 0.0, "bytes": 0.0, "kernels": 0.0, "ops": 0.0})
            t["flops"] += r.flops
            t["bytes"] += r.bytes
            t["kernels"] += r.kernels
            t["ops"] += 1
        return out


def record_step(spec, arch, *, steps: int = 2, stack=None,
                run: Callable[[OpRecorder], None] | None = None) -> RecordedStep:
    """The operators of one steady-state training step of ``spec`` on ``arch``, under fake tensors.

    Default: the reference decoder (``advisor.model``) built under ``FakeTensorMode`` on the
    ``cpu`` device, ``steps`` steps run (the optimizer creates its state in the first), the last
    one kept. ``run``: another step to record instead (the real-stack trace): called with the
    recorder already active under a ``FakeTensorMode``; it must call ``recorder.set_phase`` with
    "forward", "backward", "optimizer" and "done" and may call ``recorder.reset()`` before the
    step it wants kept."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    started = time.perf_counter()
    recorder = OpRecorder(vocab=arch.vocab)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        with FakeTensorMode():
            with recorder:
                if run is not None:
                    run(recorder)
                    runtime = "custom"
                else:
                    from advisor.model import build_model, make_optimizer, synthetic_batch, train_step

                    model = build_model(spec, arch, "cpu", stack=stack)
                    optimizer = make_optimizer(model, spec)
                    batch = synthetic_batch(spec, arch, "cpu", seed=0)
                    for i in range(max(1, steps)):
                        if i == max(1, steps) - 1:
                            recorder.reset()
                        # one micro-batch: RecordedStep.tokens is one micro-batch's, and the
                        # step-time model multiplies forward and backward by the accumulation
                        train_step(model, optimizer, batch, spec, on_phase=recorder.set_phase, micro_batches=1)
                    del model, optimizer, batch
                    runtime = "reference"
    return RecordedStep(ops=list(recorder.ops), tokens=spec.seq_len * spec.micro_batch,
                        seconds=time.perf_counter() - started, runtime=runtime)
