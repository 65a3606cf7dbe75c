"""The loss head in closed form: the logits and cross-entropy of advisor.model.step.causal_lm_loss
(chunked or not, upcast or not), and the fused kernels stacks swap in (Liger's fused linear
cross-entropy, a fused cross-entropy)."""

from __future__ import annotations

from advisor.steptime import classes as C
from advisor.steptime.config import M, ONE
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
