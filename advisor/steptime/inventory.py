"""The operators of one training step in closed form: the reference decoder (``advisor.model``)
re-run symbolically (``advisor.steptime.symbolic``), site by site, with the stack's switches
(``advisor.stacks.StackProfile``) and kernels (``advisor.steptime.kernels.Kernels``).

Each site names the code it mirrors; each backward rule is autograd's (derivatives.yaml in
torchgen/packaged/autograd, torch 2.13). One symbolic run per configuration (everything but the
sizes) is cached; ``inventory(spec, arch)`` evaluates it at the spec's sizes and returns the
operator groups the roofline prices (``advisor.steptime.roofline``). The exact trace of the same
step (``advisor.steptime.record``) is the oracle: tests/test_steptime.py checks FLOPs, bytes and
kernel launches class by class against it on a grid of configurations.

Blocks are identical, so one block is run symbolically and multiplied by the layer count; the
first block is run on its own when its input needs no gradient (adapters only: nothing flows
back into the frozen embedding, so its input gradients are never computed).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache

from advisor.steptime import classes as C
from advisor.steptime.kernels import Kernels, for_spec
from advisor.steptime.symbolic import Exec, Point, Poly, SymOp, Tn

M = Poly.mono
ONE = Poly.const(1)

NF4_BLOCK, NF4_DQ_BLOCK = 64, 256  # advisor.model.quant (bitsandbytes quantize_4bit blocksize, double quant)
OPT8_BLOCK, OPT8_MIN_SIZE = 2048, 4096  # advisor.model.quant (bitsandbytes 8-bit optimizers)
FOREACH_MAX_TENSORS = (110, 64, 48, 36, 30)  # ATen/native/cuda/MultiTensorApply.cuh depth_to_max_tensors
FOREACH_MAX_BLOCKS, FOREACH_CHUNK = 320, 65536  # depth_to_max_blocks, kChunkSize
_MLP = frozenset({"gate_proj", "up_proj", "down_proj"})
LORA_TARGETS = {  # advisor.model.build.LORA_TARGETS, and the target sets published runs used
    "all-linear": frozenset({"q_proj", "k_proj", "v_proj", "o_proj"}) | _MLP,
    "attention": frozenset({"q_proj", "k_proj", "v_proj", "o_proj"}),
    "q,v": frozenset({"q_proj", "v_proj"}),
    "q,k,v": frozenset({"q_proj", "k_proj", "v_proj"}),
    "q,v,o+mlp": frozenset({"q_proj", "v_proj", "o_proj"}) | _MLP,
    "q,k,v,o+mlp": frozenset({"q_proj", "k_proj", "v_proj", "o_proj"}) | _MLP,
}


@dataclass(frozen=True)
class Config:
    """Everything about a step but its sizes: the cache key of one symbolic run."""

    method: str
    precision: str
    gradient_checkpointing: bool
    attention: str
    lora_targets: str
    quant: str | None
    double_quant: bool
    lora_dropout: bool  # p > 0
    optimizer: str
    optimizer_impl: str
    mlp_kind: str
    norm: str
    attn_bias: bool
    tied: bool
    moe: bool
    loss_upcast_fp32: bool  # advisor.stacks.StackProfile switches from here
    loss_chunked: bool
    kbit_prep_fp32: bool
    keep_quant_input: bool
    quant_input_copy: bool
    lora_dropout_copy: bool
    lora_cast_input: bool
    adapters_fp32: bool
    kernels: Kernels


def config_for(spec, arch, kernels: Kernels | None = None, stack=None) -> Config:
    from advisor.stacks import profile

    st = stack or profile(spec.stack)
    return Config(
        method=spec.method, precision=spec.precision, gradient_checkpointing=spec.gradient_checkpointing,
        attention=spec.attention, lora_targets=spec.lora_targets,
        quant=(spec.quant or "nf4") if spec.method == "qlora" else None, double_quant=spec.double_quant,
        lora_dropout=spec.lora_dropout > 0, optimizer=spec.optimizer, optimizer_impl=spec.optimizer_impl,
        mlp_kind=arch.mlp_kind, norm=arch.norm, attn_bias=arch.attn_bias, tied=arch.tied_embeddings,
        moe=arch.experts > 0, loss_upcast_fp32=st.loss_upcast_fp32, loss_chunked=st.loss_chunks > 1,
        kbit_prep_fp32=st.kbit_prep_fp32, keep_quant_input=st.keep_quant_input,
        quant_input_copy=st.quant_input_copy, lora_dropout_copy=st.lora_dropout_copy,
        lora_cast_input=st.lora_cast_input, adapters_fp32=st.adapters_fp32, kernels=kernels or for_spec(spec),
    )


def point_for(spec, arch, stack=None, step: "CompiledStep | None" = None) -> Point:
    """The symbols' values for ``spec`` on ``arch`` (n: trainable tensors, from ``step``)."""
    from advisor.stacks import profile

    st = stack or profile(spec.stack)
    n = 1.0
    if step is not None:
        n = max(1.0, Point(L=arch.layers, E=max(arch.experts, 1))(step.n_tensors))
    return Point(n=n, L=arch.layers, b=spec.micro_batch, s=spec.seq_len, h=arch.hidden, q=arch.q_dim, kv=arch.kv_dim,
                 i=arch.intermediate, v=arch.vocab, r=spec.lora_rank, H=arch.heads, d=arch.head_dim,
                 E=max(arch.experts, 1), k=max(arch.experts_per_token, 1),
                 c=max(1, min(st.loss_chunks, spec.seq_len)))


# --- dtypes (advisor.model.build.dtype_policy) --------------------------------------------------


@dataclass(frozen=True)
class Dtypes:
    linear: str
    other: str
    compute: str
    mixed: bool
    adapter: str


def dtypes(cfg: Config) -> Dtypes:
    """advisor.model.build.dtype_policy, without torch."""
    half = {"bf16-mixed": "bf16", "bf16": "bf16", "fp16-mixed": "fp16", "fp32": "fp32"}[cfg.precision]
    mixed = cfg.precision in ("bf16-mixed", "fp16-mixed")
    if cfg.method == "full":
        stored = "bf16" if cfg.precision == "bf16" else "fp32"
        return Dtypes(stored, stored, half, mixed, "fp32")
    other = "fp32" if (cfg.method == "qlora" and cfg.kbit_prep_fp32) else half
    adapter = "fp32" if (cfg.adapters_fp32 or cfg.precision != "bf16") else half
    return Dtypes(half, other, half, mixed, adapter)


def _promote(a: str, b: str) -> str:
    return "fp32" if "fp32" in (a, b) else a


# --- primitives, each with autograd's backward --------------------------------------------------


