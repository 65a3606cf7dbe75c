"""Primitives of the symbolic step, each with autograd's backward rule (derivatives.yaml in
torchgen/packaged/autograd, torch 2.13) and the tensors it saves for backward (what gradient
checkpointing recomputes). ``advisor.steptime.decoder`` builds the decoder's sites from them."""

from __future__ import annotations

from advisor.steptime import classes as C
from advisor.steptime.config import promote
from advisor.steptime.symbolic import Exec, Poly, Tn

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
        y = Tn(out, promote(a.dtype, b.dtype), a.rg or b.rg)
        self.ex.emit("aten.mul.Tensor", C.ELEMENTWISE, [a, b], [y])

        def back(ex, g):
            for this, other in ((a, b), (b, a)):
                if not this.rg:
                    continue
                prod = Tn(out, promote(g.dtype, other.dtype))
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
        y = Tn(out, promote(a.dtype, b.dtype), a.rg or b.rg)
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
            gx = Tn(x.numel, promote(g.dtype, x.dtype))
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
            gx = Tn(x.numel, promote(g.dtype, x.dtype))
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
