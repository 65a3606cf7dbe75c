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

import numpy as np

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


def sample_lengths(dist: LengthDistribution, n: int, seq_len: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` tokenized sample lengths after the overflow policy (all <= seq_len)."""
    if dist.lengths is not None:
        pool = np.asarray(dist.lengths, dtype=np.int64)
        if dist.overflow == "drop":
            pool = pool[pool <= seq_len]
            if pool.size == 0:
                raise ValueError(f"every sample is longer than seq_len {seq_len} and would be dropped")
        return np.minimum(rng.choice(pool, size=n, replace=True), seq_len)
    lo = float(dist.min or 1)
    hi = float(dist.max if dist.max is not None else max(seq_len, math.ceil(dist.mean)))
    out = np.empty(0, dtype=np.int64)
    while out.size < n:
        draw = _draw(dist, lo, hi, max(n, 1024), rng)
        if dist.overflow == "drop":
            draw = draw[draw <= seq_len]
            if draw.size == 0 and lo > seq_len:
                raise ValueError(f"every sample is longer than seq_len {seq_len} and would be dropped")
        out = np.concatenate([out, draw])
    return np.minimum(out[:n], seq_len)


def _draw(dist: LengthDistribution, lo: float, hi: float, n: int, rng: np.random.Generator) -> np.ndarray:
    if dist.std:
        sigma2 = math.log1p((dist.std / dist.mean) ** 2)
        mu = math.log(dist.mean) - sigma2 / 2
        x = rng.lognormal(mu, math.sqrt(sigma2), size=n)
        x = x[(x >= lo) & (x <= hi)]
    else:
        lam = _maxent_lambda(lo, hi, dist.mean)
        u = rng.random(n)
        if abs(lam * (hi - lo)) < 1e-9:
            x = lo + u * (hi - lo)
        else:  # inverse CDF of exp(lam x) on [lo, hi]
            x = lo + np.log1p(u * np.expm1(lam * (hi - lo))) / lam
    return np.clip(np.rint(x), lo, hi).astype(np.int64)


def batch_lengths(dist: LengthDistribution | None, seq_len: int, micro_batch: int, steps: int,
                  seed: int = 0) -> list[int]:
    """The padded length of each of ``steps`` micro-batches (see the module docstring)."""
    if steps < 1:
        raise ValueError("steps must be at least 1")
    if dist is None:
        return [seq_len] * steps
    rng = np.random.default_rng(seed)
    samples = sample_lengths(dist, steps * micro_batch, seq_len, rng).reshape(steps, micro_batch)
    longest = samples.max(axis=1)
    if dist.pad_to_multiple_of:
        m = dist.pad_to_multiple_of
        longest = -(-longest // m) * m
    return [int(x) for x in longest]