class Ops:
    def __init__(self, ex: Exec):
        self.ex = ex

    def _back(self, out: Tn, fn, saves: tuple[Tn, ...] = (), after: bool = False) -> None:
        """Record ``fn(ex, grad_of_out)`` on the tape; it runs with the multiplicity (layers,
        chunks, experts) the forward operator had. ``saves``: the tensors autograd keeps for
        it (what gradient checkpointing must recompute)."""
        if out.rg:
            mult = self.ex.mult
            if saves:
                # inputs are saved as the operator is called (before its kernel), outputs after
                op = self.ex.ops[-1] if self.ex.ops else None
                kind = "output" if after or (op is not None and any(t.id in op.writes for t in saves)) else "input"
                self.ex.saved.append((len(self.ex.ops) - 1, kind))

            def run(ex):
                g = ex.grad(out)
                if g is not None:
                    saved, ex.mult = ex.mult, mult
                    fn(ex, g)
                    ex.mult = saved
            self.ex.record_backward(run)

    def cast(self, x: Tn, dtype: str, copy: bool = False, cls: str = C.ELEMENTWISE) -> Tn:
        """Tensor.to(dtype): a copy when the dtype changes (or copy=True); backward:
        _to_copy_backward casts the gradient back (nothing when the dtype is the same)."""
        if x.dtype == dtype and not copy:
            return x
        y = Tn(x.numel, dtype, x.rg)
        self.ex.emit("aten._to_copy.default", cls, [x], [y])
        self._back(y, lambda ex, g: ex.add_grad(x, g, cls))
        return y

    def view(self, x: Tn, numel: Poly | None = None) -> Tn:
        """A view (slice, chunk): no kernel; backward slice_backward writes a zero tensor of the
        full size and copies the gradient in (derivatives.yaml slice.Tensor)."""
        y = Tn(numel if numel is not None else x.numel, x.dtype, x.rg)

        def back(ex, g):
            full = Tn(x.numel, g.dtype)
            ex.emit("aten.slice_backward.default", C.ELEMENTWISE, [g], [full])
            ex.add_grad(x, full)
        self._back(y, back)
        return y

    def unary(self, op: str, x: Tn, bwd: str | None, dtype: str | None = None) -> Tn:
        """One kernel forward (silu, gelu); ``bwd`` reads the gradient and the input (silu_backward)."""
        y = Tn(x.numel, dtype or x.dtype, x.rg)
        self.ex.emit(op, C.ELEMENTWISE, [x], [y])

        def back(ex, g):
            gx = Tn(x.numel, g.dtype)
            ex.emit(bwd, C.ELEMENTWISE, [g, x], [gx])
            ex.add_grad(x, gx)
        if bwd:
            self._back(y, back, saves=(x,))
        return y

    def neg(self, x: Tn) -> Tn:
        y = Tn(x.numel, x.dtype, x.rg)
        self.ex.emit("aten.neg.default", C.ELEMENTWISE, [x], [y])

        def back(ex, g):
            gx = Tn(x.numel, g.dtype)
            ex.emit("aten.neg.default", C.ELEMENTWISE, [g], [gx])
            ex.add_grad(x, gx)
        self._back(y, back)
        return y

    def cat(self, parts: list[Tn]) -> Tn:
        """torch.cat; backward cat_tensors_backward hands each input a view of the gradient."""
        y = Tn(sum((p.numel for p in parts), Poly()), parts[0].dtype, any(p.rg for p in parts))
        self.ex.emit("aten.cat.default", C.ELEMENTWISE, parts, [y])

        def back(ex, g):
            for p in parts:
                ex.add_grad(p, Tn(p.numel, g.dtype))
        self._back(y, back)
        return y

    def mul(self, a: Tn, b: Tn, out: Poly | None = None) -> Tn:
        """a * b, ``out`` the broadcast size (default a's); backward: grad * other for each input
        that needs a gradient, then sum_to_size when that input was broadcast."""
        out = out if out is not None else a.numel
        y = Tn(out, _promote(a.dtype, b.dtype), a.rg or b.rg)
        self.ex.emit("aten.mul.Tensor", C.ELEMENTWISE, [a, b], [y])

        def back(ex, g):
            for this, other in ((a, b), (b, a)):
                if not this.rg:
                    continue
                prod = Tn(out, _promote(g.dtype, other.dtype))
                ex.emit("aten.mul.Tensor", C.ELEMENTWISE, [g, other], [prod])
                if this.numel.terms != out.terms:
                    red = Tn(this.numel, prod.dtype)
                    ex.emit("aten.sum.dim_IntList", C.ELEMENTWISE, [prod], [red])
                    prod = red
                ex.add_grad(this, prod)
        self._back(y, back, saves=tuple(t for t, other in ((b, a), (a, b)) if other.rg))
        return y

    def scale(self, x: Tn) -> Tn:
        """x * python number (aten.mul.Tensor with a wrapped scalar); backward scales the gradient."""
        y = Tn(x.numel, x.dtype, x.rg)
        self.ex.emit("aten.mul.Tensor", C.ELEMENTWISE, [x], [y])

        def back(ex, g):
            gx = Tn(x.numel, g.dtype)
            ex.emit("aten.mul.Tensor", C.ELEMENTWISE, [g], [gx])
            ex.add_grad(x, gx)
        self._back(y, back)
        return y

    def add(self, a: Tn, b: Tn, out: Poly | None = None, op: str = "aten.add.Tensor") -> Tn:
        """a + b (b may broadcast); backward passes the gradient on (summed for a broadcast
        input; cast to each input's dtype by the engine)."""
        out = out if out is not None else a.numel
        y = Tn(out, _promote(a.dtype, b.dtype), a.rg or b.rg)
        self.ex.emit(op, C.ELEMENTWISE, [a, b], [y])

        def back(ex, g):
            for this in (a, b):
                if this.rg:
                    gg = g
                    if this.numel.terms != out.terms:
                        gg = Tn(this.numel, g.dtype)
                        ex.emit("aten.sum.dim_IntList", C.ELEMENTWISE, [g], [gg])
                    ex.add_grad(this, gg)
        self._back(y, back)
        return y

    def add_scalar(self, x: Tn) -> Tn:
        y = Tn(x.numel, x.dtype, x.rg)
        self.ex.emit("aten.add.Tensor", C.ELEMENTWISE, [x], [y])
        self._back(y, lambda ex, g: ex.add_grad(x, g))
        return y

    def pow2(self, x: Tn) -> Tn:
        """x.pow(2); backward pow_backward: grad * (2 * x.pow(1)): pow, mul.Scalar, mul."""
        y = Tn(x.numel, x.dtype, x.rg)
        self.ex.emit("aten.pow.Tensor_Scalar", C.ELEMENTWISE, [x], [y])

        def back(ex, g):
            p = Tn(x.numel, x.dtype)
            ex.emit("aten.pow.Tensor_Scalar", C.ELEMENTWISE, [x], [p])
            s = Tn(x.numel, x.dtype)
            ex.emit("aten.mul.Scalar", C.ELEMENTWISE, [p], [s])
            gx = Tn(x.numel, _promote(g.dtype, x.dtype))
            ex.emit("aten.mul.Tensor", C.ELEMENTWISE, [g, s], [gx])
            ex.add_grad(x, gx)
        self._back(y, back, saves=(x,))
        return y

    def mean_last(self, x: Tn, rows: Poly) -> Tn:
        """x.mean(-1, keepdim=True); backward mean_backward: grad.expand(...) / n (div writes the
        full size)."""
        y = Tn(rows, x.dtype, x.rg)
        self.ex.emit("aten.mean.dim", C.ELEMENTWISE, [x], [y])

        def back(ex, g):
            gx = Tn(x.numel, g.dtype)
            ex.emit("aten.div.Scalar", C.ELEMENTWISE, [g], [gx])
            ex.add_grad(x, gx)
        self._back(y, back)
        return y

    def rsqrt(self, x: Tn) -> Tn:
        """torch.rsqrt; backward -0.5 * grad * result.pow(3): pow, mul.Scalar, mul."""
        y = Tn(x.numel, x.dtype, x.rg)
        self.ex.emit("aten.rsqrt.default", C.ELEMENTWISE, [x], [y])

        def back(ex, g):
            p = Tn(x.numel, x.dtype)
            ex.emit("aten.pow.Tensor_Scalar", C.ELEMENTWISE, [y], [p])
            s = Tn(x.numel, g.dtype)
            ex.emit("aten.mul.Scalar", C.ELEMENTWISE, [g], [s])
            gx = Tn(x.numel, _promote(g.dtype, x.dtype))
            ex.emit("aten.mul.Tensor", C.ELEMENTWISE, [s, p], [gx])
            ex.add_grad(x, gx)
        self._back(y, back, saves=(y,))
        return y

    def dropout(self, x: Tn) -> Tn:
        """aten::native_dropout (output and a bool mask); backward native_dropout_backward."""
        y = Tn(x.numel, x.dtype, x.rg)
        mask = Tn(x.numel, "bool")
        self.ex.emit("aten.native_dropout.default", C.ELEMENTWISE, [x], [y, mask])

        def back(ex, g):
            gx = Tn(x.numel, g.dtype)
            ex.emit("aten.native_dropout_backward.default", C.ELEMENTWISE, [g, mask], [gx])
            ex.add_grad(x, gx)
        self._back(y, back, saves=(mask,))
        return y

    def linear(self, x: Tn, w: Tn, m: Poly, k: Poly, n: Poly, bias: Tn | None = None) -> Tn:
        """F.linear of (m tokens x k) by a (k x n) weight: mm (addmm with a bias); backward: the
        input gradient (m x n @ n x k) when x needs one, the weight gradient (n x m @ m x k)
        when w is trainable, the bias gradient as a column sum."""
        y = Tn(m * n, x.dtype, x.rg or w.rg or (bias is not None and bias.rg))
        op = "aten.addmm.default" if bias is not None else "aten.mm.default"
        self.ex.emit(op, C.MATMUL, [x, w] + ([bias] if bias is not None else []), [y], flops=2 * m * n * k,
                     mnk=(m, n, k), dtype=x.dtype)

        def back(ex, g):
            if x.rg:
                gx = Tn(m * k, g.dtype)
                ex.emit("aten.mm.default", C.MATMUL, [g, w], [gx], flops=2 * m * n * k, mnk=(m, k, n), dtype=g.dtype)
                ex.add_grad(x, gx)
            if w.rg:
                gw = Tn(n * k, g.dtype)
                ex.emit("aten.mm.default", C.MATMUL, [g, x], [gw], flops=2 * m * n * k, mnk=(n, k, m), dtype=g.dtype)
                ex.add_grad(w, gw)
            if bias is not None and bias.rg:
                gb = Tn(n, g.dtype)
                ex.emit("aten.sum.dim_IntList", C.ELEMENTWISE, [g], [gb])
                ex.add_grad(bias, gb)
        self._back(y, back, saves=((x,) if w.rg else ()) + ((w,) if x.rg else ()))
        return y

    def bmm(self, a: Tn, b: Tn, batch: Poly, m: Poly, n: Poly, k: Poly) -> Tn:
        """(batch, m, k) @ (batch, k, n); backward one bmm per input that needs a gradient."""
        y = Tn(batch * m * n, a.dtype, a.rg or b.rg)
        self.ex.emit("aten.bmm.default", C.MATMUL, [a, b], [y], flops=2 * batch * m * n * k,
                     mnk=(batch * m, n, k), dtype=a.dtype)

        def back(ex, g):
            if a.rg:
                ga = Tn(a.numel, g.dtype)
                ex.emit("aten.bmm.default", C.MATMUL, [g, b], [ga], flops=2 * batch * m * n * k,
                        mnk=(batch * m, k, n), dtype=g.dtype)
                ex.add_grad(a, ga)
            if b.rg:
                gb = Tn(b.numel, g.dtype)
                ex.emit("aten.bmm.default", C.MATMUL, [a, g], [gb], flops=2 * batch * m * n * k,
                        mnk=(batch * k, n, m), dtype=g.dtype)
                ex.add_grad(b, gb)
        self._back(y, back, saves=((b,) if a.rg else ()) + ((a,) if b.rg else ()))
        return y


