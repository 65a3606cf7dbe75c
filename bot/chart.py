""""Show chart": a PNG with two panels, from the answer's numbers (bot.chart_points.points).

1. Cost to an accepted checkpoint (y) against wall-clock time to it (x): one labelled point per
   offered GPU and count that fits, the recommendation a larger star with "recommended", and each
   lever that changes a plan an arrow from the plan's point to where the lever puts it (a hollow
   diamond). Without a dataset size the same axes per million trained tokens (the table's
   "$/M"): time per million tokens rather than tokens/s, so that lower-left is better in both
   modes and a team lead reads "minutes and dollars" off the axes. Log scales only when the
   points span more than ``LOG_SPREAD`` on an axis. GPUs that fit at no count are not drawn (they
   have no time or cost) and are named under the panel.
2. The memory per GPU stacked by part, one bar per offered (GPU, count), against a black tick at
   the GPU's usable memory; the x range is the offered GPUs' (a bar past it is clipped and says
   what it needs).

Words come from advisor.i18n (``chart.*`` and the memory panel's ``bot.chart.*``), numbers from
advisor.format (``usd``, ``hours``) and bot.render.labels (``size``, ``value_text``), so the
project's number formatting reaches the chart: a tick is only placed where those helpers print
it exactly (``_exact_usd``, ``_exact_hours``), so a label never rounds away from its tick.

Labels never overlap: after the layout is fixed, each label (recommendation first, then plans,
then levers) takes the first of rings of offsets around its point whose box, measured by the
Agg renderer (``Text.get_window_extent``), stays inside the panel and covers no marker, arrow,
leader line or label placed before it, and whose leader line (drawn when the label is not next
to its point) crosses none of them nor runs along its own arrow (``_place_labels``;
tests/test_chart.py checks the boxes).

matplotlib is an optional extra (``chart``): imported here only, through its object-oriented API
(Figure + FigureCanvasAgg), which is safe from worker threads (no pyplot global state). Colours:
the Okabe-Ito palette (Okabe & Ito 2008, colour-blind safe); the recommendation also differs by
shape (star) and the lever points by fill (hollow diamonds), never by colour alone.
"""

from __future__ import annotations

import io
import math
import re
from dataclasses import dataclass
from typing import Any

from advisor.answer_model import Answer
from advisor.errors import MissingExtra
from advisor.format import GIB, hours, usd
from advisor.i18n import t
from bot.chart_points import Bar, ChartPoints, LeverPoint, Plan, points
from bot.render.labels import TERMS, size, value_text

FEATURE = "Show chart"
# Okabe-Ito (Okabe & Ito 2008): blue, orange, bluish green, reddish purple, sky blue, vermillion,
# yellow, then two greys for the minor terms.
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999", "#555555")
PLAN_COLOUR = "#0072B2"
RECOMMENDED_COLOUR = "#D55E00"
LEVER_COLOUR = "#009E73"
ARROW_COLOUR = "#555555"
DPI = 125
WIDTH_IN = 8.0  # 1000 px: Slack's preview scales it to the thread's width, so fonts are large
MAIN_HEIGHT_IN = 5.0
BAR_HEIGHT_IN = 0.46
MEMORY_EXTRA_IN = 1.75  # the memory panel's title, axis and legend
HEADER_IN = 0.75
FONT = 10.5
MEMORY_ROOM = 1.2  # the memory axis ends this far past the largest usable memory (room for the figures)
FIGURE_WIDTH = 0.16  # of the memory axis: room a bar's "✓ 25.8 GiB" needs before the usable-memory tick
SUBTITLE_CHARS = 80  # longer subtitles go on two lines (the title font fits about 85 characters in WIDTH_IN)
LOG_SPREAD = 8.0  # an axis goes logarithmic when its largest value is more than this times its smallest
OFFSETS_PT = (9, 14, 22, 32, 45, 60, 80, 105)  # label offsets tried, in points from the marker, ring by ring
# directions tried on each ring (radians): the diagonals first (a label beside its point reads as
# its own), then the sides, then the eight in between
DIRECTIONS = tuple(math.radians(a) for a in (45, -45, 135, -135, 0, 180, 90, -90,
                                              22.5, -22.5, 157.5, -157.5, 67.5, -67.5, 112.5, -112.5))
