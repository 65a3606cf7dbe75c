"""A traced training step as an allocator program, parametrized by the batch's padded length.

The exact trace (``advisor.trace``) records every storage a step allocates and frees
(``advisor.model.tracker.LiveBytes``: ``storages``, ``events`` with i = alloc of storage i and
~i = its free, ``phase_marks``). Re-tracing for every batch length of a run would take minutes,
so ``StepProgram.from_logs`` takes the logs of the same spec traced at three lengths, checks that
they are the same program (the same storages allocated and freed in the same order: only sizes
differ), and fits each storage's size as an exact polynomial in the length L,
``size(L) = a + b L + c L^2`` (the quadratic term is eager attention's seq x seq scores; flash
attention, activations, logits and the loss are linear; weights and optimizer state constant).
``sizes(L)`` then gives the step at any length in microseconds.

What the log is cut into (from its phase marks):
  build        everything before the first step (weights, quantization constants, adapters,
               optimizer state when the trace makes it up front)
  batch        the batch tensors: allocated when each step starts, freed when it ends (the
               trace reuses one batch; a DataLoader hands each step a new one)
  first step   the first traced step (forward, backward, optimizer): it may make optimizer state
  steady step  the last traced step: what every later step does
A step's forward + backward ("micro-batch") is separated from its optimizer phase so that
gradient accumulation can be replayed: on micro-batches after the first of an optimizer step,
each gradient already exists, so autograd's AccumulateGrad adds the new gradient into it in
place and frees the new one (torch/csrc/autograd/functions/accumulate_grad.h, accumulateGrad:
``variable_grad += new_grad`` when a gradient is defined). When the trace itself ran two
micro-batches per step, its second micro-batch is used as that template instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

LAST_EXACT = 2**53  # float64 represents every integer up to here


class ProgramMismatch(ValueError):
    """The traces at different lengths are not the same program (the step's structure depends on
    the length), so sizes cannot be interpolated between them."""


@dataclass(frozen=True)
class EventLog:
    """One traced run's log, reduced to what the allocator needs."""

    sizes: list[int]  # bytes of each storage
    events: list[int]  # i >= 0: alloc of storage i, ~i: its free
    marks: list[tuple[int, str]]  # (event index, phase) as the tracker set them
    categories: list[str]  # each storage's category (weights, gradients, activations, ...)

    @classmethod
    def from_tracker(cls, tracker) -> "EventLog":
        """From an ``advisor.model.tracker.LiveBytes`` (the reference or the real-stack trace)."""
        storages = tracker.storages
        return cls(sizes=[int(s.nbytes) for s in storages], events=list(tracker.events),
                   marks=list(tracker.phase_marks), categories=[tracker.category(s) for s in storages])


@dataclass(frozen=True)
class _Cut:
    build: list[int]
    batch: list[int]  # the batch phase's events (making the batch; temporaries freed)
    steps: list[tuple[list[list[int]], list[int]]]  # per step: (micro-batch event lists, optimizer events)
    persistent: frozenset[int]  # storages alive when the run ends (weights, optimizer state, batch)


def _cut(log: EventLog) -> _Cut:
    """Split a log at its phase marks into build, batch and steps (see the module docstring)."""
    marks = log.marks
    if not any(p == "forward" for _, p in marks):
        raise ProgramMismatch("the trace has no training step (no 'forward' phase mark)")
    bounds = list(marks) + [(len(log.events), "end")]
    build = list(log.events[:bounds[0][0]])
    batch: list[int] = []
    steps: list[tuple[list[list[int]], list[int]]] = []
    micro: list[list[int]] = []
    current: list[int] | None = None
    last_idle = max((i for i, p in marks if p == "idle"), default=len(log.events))
    for (start, phase), (stop, _) in zip(bounds, bounds[1:]):
        evs = list(log.events[start:stop])
        if phase == "batch":
            batch += evs
        elif phase == "forward":
            current = evs
            micro.append(current)
        elif phase == "optimizer":
            steps.append((micro, evs))
            micro, current = [], None
        elif phase in ("idle", "end", "build"):
            if micro:  # a step without an optimizer phase (forward and backward only)
                steps.append((micro, []))
                micro, current = [], None
            if phase == "build":
                build += evs
        elif current is None:
            raise ProgramMismatch(f"a {phase!r} phase outside a step")
        else:  # backward, or any phase a trace adds inside a micro-batch
            current += evs
    if not steps:
        raise ProgramMismatch("the trace has no complete training step")
    alive: set[int] = set()
    for e in log.events[:last_idle]:
        if e >= 0:
            alive.add(e)
        else:
            alive.discard(~e)
    return _Cut(build=build, batch=batch, steps=steps, persistent=frozenset(alive))


def _carried(step_events: list[int], persistent: frozenset[int], keep_alive: bool) -> list[int]:
    """Storages a step allocates and leaves alive at its end: the returned loss, which the
    next step replaces. ``keep_alive`` False leaves out the ones the run keeps to its end
    (optimizer state made in the first step); the last traced step keeps nothing else."""
    alive: dict[int, None] = {}
    for e in step_events:
        if e >= 0:
            alive[e] = None
        else:
            alive.pop(~e, None)
    return [s for s in alive if keep_alive or s not in persistent]