# --- the decoder --------------------------------------------------------------------------------


class Decoder:
    """advisor.model.decoder / layers / step, site by site."""

    def __init__(self, cfg: Config):
        self.cfg = cfg
        self.dt = dtypes(cfg)
        self.ex = Exec()
        self.o = Ops(self.ex)
        self.kern = cfg.kernels
        self.T = M(b=1, s=1)
        self.full = cfg.method == "full"
        self.targets = LORA_TARGETS[cfg.lora_targets] if cfg.method in ("lora", "qlora") else frozenset()
        self.trainable: list[tuple[Poly, Poly, str]] = []  # (count, numel, dtype) per block
        self._collect = True
        self._count = ONE  # experts: a linear of the expert MLP stands for E tensors

    def _train(self, numel: Poly, dtype: str) -> None:
        if self._collect:
            self.trainable.append((self._count, numel, dtype))

    # Runtime (advisor.model.layers.Runtime) -------------------------------------------------

    def activation(self, x: Tn) -> Tn:
        return self.o.cast(x, self.dt.compute) if self.dt.mixed else x

    def wcast(self, w: Tn | None) -> Tn | None:
        if w is None or not self.dt.mixed or w.dtype == self.dt.compute:
            return w
        return self.o.cast(w, self.dt.compute)

    # sites ------------------------------------------------------------------------------------

    def norm(self, x: Tn) -> Tn:
        """Norm.forward: LlamaRMSNorm (x.to(fp32), pow(2), mean, + eps, rsqrt, *, .to(input),
        weight *) or F.layer_norm; one kernel each way with a fused norm (Kernels.norm)."""
        o, h = self.o, M(h=1)
        w = Tn(h, self.dt.other, self.full)
        b = Tn(h, self.dt.other, self.full) if self.cfg.norm == "layernorm" else None
        if self.full:
            self._train(h, self.dt.other)
            if b is not None:
                self._train(h, self.dt.other)
        if self.cfg.norm == "layernorm":
            return self._fused_norm(o.cast(x, w.dtype), w, b, "aten.native_layer_norm.default",
                                    "aten.native_layer_norm_backward.default", stats=2)
        if self.kern.norm == "fused":
            return self._fused_norm(x, w, None, "fused_rms_norm", "fused_rms_norm_backward", stats=1)
        input_dtype = x.dtype
        hx = o.cast(x, "fp32")
        var = o.mean_last(o.pow2(hx), self.T)
        hn = o.mul(hx, o.rsqrt(o.add_scalar(var)))
        return o.mul(w, o.cast(hn, input_dtype), out=hn.numel)

    def _fused_norm(self, x: Tn, w: Tn, b: Tn | None, op: str, bop: str, stats: int) -> Tn:
        """One kernel forward (reads x and the weight, writes y and per-row fp32 statistics) and
        one backward (reads dy, x, weight, statistics; writes dx, and dw/db when trainable)."""
        ex = self.ex
        y = Tn(x.numel, _promote(w.dtype, x.dtype) if b is None else x.dtype, x.rg or w.rg)
        st = [Tn(self.T, "fp32") for _ in range(stats)]
        ex.emit(op, C.ELEMENTWISE, [x, w] + ([b] if b is not None else []), [y] + st)

        def back(ex, g):
            gx = Tn(x.numel, x.dtype)
            outs = [gx] + ([Tn(w.numel, w.dtype)] if w.rg else []) + ([Tn(b.numel, b.dtype)] if b is not None and b.rg else [])
            ex.emit(bop, C.ELEMENTWISE, [g, x, w] + st, outs)
            ex.add_grad(x, gx)
            if w.rg:
                ex.add_grad(w, outs[1])
            if b is not None and b.rg:
                ex.add_grad(b, outs[-1])
        self.o._back(y, back, saves=(x, w, *st))
        return y

    def dense(self, x: Tn, fan_in: Poly, fan_out: Poly, bias: bool) -> Tn:
        """Dense.forward: F.linear(rt.activation(x), rt.cast(W), rt.cast(b))."""
        w = Tn(fan_in * fan_out, self.dt.linear, self.full)
        bt = Tn(fan_out, self.dt.other, self.full) if bias else None
        if self.full:
            self._train(fan_in * fan_out, self.dt.linear)
            if bias:
                self._train(fan_out, self.dt.other)
        return self.o.linear(self.activation(x), self.wcast(w), self.T, fan_in, fan_out, bias=self.wcast(bt))

    def quant_linear(self, x: Tn, fan_in: Poly, fan_out: Poly, bias: bool) -> Tn:
        """QuantLinear.forward: x.to(compute) (a copy with quant_input_copy and keep_input),
        _QuantMatmul (dequantize, x @ w.t(); backward: dequantize again, the input-gradient
        matmul; the 4-bit weight is frozen), + the bias cast to the compute dtype."""
        o, ex, cfg = self.o, self.ex, self.cfg
        cd = self.dt.compute
        xq = o.cast(x, cd, copy=cfg.quant_input_copy and cfg.keep_quant_input)
        n = fan_in * fan_out
        if cfg.quant == "int8":
            data, consts, dq_op = Tn(n, "int8"), [Tn(fan_out, "fp32")], "advisor.dequantize_int8.default"
        else:
            data, dq_op = Tn(n * 0.5, "uint8"), "advisor.dequantize_nf4.default"
            blocks = n * (1.0 / NF4_BLOCK)
            consts = ([Tn(blocks, "uint8"), Tn(blocks * (1.0 / NF4_DQ_BLOCK), "fp32"), Tn(ONE, "fp32")]
                      if cfg.double_quant else [Tn(blocks, "fp32")])
        T = self.T

        def dequant(ex) -> Tn:
            w = Tn(n, cd)
            ex.emit(dq_op, C.DEQUANTIZE, [data] + consts, [w])
            return w

        w = dequant(ex)
        y = Tn(T * fan_out, cd, xq.rg)
        ex.emit("aten.mm.default", C.MATMUL, [xq, w], [y], flops=2 * T * fan_in * fan_out,
                mnk=(T, fan_out, fan_in), dtype=cd)

        def back(ex, g):
            w2 = dequant(ex)
            gx = Tn(T * fan_in, g.dtype)
            ex.emit("aten.mm.default", C.MATMUL, [g, w2], [gx], flops=2 * T * fan_in * fan_out,
                    mnk=(T, fan_in, fan_out), dtype=g.dtype)
            ex.add_grad(xq, gx)
        # an autograd.Function packs what ctx.save_for_backward got when its forward returns
        o._back(y, back, saves=(xq,) if cfg.keep_quant_input else (), after=True)
        if bias:
            bt = Tn(fan_out, self.dt.other, False)
            y = o.add(y, o.cast(self.wcast(bt), cd), out=y.numel)
        return y

    def lora(self, x: Tn, fan_in: Poly, fan_out: Poly, base: Tn) -> Tn:
        """LoraLinear.forward (PEFT lora.Linear): x.to(A.dtype) when casting, dropout, A, B,
        * scaling, + the base output, .to(base dtype); Kernels.lora == "fused": Unsloth
        fast_lora (no dropout or casts; the adapter product added to the base output in place)."""
        o, cfg, dt = self.o, self.cfg, self.dt
        r = M(r=1)
        self._train(r * fan_in, dt.adapter)
        self._train(fan_out * r, dt.adapter)
        if self.kern.lora == "fused":
            a, b = Tn(r * fan_in, dt.compute, True), Tn(fan_out * r, dt.compute, True)
            h = o.linear(x, a, self.T, fan_in, r)
            return o.add(base, o.linear(h, b, self.T, r, fan_out), op="aten.addmm_.default")
        a, b = Tn(r * fan_in, dt.adapter, True), Tn(fan_out * r, dt.adapter, True)
        xa = o.cast(x, a.dtype) if (cfg.lora_cast_input or not dt.mixed) else x
        if cfg.lora_dropout and cfg.lora_dropout_copy:
            xa = o.dropout(xa)
        h = o.linear(self.activation(xa), self.wcast(a), self.T, fan_in, r)
        h = o.scale(o.linear(h, self.wcast(b), self.T, r, fan_out))
        return o.cast(o.add(base, h), base.dtype)

    def linear(self, name: str, x: Tn, fan_in: Poly, fan_out: Poly, bias: bool) -> Tn:
        """advisor.model.build.build_model.make_linear."""
        base = self.quant_linear(x, fan_in, fan_out, bias) if self.cfg.method == "qlora" \
            else self.dense(x, fan_in, fan_out, bias)
        return self.lora(x, fan_in, fan_out, base) if name in self.targets else base

    def rotary(self, x: Tn, cos: Tn, sin: Tn) -> Tn:
        """q * cos + rotate_half(q) * sin with rotate_half = cat(-x[..., d/2:], x[..., :d/2])."""
        o, ex = self.o, self.ex
        if self.kern.rope == "none":  # learned or ALiBi positions: nothing to rotate
            return x
        if self.kern.rope == "fused":
            y = Tn(x.numel, x.dtype, x.rg)
            ex.emit("fused_rope", C.ELEMENTWISE, [x, cos, sin], [y])

            def back(ex, g):
                gx = Tn(x.numel, g.dtype)
                ex.emit("fused_rope_backward", C.ELEMENTWISE, [g, cos, sin], [gx])
                ex.add_grad(x, gx)
            o._back(y, back, saves=(cos, sin))
            return y
        xc = o.mul(x, cos)
        hi, lo = o.view(x, x.numel * 0.5), o.view(x, x.numel * 0.5)
        rot = o.cat([o.neg(hi), lo])
        return o.add(xc, o.mul(rot, sin))

    def attention(self, x: Tn, cos: Tn, sin: Tn) -> Tn:
        """Attention.forward: projections, rotary on q and k, casts to the compute dtype, SDPA
        (is_causal) or the eager path, o_proj."""
        o, ex, cfg = self.o, self.ex, self.cfg
        h, q, kv = M(h=1), M(q=1), M(kv=1)
        qt = self.rotary(self._heads_view(self.linear("q_proj", x, h, q, cfg.attn_bias)), cos, sin)
        kt = self.rotary(self._heads_view(self.linear("k_proj", x, h, kv, cfg.attn_bias)), cos, sin)
        vt = self.linear("v_proj", x, h, kv, cfg.attn_bias)
        cd = self.dt.compute
        qt, kt, vt = o.cast(qt, cd), o.cast(kt, cd), o.cast(vt, cd)
        if cfg.attention == "flash":
            out = Tn(self.T * q, cd, qt.rg or kt.rg or vt.rg)
            lse = Tn(M(b=1, H=1, s=1), "fp32")
            # QK^T and PV: 2 x b x heads x s x s x head_dim FLOPs each (flop_counter.sdpa_flop_count)
            ex.emit("aten._scaled_dot_product_flash_attention_for_cpu.default", C.ATTENTION, [qt, kt, vt],
                    [out, lse], flops=4 * M(b=1, s=2, q=1), causal=True, dtype=cd)

            def back(ex, g):
                gq, gk, gv = Tn(qt.numel, cd), Tn(kt.numel, cd), Tn(vt.numel, cd)
                # recompute S, then dV, dP, dQ, dK (sdpa_backward_flop_count: 5 products)
                ex.emit("aten._scaled_dot_product_flash_attention_for_cpu_backward.default", C.ATTENTION,
                        [g, qt, kt, vt, out, lse], [gq, gk, gv], flops=10 * M(b=1, s=2, q=1), kernels=3,
                        causal=True, dtype=cd)
                ex.add_grad(qt, gq)
                ex.add_grad(kt, gk)
                ex.add_grad(vt, gv)
            o._back(out, back, saves=(qt, kt, vt, out, lse))
        else:
            out = self.eager_attention(qt, kt, vt)
        return self.linear("o_proj", out, q, h, False)

    def _heads_view(self, y: Tn) -> Tn:
        """y.view(b, s, heads, d).transpose(1, 2): no kernel; in backward the gradient coming
        out of the rotary's pointwise ops has the (b, heads, s, d) layout, so view's backward
        (a reshape) copies it (clone) before the projection's backward."""
        if self.kern.rope in ("fused", "none"):
            return y
        v = Tn(y.numel, y.dtype, y.rg)

        def back(ex, g):
            c = Tn(y.numel, g.dtype)
            ex.emit("aten.clone.default", C.ELEMENTWISE, [g], [c])
            ex.add_grad(y, c)
        self.o._back(v, back)
        return v

    def eager_attention(self, q: Tn, k: Tn, v: Tn) -> Tn:
        """Attention._eager (transformers eager_attention_forward): repeat_kv (expand + reshape:
        a copy), scores, * scale, + causal mask (full, triu), softmax in fp32, .to(compute),
        probs @ v."""
        o, ex = self.o, self.ex
        cd = self.dt.compute
        bh, s, d = M(b=1, H=1), M(s=1), M(d=1)
        if self.cfg.kernels.name != "__mha__":  # GQA: k, v copied to every query head
            k = self._copy(k, self.T * M(q=1))
            v = self._copy(v, self.T * M(q=1))
        scores = o.scale(o.bmm(q, k, bh, s, s, d))
        mask = Tn(M(s=2), cd)
        ex.emit("aten.full.default", C.ELEMENTWISE, [], [mask])
        tri = Tn(M(s=2), cd)
        ex.emit("aten.triu.default", C.ELEMENTWISE, [mask], [tri])
        scores = o.add(scores, tri, out=scores.numel)
        probs = Tn(scores.numel, "fp32", scores.rg)
        ex.emit("aten._softmax.default", C.ELEMENTWISE, [scores], [probs])

        def back(ex, g):
            gs = Tn(scores.numel, scores.dtype)
            ex.emit("aten._softmax_backward_data.default", C.ELEMENTWISE, [g, probs], [gs])
            ex.add_grad(scores, gs)
        o._back(probs, back, saves=(probs,))
        return o.bmm(o.cast(probs, cd), v, bh, s, d, s)

    def _copy(self, x: Tn, numel: Poly) -> Tn:
        y = Tn(numel, x.dtype, x.rg)
        self.ex.emit("aten.clone.default", C.ELEMENTWISE, [x], [y])

        def back(ex, g):
            gx = Tn(x.numel, g.dtype)
            ex.emit("aten.sum.dim_IntList", C.ELEMENTWISE, [g], [gx])
            ex.add_grad(x, gx)
        self.o._back(y, back)
        return y

    def mlp(self, x: Tn) -> Tn:
        """Mlp.forward: down(silu(gate(x)) * up(x)) or down(gelu(up(x)))."""
        o = self.o
        h, i = M(h=1), M(i=1)
        if self.cfg.mlp_kind == "gated":
            g = self.linear("gate_proj", x, h, i, False)
            if self.kern.act == "fused":
                act = self._fused_swiglu(g, self.linear("up_proj", x, h, i, False))
            else:
                a = o.unary("aten.silu.default", g, "aten.silu_backward.default")
                act = o.mul(a, self.linear("up_proj", x, h, i, False))
        else:
            act = o.unary("aten.gelu.default", self.linear("up_proj", x, h, i, False), "aten.gelu_backward.default")
        return self.linear("down_proj", act, i, h, False)

    def _fused_swiglu(self, g: Tn, u: Tn) -> Tn:
        y = Tn(g.numel, g.dtype, g.rg or u.rg)
        self.ex.emit("fused_swiglu", C.ELEMENTWISE, [g, u], [y])

        def back(ex, gr):
            gg, gu = Tn(g.numel, g.dtype), Tn(u.numel, u.dtype)
            ex.emit("fused_swiglu_backward", C.ELEMENTWISE, [gr, g, u], [gg, gu])
            ex.add_grad(g, gg)
            ex.add_grad(u, gu)
        self.o._back(y, back, saves=(g, u))
        return y

    def moe(self, x: Tn) -> Tn:
        """MoeMlp.forward: router, softmax (fp32), per expert: topk, gather, the expert MLP on
        capacity = tokens x k / experts rows, weighting, index_add_ into the output."""
        o, ex = self.o, self.ex
        h, E = M(h=1), M(E=1)
        cap = self.T * M(k=1, E=-1)
        logits = self.dense_router(x)
        probs = Tn(self.T * E, "fp32", logits.rg)
        ex.emit("aten._softmax.default", C.ELEMENTWISE, [logits], [probs])

        def sm_back(ex, g):
            gl = Tn(logits.numel, logits.dtype)
            ex.emit("aten._softmax_backward_data.default", C.ELEMENTWISE, [g, probs], [gl])
            ex.add_grad(logits, gl)
        o._back(probs, sm_back, saves=(probs,))
        saved_T, saved_count = self.T, self._count
        ex.mult = ex.mult * E  # one expert, run E times
        self._count = E
        col = o.view(probs, self.T)
        wts = Tn(cap, "fp32", col.rg)
        idx = Tn(cap, "int64")
        ex.emit("aten.topk.default", C.ELEMENTWISE, [col], [wts, idx])
        xe = Tn(cap * h, x.dtype, x.rg)
        ex.emit("aten.index.Tensor", C.ELEMENTWISE, [idx], [xe], read_bytes=idx.nbytes + xe.nbytes)

        def gather_back(ex, g):
            z = Tn(x.numel, g.dtype)
            ex.emit("aten.new_zeros.default", C.ELEMENTWISE, [], [z])
            ex.emit("aten.index_put_.default", C.ELEMENTWISE, [g, idx], [g], write_bytes=g.nbytes)
            ex.add_grad(x, z)
        o._back(xe, gather_back)
        self.T = cap
        y = self.mlp(xe)
        self.T, self._count = saved_T, saved_count
        wc = o.cast(wts, y.dtype)
        ye = o.mul(y, wc, out=y.numel)
        ex.mult = ex.mult * M(E=-1)
        out = Tn(self.T * h, ye.dtype, ye.rg)
        ex.emit("aten.zeros.default", C.ELEMENTWISE, [], [out])
        ex.mult = ex.mult * E
        ex.emit("aten.index_add_.default", C.ELEMENTWISE, [ye, idx], [ye], read_bytes=2 * ye.nbytes + idx.nbytes,
                write_bytes=ye.nbytes)

        def add_back(ex, g):
            ge = Tn(ye.numel, g.dtype)
            ex.emit("aten.index_select.default", C.ELEMENTWISE, [idx], [ge], read_bytes=idx.nbytes + ge.nbytes)
            ex.add_grad(ye, ge)
        o._back(out, add_back)
        ex.mult = ex.mult * M(E=-1)
        return out

    def dense_router(self, x: Tn) -> Tn:
        w = Tn(M(h=1, E=1), self.dt.other, self.full)
        if self.full:
            self._train(M(h=1, E=1), self.dt.other)
        return self.o.linear(self.activation(x), self.wcast(w), self.T, M(h=1), M(E=1))

    def block(self, x: Tn, cos: Tn, sin: Tn) -> Tn:
        """Block.forward: x + attn(input_norm(x)), then x + mlp(post_norm(x))."""
        x = self.o.add(x, self.attention(self.norm(x), cos, sin))
        m = self.moe(self.norm(x)) if self.cfg.moe else self.mlp(self.norm(x))
        return self.o.add(x, m)


