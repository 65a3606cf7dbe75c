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

    slack = reserved / allocated - 1 = c0 + c1 g + c2 a_n + v (c3 g + c4 g v + c5 a_n)
    g = (logits and loss) / allocated                                 at the longest batch
    a_n = activations / allocated without gradient checkpointing, 0 with it
    v = 1 - mean batch length / longest batch length                   0 when all are equally long

The logits and the loss are few, very large tensors (seq x vocab), so a longer batch needs new
segments for each; activations are many tensors of a few sizes, which reuse each other's
blocks. With gradient checkpointing the activations term is mostly the layer inputs kept for
the recompute, one tensor of one size per layer, which reuse their blocks exactly: it is left
out (a term for it fitted the shallow grid but gave 70B QLoRA at 8k a 49% slack). Leaving each
architecture out in turn, this form's median error on reserved is 4.8% (p90 19%; 3.9% and p90
6.4% at equal lengths) on the default allocator, against 32% for a constant ratio; with
expandable segments under 1% (benchmarks/allocator_closed_form.py prints the current figures).

What is needed to fit is less than what nvidia-smi shows on a roomy GPU: the growth on
variable lengths is cached free segments, which torch frees when cudaMalloc fails and then
retries (CCA:1253-1255). The equal-length slack (v = 0: rounding and packing within a step; the
second figure of ``reserved_for``) is what a
run needs; the replay with a capacity (``replay_run(capacity=...)``) checks it exactly (on
Llama-3.1-8B LoRA with lengths 200-2048, mean 600: 26.7 GiB reserved when memory is plentiful,
no OOM down to a 19.5 GiB device for 18.7 GiB allocated).

The coefficients (``closed_form.json``, one set for the default allocator and one with
``expandable_segments:True``) are fitted by ``benchmarks/allocator_closed_form.py`` to
simulations over a grid of widths, vocabularies, methods and length distributions, and checked
out of fold there (leave one architecture out) and in tests/test_allocator_closed_form.py.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

FEATURES = ("1", "g", "a_n", "g*v", "g*v^2", "a_n*v")
COEF_PATH = Path(__file__).with_name("closed_form.json")


def features(terms: dict[str, float], mean_batch: float, max_batch: float,
             checkpointing: bool = True) -> list[float]:
    """The form's features from the analytic terms at the longest batch and the batch lengths."""
    allocated = sum(terms.values())
    a = terms.get("activations", 0) / allocated if allocated else 0.0
    g = terms.get("logits_loss", 0) / allocated if allocated else 0.0
    v = max(0.0, 1.0 - mean_batch / max_batch) if max_batch else 0.0
    a_n = 0.0 if checkpointing else a
    return [1.0, g, a_n, g * v, g * v * v, a_n * v]


def fit(xs: list[list[float]], slacks: list[float]) -> list[float]:
    """Least squares on the relative error of reserved (rows weighted by 1 / (1 + slack))."""
    import numpy as np  # the fit runs in benchmarks/allocator_closed_form.py, never on the chat path

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
                   expandable: bool = False, checkpointing: bool = True) -> float:
    """reserved / allocated - 1 for a run with these analytic terms and batch lengths."""
    return slack_from(_stored()["coefficients"]["expandable" if expandable else "default"],
                      terms, mean_batch, max_batch, checkpointing)


def slack_from(coef: list[float], terms: dict[str, float], mean_batch: float, max_batch: float,
               checkpointing: bool = True) -> float:
    """The form with coefficients ``coef``, never below its equal-length value (the longest
    batch is rounded and packed the same way whatever came before it)."""
    fixed = predict_slack(coef, features(terms, max_batch, max_batch, checkpointing))
    return max(fixed, predict_slack(coef, features(terms, mean_batch, max_batch, checkpointing)))


def batch_stats(spec) -> tuple[float, int]:
    """(mean, longest) padded batch length of the spec's run, from the same seeded draw of 200
    micro-batches the replay uses (``advisor.allocator.lengths.batch_lengths``)."""
    if spec.length_distribution is None:
        return float(spec.seq_len), spec.seq_len
    from advisor.allocator.lengths import batch_lengths

    lengths = batch_lengths(spec.length_distribution, spec.seq_len, spec.micro_batch, 200, seed=0)
    return sum(lengths) / len(lengths), max(lengths)


def reserved_for(terms: dict[str, float], spec) -> tuple[int, int]:
    """(reserved, needed) bytes of the spec's run from the analytic terms at its longest batch:
    allocated plus the fitted slack, and allocated plus the slack at equal lengths (what the run
    needs; the rest is cache torch frees and retries). ``spec.expandable_segments`` picks that
    allocator's coefficients."""
    allocated = sum(terms.values())
    mean_batch, max_batch = batch_stats(spec)
    expandable = bool(getattr(spec, "expandable_segments", False))
    ckpt = bool(spec.gradient_checkpointing)
    slack = reserved_slack(terms, mean_batch, max_batch, expandable=expandable, checkpointing=ckpt)
    fixed = reserved_slack(terms, max_batch, max_batch, expandable=expandable, checkpointing=ckpt)
    return int(round(allocated * (1.0 + slack))), int(round(allocated * (1.0 + fixed)))
