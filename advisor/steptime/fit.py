"""Efficiency factors per stack and operator class, fitted on published throughput, and the
out-of-fold check of how well the whole model predicts throughput it was not fitted on.

What is fitted, and only this: one factor per (stack, operator class) that divides the roofline
time of that class (``overhead`` divides the host's time). A stack's factor is the pooled factor
of the class times the stack's own deviation; both are fitted together, with a penalty that
pulls every log-factor towards 0 (factor 1: the cited microbenchmark fraction is right), harder
for deviations than for the pooled factors, so a stack with few rows stays near the pool. A
deviation is only fitted for a stack with at least ``MIN_ROWS`` training rows in which the class
takes at least ``MIN_SHARE`` of the step; otherwise the stack uses the pooled factor.

The loss is a smooth absolute error of log(predicted / measured) (pseudo-Huber, scale
``HUBER``), each source's rows weighted to the same total, so one long table (llm-foundry's
96 rows) does not decide the pooled factors alone.

Minimized by cyclic coordinate descent with a golden-section search per factor, from 1: no
randomness, so a refit on the same rows reproduces the committed table exactly
(tests/test_throughput_fit.py). ``advisor/steptime/data/efficiency.json`` is built by

    python -m advisor.steptime.fit --write
"""

from __future__ import annotations

import json
import math
import random
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from advisor.steptime import classes as C

DATA = Path(__file__).with_name("data") / "efficiency.json"
MEASUREMENTS = Path(__file__).resolve().parents[2] / "tests" / "data" / "throughput_measurements.json"
LOG_LOW, LOG_HIGH = math.log(0.1), math.log(4.0)  # factors between 1/10 and 4
GRID = 15  # coarse scan per coordinate before the golden-section refinement
RIDGE_POOLED = 0.02
RIDGE_STACK = 0.10
RIDGE_SCALE = {
    # how firmly each class's prior is held, by how well it is measured: matmul rates are
    # brute-force microbenchmarks (MAMF), attention and bandwidth fractions are typical values
    # of published kernels, the host costs per operator only an order of magnitude
    C.MATMUL: 1.0, C.ATTENTION: 0.5, C.ELEMENTWISE: 0.5, C.LOSS: 0.5, C.OPTIMIZER: 0.5,
    C.DEQUANTIZE: 0.2, C.OVERHEAD: 0.1,
}
HUBER = 0.05
MIN_ROWS = 3
MIN_SHARE = 0.01
SWEEPS = 4
GOLDEN_ITERS = 18
KFOLD = 5
SEED = 12  # fold assignment (issue #12)


# --- fast re-evaluation of prepared steps --------------------------------------------------------


@dataclass
class Case:
    """One measured run, reduced to what a factor change affects."""

    id: str
    source: str
    stack: str
    method: str
    measured: float  # tokens/s per GPU
    tokens: float  # per optimizer step
    micro_steps: int
    gpu: list[dict[str, float]]  # per phase (forward, backward, optimizer): class -> seconds
    host: list[dict[str, float]]  # per phase: class -> host seconds
    fixed: float
    shares: dict[str, float] = field(default_factory=dict)
    comm: tuple | None = None  # (volumes, link, sharding)

    def seconds(self, f: dict[str, float]) -> float:
        from advisor.steptime import comm as comm_mod

        ov = f.get(C.OVERHEAD, 1.0)
        dq = f.get(C.DEQUANTIZE, 1.0)
        phase = []
        for i in range(3):
            g = sum(t / f.get(c, 1.0) for c, t in self.gpu[i].items())
            h = sum(t / (dq if c == C.DEQUANTIZE else 1.0) for c, t in self.host[i].items()) / ov
            phase.append((g, h))
        busy = [max(g, h) for g, h in phase]
        extra, once = [0.0, 0.0, 0.0], 0.0
        if self.comm is not None:
            vol, link, shard = self.comm
            ex = comm_mod.exposed(vol, link, busy[0], busy[1], shard)
            extra = [ex.get("forward", 0.0), ex.get("backward", 0.0), ex.get("optimizer", 0.0)]
            once = ex.get("backward_sync", 0.0)  # the last micro-step only (roofline.combine)
        return (self.micro_steps * (busy[0] + extra[0] + busy[1] + extra[1]) + once + busy[2] + extra[2]
                + self.fixed / ov)

    def predict(self, f: dict[str, float]) -> float:
        return self.tokens / self.seconds(f)