# --- one step ----------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class CompiledStep:
    """The symbolic operators of one step of a configuration (sizes still symbols), and the
    same summed into groups whose values are polynomials: evaluating a spec then costs one
    polynomial per group, not one per operator."""

    ops: tuple[SymOp, ...]
    tensors: tuple[tuple[Poly, Poly, str], ...]  # trainable (count, numel, dtype)
    groups: tuple["SymGroup", ...] = ()
    trainable: Poly = Poly()  # trainable parameters
    n_tensors: Poly = Poly()  # trainable tensors


@dataclass(frozen=True)
class SymGroup:
    phase: str
    cls: str
    dtype: str
    causal: bool
    mnk: tuple[Poly, Poly, Poly] | None
    flops: Poly
    bytes: Poly
    kernels: Poly
    ops: Poly
    foreach: tuple[int, Poly, Poly] | None = None
    gate: tuple[Poly, float, bool] | None = None  # SymOp.gate


def _gate_key(gate):
    return None if gate is None else (tuple(sorted(gate[0].terms.items())), gate[1], gate[2])


def gate_open(gate, pt: Point) -> bool:
    """Whether a gated group runs at ``pt`` (SymOp.gate: numel against a threshold)."""
    return gate is None or (pt(gate[0]) >= gate[1]) == gate[2]