LABEL_SHRINK = (0, 1, 1)  # points a label's font loses, try by try, when no place around its point is free
CHANGES_CHARS = 34  # a plan label's line of changes wraps past this ("+ micro-lote 1, acumulación ×8" fits)
MARKER_PT = {"plan": 8.0, "recommended": 15.0, "lever": 8.0}


def figure_size_px(bars: int) -> tuple[int, int]:
    """(width, height) of the PNG for a memory panel of ``bars`` bars."""
    height = HEADER_IN + MAIN_HEIGHT_IN + MEMORY_EXTRA_IN + BAR_HEIGHT_IN * max(1, bars)
    return round(WIDTH_IN * DPI), round(height * DPI)


@dataclass
class Rendered:
    """The PNG, and what tests and the examples script look at: the figure, its two panels, the
    main panel's labels (annotations) and the points they were drawn from."""

    png: bytes
    figure: Any
    main: Any
    memory: Any
    labels: list[Any]
    chart: ChartPoints


def render_chart(data: dict[str, Any] | Answer, lang: str) -> bytes:
    """The chart as PNG bytes. Raises MissingExtra when matplotlib is not installed."""
    return draw(data, lang).png


def draw(data: dict[str, Any] | Answer, lang: str) -> Rendered:
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ModuleNotFoundError:
        raise MissingExtra(FEATURE, "chart", "matplotlib") from None
    answer = data if isinstance(data, Answer) else Answer.load(data)
    chart = points(answer)
    names = _short_names(chart)
    width, height = figure_size_px(len(chart.bars))
    fig = Figure(figsize=(width / DPI, height / DPI), dpi=DPI)
    FigureCanvasAgg(fig)
    fig.set_layout_engine("constrained", h_pad=0.06, hspace=0.04)
    grid = fig.add_gridspec(2, 1, height_ratios=(MAIN_HEIGHT_IN, MEMORY_EXTRA_IN + BAR_HEIGHT_IN * max(1, len(chart.bars))))
    main = fig.add_subplot(grid[0])
    memory = fig.add_subplot(grid[1])
    title = t("chart.title_per_million" if chart.per_million else "chart.title", lang, model=answer.model or "")
    fig.suptitle(f"{title}\n{_subtitle(answer, chart, lang)}", fontsize=FONT + 2, linespacing=1.5)
    texts = _draw_main(main, chart, names, lang)
    _draw_memory(memory, chart, names, lang)
    fig.get_layout_engine().execute(fig)  # fixes every axes' place (no full draw needed for it)
    fig.set_layout_engine("none")
    labels = _place_labels(fig, main, texts, [(lp.start, lp.end) for lp in chart.levers])
    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=DPI)
    return Rendered(out.getvalue(), fig, main, memory, labels, chart)


# --- words ------------------------------------------------------------------------------------


def _subtitle(answer: Answer, chart: ChartPoints, lang: str) -> str:
    spec = answer.spec
    parts = [t(f"method.{spec.method}", lang), f"{t('bot.field.seq_len', lang)} {value_text('seq_len', spec.seq_len, lang)}"]
    if spec.dataset_tokens is not None:
        parts.append(t("chart.dataset", lang, tokens=value_text("dataset_tokens", spec.dataset_tokens, lang)))
    spec_text, hint = " · ".join(parts), t("chart.hint", lang)
    lines = [f"{spec_text} · {hint}"] if len(spec_text) + len(hint) <= SUBTITLE_CHARS else [spec_text, hint]
    if chart.per_million:
        lines.append(t("chart.no_dataset", lang))
    return "\n".join(lines)


def _short_names(chart: ChartPoints) -> dict[str, str]:
    """'NVIDIA H100 SXM 80 GB' -> 'H100 SXM', unless two offered GPUs would then read the same."""
    full = {b.gpu: gpu_label_of(b.gpu_name) for b in chart.bars}
    short = {g: re.sub(r"\s*\d+\s*GB$", "", name) for g, name in full.items()}
    if len(set(short.values())) < len(short):
        return full
    return short


def gpu_label_of(gpu_name: str) -> str:
    """The catalog name without its vendor, as advisor.report.gpu_label writes an option's."""
    return gpu_name.removeprefix("NVIDIA ").removeprefix("AMD ")


