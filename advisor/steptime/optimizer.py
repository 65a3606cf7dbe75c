"""The optimizer step in closed form: torch.optim.AdamW (foreach, fused, for-loop), SGD, and
the 8-bit AdamW tensor by tensor (advisor.model.optim, bitsandbytes)."""

from __future__ import annotations

from advisor.steptime import classes as C
from advisor.steptime.config import M, ONE, OPT8_BLOCK, OPT8_MIN_SIZE, Config
from advisor.steptime.symbolic import Exec, Poly

def _optimizer_8bit(ex: Exec, tensors: list[tuple[Poly, Poly, str]]) -> None:
    """8-bit AdamW, tensor by tensor (advisor.model.optim.AdamW8bit, as bitsandbytes
    Optimizer8bit.init_state / update_step): a tensor of at least OPT8_MIN_SIZE elements gets one
    fused blockwise update (two uint8 states and one fp32 absmax per OPT8_BLOCK each); a smaller
    one keeps fp32 states and runs AdamW as separate element-wise kernels (AdamW8bit._fp32_update:
    the gradient cast to fp32, 11 kernels, the update cast back: 108 bytes per element with
    fp32 parameters, 110 with 16-bit ones; measured against the trace in tests/test_steptime.py)."""
    for cnt, each, dt in tensors:
        p = 4 if dt == "fp32" else 2
        ex.mult = cnt
        ex.gate = (each, float(OPT8_MIN_SIZE), True)
        st8 = 2 * each * (1 + 4.0 / OPT8_BLOCK)  # two uint8 states + their fp32 absmax per 2048
        ex.emit("advisor.adamw8bit_step_.default", C.OPTIMIZER, [], [], read_bytes=2 * p * each + st8,
                write_bytes=p * each + st8, flops=each, kernels=1)
        ex.gate = (each, float(OPT8_MIN_SIZE), False)
        f = each * 4  # one fp32 tensor of this size
        steps = [("mul_", f, f), ("add_", 2 * f, f), ("mul_", f, f), ("addcmul_", 3 * f, f), ("div", f, f),
                 ("sqrt_", f, f), ("add_", f, f), ("div", f, f), ("div", 2 * f, f),
                 ("mul_", p * each, p * each), ("add_", 2 * p * each, p * each)]
        if p != 4:  # p.grad.float() and upd.to(p.dtype)
            steps += [("_to_copy", p * each, f), ("_to_copy", f, p * each)]
        for op, r, w in steps:
            ex.emit(f"aten.{op}", C.OPTIMIZER, [], [], read_bytes=r, write_bytes=w, flops=each, kernels=1)
        ex.gate = None
    ex.mult = ONE


def optimizer_step(ex: Exec, cfg: Config, tensors: list[tuple[Poly, Poly, str]]) -> None:
    """The optimizer step over ``tensors`` ((count, numel, dtype) of the trainable parameters;
    gradients have the parameters' dtype): torch.optim.AdamW (adam.py _multi_tensor_adam /
    _fused_adam / _single_tensor_adam with capturable=False, weight_decay 0: the step counters
    live on the CPU and _get_value reads each twice), SGD without momentum (one foreach add),
    the 8-bit AdamW (advisor.model.optim: one update per tensor, bitsandbytes
    optimizer_update_8bit_blockwise)."""
    ex.phase = "optimizer"
    n = sum((cnt for cnt, _, _ in tensors), Poly())
    numel = sum((cnt * each for cnt, each, _ in tensors), Poly())
    pbytes = sum((cnt * each * (4 if dt == "fp32" else 2) for cnt, each, dt in tensors), Poly())
    s1 = pbytes  # one AdamW state (exp_avg or exp_avg_sq): zeros_like(param), the parameter's dtype

    def fe(op, lists, read, written, cpu=False):
        ex.emit(op, C.OPTIMIZER, [], [], read_bytes=read, write_bytes=written, flops=numel,
                kernels=0 if cpu else 1, foreach=None if cpu else (lists, n, numel), cpu_only=cpu)

    if cfg.optimizer == "sgd":  # momentum 0 (advisor.model.optim): fused or foreach, one pass
        fe("aten._fused_sgd_.default" if cfg.optimizer_impl == "fused" else "aten._foreach_add_.List", 2,
           2 * pbytes, pbytes)
        return
    if cfg.optimizer in ("adamw-8bit", "paged-adamw-8bit"):
        _optimizer_8bit(ex, tensors)
        return
    if cfg.optimizer_impl == "fused":
        fe("aten._foreach_add_.Scalar", 1, Poly(), Poly(), cpu=True)
        fe("aten._fused_adamw_.default", 4, 2 * pbytes + 2 * s1, pbytes + 2 * s1)
        return
    if cfg.optimizer_impl == "for-loop":
        per = M(n=-1)
        pb, sb = pbytes * per, s1 * per
        ex.mult = n
        ex.emit("aten.add_.Tensor", C.OPTIMIZER, [], [], cpu_only=True, kernels=0)  # step_t += 1 (CPU)
        ex.emit("aten._local_scalar_dense.default", C.OPTIMIZER, [], [], cpu_only=True, kernels=0)
        for op, r, w in (("aten.lerp_.Scalar", pb + sb, sb), ("aten.mul_.Tensor", sb, sb),
                         ("aten.addcmul_.default", sb + 2 * pb, sb), ("aten.sqrt.default", sb, sb),
                         ("aten.div.Tensor", sb, sb), ("aten.add_.Tensor", sb, sb),
                         ("aten.addcdiv_.default", pb + 2 * sb, pb)):
            ex.emit(op, C.OPTIMIZER, [], [], read_bytes=r, write_bytes=w, flops=numel * per, kernels=1)
        ex.mult = ONE
        return
    fe("aten._foreach_add_.Tensor", 1, Poly(), Poly(), cpu=True)  # step += 1 on the CPU counters
    fe("aten._foreach_lerp_.Scalar", 2, s1 + pbytes, s1)
    fe("aten._foreach_mul_.Scalar", 1, s1, s1)
    fe("aten._foreach_addcmul_.Scalar", 3, s1 + 2 * pbytes, s1)
    ex.mult = 2 * n
    ex.emit("aten._local_scalar_dense.default", C.OPTIMIZER, [], [], cpu_only=True, kernels=0)
    ex.mult = ONE
    fe("aten._foreach_sqrt.default", 1, s1, s1)
    fe("aten._foreach_div_.ScalarList", 1, s1, s1)
    fe("aten._foreach_add_.Scalar", 1, s1, s1)
    fe("aten._foreach_addcdiv_.ScalarList", 3, pbytes + 2 * s1, pbytes)