def aggregate(ops: tuple[SymOp, ...]) -> tuple[SymGroup, ...]:
    """Sum operators that price alike: GEMMs with the same symbolic shape and dtype, the rest by
    phase, class (and dtype/causal for attention); foreach calls stay apart (their launch count
    is not linear in the sizes)."""
    acc: dict[tuple, list] = {}
    singles: list[SymGroup] = []
    for op in ops:
        if op.foreach is not None:
            singles.append(SymGroup(op.phase, op.cls, op.dtype, False, None, op.flops * op.mult,
                                    (op.read + op.written) * op.mult, Poly(), op.mult, op.foreach))
            continue
        mnk_key = tuple(tuple(sorted(p.terms.items())) for p in op.mnk) if op.mnk is not None else None
        key = (op.phase, op.cls, op.dtype if (op.mnk is not None or op.cls == C.ATTENTION) else "", op.causal, mnk_key,
               _gate_key(op.gate))
        a = acc.get(key)
        if a is None:
            a = acc[key] = [op.mnk, Poly(), Poly(), Poly(), Poly(), op.gate]
        a[1] = a[1] + op.flops * op.mult
        a[2] = a[2] + (op.read + op.written) * op.mult
        a[3] = a[3] + op.mult * (0 if op.cpu_only else op.kernels)
        a[4] = a[4] + op.mult
    out = [SymGroup(k[0], k[1], k[2], k[3], a[0], a[1], a[2], a[3], a[4], gate=a[5]) for k, a in acc.items()]
    return tuple(out + singles)


