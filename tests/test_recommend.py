"""Ranking every catalog GPU, with reasons, levers and notes (advisor.recommend: numbers and codes;
advisor.report: their words)."""

import json

import pytest

from advisor.answer_model import SCHEMA_VERSION
from advisor.fit import FIT_MARGIN
from advisor.recommend import recommend
from advisor.report import notes_text, reason_text, render_text
from advisor.resolve import resolve_request
from advisor.spec import SpecRequest

CONTRACT_OPTION_KEYS = {"gpu", "fits", "num_gpus", "device_bytes", "memory", "tokens_per_s", "hours", "cost_usd"}


class Pilots:
    """A calibration store (the real protocol, in memory)."""

    def __init__(self, factors=None, reserved=None):
        self._factors, self._reserved = factors or {}, reserved or {}

    def step_factors(self, gpu, stack):
        return self._factors.get(gpu.id)

    def reserved_ratio(self, gpu_id, stack):
        return self._reserved.get(gpu_id)


def _rec(catalog, calibration=None, max_gpus=8, **said):
    return recommend(resolve_request(SpecRequest(**said), catalog), catalog, calibration=calibration,
                     max_gpus=max_gpus)


def _notes(rec, lang="en"):
    return notes_text(rec, lang)


QLORA_70B = dict(model="llama-3-70b", method="qlora", seq_len=8192)
LORA_8B = dict(model="llama-3.1-8b", method="lora", seq_len=4096, dataset_tokens=50_000_000, epochs=3)


def test_qlora_70b_at_8k_lists_every_gpu_with_fit_count_speed_and_price(catalog):
    rec = _rec(catalog, **QLORA_70B)
    out = rec.dump()
    assert out["schema_version"] == SCHEMA_VERSION
    assert sorted(o["gpu"] for o in out["options"]) == sorted(g.id for g in catalog.gpus())
    assert all(CONTRACT_OPTION_KEYS <= set(o) for o in out["options"])
    assert rec.recommended in {g.id for g in catalog.gpus(offered_only=True)}
    for o in rec.options:
        assert o.fits == (o.num_gpus is not None) == (o.tokens_per_s is not None)
        too_big_for_one = rec.memory.device_bytes > o.usable_bytes * (1 - FIT_MARGIN)
        # too big for one card as asked: it needs more cards, or a lever plan on one (schema 3)
        on_more_or_levers = not o.fits or o.num_gpus > 1 or bool(o.plan.changes)
        assert (o.reason is not None) == too_big_for_one == on_more_or_levers


def test_qlora_70b_with_a_dataset_has_hours_and_cost_consistent_with_price(catalog):
    rec = _rec(catalog, **QLORA_70B, dataset_tokens=20_000_000, epochs=2)
    priced = [o for o in rec.options if o.fits and o.price_usd_per_hour is not None]
    assert priced and rec.recommended == priced[0].gpu
    for o in priced:
        t, f = o.time, rec.spec.costs.failed_run_fraction
        gpu_usd = ((t.training_s + t.checkpoint_s + t.startup_s) * (1 + f) + t.evaluation_s + t.pilot_s) / 3600
        expected = gpu_usd * o.price_usd_per_hour * o.num_gpus + o.cost.storage_gb * 0.07 * 1.0
        assert o.cost_usd == pytest.approx(expected, rel=1e-9)
        assert o.hours == pytest.approx(t.run_s / 3600, rel=1e-12)
        # training is the dataset over the throughput; the rest (startup, evaluation) comes on top
        assert t.training_s == pytest.approx(20e6 * 2 / o.tokens_per_s, rel=1e-9) and o.hours > t.training_s / 3600


def test_offered_first_ranked_by_cost_then_time(catalog):
    rec = _rec(catalog, **LORA_8B)
    offered = [o.offered for o in rec.options]
    assert offered == sorted(offered, reverse=True)
    costs = [o.cost_usd for o in rec.options if o.offered and o.fits]
    assert costs == sorted(costs)
    assert rec.options[0].gpu == rec.recommended