def case_for(run, prepared) -> Case:
    from advisor.steptime.model import finish

    comp = prepared.comp
    gpu = [{} for _ in range(3)]
    for (p, cls), t in comp.gpu.items():
        d = gpu[C.PHASES.index(p)]
        d[cls] = d.get(cls, 0.0) + t
    host = [{} for _ in range(3)]
    for (p, cls), t in comp.host.items():
        d = host[C.PHASES.index(p)]
        d[cls] = d.get(cls, 0.0) + t
    st = finish(prepared)
    comm = (prepared.volumes, prepared.link, prepared.sharding) if prepared.volumes is not None else None
    return Case(id=run.row["id"], source=run.source, stack=run.kernels.factors, method=run.spec.method, measured=run.measured,
                tokens=comp.tokens * prepared.micro_steps, micro_steps=prepared.micro_steps, gpu=gpu,
                host=host,
                fixed=prepared.micro_steps * comp.host_micro_step + comp.host_step, shares=st.shares(), comm=comm)


def cases(data=None, catalog=None) -> list[Case]:
    """Every usable published row, priced once at factor 1."""
    from advisor.catalog import Catalog
    from advisor.steptime import measurements as M

    data = data or M.load(MEASUREMENTS)
    catalog = catalog or Catalog.open()
    out = []
    for run in M.runs(data, catalog):
        out.append(case_for(run, M.prepare_run(run)))
    return out


# --- the factors ----------------------------------------------------------------------------------


@dataclass
class Factors:
    pooled: dict[str, float]
    stacks: dict[str, dict[str, float]]  # stack -> class -> factor (pooled x deviation)
    rows: int = 0

    def for_stack(self, stack: str) -> dict[str, float]:
        return dict(self.stacks.get(stack) or self.pooled)

    def to_json(self) -> dict:
        return {"pooled": {c: round(v, 6) for c, v in self.pooled.items()},
                "stacks": {s: {c: round(v, 6) for c, v in d.items()} for s, d in sorted(self.stacks.items())},
                "rows": self.rows}

    @classmethod
    def from_json(cls, d: dict) -> "Factors":
        return cls(pooled=dict(d["pooled"]), stacks={k: dict(v) for k, v in d["stacks"].items()}, rows=d.get("rows", 0))


def _loss(r: float) -> float:
    return math.sqrt(r * r + HUBER * HUBER) - HUBER


def fit(train: list[Case]) -> Factors:
    """Fit the pooled and per-stack factors on ``train`` (see the module docstring)."""
    by_source: dict[str, int] = {}
    for c in train:
        by_source[c.source] = by_source.get(c.source, 0) + 1
    weight = {c.id: 1.0 / by_source[c.source] for c in train}
    stacks: dict[str, list[Case]] = {}
    for c in train:
        stacks.setdefault(c.stack, []).append(c)
    pooled = {c: 0.0 for c in C.FITTED_CLASSES}  # log factors
    dev: dict[tuple[str, str], float] = {}
    for s, rows in stacks.items():
        if len(rows) < MIN_ROWS:
            continue
        for cls in C.FITTED_CLASSES:
            # host time is always there, whether or not it binds at factor 1
            if cls == C.OVERHEAD or statistics.median(r.shares.get(cls, 0.0) for r in rows) >= MIN_SHARE:
                dev[(s, cls)] = 0.0
    used_pooled = [cls for cls in C.FITTED_CLASSES
                   if cls == C.OVERHEAD or any(r.shares.get(cls, 0.0) >= MIN_SHARE for r in train)]

    def factors_of(stack: str) -> dict[str, float]:
        return {cls: math.exp(pooled[cls] + dev.get((stack, cls), 0.0)) for cls in C.FITTED_CLASSES}

    def objective() -> float:
        cache: dict[str, dict[str, float]] = {}
        total = 0.0
        for c in train:
            f = cache.get(c.stack)
            if f is None:
                f = cache[c.stack] = factors_of(c.stack)
            total += weight[c.id] * _loss(math.log(c.predict(f) / c.measured))
        total /= len(by_source)
        total += RIDGE_POOLED * sum(RIDGE_SCALE[c] * v * v for c, v in pooled.items())
        total += RIDGE_STACK * sum(RIDGE_SCALE[k[1]] * v * v for k, v in dev.items())
        return total

    def search(get, put) -> None:
        """A coarse scan of the range (the loss is flat where the class does not bind, e.g.
        host time below GPU time), then golden-section search around the best point."""
        step = (LOG_HIGH - LOG_LOW) / (GRID - 1)
        current = get()
        best_x, best_f = current, objective()
        for i in range(GRID):
            put(LOG_LOW + i * step)
            fx = objective()
            if fx < best_f:
                best_x, best_f = LOG_LOW + i * step, fx
        put(current)
        g = (math.sqrt(5) - 1) / 2
        a, b = max(LOG_LOW, best_x - step), min(LOG_HIGH, best_x + step)
        x1, x2 = b - g * (b - a), a + g * (b - a)
        put(x1)
        f1 = objective()
        put(x2)
        f2 = objective()
        for _ in range(GOLDEN_ITERS):
            if f1 < f2:
                b, x2, f2 = x2, x1, f1
                x1 = b - g * (b - a)
                put(x1)
                f1 = objective()
            else:
                a, x1, f1 = x1, x2, f2
                x2 = a + g * (b - a)
                put(x2)
                f2 = objective()
        cands = [(best_f, best_x), (f1, x1), (f2, x2)]
        put(min(cands)[1])

    for _ in range(SWEEPS):
        for cls in used_pooled:
            search(lambda c=cls: pooled[c], lambda v, c=cls: pooled.__setitem__(c, v))
        for key in sorted(dev):
            search(lambda k=key: dev[k], lambda v, k=key: dev.__setitem__(k, v))
    per_stack = {s: factors_of(s) for s in stacks if any(k[0] == s for k in dev)}
    return Factors(pooled={c: math.exp(v) for c, v in pooled.items()}, stacks=per_stack, rows=len(train))