def _rope_tables(d: Decoder, dtype: str) -> tuple[Tn, Tn]:
    """advisor.model.decoder.rope_tables: inv_freq (arange, div, pow, reciprocal, mul), positions
    (arange), outer (mul), cat, cos/sin in fp32, cast to the activations' dtype."""
    ex = d.ex
    half, sd = M(d=1) * 0.5, M(s=1, d=1)
    for op, n_in, n_out in (("aten.arange.start_step", None, half), ("aten.div.Tensor", half, half),
                            ("aten.pow.Scalar", half, half), ("aten.reciprocal.default", half, half),
                            ("aten.mul.Tensor", half, half), ("aten.arange.default", None, M(s=1)),
                            ("aten.mul.Tensor", M(s=1) + half, sd * 0.5), ("aten.cat.default", sd, sd)):
        ex.emit(op, C.ELEMENTWISE, [Tn(n_in, "fp32")] if n_in is not None else [], [Tn(n_out, "fp32")])
    tables = []
    for op in ("aten.cos.default", "aten.sin.default"):
        t = Tn(sd, "fp32")
        ex.emit(op, C.ELEMENTWISE, [Tn(sd, "fp32")], [t])
        tables.append(d.o.cast(t, dtype))
    return tables[0], tables[1]


def _loss(d: Decoder, x: Tn) -> Tn:
    """advisor.model.step.causal_lm_loss: per sequence chunk (x.chunk; its backward is one cat)
    the logits (rt.activation + F.linear with rt.cast of the head), .float() when the stack
    upcasts, cross_entropy (log_softmax + nll_loss, reduction sum); the chunks' sum; / the
    label count (ne, sum, div)."""
    o, ex, cfg, dt = d.o, d.ex, d.cfg, d.dt
    h, v = M(h=1), M(v=1)
    head = Tn(v * h, dt.other, d.full)
    w = d.wcast(head)
    if cfg.kernels.loss == "fused_linear_ce":
        return _fused_linear_ce(d, d.activation(x), w)
    if cfg.kernels.loss == "fused_ce":
        return _fused_ce(d, x, w)
    chunks = M(c=1) if cfg.loss_chunked else ONE
    rows = d.T * (M(c=-1) if cfg.loss_chunked else ONE)
    xc = Tn(rows * h, x.dtype, x.rg)

    def split_back(ex):  # recorded first, so it runs after every chunk's backward
        g = ex.grad(xc)
        if g is not None:
            gx = Tn(x.numel, g.dtype)
            ex.emit("aten.cat.default", C.ELEMENTWISE, [Tn(x.numel, g.dtype)], [gx])
            ex.add_grad(x, gx)
    if x.rg:
        ex.record_backward(split_back)
    if d.full and cfg.loss_chunked:  # the head's gradient from every chunk after the first is accumulated
        def acc_back(ex):
            saved, ex.mult = ex.mult, chunks - ONE
            ex.emit("aten.add.Tensor", C.ELEMENTWISE, [Tn(v * h, w.dtype), Tn(v * h, w.dtype)], [Tn(v * h, w.dtype)])
            ex.mult = saved
        ex.record_backward(acc_back)
    ex.mult = chunks
    lg = o.linear(d.activation(xc), w, rows, h, v)
    if cfg.loss_upcast_fp32:
        lg = o.cast(lg, "fp32", cls=C.LOSS)
    ls = Tn(rows * v, lg.dtype, lg.rg)
    ex.emit("aten._log_softmax.default", C.LOSS, [lg], [ls])

    def ls_back(ex, g):
        gx = Tn(lg.numel, lg.dtype)
        ex.emit("aten._log_softmax_backward_data.default", C.LOSS, [g, ls], [gx])
        ex.add_grad(lg, gx)
    o._back(ls, ls_back, saves=(ls,))
    part = Tn(ONE, lg.dtype, ls.rg)
    target = Tn(rows, "int64")
    ex.emit("aten.nll_loss_forward.default", C.LOSS, [target], [part, Tn(ONE, lg.dtype)],
            read_bytes=target.nbytes + rows * (4 if lg.dtype == "fp32" else 2))

    def nll_back(ex, g):
        gl = Tn(ls.numel, ls.dtype)
        ex.emit("aten.nll_loss_backward.default", C.LOSS, [target], [gl])
        ex.add_grad(ls, gl)
    o._back(part, nll_back, saves=(target,))
    ex.mult = chunks - ONE  # total = part + total after the first chunk
    if cfg.loss_chunked:
        ex.emit("aten.add.Tensor", C.ELEMENTWISE, [part, part], [Tn(ONE, part.dtype)])
    ex.mult = ONE
    labels = Tn(d.T, "int64")
    ex.emit("aten.ne.Scalar", C.ELEMENTWISE, [labels], [Tn(d.T, "bool")])
    ex.emit("aten.sum.default", C.ELEMENTWISE, [Tn(d.T, "bool")], [Tn(ONE, "int64")])
    loss = Tn(ONE, part.dtype, True)
    ex.emit("aten.div.Tensor", C.ELEMENTWISE, [part, Tn(ONE, "int64")], [loss])

    def div_back(ex, g):
        gp = Tn(ONE, g.dtype)
        ex.emit("aten.div.Tensor", C.ELEMENTWISE, [g, Tn(ONE, "int64")], [gp])
        ex.grads[part.id] = gp  # the sum's backward hands every chunk the same gradient
    ex.record_backward(lambda ex: ex.grad(loss) is not None and div_back(ex, ex.grad(loss)))
    return loss


def _fused_ce(d: Decoder, x: Tn, w: Tn) -> Tn:
    """The head as a plain linear, then a fused softmax cross-entropy kernel over the 16-bit
    logits (flash_attn CrossEntropyLoss, Unsloth fast_cross_entropy_loss): forward reads the
    logits once and keeps the per-row log-sum-exp; backward writes the logits' gradient in one
    kernel. No fp32 copy of the logits."""
    o, ex = d.o, d.ex
    h, v, T = M(h=1), M(v=1), d.T
    lg = o.linear(d.activation(x), w, T, h, v)
    lse = Tn(T, "fp32")
    loss = Tn(ONE, "fp32", lg.rg)
    ex.emit("fused_cross_entropy", C.LOSS, [lg, Tn(T, "int64")], [loss, lse])

    def back(ex, g):
        gl = Tn(lg.numel, lg.dtype)
        ex.emit("fused_cross_entropy_backward", C.LOSS, [lg, lse, Tn(T, "int64")], [gl])
        ex.add_grad(lg, gl)
    o._back(loss, back, saves=(lg, lse))
    return loss


