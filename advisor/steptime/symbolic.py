"""A symbolic re-run of one training step: tensors whose sizes are polynomials in the shape of
the run (layers, batch, sequence, widths), operators that record the FLOPs and bytes they would
move, and a tape that replays autograd's backward operator by operator.

``advisor.steptime.inventory`` uses it to mirror the reference decoder (``advisor.model``) and its
stack switches without torch: the same operators, in the same dtypes, as the traced step that
``advisor.steptime.record.OpRecorder`` sees (``tests/test_steptime.py`` checks the two agree class
by class). Because every size is a polynomial, one symbolic run per configuration (method,
precision, stack, checkpointing, ...) serves every shape: a chat answer evaluates the cached
polynomials in microseconds.

The backward rules are autograd's (torch/csrc/autograd/FunctionsManual.cpp and
tools/autograd/derivatives.yaml, torch 2.13): ``mul`` -> one product per input that needs a
gradient (plus a ``sum`` when it was broadcast), a dtype cast -> the cast back, ``mm`` -> the
input gradient and the weight gradient, a tensor used n times -> n - 1 gradient accumulations.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

SYMS = ("L", "b", "s", "h", "q", "kv", "i", "v", "r", "H", "d", "E", "k", "c", "n")
"""Shape symbols: layers, batch (micro-batch), sequence, hidden, q_dim, kv_dim, intermediate,
vocab, LoRA rank, heads, head_dim, experts, experts per token, loss chunks, tensor count of a
foreach list (filled per configuration)."""
_IDX = {s: i for i, s in enumerate(SYMS)}
_ZERO = (0,) * len(SYMS)

DSIZE = {"fp32": 4, "bf16": 2, "fp16": 2, "int64": 8, "int32": 4, "bool": 1, "uint8": 1, "int8": 1}


class Poly:
    """A polynomial in ``SYMS`` with float coefficients (exponents may be negative: T*k/E)."""

    __slots__ = ("terms",)

    def __init__(self, terms: dict[tuple[int, ...], float] | None = None):
        self.terms = terms or {}

    @staticmethod
    def const(c: float) -> "Poly":
        return Poly({_ZERO: float(c)}) if c else Poly()

    @staticmethod
    def mono(coeff: float = 1.0, **exps: int) -> "Poly":
        key = list(_ZERO)
        for name, e in exps.items():
            key[_IDX[name]] += e
        return Poly({tuple(key): float(coeff)})

    def __add__(self, other) -> "Poly":
        other = other if isinstance(other, Poly) else Poly.const(other)
        out = dict(self.terms)
        for k, v in other.terms.items():
            out[k] = out.get(k, 0.0) + v
        return Poly({k: v for k, v in out.items() if v != 0.0})

    __radd__ = __add__

    def __neg__(self) -> "Poly":
        return Poly({k: -v for k, v in self.terms.items()})

    def __sub__(self, other) -> "Poly":
        return self + (-(other if isinstance(other, Poly) else Poly.const(other)))

    def __mul__(self, other) -> "Poly":
        if not isinstance(other, Poly):
            return Poly({k: v * other for k, v in self.terms.items()}) if other else Poly()
        out: dict[tuple[int, ...], float] = {}
        for (k1, v1), (k2, v2) in itertools.product(self.terms.items(), other.terms.items()):
            k = tuple(a + b for a, b in zip(k1, k2))
            out[k] = out.get(k, 0.0) + v1 * v2
        return Poly({k: v for k, v in out.items() if v != 0.0})

    __rmul__ = __mul__

    def __bool__(self) -> bool:
        return bool(self.terms)

    def __repr__(self) -> str:
        parts = []
        for k, v in self.terms.items():
            mono = "*".join(f"{s}^{e}" if e != 1 else s for s, e in zip(SYMS, k) if e)
            parts.append(f"{v:g}*{mono}" if mono else f"{v:g}")
        return " + ".join(parts) or "0"

    def evaluate(self, values: dict[tuple[int, ...], float] | Callable) -> float:
        """Value at a point; ``values`` maps a monomial key to its value (``Point.monomial``)."""
        get = values if callable(values) else values.__getitem__
        return sum(v * get(k) for k, v in self.terms.items())


class Point:
    """Values of the symbols for one run, with a cache of monomial values."""

    __slots__ = ("vals", "_cache")

    def __init__(self, **vals: float):
        self.vals = [float(vals.get(s, 1.0)) for s in SYMS]
        self._cache: dict[tuple[int, ...], float] = {}

    def monomial(self, key: tuple[int, ...]) -> float:
        hit = self._cache.get(key)
        if hit is None:
            hit = 1.0
            for v, e in zip(self.vals, key):
                if e:
                    hit *= v**e
            self._cache[key] = hit
        return hit

    def __call__(self, p: Poly) -> float:
        return p.evaluate(self.monomial)


@dataclass(eq=False)
class Tn:
    """A symbolic tensor: element count, dtype, whether autograd tracks it."""

    numel: Poly
    dtype: str
    rg: bool = False
    name: str = ""
    id: int = field(default_factory=itertools.count().__next__)

    @property
    def nbytes(self) -> Poly:
        return self.numel * DSIZE[self.dtype]


@dataclass
class SymOp:
    phase: str
    op: str
    cls: str
    flops: Poly
    read: Poly
    written: Poly
    dtype: str
    kernels: float
    mult: Poly  # how many times the op runs in a step (layers)
    mnk: tuple[Poly, Poly, Poly] | None = None
    site: str = ""
    reads: tuple[int, ...] = ()
    writes: tuple[int, ...] = ()
    cpu_only: bool = False  # runs on the host (a CPU scalar), no kernel
    causal: bool = False  # attention FLOPs scale with advisor.steptime.record.causal_fraction(seq)
    foreach: tuple[int, Poly, Poly] | None = None  # (tensor lists, tensors per list, elements per list)
    gate: tuple[Poly, float, bool] | None = None  # runs only where numel >= threshold (True) or < (False)


class Exec:
    """Collects operators of a symbolic step and runs autograd's tape backwards."""

    def __init__(self):
        self.ops: list[SymOp] = []
        self.phase = "forward"
        self.mult: Poly = Poly.const(1)
        self.site = ""
        self.tape: list[Callable[["Exec"], None]] | None = None
        self.grads: dict[int, Tn] = {}
        self.saved: list[tuple[int, str]] = []  # (operator index, 'input'|'output') of each save
        self.gate: tuple[Poly, float, bool] | None = None  # a size condition on the ops emitted now

    # --- recording ---------------------------------------------------------------------------

    def emit(self, op: str, cls: str, reads: list[Tn], writes: list[Tn], *, flops: Poly | None = None,
             kernels: float = 1, mnk=None, dtype: str | None = None, read_bytes: Poly | None = None,
             write_bytes: Poly | None = None, cpu_only: bool = False, causal: bool = False,
             foreach: tuple[int, Poly, Poly] | None = None) -> None:
        rb = read_bytes if read_bytes is not None else sum((t.nbytes for t in reads), Poly())
        wb = write_bytes if write_bytes is not None else sum((t.nbytes for t in writes), Poly())
        if flops is None:
            flops = sum((t.numel for t in (writes or reads)), Poly())
        self.ops.append(SymOp(self.phase, op, cls, flops, rb, wb, dtype or (writes[0].dtype if writes else ""),
                              kernels, self.mult, mnk, self.site, tuple(t.id for t in reads),
                              tuple(t.id for t in writes), cpu_only, causal, foreach, self.gate))

    def record_backward(self, fn: Callable[["Exec"], None]) -> None:
        if self.tape is not None:
            self.tape.append(fn)

    # --- gradients ---------------------------------------------------------------------------

    def grad(self, t: Tn) -> Tn | None:
        return self.grads.get(t.id)

    def add_grad(self, t: Tn, g: Tn, cls: str = "elementwise") -> None:
        """Deliver a gradient to ``t``: the first becomes its gradient; each further one is an
        accumulation (autograd InputBuffer::add / AccumulateGrad), one ``add`` each. A gradient
        in another dtype is cast first (engine.cpp validate_outputs)."""
        if not t.rg:
            return
        if g.dtype != t.dtype:
            cast = Tn(g.numel, t.dtype)
            self.emit("aten._to_copy.default", cls, [g], [cast])
            g = cast
        have = self.grads.get(t.id)
        if have is None:
            self.grads[t.id] = g
            return
        out = Tn(t.numel, t.dtype)
        self.emit("aten.add.Tensor", "elementwise", [have, g], [out])
        self.grads[t.id] = out

    def run_backward(self, tape: list[Callable[["Exec"], None]]) -> None:
        for fn in reversed(tape):
            fn(self)