# --- evaluation ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scored:
    case: Case
    predicted: float

    @property
    def error(self) -> float:  # signed relative error of the prediction
        return self.predicted / self.case.measured - 1.0


def score(test: list[Case], f: Factors) -> list[Scored]:
    return [Scored(c, c.predict(f.for_stack(c.stack))) for c in test]


def folds(all_cases: list[Case], k: int = KFOLD, seed: int = SEED) -> list[list[Case]]:
    """k folds, each source's rows dealt round-robin after a seeded shuffle (every fold holds a
    share of every source)."""
    rng = random.Random(seed)
    out: list[list[Case]] = [[] for _ in range(k)]
    by_source: dict[str, list[Case]] = {}
    for c in all_cases:
        by_source.setdefault(c.source, []).append(c)
    i = 0
    for s in sorted(by_source):
        rows = list(by_source[s])
        rng.shuffle(rows)
        for c in rows:
            out[i % k].append(c)
            i += 1
    return out


def out_of_fold(all_cases: list[Case], k: int = KFOLD) -> list[Scored]:
    """Each row predicted by factors fitted on the other folds."""
    parts = folds(all_cases, k)
    out = []
    for i, test in enumerate(parts):
        train = [c for j, p in enumerate(parts) if j != i for c in p]
        out += score(test, fit(train))
    return out


def leave_one_source_out(all_cases: list[Case]) -> list[Scored]:
    """Each source's rows predicted by factors fitted on the other sources only."""
    out = []
    for s in sorted({c.source for c in all_cases}):
        train = [c for c in all_cases if c.source != s]
        out += score([c for c in all_cases if c.source == s], fit(train))
    return out


def summary(scored: list[Scored]) -> dict[str, float]:
    a = [abs(s.error) for s in scored]
    if not a:
        return {"rows": 0, "median_abs": float("nan"), "within_25": float("nan"), "median_signed": float("nan")}
    return {"rows": len(a), "median_abs": statistics.median(a), "within_25": sum(x <= 0.25 for x in a) / len(a),
            "median_signed": statistics.median(s.error for s in scored)}


def load_factors(path: Path = DATA) -> Factors | None:
    if not path.exists():
        return None
    return Factors.from_json(json.loads(path.read_text())["factors"])


def build(path: Path = DATA) -> dict:
    """Fit on every usable published row and write the table the chat path reads."""
    all_cases = cases()
    f = fit(all_cases)
    doc = {"about": "Efficiency factors per stack and operator class (advisor.steptime.fit), fitted on every usable "
                    "row of tests/data/throughput_measurements.json; rebuild with python -m advisor.steptime.fit "
                    "--write. A stack not listed uses 'pooled'.",
           "sources": sorted({c.source for c in all_cases}), "factors": f.to_json()}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    return doc


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description="Fit the stack efficiency factors on published throughput.")
    parser.add_argument("--write", action="store_true", help=f"write {DATA}")
    args = parser.parse_args()
    if args.write:
        doc = build()
        print(json.dumps(doc["factors"], indent=1))
    else:
        print(json.dumps(fit(cases()).to_json(), indent=1))


if __name__ == "__main__":
    main()