def _fused_linear_ce(d: Decoder, x: Tn, w: Tn) -> Tn:
    """Fused linear cross-entropy (Liger LigerFusedLinearCrossEntropyFunction): chunk by chunk,
    the logits matmul, one kernel that writes the loss and the logits' gradient in place, the
    input-gradient matmul (and the weight gradient when the head trains), all in the forward;
    the backward only scales the stored input gradient."""
    ex, o = d.ex, d.o
    h, v, T = M(h=1), M(v=1), d.T
    lg = Tn(T * v, x.dtype)
    ex.emit("aten.mm.default", C.MATMUL, [x, w], [lg], flops=2 * T * v * h, mnk=(T, v, h), dtype=x.dtype)
    ex.emit("fused_cross_entropy", C.LOSS, [lg, Tn(T, "int64")], [lg])
    gx = Tn(T * h, x.dtype)
    ex.emit("aten.mm.default", C.MATMUL, [lg, w], [gx], flops=2 * T * v * h, mnk=(T, h, v), dtype=x.dtype)
    if w.rg:
        ex.emit("aten.mm.default", C.MATMUL, [lg, x], [Tn(v * h, x.dtype)], flops=2 * T * v * h, mnk=(v, h, T),
                dtype=x.dtype)
    loss = Tn(ONE, "fp32", True)

    def back(ex, g):
        gs = Tn(gx.numel, gx.dtype)
        ex.emit("aten.mul.Tensor", C.ELEMENTWISE, [gx], [gs])
        ex.add_grad(x, gs)
    o._back(loss, back)
    return loss


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


def _optimizer(ex: Exec, cfg: Config, tensors: list[tuple[Poly, Poly, str]]) -> None:
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

    if cfg.optimizer == "sgd":
        fe("aten._foreach_add_.List", 2, 2 * pbytes, pbytes)
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


@lru_cache(maxsize=256)
def compile_step(cfg: Config) -> CompiledStep:
    """One symbolic step of ``cfg``: forward, backward (the blocks' forward again first under
    gradient checkpointing: torch.utils.checkpoint, non-reentrant), optimizer. The blocks run
    once and count L times; the first apart when its input needs no gradient."""
    d = Decoder(cfg)
    ex = d.ex
    dt = d.dt
    L = M(L=1)
    gc = cfg.gradient_checkpointing
    # --- forward ------------------------------------------------------------------------------
    ex.phase, ex.tape = "forward", []
    ids = Tn(d.T, "int64")
    x = Tn(d.T * M(h=1), dt.other, d.full)
    ex.emit("aten.embedding.default", C.ELEMENTWISE, [ids], [x], read_bytes=ids.nbytes + x.nbytes)
    cos, sin = _rope_tables(d, dt.other)

    def run_block(x_in: Tn, mult: Poly, collect: bool, record: bool) -> tuple[Tn, list]:
        d._collect = collect
        ex.mult, ex.tape = mult, ([] if record else None)
        y = d.block(x_in, cos, sin)
        tape = ex.tape or []
        ex.mult, ex.tape = ONE, None
        return y, tape

    if d.full:
        xi = Tn(x.numel, x.dtype, True)
        yi, ti = run_block(xi, L, True, not gc)
        blocks = [(xi, yi, ti, L)]
    else:  # the first block's input (the frozen embedding) needs no gradient
        x0 = Tn(x.numel, x.dtype, False)
        y0, t0 = run_block(x0, ONE, True, not gc)
        x1 = Tn(y0.numel, y0.dtype, True)
        y1, t1 = run_block(x1, L - ONE, False, not gc)
        blocks = [(x0, y0, t0, ONE), (x1, y1, t1, L - ONE)]
    last = blocks[-1][1]
    xf = Tn(last.numel, last.dtype, True)
    ex.tape = []
    d._collect = False
    loss = _loss(d, d.norm(xf))
    head_tape = ex.tape
    # --- backward -----------------------------------------------------------------------------
    ex.phase, ex.tape = "backward", None
    ex.emit("aten.ones_like.default", C.ELEMENTWISE, [loss], [Tn(ONE, loss.dtype)])
    if cfg.precision == "fp16-mixed":  # (loss * 2**16).backward()
        ex.emit("aten.mul.Tensor", C.ELEMENTWISE, [loss], [Tn(ONE, loss.dtype)])
    ex.grads = {loss.id: Tn(ONE, loss.dtype)}
    ex.run_backward(head_tape)
    grad_in = ex.grad(xf)
    for x_in, y_out, tape, mult in reversed(blocks):
        if gc:
            ex.mult, ex.tape = mult, []
            x_re = Tn(x_in.numel, x_in.dtype, x_in.rg)
            start, ex.saved = len(ex.ops), []
            y_re = d.block(x_re, cos, sin)
            _early_stop(ex, start)
            tape, x_in, y_out = ex.tape, x_re, y_re
            ex.mult, ex.tape = ONE, None
        ex.grads = {y_out.id: grad_in if grad_in is not None else Tn(y_out.numel, y_out.dtype)}
        ex.run_backward(tape)
        grad_in = ex.grad(x_in)
    fixed: list[tuple[Poly, Poly, str]] = []
    if d.full:  # embedding_dense_backward (+ the tied head's gradient accumulated into it)
        table = Tn(M(v=1, h=1), dt.other)
        ex.emit("aten.embedding_dense_backward.default", C.ELEMENTWISE, [grad_in or x, ids], [table])
        if cfg.tied:
            ex.emit("aten.add.Tensor", C.ELEMENTWISE, [table, table], [table])
        norm_params = 2 if cfg.norm == "layernorm" else 1
        fixed = [(ONE, M(v=1, h=1), dt.other), (Poly.const(norm_params), M(h=1), dt.other)]
        if not cfg.tied:
            fixed.append((ONE, M(v=1, h=1), dt.other))
    tensors = [(L * cnt, n, dtp) for cnt, n, dtp in d.trainable] + fixed
    if cfg.precision == "fp16-mixed":  # GradScaler's unscale: one foreach multiply over the gradients
        nt = sum((c for c, _, _ in tensors), Poly())
        nb = sum((c * n * (4 if dtp == "fp32" else 2) for c, n, dtp in tensors), Poly())
        ex.emit("aten._foreach_mul_.Scalar", C.ELEMENTWISE, [], [], read_bytes=nb, write_bytes=nb,
                foreach=(1, nt, sum((c * n for c, n, _ in tensors), Poly())))
    _optimizer(ex, cfg, tensors)
    ops = tuple(ex.ops)
    if cfg.kernels.compile:
        keep = {x.id, xf.id} | {b[0].id for b in blocks} | {b[1].id for b in blocks}
        ops = fuse(ops, keep)
    return CompiledStep(ops=ops, tensors=tuple(tensors), groups=aggregate(ops),
                        trainable=sum((c * n for c, n, _ in tensors), Poly()),
                        n_tensors=sum((c for c, _, _ in tensors), Poly()))


def _early_stop(ex: Exec, start: int) -> None:
    """torch.utils.checkpoint (non-reentrant, early stop on by default:
    torch.utils.checkpoint.set_checkpoint_early_stop) stops recomputing the forward as soon as
    the last tensor the backward saved has been saved again. Saved inputs (parameters
    included) are packed as their operator is called, before its kernel runs; saved outputs
    after it. So the recompute ends before the operator that saves the last input (the
    block's last matmul when it saves only its weight), or after the one that saves the last
    output; the scaling and residual adds after it never rerun."""
    events = [(i, kind) for i, kind in ex.saved if i >= start]
    if not events:
        return
    i, kind = max(events)
    del ex.ops[(i if kind == "input" else i + 1):]


# --- torch.compile: fusion of pointwise/reduction operators --------------------------------------

_FUSIBLE = (C.ELEMENTWISE, C.LOSS)