def change_name(change: Any, lang: str) -> str:
    """The short name of one change (a lever without FSDP, or a part of a plan or combined lever):
    'micro-batch 2, accumulation ×4', 'seq 2,048', 'Liger CE'; a combined lever by its parts
    ('Liger CE + 8-bit AdamW + seq 2,048'), never a word that hides what it changes."""
    if change.kind == "combined":
        return " + ".join(change_name(part, lang) for part in change.parts)
    if change.kind == "shorter_seq":
        return t("chart.lever.shorter_seq", lang, seq_len=value_text("seq_len", change.seq_len, lang))
    if change.kind == "micro_batch":
        if change.accumulation is not None:  # schema 3: the micro-batch and the accumulation keeping the batch
            return t("chart.lever.accumulation", lang, micro_batch=change.micro_batch or 1,
                     accumulation=change.accumulation)
        return t("chart.lever.micro_batch", lang, factor=change.factor)
    return t(f"chart.lever.{change.kind}", lang)


def lever_name(lp: LeverPoint, lang: str) -> str:
    """'micro-batch 1, accumulation ×4 · 1× GPU': the lever, and the GPU count it runs on (the
    arrow shows which plan, hence which GPU, it starts from)."""
    lv = lp.lever
    text = change_name(lv, lang)
    if lv.fsdp_gpus is not None:
        text = t("chart.lever.with_fsdp", lang, lever=text)
    return t("chart.lever_point", lang, lever=text, n=lp.num_gpus)


def _plan_label(p: Plan, names: dict[str, str], lang: str) -> str:
    """'1× RTX 4090: recommended / + micro-batch 1, accumulation ×8 · Liger CE / $776 · 73.2 d':
    the plan, the levers it applies (schema 3, Option.plan.changes) and its figures."""
    name = t("chart.point", lang, n=p.num_gpus, gpu=names.get(p.gpu, p.gpu_name))
    if p.nodes > 1:
        name = t("chart.point_nodes", lang, point=name, nodes=p.nodes, per_node=p.gpus_per_node)
    figures = f"{usd(p.usd)} · {hours(p.hours, lang)}"
    lines = [f"{name}: {t('chart.recommended', lang)}" if p.recommended else name]
    for change in (change_name(c, lang) for c in p.changes):  # a line per CHANGES_CHARS, a label stays narrow
        if len(lines) > 1 and len(lines[-1]) + len(change) + 3 <= CHANGES_CHARS:
            lines[-1] += f" · {change}"
        else:
            lines.append(f"+ {change}")
    return "\n".join([*lines, figures])


# --- the main panel -----------------------------------------------------------------------------


_LEADER = dict(arrowstyle="-", color="#999999", lw=0.7, shrinkA=1, shrinkB=6)  # label to its point


@dataclass
class _Label:
    text: Any  # matplotlib Text (an annotation)
    xy: tuple[float, float]  # the data point it names


