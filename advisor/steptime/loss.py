"""The loss head in closed form: the logits and cross-entropy of advisor.model.step.causal_lm_loss
(chunked or not, upcast or not), and the fused kernels stacks swap in (Liger's fused linear
cross-entropy, a fused cross-entropy)."""

from __future__ import annotations

from advisor.steptime import classes as C
from advisor.steptime.config import M, NF4_BLOCK, NF4_DQ_BLOCK, ONE
from advisor.steptime.decoder import Decoder
from advisor.steptime.symbolic import Tn


def causal_lm_loss(d: Decoder, x: Tn) -> Tn:
    """advisor.model.step.causal_lm_loss: per sequence chunk (x.chunk; its backward is one cat)
    the logits (rt.activation + F.linear with rt.cast of the head), .float() when the stack
    upcasts, cross_entropy (log_softmax + nll_loss, reduction sum); the chunks' sum; / the
    label count (ne, sum, div)."""
    o, ex, cfg, dt = d.o, d.ex, d.cfg, d.dt
    h, v = M(h=1), M(v=1)
    head = Tn(v * h, dt.other, d.full)
    w = None if cfg.quant_head else d.wcast(head)
    if cfg.quant_head and cfg.kernels.loss in ("fused_linear_ce", "fused_ce"):
        raise ValueError("a 4-bit LM head under a fused loss kernel is not modelled (no stack runs one)")
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
    lg = _quant_head(d, xc, rows) if cfg.quant_head else o.linear(d.activation(xc), w, rows, h, v)
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


def _quant_head(d: Decoder, xc: Tn, rows) -> Tn:
    """A 4-bit LM head's projection of one loss chunk (StackProfile.quant_head: litgpt under
    Lightning's BitsandbytesPrecision quantizes ``lm_head`` too; advisor.model.step
    causal_lm_loss -> advisor.model.layers.quant_project -> _QuantMatmul), the time-side twin
    of advisor.memory ``_head_dequant``. Per chunk:

    forward   x.to(compute dtype); the head's NF4 weight dequantized (vocab x hidden) straight to
              the compute dtype (bitsandbytes >= 0.50 ``gemm_4bit`` fallback
              ``dequantize_4bit(..., A.dtype)``: StackProfile.quant_forward_direct), or, before
              0.50, to the dtype it was quantized from (fp16 under Lightning's ``_Linear4bit.quantize``:
              StackProfile.quant_dequant_fp16) and then cast (``F.dequantize_4bit(B, quant_state)
              .to(A.dtype)``, bitsandbytes autograd/_functions.py MatMul4Bit.forward); then
              ``x @ W^T`` (rows x vocab x hidden)
    backward  the weight dequantized again, through fp16 and the cast when it was quantized from
              fp16 (MatMul4Bit.backward: ``F.dequantize_4bit(B, ctx.state).to(grad_output.dtype)``),
              and the input-gradient matmul ``grad @ W``; no weight gradient (frozen)

    Dequantization reads the packed codes (half a byte per value) and the absmax constants and
    writes one value per element (its FLOPs: one per element, as advisor.steptime.record counts
    a dequantize); the cast reads and writes one value per element (elementwise)."""
    o, ex, cfg = d.o, d.ex, d.cfg
    h, v = M(h=1), M(v=1)
    cd = d.dt.compute
    n = v * h
    blocks = n * (1.0 / NF4_BLOCK)
    data = Tn(n * 0.5, "uint8")
    consts = ([Tn(blocks, "uint8"), Tn(blocks * (1.0 / NF4_DQ_BLOCK), "fp32"), Tn(ONE, "fp32")]
              if cfg.double_quant else [Tn(blocks, "fp32")])

    def dequant(direct: bool) -> Tn:
        src = "fp16" if (cfg.quant_dequant_fp16 and not direct) else cd
        w = Tn(n, src)
        ex.emit("advisor.dequantize_nf4.default", C.DEQUANTIZE, [data] + consts, [w])
        return o.cast(w, cd)  # the fp16 copy's .to(compute dtype); nothing when it is already

    xq = o.cast(xc, cd)
    w = dequant(cfg.quant_forward_direct)
    y = Tn(rows * v, cd, xq.rg)
    ex.emit("aten.mm.default", C.MATMUL, [xq, w], [y], flops=2 * rows * v * h, mnk=(rows, v, h), dtype=cd)

    def back(ex, g):
        w2 = dequant(False)
        gx = Tn(rows * h, g.dtype)
        ex.emit("aten.mm.default", C.MATMUL, [g, w2], [gx], flops=2 * rows * v * h, mnk=(rows, h, v), dtype=g.dtype)
        ex.add_grad(xq, gx)
    # an autograd.Function packs what ctx.save_for_backward got when its forward returns
    o._back(y, back, saves=(xq,) if cfg.keep_quant_input else (), after=True)
    return y


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