def test_lora_8b_answer_itemizes_cost_and_gives_the_planning_window(catalog):
    rec = _rec(catalog, **LORA_8B)
    best = rec.option(rec.recommended)
    c = best.cost
    assert c.total_usd == pytest.approx(c.training_usd + c.overhead_usd + c.failures_usd + c.evaluation_usd
                                        + c.pilot_usd + c.storage_usd, rel=1e-12)
    assert min(c.training_usd, c.evaluation_usd, c.failures_usd, c.storage_usd) > 0
    itemized = next(n for n in _notes(rec) if n.startswith("Cost on"))
    for word in ("training", "evaluation", "failed runs (30%)", "storage", "= " + f"${c.total_usd:,.2f}"):
        assert word in itemized
    window = next(n for n in _notes(rec) if n.startswith("Planning windows"))
    assert "8 h $" in window and "GPU-hours" in window and [w.hours for w in rec.planning.windows] == [8, 40, 120]


def test_rtx_4090_planning_windows_in_the_answer(catalog):
    rec = _rec(catalog, model="llama-3.1-8b", method="qlora", seq_len=2048, dataset_tokens=5_000_000, epochs=1)
    assert rec.recommended == "rtx-4090"
    assert [w.price_usd for w in rec.planning.windows] == [2.72, 13.60, 40.80]
    assert "8 h $2.72, 40 h $13.60, 120 h $40.80" in " ".join(_notes(rec))


@pytest.mark.parametrize("gpu, must_fit", [("l40s", {"shorter_seq", "micro_batch", "gradient_checkpointing"}),
                                            ("rtx-4090", {"combined"})])
def test_a_gpu_too_small_for_one_card_says_why_and_which_levers_fit(catalog, gpu, must_fit):
    rec = _rec(catalog, model="llama-3.1-8b", method="lora", seq_len=2048, micro_batch=2,
               gradient_checkpointing=False)
    o = rec.option(gpu)
    assert o.reason is not None and o.reason.usable_bytes == o.usable_bytes and o.reason.need_bytes > o.usable_bytes * (1 - FIT_MARGIN)
    assert f"{o.usable_bytes / 2**30:.1f} GiB usable" in reason_text(o.reason, "en")
    assert o.levers[0].fits and o.levers[0].num_gpus == 1
    for lv in o.levers:
        assert lv.fits == (lv.device_bytes <= o.usable_bytes * (1 - FIT_MARGIN))
        assert lv.device_bytes < rec.memory.device_bytes
    assert must_fit <= {lv.kind for lv in o.levers if lv.fits and lv.num_gpus == 1}


def test_full_70b_needs_fsdp_and_the_reason_names_the_largest_term(catalog):
    rec = _rec(catalog, model="llama-3.1-70b", method="full", seq_len=4096, dataset_tokens=10**8, max_gpus=64)
    a100 = rec.option("a100-80gb")
    assert a100.fits and a100.num_gpus > 8 and a100.sharding == "fsdp"
    assert a100.plan.nodes * a100.plan.gpus_per_node == a100.num_gpus and a100.plan.network_gbps == 1600
    assert a100.device_bytes <= a100.usable_bytes * (1 - FIT_MARGIN)
    assert a100.reason.term in ("optimizer_states", "master_weights")
    assert "optimizer states" in reason_text(a100.reason, "en") or "fp32 master weights" in reason_text(a100.reason, "en")
    assert any(lv.kind == "fsdp" and lv.num_gpus == a100.num_gpus for lv in a100.levers)


def test_when_no_offered_gpu_fits_the_notes_say_so_and_what_would(catalog):
    # seq 4096: at 8192 not even LoRA over 64 A100s fits once the allocator's slack on the
    # unsharded activations and logits is counted (advisor.allocator.closed_form)
    rec = _rec(catalog, model="llama-3.1-405b", method="full", seq_len=4096, max_gpus=64)
    assert rec.recommended is None
    assert rec.notes[0].code == "nothing_fits" and rec.notes[0].max_gpus == 64
    assert _notes(rec)[0] == "No GPU we rent fits this run, even 64 of them with FSDP."
    lever = next(n for n in _notes(rec) if "it would fit with" in n)
    assert "FSDP over" in lever
    assert any(lv.fits and lv.fsdp_gpus for lv in rec.option("a100-80gb").levers)