def _draw_main(ax: Any, chart: ChartPoints, names: dict[str, str], lang: str) -> list[_Label]:
    ax.tick_params(labelsize=FONT)
    if not chart.plans:
        ax.set_axis_off()
        ax.text(0.5, 0.5, t("chart.nothing_fits", lang), ha="center", va="center", fontsize=FONT + 1,
                transform=ax.transAxes, wrap=True)
        return []
    xs = [p.hours for p in chart.plans] + [lp.end[0] for lp in chart.levers]
    ys = [p.usd for p in chart.plans] + [lp.end[1] for lp in chart.levers]
    xlog, ylog = _is_log(xs), _is_log(ys)
    _limits(ax, xs, ys, xlog, ylog)
    _ticks(ax, "x", xlog, lambda v: hours(v, lang), _exact_hours, time=True)
    _ticks(ax, "y", ylog, usd, _exact_usd, time=False)
    x_axis = t("chart.x.per_million" if chart.per_million else "chart.x.run", lang)
    y_axis = t("chart.y.per_million" if chart.per_million else "chart.y.run", lang)
    ax.set_xlabel(t("chart.log", lang, axis=x_axis) if xlog else x_axis, fontsize=FONT)
    ax.set_ylabel(t("chart.log", lang, axis=y_axis) if ylog else y_axis, fontsize=FONT)
    ax.grid(alpha=0.3, which="major")
    labels: list[_Label] = []
    for lp in chart.levers:
        ax.annotate("", xy=lp.end, xytext=lp.start, zorder=2,
                    arrowprops=dict(arrowstyle="-|>", color=ARROW_COLOUR, lw=1.4, shrinkA=7, shrinkB=5,
                                    mutation_scale=13, linestyle=(0, (4, 2))))
        ax.scatter([lp.end[0]], [lp.end[1]], marker="D", s=MARKER_PT["lever"] ** 2, facecolors="white",
                   edgecolors=LEVER_COLOUR, linewidths=1.8, zorder=3, gid="lever")
        labels.append(_Label(ax.annotate(lever_name(lp, lang), lp.end, xytext=(0, 0), textcoords="offset points",
                                         fontsize=FONT - 1.5, style="italic", color="#1f4f3f", zorder=5,
                                         gid="lever", arrowprops=_LEADER), lp.end))
    plain = [p for p in chart.plans if not p.recommended]
    best = [p for p in chart.plans if p.recommended]
    if plain:
        ax.scatter([p.hours for p in plain], [p.usd for p in plain], marker="o", s=MARKER_PT["plan"] ** 2,
                   color=PLAN_COLOUR, zorder=4, label=t("chart.legend.plan", lang))
    for p in best:
        ax.scatter([p.hours], [p.usd], marker="*", s=MARKER_PT["recommended"] ** 2, color=RECOMMENDED_COLOUR,
                   edgecolors="black", linewidths=0.6, zorder=6, label=t("chart.legend.recommended", lang),
                   gid="recommended")
    if chart.levers:
        ax.scatter([], [], marker="D", s=MARKER_PT["lever"] ** 2, facecolors="white", edgecolors=LEVER_COLOUR,
                   linewidths=1.8, label=t("chart.legend.lever", lang))
    plan_labels = []
    for p in best + plain:
        plan_labels.append(_Label(ax.annotate(_plan_label(p, names, lang), (p.hours, p.usd), xytext=(0, 0),
                                              textcoords="offset points", fontsize=FONT,
                                              fontweight="bold" if p.recommended else "normal",
                                              color=RECOMMENDED_COLOUR if p.recommended else "black", zorder=7,
                                              gid="recommended" if p.recommended else "plan",
                                              linespacing=1.25, arrowprops=_LEADER), (p.hours, p.usd)))
    for lab in plan_labels + labels:
        # placed inside the panel after the layout (_place_labels): at their provisional offset a
        # long label would only make the constrained layout shrink the panel to make room for it
        lab.text.set_in_layout(False)
    ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=3, fontsize=FONT - 1.5, frameon=False,
              borderaxespad=0.2, handletextpad=0.3, columnspacing=1.2)
    if chart.not_fitting:
        ax.text(0.0, -0.2, t("chart.not_fitting", lang, gpus=", ".join(names.get(g, g) for g in chart.not_fitting)),
                transform=ax.transAxes, fontsize=FONT - 1.5, color="#555555", va="top")
    return plan_labels + labels


def _is_log(values: list[float]) -> bool:
    positive = [v for v in values if v > 0]
    return len(positive) > 1 and max(positive) / min(positive) > LOG_SPREAD


def _limits(ax: Any, xs: list[float], ys: list[float], xlog: bool, ylog: bool) -> None:
    """Room around the points for their labels: 30% of the span on each side (a factor on a log axis)."""
    for values, log, setter, scale in ((xs, xlog, ax.set_xlim, ax.set_xscale), (ys, ylog, ax.set_ylim, ax.set_yscale)):
        lo, hi = min(values), max(values)
        if log:
            scale("log")
            span = math.log10(hi / lo)
            setter(lo / 10 ** (0.22 * span + 0.08), hi * 10 ** (0.22 * span + 0.08))
        else:
            pad = (hi - lo) * 0.3 or abs(hi) * 0.25 or 1.0
            setter(max(0.0, lo - pad), hi + pad)


def _exact_usd(v: float) -> bool:
    """advisor.format.usd prints whole dollars from $100, cents from $0.10, else tenths of cents."""
    digits = 0 if abs(v) >= 100 else (2 if abs(v) >= 0.1 else 3)
    return abs(v * 10**digits - round(v * 10**digits)) < 1e-6


