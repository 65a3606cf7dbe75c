"""The operators of one training step in closed form: the reference decoder (``advisor.model``)
re-run symbolically (``advisor.steptime.symbolic``), site by site (``decoder``, ``loss``,
``optimizer`` on the primitives of ``ops``), with the stack's switches
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
from advisor.steptime.config import (FOREACH_CHUNK, FOREACH_MAX_BLOCKS, FOREACH_MAX_TENSORS, M, ONE, Config,
                                     config_for, point_for)
from advisor.steptime.decoder import Decoder, rope_tables
from advisor.steptime.loss import causal_lm_loss
from advisor.steptime.kernels import Kernels
from advisor.steptime.optimizer import optimizer_step
from advisor.steptime.symbolic import Exec, Point, Poly, SymOp, Tn

__all__ = ["CompiledStep", "Config", "Group", "compile_step", "config_for", "evaluate", "inventory", "point_for"]


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
    cos, sin = rope_tables(d, dt.other)

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
    loss = causal_lm_loss(d, d.norm(xf))
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
    optimizer_step(ex, cfg, tensors)
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