def test_without_dataset_size_answers_per_million_tokens(catalog):
    rec = _rec(catalog, **QLORA_70B)
    best = rec.option(rec.recommended)
    assert best.cost_usd is None and best.hours is None
    per_m = best.price_usd_per_hour * best.num_gpus / (best.tokens_per_s * 3600) * 1e6
    assert best.price_per_million_tokens == pytest.approx(per_m, rel=1e-12)
    assert any("per million trained tokens" in n for n in _notes(rec))


def test_calibration_changes_throughput_and_is_noted(catalog):
    from advisor.steptime.classes import FITTED_CLASSES
    from advisor.throughput import MeasuredFactors

    prior = _rec(catalog, **LORA_8B)
    gpu = prior.recommended
    faster = MeasuredFactors(gpu_id=gpu, factors={c: 1.5 for c in FITTED_CLASSES}, pilots=3)  # every class 1.5x
    rec = _rec(catalog, calibration=Pilots(factors={gpu: faster}), **LORA_8B)
    assert rec.option(gpu).tokens_per_s > prior.option(gpu).tokens_per_s * 1.3
    assert any("calibrated from 3 pilots" in n for n in _notes(rec))


def test_reserved_ratio_from_pilots_moves_memory(catalog):
    plain = _rec(catalog, **LORA_8B).option("h100-sxm").device_bytes
    calibrated = _rec(catalog, calibration=Pilots(reserved={"h100-sxm": 1.3}), **LORA_8B).option("h100-sxm")
    assert calibrated.device_bytes > plain


def test_one_answer_is_said_in_english_and_in_spanish(catalog):
    rec = _rec(catalog, **LORA_8B)
    assert "lang" not in rec.dump()  # numbers and codes: no language below the edge
    assert _notes(rec, "en")[0].startswith("Recommended:") and _notes(rec, "es")[0].startswith("Recomendado:")
    assert "épocas" in render_text(rec, "es") and "epochs" in render_text(rec, "en")
    assert len(render_text(rec, "es").splitlines()) == len(render_text(rec, "en").splitlines())


def test_table_shows_every_gpu_and_marks_the_recommendation(catalog):
    rec = _rec(catalog, **LORA_8B)
    text = render_text(rec, "en")
    best = rec.option(rec.recommended)
    line = next(ln for ln in text.splitlines() if ln.endswith("<- recommended"))
    assert best.gpu_name.removeprefix("NVIDIA ") in line and f"${best.cost_usd:,.2f}" in line
    assert len(text.splitlines()) < 45 and "Not offered" in text


def test_estimate_cli_prints_the_contract_json(cli):
    result = cli("estimate", "--model", "llama-3.1-8b", "--method", "qlora", "--seq-len", "4096", "--json")
    out = json.loads(result.output)
    assert {"schema_version", "spec", "memory", "options", "recommended", "notes"} <= set(out)
    assert {"allocated_bytes", "reserved_bytes", "device_bytes", "need_bytes", "terms"} <= set(out["memory"])
    assert all(set(n) >= {"code"} for n in out["notes"])
    assert out["spec"]["method"] == "qlora" and out["recommended"] == out["options"][0]["gpu"]


def test_estimate_cli_prints_the_table(cli):
    result = cli("estimate", "--model", "llama-3.1-8b", "--seq-len", "4096", "--dataset-tokens", "50000000")
    assert result.exit_code == 0 and "<- recommended" in result.output and "Planning windows" in result.output


def test_within_the_tie_band_the_recommendation_takes_fewer_nodes(catalog):
    from advisor.recommend import COST_TIE_BAND, _money, _nodes

    rec = _rec(catalog, **QLORA_70B)
    fitting = [o for o in rec.options if o.offered and o.fits]
    # the recommendation keeps the job's global batch when a GPU can (issue #16 follow-up, item 1)
    fitting = [o for o in fitting if "global_batch" not in o.plan.alters] or fitting
    best = rec.option(rec.recommended)
    cheapest = min(fitting, key=_money)
    assert _money(best) <= _money(cheapest) * (1 + COST_TIE_BAND)
    assert all(_nodes(best) <= _nodes(o) for o in fitting if _money(o) <= _money(cheapest) * (1 + COST_TIE_BAND))
    if cheapest is not best:  # the answer says what it traded away
        assert any(f"x{cheapest.num_gpus} costs" in n and "%" in n for n in _notes(rec))