def _exact_hours(v: float) -> bool:
    """advisor.format.hours prints whole minutes under an hour, tenths of hours under 48 h, else
    tenths of days."""
    scaled = v * 60 if v < 1 else (v * 10 if v < 48 else v / 24 * 10)
    return v > 0 and abs(scaled - round(scaled)) < 1e-6


# ticks a person plans with on a logarithmic time axis, in hours: minutes, hours, days
TIME_TICKS_H = (*(m / 60 for m in (1, 2, 5, 10, 15, 20, 30)), 1, 2, 3, 6, 12, 24,
                *(d * 24 for d in (2, 3, 5, 7, 10, 14, 21, 30, 60, 90, 180, 365)))
MAX_TICKS = 7


def _ticks(ax: Any, axis: str, log: bool, label: Any, exact: Any, time: bool) -> None:
    """At most MAX_TICKS ticks where ``label`` prints the value exactly, labelled by it. A linear
    time axis steps in the unit of its largest value (minutes, hours or days)."""
    from matplotlib.ticker import MaxNLocator, NullLocator

    lo, hi = (ax.get_xlim() if axis == "x" else ax.get_ylim())
    if log:
        pool = TIME_TICKS_H if time else [m * 10**k for k in range(math.floor(math.log10(lo)) - 1,
                                                                      math.ceil(math.log10(hi)) + 1)
                                           for m in (1, 2, 5)]
        ticks = [v for v in pool if lo <= v <= hi and exact(v)]
        while len(ticks) > MAX_TICKS:
            ticks = ticks[::2]
    else:
        unit = (1 / 60 if hi < 1 else (1 if hi < 48 else 24)) if time else 1
        ticks = []
        for nbins in (6, 5, 4, 3):
            ticks = [v * unit for v in MaxNLocator(nbins=nbins, steps=[1, 2, 5, 10]).tick_values(lo / unit, hi / unit)]
            ticks = [v for v in ticks if lo <= v <= hi and (v == 0 or exact(v))]
            if len(ticks) >= 3:
                break
    ticks = sorted(set(ticks))
    (ax.xaxis if axis == "x" else ax.yaxis).set_minor_locator(NullLocator())
    (ax.set_xticks if axis == "x" else ax.set_yticks)(ticks, [label(v) if v else "0" for v in ticks])


def _anchor(text: Any, angle: float, radius: float) -> None:
    """Put ``text`` ``radius`` points from its point at ``angle``, aligned away from the point."""
    dx, dy = math.cos(angle), math.sin(angle)
    text.set_position((dx * radius, dy * radius))
    text.set_ha("left" if dx > 0.3 else ("right" if dx < -0.3 else "center"))
    text.set_va("bottom" if dy > 0.3 else ("top" if dy < -0.3 else "center"))


def _place_labels(fig: Any, ax: Any, labels: list[_Label],
                  arrows: list[tuple[tuple[float, float], tuple[float, float]]]) -> list[Any]:
    """Each label at the first offset (nearest ring first, DIRECTIONS in order) whose box stays in
    the panel, covers no marker, arrow, leader line or label placed before it, and whose own
    leader line crosses none of them (module docstring). Returns the Text artists."""
    renderer = fig.canvas.get_renderer()
    panel = ax.get_window_extent(renderer)
    px = fig.dpi / 72  # pixels per point
    marks = []  # every named point is an obstacle for the other labels
    for lab in labels:
        x, y = ax.transData.transform(lab.xy)
        r = MARKER_PT["recommended" if lab.text.get_gid() == "recommended" else "plan"] * px * 0.6
        marks.append(_box(x - r, y - r, x + r, y + r))
    segments = [(tuple(ax.transData.transform(a)), tuple(ax.transData.transform(b))) for a, b in arrows]
    placed: list[Any] = []
    for lab in labels:
        text, own = lab.text, tuple(ax.transData.transform(lab.xy))
        others = [m for m in marks if not m.contains(*own)]
        boxes = [*placed, *others]
        # arrows leaving this label's point: its leader must not run along one
        leaving = [math.atan2(q[1] - p[1], q[0] - p[0]) for p, q in segments if _dist(p, own) <= 1]
        chosen = None
        for shrink in LABEL_SHRINK:  # a crowded panel: the label a point smaller, then another
            text.set_fontsize(text.get_fontsize() - shrink)
            chosen = _free_place(text, renderer, panel, own, boxes, segments, leaving)
            if chosen is not None:
                break
        if chosen is None:  # no free place in the rings: the least crowded one inside the panel
            chosen = _least_crowded(text, renderer, panel, boxes)
        radius, box = chosen
        if radius <= OFFSETS_PT[0]:  # next to its point: no leader line needed
            text.arrow_patch.set_visible(False)
        else:
            segments.append((own, _clip_to_box(own, box)))
        placed.append(box)
    return [lab.text for lab in labels]


