"""Reserved memory in microseconds: a closed form fitted to caching-allocator simulations.

The chat path has the analytic model's terms (``advisor.memory``), not a trace. What the
allocator adds on top of allocated memory has two sources, and the form has a term for each:

* rounding and packing, present in every run: blocks rounded to 512 B, 1-10 MiB tensors in
  20 MiB segments, large ones rounded to 2 MiB, remainders of 1 MiB or less not split off
  (``advisor.allocator.caching``); it grows with the share of allocated memory that changes
  during the step (activations, logits and the loss), whose blocks are made and freed every step;
* growth on variable-length batches: a batch longer than any before needs blocks bigger than
  every cached one, so new segments are made while the old, smaller ones stay cached; how much
  depends on that same share and on how much the lengths vary.

    slack = reserved / allocated - 1 = c0 + c1 d + c2 d v + c3 d v^2
    d = (activations + logits_loss) / allocated       at the longest batch
    v = 1 - mean batch length / longest batch length    0 when every batch is equally long

The coefficients (``closed_form.json``, one set for the default allocator and one with
``expandable_segments:True``) are fitted by ``benchmarks/allocator_closed_form.py`` to
simulations over a grid of widths, vocabularies, methods and length distributions, and checked
out of fold there (leave one architecture out) and in tests/test_allocator_closed_form.py.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

FEATURES = ("1", "d", "d*v", "d*v^2")
COEF_PATH = Path(__file__).with_name("closed_form.json")
DYNAMIC_TERMS = ("activations", "logits_loss")


def features(terms: dict[str, float], mean_batch: float, max_batch: float) -> list[float]:
    """The form's features from the analytic terms at the longest batch and the batch lengths."""
    allocated = sum(terms.values())
    d = sum(terms.get(k, 0) for k in DYNAMIC_TERMS) / allocated if allocated else 0.0
    v = max(0.0, 1.0 - mean_batch / max_batch) if max_batch else 0.0
    return [1.0, d, d * v, d * v * v]


def fit(xs: list[list[float]], slacks: list[float]) -> list[float]:
    """Least squares on the relative error of reserved (rows weighted by 1 / (1 + slack))."""
    X = np.asarray(xs, dtype=np.float64)
    y = np.asarray(slacks, dtype=np.float64)
    w = 1.0 / (1.0 + y)
    coef, *_ = np.linalg.lstsq(X * w[:, None], y * w, rcond=None)
    return [float(c) for c in coef]


def predict_slack(coef: list[float], x: list[float]) -> float:
    return max(0.0, float(sum(c * f for c, f in zip(coef, x))))


@lru_cache(maxsize=1)
def _stored() -> dict:
    return json.loads(COEF_PATH.read_text(encoding="utf-8"))


def reserved_slack(terms: dict[str, float], mean_batch: float, max_batch: float, *,
                   expandable: bool = False) -> float:
    """reserved / allocated - 1 for a run with these analytic terms and batch lengths."""
    coef = _stored()["coefficients"]["expandable" if expandable else "default"]
    return predict_slack(coef, features(terms, mean_batch, max_batch))


def batch_stats(spec) -> tuple[float, int]:
    """(mean, longest) padded batch length of the spec's run, from the same seeded draw of 200
    micro-batches the replay uses (``advisor.allocator.lengths.batch_lengths``)."""
    if spec.length_distribution is None:
        return float(spec.seq_len), spec.seq_len
    from advisor.allocator.lengths import batch_lengths

    lengths = batch_lengths(spec.length_distribution, spec.seq_len, spec.micro_batch, 200, seed=0)
    return sum(lengths) / len(lengths), max(lengths)