def fuse(ops: tuple[SymOp, ...], keep: set[int]) -> tuple[SymOp, ...]:
    """Inductor's fusion, as a partition: each maximal run of consecutive pointwise/reduction
    operators of one phase and multiplicity becomes one kernel that reads the tensors the run
    did not make and writes the tensors something outside the run reads (later operators,
    the backward, the next layer: ``keep``). Matmuls, attention and dequantization stay
    library kernels (inductor calls cuBLAS and the SDPA kernels as extern kernels)."""
    readers: dict[int, set[int]] = defaultdict(set)
    for i, op in enumerate(ops):
        for t in op.reads:
            readers[t].add(i)
    sizes: dict[int, Poly] = {}
    out: list[SymOp] = []
    i = 0
    while i < len(ops):
        op = ops[i]
        if op.cls not in _FUSIBLE or op.cpu_only or not (op.reads or op.writes):
            out.append(op)
            i += 1
            continue
        j = i
        while j < len(ops) and ops[j].cls in _FUSIBLE and not ops[j].cpu_only and ops[j].phase == op.phase \
                and ops[j].mult.terms == op.mult.terms and (ops[j].reads or ops[j].writes):
            j += 1
        run = ops[i:j]
        made = {t for r in run for t in r.writes}
        inside = set(range(i, j))
        read_b, write_b = Poly(), Poly()
        seen: set[int] = set()
        for r in run:
            for t, nb in zip(r.reads, _split(r.read, len(r.reads))):
                if t not in made and t not in seen:
                    read_b = read_b + nb
                    seen.add(t)
            for t, nb in zip(r.writes, _split(r.written, len(r.writes))):
                if t in keep or readers[t] - inside:
                    write_b = write_b + nb
        out.append(SymOp(op.phase, "inductor_fused", run[-1].cls if all(r.cls == C.LOSS for r in run) else op.cls,
                         sum((r.flops for r in run), Poly()), read_b, write_b, op.dtype, 1, op.mult, None, op.site,
                         tuple(seen), tuple(made)))
        i = j
    del sizes
    return tuple(out)


def _split(total: Poly, n: int) -> list[Poly]:
    return [total * (1.0 / n)] * n if n else []


# --- evaluation --------------------------------------------------------------------------------


class Group:
    """Operators of one class and phase priced alike (one GEMM shape, or all memory-bound).
    A plain slotted class: a ranking builds thousands of them, and a frozen dataclass is slow."""

    __slots__ = ("phase", "cls", "dtype", "flops", "bytes", "kernels", "ops", "mnk", "count", "causal")

    def __init__(self, phase: str, cls: str, dtype: str, flops: float, bytes: float, kernels: float,  # noqa: A002
                 ops: float, mnk: tuple[float, float, float] | None = None, count: float = 1.0,
                 causal: bool = False):
        self.phase, self.cls, self.dtype = phase, cls, dtype
        self.flops, self.bytes, self.kernels, self.ops = flops, bytes, kernels, ops
        self.mnk, self.count, self.causal = mnk, count, causal

    def scaled(self, k: float) -> "Group":
        """The same operators doing ``k`` times the work (FSDP: each GPU updates 1/n). Foreach
        launches scale with the chunks they cover, but every call launches at least once."""
        kernels = max(self.ops if self.kernels >= self.ops else 0.0, self.kernels * k)
        return Group(self.phase, self.cls, self.dtype, self.flops * k, self.bytes * k, kernels, self.ops,
                     self.mnk, self.count, self.causal)

    def __repr__(self) -> str:
        return (f"Group({self.phase}, {self.cls}, {self.dtype}, flops={self.flops:.3g}, bytes={self.bytes:.3g}, "
                f"kernels={self.kernels:.0f}, mnk={self.mnk})")


def foreach_kernels(lists: int, tensors: float, numel: float) -> float:
    """Launches of one multi-tensor-apply call: limited by tensors per launch and by chunk
    blocks per launch (MultiTensorApply.cuh)."""
    depth = min(max(lists, 1), len(FOREACH_MAX_TENSORS))
    chunks = numel / FOREACH_CHUNK + tensors
    return max(math.ceil(tensors / FOREACH_MAX_TENSORS[depth - 1]), math.ceil(chunks / FOREACH_MAX_BLOCKS), 1)


def _expr(p: Poly) -> str:
    """Python source of a polynomial in the symbol names (for ``_evaluator``)."""
    from advisor.steptime.symbolic import SYMS

    terms = []
    for key, coeff in p.terms.items():
        factors = [repr(float(coeff))]
        for name, e in zip(SYMS, key):
            if e == 1:
                factors.append(name)
            elif e:
                factors.append(f"{name}**{e}")
        terms.append("*".join(factors))
    return " + ".join(terms) or "0.0"


@lru_cache(maxsize=256)
def _evaluator(step: CompiledStep):
    """The groups' polynomials compiled into one Python function of the symbols: a chat answer
    evaluates a configuration in tens of microseconds instead of walking every operator."""
    from advisor.steptime.symbolic import SYMS

    rows, gates = [], []
    for g in step.groups:
        mnk = "None" if g.mnk is None else "(" + ", ".join(_expr(p) for p in g.mnk) + ")"
        fe = "None" if g.foreach is None else f"({g.foreach[0]}, {_expr(g.foreach[1])}, {_expr(g.foreach[2])})"
        n_ops = _expr(g.ops)
        if g.gate is not None:  # a size condition: the group counts no operators where it is shut
            gates.append(f"    g{len(gates)} = ({_expr(g.gate[0])}) {'>=' if g.gate[2] else '<'} {g.gate[1]!r}\n")
            n_ops = f"(({n_ops}) if g{len(gates) - 1} else 0.0)"
        rows.append(f"({_expr(g.flops)}, {_expr(g.bytes)}, {_expr(g.kernels)}, {n_ops}, {mnk}, {fe})")
    src = f"def _f({', '.join(SYMS)}):\n" + "".join(gates) + "    return (" + ",\n        ".join(rows) + ",)\n"
    scope: dict = {}
    exec(compile(src, f"<steptime {id(step)}>", "exec"), scope)  # noqa: S102 - our own polynomials
    return scope["_f"]


def evaluate(step: CompiledStep, pt: Point) -> list[Group]:
    """The step's operator groups at a point (sizes)."""
    values = _evaluator(step)(*pt.vals)
    out = []
    for g, (flops, nbytes, kernels, n_ops, mnk, fe) in zip(step.groups, values):
        if n_ops <= 0:
            continue
        if fe is not None:
            kernels = n_ops * foreach_kernels(fe[0], fe[1], fe[2])
        out.append(Group(g.phase, g.cls, g.dtype, flops, nbytes, kernels, n_ops, mnk, n_ops, g.causal))
    return out


def _evaluate_slow(step: CompiledStep, pt: Point) -> list[Group]:
    """The same as ``evaluate``, polynomial by polynomial (the reference for a test)."""
    out = []
    for g in step.groups:
        n_ops = pt(g.ops) if gate_open(g.gate, pt) else 0.0
        if n_ops <= 0:
            continue
        if g.foreach is not None:
            lists, nt, ne = g.foreach
            kernels = n_ops * foreach_kernels(lists, pt(nt), pt(ne))
        else:
            kernels = pt(g.kernels)
        mnk = tuple(pt(p) for p in g.mnk) if g.mnk is not None else None
        out.append(Group(phase=g.phase, cls=g.cls, dtype=g.dtype, flops=pt(g.flops), bytes=pt(g.bytes),
                         kernels=kernels, ops=n_ops, mnk=mnk, count=n_ops, causal=g.causal))
    return out


def inventory(spec, arch, kernels: Kernels | None = None, stack=None) -> list[Group]:
    """The operator groups of one training step of ``spec`` on ``arch`` (per GPU, one micro-batch)."""
    cfg = config_for(spec, arch, kernels, stack)
    step = compile_step(cfg)
    return evaluate(step, point_for(spec, arch, stack, step))