def _free_place(text: Any, renderer: Any, panel: Any, own: Any, boxes: list[Any], segments: list[Any],
                leaving: list[float]) -> tuple[float, Any] | None:
    """The first offset where ``text`` is clear (``_place_labels``), as (radius, box), or None."""
    for radius in OFFSETS_PT:
        for angle in DIRECTIONS:
            _anchor(text, angle, radius)
            box = text_box(text, renderer)
            if not (panel.x0 + 2 <= box.x0 and box.x1 <= panel.x1 - 2 and panel.y0 + 2 <= box.y0
                    and box.y1 <= panel.y1 - 2):
                continue
            padded = box.padded(2)
            if any(_overlap(box, o) for o in boxes) or padded.contains(*own):
                continue
            if any(_segment_hits_box(p, q, padded) for p, q in segments):
                continue
            leader = (own, _clip_to_box(own, box))
            if radius > OFFSETS_PT[0] and (any(_segment_hits_box(*leader, o) for o in boxes)
                                           or any(_crosses(*leader, p, q) for p, q in segments)
                                           or _along(leader, leaving)):
                continue
            return radius, box
    return None


def _along(leader: Any, angles: list[float], within: float = math.radians(20)) -> bool:
    """Whether the leader leaves its point within ``within`` of one of ``angles``."""
    (x0, y0), (x1, y1) = leader
    direction = math.atan2(y1 - y0, x1 - x0)
    return any(abs((direction - a + math.pi) % (2 * math.pi) - math.pi) < within for a in angles)


