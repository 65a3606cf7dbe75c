"""The reference decoder (``advisor.model``) re-run symbolically, site by site, with the
stack's switches (``advisor.stacks.StackProfile``) and kernels (``advisor.steptime.kernels``):
norms, projections (dense, quantized, LoRA), rotary, attention, MLP/MoE, the loss and its
fused variants. Each site names the code it mirrors."""

from __future__ import annotations

from advisor.steptime import classes as C
from advisor.steptime.config import LORA_TARGETS, M, NF4_BLOCK, NF4_DQ_BLOCK, ONE, Config, dtypes, promote
from advisor.steptime.ops import Ops
from advisor.steptime.symbolic import Exec, Poly, Tn

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
        y = Tn(x.numel, promote(w.dtype, x.dtype) if b is None else x.dtype, x.rg or w.rg)
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
        """QuantLinear.forward: x.to(compute), _QuantMatmul (dequantize, x @ w.t(); backward:
        dequantize again, the input-gradient matmul; the 4-bit weight is frozen), + the bias cast
        to the compute dtype, and with quant_out_follows_input the output cast back to x's dtype
        (bitsandbytes Linear4bit.forward: ``matmul_4bit(x.to(compute_dtype), ...).to(inp_dtype)``)."""
        o, ex, cfg = self.o, self.ex, self.cfg
        cd = self.dt.compute
        xq = o.cast(x, cd)
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
        return o.cast(y, x.dtype) if cfg.quant_out_follows_input else y

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
        # PEFT's bitsandbytes layer casts the adapter input only when autocast is off (lora/bnb.py
        # requires_conversion), as advisor.model.layers.LoraLinear
        cast = cfg.lora_cast_input and not (cfg.method == "qlora" and dt.mixed)
        xa = o.cast(x, a.dtype) if (cast or not dt.mixed) else x
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


def rope_tables(d: Decoder, dtype: str) -> tuple[Tn, Tn]:
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
