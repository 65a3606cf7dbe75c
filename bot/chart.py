""""Show chart": a PNG of the memory per GPU, stacked by part, against each GPU's usable memory.

One horizontal bar per GPU option of the answer (at the GPU count the advisor chose for it),
segments for the breakdown terms, and a black tick at the GPU's usable memory. matplotlib is an
optional extra (``chart``): imported here only, through its object-oriented API (Figure +
FigureCanvasAgg), which is safe to use from worker threads (no pyplot global state).
"""

from __future__ import annotations

import io
from typing import Any

from advisor.errors import MissingExtra
from advisor.i18n import t
from advisor.answer_model import Answer
from bot.render.answer import short_gpu_name
from bot.render.labels import TERMS

FEATURE = "Show chart"
GIB = 1024**3
# Okabe-Ito palette (colour-blind safe, Okabe & Ito 2008) plus two greys for the minor terms.
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999", "#555555")
DPI = 110
ROW_HEIGHT_IN = 0.42
WIDTH_IN = 9.0


def render_chart(data: dict[str, Any], lang: str) -> bytes:
    """The chart as PNG bytes. Raises MissingExtra when matplotlib is not installed."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ModuleNotFoundError:
        raise MissingExtra(FEATURE, "chart", "matplotlib") from None
    answer = Answer.load(data)
    options = [o for o in answer.options if o.device_bytes]
    labels = [f"{o.num_gpus or 1}× {short_gpu_name(o.gpu_name)}" for o in options]
    fig = Figure(figsize=(WIDTH_IN, 1.6 + ROW_HEIGHT_IN * max(1, len(options))), dpi=DPI)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    rows = list(range(len(options)))
    left = [0.0] * len(options)
    for term, colour in zip(TERMS, COLOURS):
        sizes = [(o.memory.terms if o.memory else {}).get(term, 0) / GIB for o in options]
        if any(sizes):
            ax.barh(rows, sizes, left=left, color=colour, label=t(f"bot.term.{term}", lang), height=0.6)
            left = [a + b for a, b in zip(left, sizes)]
    # The rest up to what nvidia-smi shows: allocator slack and the CUDA context, or the whole
    # device figure when the data carries no per-option breakdown.
    rest = [max(0.0, o.device_bytes / GIB - done) for o, done in zip(options, left)]
    if any(rest):
        ax.barh(rows, rest, left=left, color="#DDDDDD", hatch="//", label=t("bot.chart.overhead" if any(o.memory for o in options) else "bot.chart.device", lang),
                height=0.6)
        left = [a + b for a, b in zip(left, rest)]
    capacity = [o.usable_bytes / GIB for o in options]
    ax.scatter(capacity, rows, marker="|", s=600, color="black", linewidths=2.5, zorder=3,
               label=t("bot.chart.capacity", lang))
    for row, o in zip(rows, options):
        ax.text(max(left[row], capacity[row]) * 1.01, row, "✓" if o.fits else "✗", va="center",
                color="#009E73" if o.fits else "#D55E00", fontsize=11)
    ax.set_yticks(rows, labels)
    ax.invert_yaxis()
    ax.set_xlabel(t("bot.chart.axis", lang))
    ax.set_title(t("bot.chart.title", lang, model=answer.model or answer.spec.model or ""))
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18 if len(options) > 3 else -0.35), ncol=4,
              fontsize=8, frameon=False)
    fig.tight_layout()
    out = io.BytesIO()
    fig.savefig(out, format="png")
    return out.getvalue()