def _dist(a: Any, b: Any) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def _clip_to_box(point: Any, box: Any) -> tuple[float, float]:
    """Where the line from ``point`` to the centre of ``box`` enters the box (the leader's end)."""
    cx, cy = (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2
    dx, dy = point[0] - cx, point[1] - cy
    scale = min(abs((box.width / 2) / dx) if dx else math.inf, abs((box.height / 2) / dy) if dy else math.inf, 1.0)
    return cx + dx * scale, cy + dy * scale


def _crosses(p1: Any, p2: Any, q1: Any, q2: Any) -> bool:
    """Whether segments p1-p2 and q1-q2 properly intersect (orientation test)."""
    def side(a: Any, b: Any, c: Any) -> float:
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

    return (side(p1, p2, q1) * side(p1, p2, q2) < 0) and (side(q1, q2, p1) * side(q1, q2, p2) < 0)


def _segment_hits_box(p: Any, q: Any, box: Any) -> bool:
    if box.contains(*p) or box.contains(*q):
        return True
    corners = ((box.x0, box.y0), (box.x1, box.y0), (box.x1, box.y1), (box.x0, box.y1))
    return any(_crosses(p, q, corners[i], corners[(i + 1) % 4]) for i in range(4))


def _least_crowded(text: Any, renderer: Any, panel: Any, taken: list[Any]) -> tuple[float, Any]:
    scored = []
    for radius in OFFSETS_PT:
        for angle in DIRECTIONS:
            _anchor(text, angle, radius)
            box = text_box(text, renderer)
            outside = (max(0, panel.x0 - box.x0) + max(0, box.x1 - panel.x1) + max(0, panel.y0 - box.y0)
                       + max(0, box.y1 - panel.y1))
            crowd = sum(_area(box, other) for other in taken)
            scored.append((outside * 1000 + crowd, radius, angle))
    _, radius, angle = min(scored)
    _anchor(text, angle, radius)
    return radius, text_box(text, renderer)


def text_box(text: Any, renderer: Any) -> Any:
    """The box of a label's text alone, in pixels (an Annotation's own extent adds its leader line)."""
    from matplotlib.text import Text

    if hasattr(text, "update_positions"):  # an Annotation places its text at draw time (matplotlib.text.Annotation)
        text.update_positions(renderer)
    return Text.get_window_extent(text, renderer)


def _box(x0: float, y0: float, x1: float, y1: float) -> Any:
    from matplotlib.transforms import Bbox

    return Bbox([[x0, y0], [x1, y1]])


def _overlap(a: Any, b: Any, pad: float = 2.0) -> bool:
    return a.x0 < b.x1 + pad and b.x0 < a.x1 + pad and a.y0 < b.y1 + pad and b.y0 < a.y1 + pad


def _area(a: Any, b: Any) -> float:
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return max(0.0, w) * max(0.0, h)


# --- the memory panel -----------------------------------------------------------------------------


def _draw_memory(ax: Any, chart: ChartPoints, names: dict[str, str], lang: str) -> None:
    bars: tuple[Bar, ...] = chart.bars
    ax.tick_params(labelsize=FONT - 0.5)
    ax.set_title(t("chart.memory_title", lang), fontsize=FONT, loc="left")
    if not bars:
        ax.set_axis_off()
        return
    # the x range: the offered GPUs' usable memory, and what fits on them
    limit = max(max(b.usable_bytes for b in bars), max(b.device_bytes for b in bars if b.fits) if any(
        b.fits for b in bars) else 0) / GIB * MEMORY_ROOM
    rows = list(range(len(bars)))
    left = [0.0] * len(bars)
    with_terms = any(b.terms for b in bars)
    for term, colour in zip(TERMS, COLOURS):
        sizes = [b.terms.get(term, 0) / GIB for b in bars]
        if any(sizes):
            ax.barh(rows, [min(s, max(0.0, limit - l0)) for s, l0 in zip(sizes, left)], left=left, color=colour,
                    label=t(f"bot.term.{term}", lang), height=0.62)
            left = [a + b for a, b in zip(left, sizes)]
    rest = [max(0.0, b.device_bytes / GIB - done) for b, done in zip(bars, left)]
    if any(rest):
        ax.barh(rows, [min(r, max(0.0, limit - l0)) for r, l0 in zip(rest, left)], left=left, color="#DDDDDD",
                hatch="//", height=0.62, label=t("bot.chart.overhead" if with_terms else "bot.chart.device", lang))
    ax.scatter([b.usable_bytes / GIB for b in bars], rows, marker="|", s=700, color="black", linewidths=2.6,
               zorder=4, label=t("bot.chart.capacity", lang))
    for row, b in zip(rows, bars):
        shown = b.device_bytes / GIB
        mark = "✓" if b.fits else "✗"
        if shown > limit * (1 - FIGURE_WIDTH):  # no room after the bar: the figure goes on its end
            text = f"{mark} {t('chart.needs', lang, size=size(b.device_bytes))}" if shown > limit else \
                f"{mark} {size(b.device_bytes)}"
            ax.text(min(shown, limit) - limit * 0.012, row, text, va="center", ha="right", fontsize=FONT - 1,
                    color="white", fontweight="bold", zorder=5,
                    bbox=dict(boxstyle="round,pad=0.2", fc="#007a55" if b.fits else "#D55E00", ec="none"))
        else:
            room = b.usable_bytes / GIB - shown  # the figure sits after the bar when it clears the tick
            at = shown if room > limit * FIGURE_WIDTH else max(shown, b.usable_bytes / GIB)
            ax.text(at + limit * 0.012, row, f"{mark} {size(b.device_bytes)}", va="center",
                    color="#007a55" if b.fits else "#D55E00", fontsize=FONT - 1)
    labels = [("★ " if b.recommended else "") + t("chart.point", lang, n=b.num_gpus, gpu=names.get(b.gpu, b.gpu_name))
              for b in bars]
    ax.set_yticks(rows, labels)
    for tick, b in zip(ax.get_yticklabels(), bars):
        if b.recommended:
            tick.set_fontweight("bold")
            tick.set_color(RECOMMENDED_COLOUR)
    ax.set_ylim(len(bars) - 0.5, -0.5)
    ax.set_xlim(0, limit)
    ax.set_xlabel(t("bot.chart.axis", lang), fontsize=FONT - 0.5)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.32 if len(bars) > 2 else -0.6), ncol=3,
              fontsize=FONT - 2.5, frameon=False)
