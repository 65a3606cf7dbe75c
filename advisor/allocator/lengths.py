"""Batch lengths of a run: samples drawn from a ``LengthDistribution``, padded per batch.

A micro-batch of ``micro_batch`` samples is padded to its longest sample (transformers
``DataCollatorWithPadding`` / ``DataCollatorForSeq2Seq`` with ``padding=True`` call
``tokenizer.pad(..., padding="longest")``), rounded up to ``pad_to_multiple_of`` when set.
Samples longer than ``seq_len`` are truncated to it (``truncation=True, max_length=seq_len``)
or dropped (``overflow="drop"``). Without a distribution every batch is ``seq_len`` long
(packing, or ``padding="max_length"``).

Shapes assumed for a summary (no sample list):
  mean, min, max       the maximum-entropy distribution on [min, max] with that mean: a
                       truncated exponential, p(n) ~ exp(lambda n) (uniform when the mean is the
                       midpoint). It assumes nothing beyond what was said.
  + std                a log-normal with that mean and standard deviation (token lengths of
                       instruction datasets are right-skewed), restricted to [min, max].
Samples are drawn with replacement in random order (a shuffled DataLoader, torch RandomSampler),
seeded, so a replay is reproducible.
"""

from __future__ import annotations

import math
import random

from advisor.spec import LengthDistribution


def _maxent_lambda(lo: float, hi: float, mean: float) -> float:
    """lambda of p(x) ~ exp(lambda x) on [lo, hi] with the given mean (bisection on the
    monotone mean(lambda)); 0 when the mean is the midpoint."""
    width = hi - lo
    if width <= 0:
        return 0.0
    m = (mean - lo) / width  # target mean on [0, 1]

    def mean_unit(lam: float) -> float:
        # mean of exp(lam t) on [0, 1]: 1/(1 - e^-lam) - 1/lam, written stably for both signs
        if abs(lam) < 1e-9:
            return 0.5
        return -1.0 / math.expm1(-lam) - 1.0 / lam

    lo_l, hi_l = -700.0, 700.0
    for _ in range(200):
        mid = (lo_l + hi_l) / 2
        if mean_unit(mid) < m:
            lo_l = mid
        else:
            hi_l = mid
    return (lo_l + hi_l) / 2 / width


def sample_lengths(dist: LengthDistribution, n: int, seq_len: int, rng: random.Random) -> list[int]:
    """``n`` tokenized sample lengths after the overflow policy (all <= seq_len)."""
    if dist.lengths is not None:
        pool = list(dist.lengths)
        if dist.overflow == "drop":
            pool = [x for x in pool if x <= seq_len]
            if not pool:
                raise ValueError(f"every sample is longer than seq_len {seq_len} and would be dropped")
        return [min(rng.choice(pool), seq_len) for _ in range(n)]
    lo = float(dist.min or 1)
    hi = float(dist.max if dist.max is not None else max(seq_len, math.ceil(dist.mean)))
    if dist.overflow == "drop" and lo > seq_len:
        raise ValueError(f"every sample is longer than seq_len {seq_len} and would be dropped")
    draw = _drawer(dist, lo, hi)
    out: list[int] = []
    tries = 0
    while len(out) < n:
        x = draw(rng)
        tries += 1
        if x is None or (dist.overflow == "drop" and x > seq_len):
            if tries > 1000 * (n + 10):
                raise ValueError(f"almost no sample of {dist.summary} is at most seq_len {seq_len} tokens")
            continue
        out.append(min(x, seq_len))
    return out


def _drawer(dist: LengthDistribution, lo: float, hi: float):
    """One draw (a whole number of tokens in [lo, hi], or None to draw again)."""
    if dist.std:
        sigma = math.sqrt(math.log1p((dist.std / dist.mean) ** 2))
        mu = math.log(dist.mean) - sigma * sigma / 2

        def lognormal(rng: random.Random) -> int | None:
            x = rng.lognormvariate(mu, sigma)
            return int(round(x)) if lo <= x <= hi else None
        return lognormal
    lam = _maxent_lambda(lo, hi, dist.mean)
    width = hi - lo

    def maxent(rng: random.Random) -> int:
        u = rng.random()
        if abs(lam * width) < 1e-9:
            x = lo + u * width
        else:  # inverse CDF of exp(lam x) on [lo, hi]
            x = lo + math.log1p(u * math.expm1(lam * width)) / lam
        return int(min(hi, max(lo, round(x))))
    return maxent


def batch_lengths(dist: LengthDistribution | None, seq_len: int, micro_batch: int, steps: int,
                  seed: int = 0) -> list[int]:
    """The padded length of each of ``steps`` micro-batches (see the module docstring)."""
    if steps < 1:
        raise ValueError("steps must be at least 1")
    if dist is None:
        return [seq_len] * steps
    rng = random.Random(seed)
    samples = sample_lengths(dist, steps * micro_batch, seq_len, rng)
    out = []
    m = dist.pad_to_multiple_of or 1
    for i in range(steps):
        longest = max(samples[i * micro_batch:(i + 1) * micro_batch])
        out.append(-(-longest // m) * m)
    return out
