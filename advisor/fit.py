"""The one rule for "does it fit": a memory figure against a GPU's usable memory.

Used by the ranking (advisor.recommend: GPU counts, levers, shorter sequences), the FAQ answers
(advisor.answer: "can I fine-tune X on GPU Y?") and the pilot confirmation, so that two paths
never disagree on the same job (issue #15: "can I fine-tune llama-3.1-8b on an A10G?" said LoRA
fits while "lora llama-3.1-8b on a10g" said it needs two GPUs).

What is compared: ``MemoryBreakdown.need_bytes``, the allocator's reserved memory at equal batch
lengths plus the CUDA context (advisor.memory, advisor.allocator.closed_form), against
``Gpu.usable_memory_bytes`` (torch.cuda.get_device_properties().total_memory, the memory a
process can use, the context included), keeping ``FIT_MARGIN`` of it free.
"""

from __future__ import annotations

from typing import Protocol

FIT_MARGIN = 0.05
"""Share of usable memory kept free: the analytic model's error against published peaks
(tests/test_memory.py, tests/test_published.py) and spikes from longer-than-average batches."""

TIGHT_MARGIN = 0.10
"""Below this share of usable memory left free on the recommended GPU, the answer suggests the
pilot before the run (note code ``tight``). A rule of thumb, not a measurement: twice FIT_MARGIN,
the band in which the model's error or a longer batch than modelled can still end the run."""


class _Needs(Protocol):
    @property
    def need_bytes(self) -> int: ...


def fit_limit(usable_bytes: int) -> float:
    """The most a run may need on a GPU with ``usable_bytes`` (FIT_MARGIN kept free)."""
    return usable_bytes * (1 - FIT_MARGIN)


def fits(need_bytes: float, usable_bytes: int) -> bool:
    """Whether a run needing ``need_bytes`` per GPU fits a GPU with ``usable_bytes``."""
    return need_bytes <= fit_limit(usable_bytes)


def memory_fits(memory: _Needs, usable_bytes: int) -> bool:
    """``fits`` for a MemoryBreakdown (or anything with ``need_bytes``)."""
    return fits(memory.need_bytes, usable_bytes)


def is_tight(shown_bytes: int, usable_bytes: int) -> bool:
    """Whether the headroom left on a fitting GPU is under TIGHT_MARGIN of its usable memory."""
    return usable_bytes - shown_bytes < TIGHT_MARGIN * usable_bytes
