""""Show chart" (bot.chart, bot.chart_points): cost against time per offered GPU and count, the
recommendation marked, levers as arrows to the point the advisor itself gives the changed spec,
the memory stack of the offered GPUs only, labels that do not overlap, both languages, and the
button end to end through the fake Slack."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from advisor.i18n import t
from advisor.recommend import recommend
from advisor.resolve import resolve_request
from advisor.spec import SpecRequest
from bot.chart_points import points
from tests.conftest import ROOT, have
from tests.fakeslack import BotProcess

pytestmark = pytest.mark.skipif(not have("matplotlib"), reason="the chart extra (matplotlib) is not installed")

LORA_8B = dict(method="lora", model="llama-3.1-8b", seq_len=4096, dataset_tokens=50_000_000)
QLORA_70B = dict(method="qlora", model="llama-3-70b", seq_len=8192)
MISTRAL_4090 = dict(method="lora", model="mistral-7b", seq_len=4096, micro_batch=4)  # the example, levers
FULL_8B = dict(method="full", model="llama-3.1-8b", seq_len=4096, dataset_tokens=100_000_000)  # levers on every GPU
SPECS = {"lora8b": LORA_8B, "qlora70b": QLORA_70B, "mistral": MISTRAL_4090,
         "mistral_data": {**MISTRAL_4090, "dataset_tokens": 50_000_000}, "full8b": FULL_8B}
LEVER_TOLERANCE = 0.005  # a lever's derived point against the advisor's answer for the changed spec


def _answer(catalog, **said):
    return recommend(resolve_request(SpecRequest(**said), catalog), catalog)


@pytest.fixture(scope="module")
def answers(catalog):
    return {name: _answer(catalog, **spec) for name, spec in SPECS.items()}


@pytest.fixture(scope="module")
def drawn(answers):
    from bot.chart import draw

    return {(name, lang): draw(answer, lang) for name, answer in answers.items() for lang in ("en", "es")}


def test_the_png_decodes_at_the_size_the_layout_says(drawn):
    from matplotlib.image import imread

    from bot.chart import figure_size_px

    for (name, _), r in drawn.items():
        image = imread(io.BytesIO(r.png), format="png")
        width, height = figure_size_px(len(r.chart.bars))
        assert image.shape[:2] == (height, width), name
        assert image[..., :3].std() > 0.05  # not a blank canvas


def test_points_are_exactly_the_offered_gpus_that_fit_once_per_gpu_and_count(answers):
    for name, answer in answers.items():
        chart = points(answer)
        fitting = {(o.gpu, o.num_gpus) for o in answer.options if o.offered and o.fits}
        assert [(p.gpu, p.num_gpus) for p in chart.plans] == list(dict.fromkeys((p.gpu, p.num_gpus) for p in chart.plans))
        assert {(p.gpu, p.num_gpus) for p in chart.plans} == fitting, name
        assert all(answer.option(p.gpu).offered for p in chart.plans)
    # an answer that lists a (GPU, count) twice still draws it once
    answer = answers["lora8b"]
    doubled = answer.model_copy(update={"options": answer.options + answer.options})
    assert points(doubled).plans == points(answer).plans and points(doubled).bars == points(answer).bars


def test_gpus_that_fit_nowhere_are_not_points_but_are_named(catalog):
    # QLoRA 70B at 16k: L40S x8, A100 x4 and H100 x4 fit; the RTX 4090 fits at no count within the
    # ceiling (at 8k it now fits 8 x RTX 4090 under FSDP, since the FSDP2 trace corrected the estimate)
    chart = points(_answer(catalog, method="qlora", model="llama-3-70b", seq_len=16384))
    assert "rtx-4090" in chart.not_fitting and "rtx-4090" not in {p.gpu for p in chart.plans}
    assert any(b.gpu == "rtx-4090" and not b.fits for b in chart.bars)  # the memory panel says why


def test_the_axes_are_the_answers_own_figures(answers):
    for p in points(answers["lora8b"]).plans:  # with a dataset size: hours and $ to an accepted checkpoint
        o = answers["lora8b"].option(p.gpu)
        assert (p.hours, p.usd) == (o.hours, o.cost_usd)
    chart = points(answers["qlora70b"])  # without: per million trained tokens, the table's $/M
    assert chart.per_million
    for p in chart.plans:
        o = answers["qlora70b"].option(p.gpu)
        assert p.usd == o.price_per_million_tokens and p.hours == pytest.approx(1e6 / o.tokens_per_s / 3600)


def test_the_recommendation_is_marked(answers, drawn):
    for (name, lang), r in drawn.items():
        answer = answers[name]
        [best] = [p for p in r.chart.plans if p.recommended]
        assert (best.gpu, best.num_gpus) == (answer.best.gpu, answer.best.num_gpus)
        [star] = [c for c in r.main.collections if c.get_gid() == "recommended"]
        assert tuple(star.get_offsets()[0]) == pytest.approx((best.hours, best.usd))
        [label] = [x for x in r.labels if x.get_gid() == "recommended"]
        assert t("chart.recommended", lang) in label.get_text() and tuple(label.xy) == (best.hours, best.usd)
        bold = [tick.get_text() for tick in r.memory.get_yticklabels() if tick.get_fontweight() == "bold"]
        assert len(bold) == 1 and bold[0].startswith("★")


def _lever_spec(base: dict, lp) -> dict:
    lv = lp.lever
    spec = {**base, "gpu": lp.gpu, "num_gpus": lp.num_gpus}
    if lv.kind == "shorter_seq":
        spec["seq_len"] = lv.seq_len
    elif lv.kind == "micro_batch":
        spec.update(micro_batch=1, gradient_accumulation_steps=lv.factor)
    elif lv.kind in ("qlora", "lora"):
        spec.update(method=lv.kind)
    else:
        return {}
    return spec


def test_lever_arrows_go_from_the_plan_to_where_the_advisor_puts_the_changed_spec(catalog, answers, drawn):
    """The lever's point is derived from its cost_factor; the advisor's own answer for the spec
    with the lever applied, on that GPU and count, must land there."""
    checked = set()
    for name, answer in answers.items():
        chart = points(answer)
        plans = {p.gpu: (p.hours, p.usd) for p in chart.plans}
        for lp in chart.levers:
            assert lp.start == plans[lp.gpu]
            assert lp.lever.fits and not (lp.lever.kind == "fsdp" and lp.num_gpus == answer.option(lp.gpu).num_gpus)
            spec = _lever_spec(SPECS[name], lp)
            if not spec:
                continue
            o = _answer(catalog, **spec).option(lp.gpu)
            assert o.fits and o.num_gpus == lp.num_gpus
            ref = (1e6 / o.tokens_per_s / 3600, o.price_per_million_tokens) if chart.per_million else (o.hours, o.cost_usd)
            assert lp.end == pytest.approx(ref, rel=LEVER_TOLERANCE), (name, lp.lever.kind)
            checked.add((name, lp.lever.kind))
        # each lever is one arrow in the figure, from its plan's point to its own
        r = drawn[(name, "en")]
        arrows = sorted((tuple(a.xyann), tuple(a.xy)) for a in r.main.texts if a.get_text() == "" and a.arrow_patch)
        assert arrows == sorted((lp.start, lp.end) for lp in chart.levers)
    assert {("mistral", "shorter_seq"), ("mistral_data", "qlora"), ("lora8b", "shorter_seq"),
            ("qlora70b", "shorter_seq"), ("lora8b", "qlora"), ("full8b", "lora")} <= checked


@pytest.mark.parametrize("name", ["mistral", "mistral_data"])
def test_a_lever_plan_that_is_the_recommendation_is_the_star_and_no_arrow(answers, drawn, name):
    """Schema 3: the issue's example (Mistral 7B, micro-batch 4) runs on one RTX 4090 with
    gradient accumulation (Option.plan.changes); that plan is the starred point at its own figures,
    its label names the lever, and the lever it already applies is not drawn again."""
    answer = answers[name]
    best = answer.best
    assert best.plan is not None and [c.kind for c in best.plan.changes] == ["micro_batch"]
    [change] = best.plan.changes
    chart = points(answer)
    [star] = [p for p in chart.plans if p.recommended]
    money = best.plan.cost_usd if best.plan.cost_usd is not None else best.plan.price_per_million_tokens
    hours = best.plan.hours if best.plan.hours is not None else 1e6 / best.plan.tokens_per_s / 3600
    assert (star.gpu, star.num_gpus, star.changes) == (best.gpu, best.plan.num_gpus, best.plan.changes)
    assert (star.hours, star.usd) == pytest.approx((hours, money))
    applied = set(best.plan.changes)
    assert not [lp for lp in chart.levers if lp.gpu == best.gpu and lp.num_gpus == best.plan.num_gpus
                and lp.lever.changes() and set(lp.lever.changes()) <= applied]
    assert [lp for lp in chart.levers if lp.gpu == best.gpu]  # the other levers still are arrows
    for lang in ("en", "es"):
        [label] = [x for x in drawn[(name, lang)].labels if x.get_gid() == "recommended"]
        words = t("chart.lever.accumulation", lang, micro_batch=change.micro_batch, accumulation=change.accumulation)
        assert words in label.get_text()


def test_an_answer_stored_before_the_upgrade_still_charts_its_levers():
    """Schema 1 (before issue #15) stored the run's phases and cost: its levers are drawn from them.
    Without itemized figures a lever's point scales the plan's hours by the speed-up and its cost
    by the GPU-time per token (bot.chart_points docstring), within 1% of the itemized point here
    (start-up, saves and storage, which do not scale, are small next to training)."""
    from advisor.answer_model import Answer
    from bot.chart import draw

    data = json.loads((ROOT / "tests" / "data" / "golden_blocks" / "answer_qlora70b_en.json").read_text())["data"]
    assert "schema_version" not in data
    answer = Answer.load(data)
    chart = points(answer)
    assert chart.levers and not chart.per_million
    bare = answer.model_copy(update={"options": tuple(o.model_copy(update={"time": None, "cost": None})
                                                      for o in answer.options)})
    for lp, rough in zip(chart.levers, points(bare).levers, strict=True):
        o = answer.option(lp.gpu)
        [plan] = [lv for lv in o.levers if lv.kind == "fsdp" and lv.num_gpus == o.num_gpus]
        g = lp.lever.cost_factor / plan.cost_factor
        speedup = lp.num_gpus / o.num_gpus / g
        assert lp.start == rough.start == (o.hours, o.cost_usd)
        assert rough.end == pytest.approx((o.hours / speedup, o.cost_usd * g))
        assert lp.end == pytest.approx(rough.end, rel=0.01)
    assert draw(data, "es").png.startswith(b"\x89PNG")


def test_the_memory_panel_lists_only_offered_gpus_once_each(answers, drawn):
    for (name, lang), r in drawn.items():
        answer = answers[name]
        offered = list(dict.fromkeys((o.gpu, o.num_gpus or 1) for o in answer.options if o.offered))
        assert [(b.gpu, b.num_gpus) for b in r.chart.bars] == offered
        ticks = [tick.get_text() for tick in r.memory.get_yticklabels()]
        assert len(ticks) == len(set(ticks)) == len(offered)
        # the x range is the offered GPUs': no 180-192 GiB GPU we do not rent stretches it
        assert r.memory.get_xlim()[1] <= max(o.usable_bytes for o in answer.options if o.offered) / 1024**3 * 1.25


def test_labels_do_not_overlap_and_stay_in_the_panel(drawn):
    from bot.chart import text_box

    for key, r in drawn.items():
        renderer = r.figure.canvas.get_renderer()
        panel = r.main.get_window_extent(renderer)
        boxes = [text_box(x, renderer) for x in r.labels]
        assert len(boxes) == len(r.chart.plans) + len(r.chart.levers), key
        for i, a in enumerate(boxes):
            assert panel.x0 <= a.x0 and a.x1 <= panel.x1 and panel.y0 <= a.y0 and a.y1 <= panel.y1, key
            for b in boxes[i + 1:]:
                assert not a.overlaps(b), (key, r.labels[i].get_text())


def test_both_panels_speak_the_answers_language(drawn):
    for (name, lang), r in drawn.items():
        per_million = r.chart.per_million
        x_axis = t("chart.x.per_million" if per_million else "chart.x.run", lang)
        assert r.main.get_xlabel() in (x_axis, t("chart.log", lang, axis=x_axis))
        assert r.memory.get_xlabel() == t("bot.chart.axis", lang)
        legend = [x.get_text() for x in r.memory.get_legend().get_texts()]
        assert t("bot.chart.capacity", lang) in legend
    es = drawn[("lora8b", "es")].main.get_ylabel()
    assert es == t("chart.y.run", "es") != t("chart.y.run", "en")


def test_a_job_nothing_fits_says_so_instead_of_an_empty_plot(catalog):
    from bot.chart import draw

    answer = _answer(catalog, method="full", params_b=900, seq_len=131072)
    assert answer.recommended is None
    r = draw(answer, "en")
    assert not r.chart.plans and r.png.startswith(b"\x89PNG")
    assert any(x.get_text() == t("chart.nothing_fits", "en") for x in r.main.texts)


def test_the_bot_starts_without_matplotlib_and_the_chart_says_what_to_install():
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "import bot.app, bot.listeners.actions.chart\n"
        "from bot.chart import render_chart\n"
        "from advisor.errors import MissingExtra\n"
        "try:\n"
        "    render_chart({}, 'en')\n"
        "except MissingExtra as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert "chart" in out.stdout and "matplotlib" in out.stdout


@pytest.fixture(scope="module")
def bot(slack, tmp_path_factory):
    process = BotProcess(slack, tmp_path_factory.mktemp("bot")).start()
    yield process
    process.stop()


def test_show_chart_through_the_fake_slack_uploads_the_two_panel_png(bot, slack):
    from matplotlib.image import imread

    from bot.chart import figure_size_px

    reply = bot.command("lora llama-3.1-8b seq 4096 50M tokens", channel="CCHARTS",
                        response_url=slack.response_url("CCHARTS"))
    assert reply.status == 200
    [answer] = slack.wait_for("chat.postMessage", lambda c: c.args.get("channel") == "CCHARTS")
    root = answer.result["ts"]
    bot.wait_remembered("CCHARTS", root)
    assert bot.action("show_chart", "chart", channel="CCHARTS", message_ts=root).status == 200
    [done] = slack.wait_for("files.completeUploadExternal", lambda c: c.args.get("channel_id") == "CCHARTS",
                            timeout=60)
    assert done.args["thread_ts"] == root and done.result["ok"]
    files = json.loads(done.args["files"]) if isinstance(done.args["files"], str) else done.args["files"]
    assert files[0]["title"] == t("chart.file_title", "en", model="Llama 3.1 8B")
    png = slack.uploads[files[0]["id"]]
    image = imread(io.BytesIO(png), format="png")
    assert image.shape[:2] == figure_size_px(4)[::-1]  # the four offered GPUs' bars


def _grid(n: int) -> list[dict]:
    """A seeded sample of specs nobody tuned the layout on: catalog models from 0.5B to 405B,
    every method, short and long sequences, with and without a dataset size, micro-batches."""
    import itertools
    import random

    models = ("qwen2.5-0.5b", "gemma-2-9b", "llama-2-13b", "mistral-nemo-12b", "qwen2.5-32b", "mixtral-8x7b",
              "llama-3.1-70b", "llama-3.1-405b", "phi-4")
    product = itertools.product(models, ("full", "lora", "qlora"), (1024, 4096, 16384), (None, 20_000_000, 2_000_000_000),
                                (1, 8))
    return [dict(model=m, method=meth, seq_len=seq, dataset_tokens=data, micro_batch=mb)
            for m, meth, seq, data, mb in random.Random(16).sample(list(product), n)]


@pytest.mark.parametrize("spec", _grid(10), ids=lambda s: "-".join(str(v) for v in s.values()))
def test_any_answer_draws_clean_labels_and_the_offered_gpus_only(catalog, spec):
    from bot.chart import draw, text_box

    answer = _answer(catalog, **spec)
    r = draw(answer, "es")
    renderer = r.figure.canvas.get_renderer()
    panel = r.main.get_window_extent(renderer)
    boxes = [text_box(x, renderer) for x in r.labels]
    for i, a in enumerate(boxes):
        assert panel.x0 <= a.x0 and a.x1 <= panel.x1 and panel.y0 <= a.y0 and a.y1 <= panel.y1
        assert not any(a.overlaps(b) for b in boxes[i + 1:]), r.labels[i].get_text()
    assert {(p.gpu, p.num_gpus) for p in r.chart.plans} == {(o.gpu, o.num_gpus) for o in answer.options
                                                            if o.offered and o.fits}
    assert {b.gpu for b in r.chart.bars} == {o.gpu for o in answer.options if o.offered}


@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_combined_lever_arrow_is_labelled_by_its_parts(lang):
    """A combined lever's arrow names what it changes, part by part (issue #16 follow-up, item 4),
    never a catch-all word."""
    from advisor.answer_model import Change, Lever
    from bot.chart import lever_name
    from bot.chart_points import LeverPoint
    from bot.render.labels import value_text

    parts = (Change(kind="fused_ce"), Change(kind="optimizer_8bit"), Change(kind="shorter_seq", seq_len=2048))
    lever = Lever(kind="combined", parts=parts, device_bytes=20 * 2**30, fits=True, num_gpus=1, cost_factor=1.1)
    label = lever_name(LeverPoint("rtx-4090", "NVIDIA GeForce RTX 4090", lever, 1, (1.0, 1.0), (1.1, 1.1)), lang)
    names = [t("chart.lever.fused_ce", lang), t("chart.lever.optimizer_8bit", lang),
             t("chart.lever.shorter_seq", lang, seq_len=value_text("seq_len", 2048, lang))]
    assert all(name in label for name in names), (label, names)
    assert label.index(names[0]) < label.index(names[1]) < label.index(names[2])
    assert "all levers" not in label and "todas las palancas" not in label