def _fit(lengths: list[int], sizes: np.ndarray) -> np.ndarray:
    """Exact polynomial through the (length, size) points of every storage: rows of (a, b, c)
    with size = a + b L + c L^2 (c = 0 with two lengths)."""
    if len(lengths) == 1:
        return np.hstack([sizes.T.astype(np.float64), np.zeros((sizes.shape[1], 2))])
    L = np.asarray(lengths, dtype=np.float64)
    degree = len(lengths) - 1
    vander = np.vander(L, degree + 1, increasing=True)  # columns 1, L, L^2
    coef = np.linalg.solve(vander, sizes.astype(np.float64)).T
    if degree < 2:
        coef = np.hstack([coef, np.zeros((coef.shape[0], 2 - degree))])
    return coef


@dataclass
class StepProgram:
    """A traced step, replayable at any padded length. See the module docstring."""

    lengths: tuple[int, ...]  # the lengths the program was traced at
    micro_batch: int
    coef: np.ndarray  # (storages + temporaries, 3): size(L) = a + b L + c L^2
    build: list[int]
    batch: list[int]  # events that make one batch (its temporaries freed)
    batch_alive: list[int]  # the batch's tensors, freed when the step ends
    first_micro: list[int]  # the first micro-batch of the run
    first_opt: list[int]
    micro: list[int]  # the first micro-batch of every later optimizer step
    micro_accumulating: list[int]  # later micro-batches of the same optimizer step
    opt: list[int]
    carry: list[int] = field(default_factory=list)  # storages a steady step leaves to the next
    first_carry: list[int] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    traced_peaks: dict[int, int] = field(default_factory=dict)  # length -> live-bytes peak of its trace
    accumulation_traced: bool = False

    @classmethod
    def from_logs(cls, logs: dict[int, EventLog], micro_batch: int = 1) -> "StepProgram":
        """Fit a program to logs of the same spec traced at 1 to 3 lengths ({length: log}). With
        one length the program only runs at that length (a fixed-length run)."""
        if not 1 <= len(logs) <= 3:
            raise ValueError("give the logs of one to three traced lengths")
        lengths = sorted(logs)
        ref = logs[lengths[0]]
        for L in lengths[1:]:
            other = logs[L]
            if other.events != ref.events or [p for _, p in other.marks] != [p for _, p in ref.marks]:
                raise ProgramMismatch(
                    f"the step traced at {lengths[0]} and {L} tokens allocates different tensors; "
                    "its structure depends on the length")
        sizes = np.array([logs[L].sizes for L in lengths], dtype=np.int64)
        coef = _fit(lengths, sizes)
        cut = _cut(ref)
        first_micros, first_opt = cut.steps[0]
        micros, opt = cut.steps[-1]
        n = len(ref.sizes)
        categories = list(ref.categories)
        accumulation_traced = len(micros) >= 2
        if accumulation_traced:
            micro_acc = micros[1]
        else:  # synthesize: each gradient allocation becomes AccumulateGrad's transient new_grad
            micro_acc, temps = [], []
            grads = {i for i, c in enumerate(categories) if c == "gradients"}
            for e in micros[0]:
                if e >= 0 and e in grads:
                    t = n + len(temps)
                    temps.append(e)
                    micro_acc += [t, ~t]
                elif e < 0 and ~e in grads:
                    continue  # the gradient lives on until the optimizer step
                else:
                    micro_acc.append(e)
            if temps:
                coef = np.vstack([coef, coef[temps]])
                categories += ["transient"] * len(temps)
        first_carry = _carried([e for m in first_micros for e in m] + first_opt, cut.persistent, False)
        carry = _carried([e for m in micros for e in m] + opt, cut.persistent, True)
        if len(cut.steps) == 1 and len(first_carry) != len(carry):
            raise ProgramMismatch("trace at least two steps: the only traced step makes state the "
                                  "next steps keep, so it cannot stand for them")
        peaks = {L: _live_peak(logs[L]) for L in lengths}
        return cls(lengths=tuple(lengths), micro_batch=micro_batch, coef=coef, build=cut.build,
                   batch=cut.batch, batch_alive=_carried(cut.batch, frozenset(), True), first_micro=first_micros[0], first_opt=first_opt,
                   micro=micros[0], micro_accumulating=micro_acc, opt=opt, carry=carry,
                   first_carry=first_carry,
                   categories=categories, traced_peaks=peaks, accumulation_traced=accumulation_traced)

    def sizes(self, length: int) -> list[int]:
        """Every storage's bytes for a batch padded to ``length`` tokens."""
        if len(self.lengths) == 1 and length != self.lengths[0]:
            raise ValueError(f"this program was traced at {self.lengths[0]} tokens only; trace two or "
                             "three lengths to replay others")
        a, b, c = self.coef[:, 0], self.coef[:, 1], self.coef[:, 2]
        L = float(length)
        out = np.rint(a + L * (b + L * c))
        if out.size and (out.min() < 0 or out.max() >= LAST_EXACT):
            raise ValueError(f"length {length} is outside what this program can size")
        return out.astype(np.int64).tolist()

    def allocated_peak(self, length: int) -> int:
        """The live-bytes peak of one steady step at ``length`` (what the trace reports as
        allocated), from the program itself."""
        sizes = self.sizes(length)
        live = 0
        for e in self.build + self.batch:
            live += sizes[e] if e >= 0 else -sizes[~e]
        peak = live
        first = self.first_micro + self.first_opt + [~s for s in self.first_carry]
        for e in first + self.micro + self.opt:
            live += sizes[e] if e >= 0 else -sizes[~e]
            if live > peak:
                peak = live
        return peak


def _live_peak(log: EventLog) -> int:
    live = peak = 0
    for e in log.events:
        live += log.sizes[e] if e >= 0 else -log.sizes[~e]
        peak = max(peak, live)
    return peak
