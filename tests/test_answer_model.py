"""One answer, two renderings, one fit rule (issue #15).

``advisor.recommend`` returns one typed, versioned ``Answer`` (advisor.answer_model); the CLI's
``--json`` is its dump and the Slack message is rendered from the same object; every path that
asks "does it fit" uses advisor.fit; an answer stored by an older advisor loads and renders.
"""

from __future__ import annotations

import json
import re

import pytest

from advisor.answer import Advisor
from advisor.answer_model import SCHEMA_VERSION, Answer, Lever, Note
from advisor.catalog import Catalog
from advisor.fit import FIT_MARGIN, fit_limit, fits, memory_fits
from advisor.format import usd
from advisor.memory import estimate_memory
from advisor.recommend import recommend
from advisor.report import lever_text, note_text, render_text
from advisor.resolve import resolve_request
from advisor.spec import SpecRequest
from bot.render.answer import render_answer
from tests.conftest import DATA
from tests.fakeslack import assert_valid_blocks, message_text

GOLDEN = DATA / "golden_blocks"
QUESTION = "qlora llama-3.1-8b seq 4096 50M tokens 3 epochs"


def _answer(catalog, **said) -> Answer:
    return recommend(resolve_request(SpecRequest(**said), catalog), catalog)


# --- one object, two renderings --------------------------------------------------------------


def test_the_cli_json_and_the_slack_answer_are_two_renderings_of_one_answer(cli, tmp_path):
    catalog = Catalog.open()  # what the CLI reads (./catalog.db)
    answer = _answer(catalog, model="llama-3.1-8b", method="qlora", seq_len=4096, dataset_tokens=50_000_000)
    out = cli("estimate", "--model", "llama-3.1-8b", "--method", "qlora", "--seq-len", "4096",
              "--dataset-tokens", "50M", "--state-db", str(tmp_path / "none.db"), "--json")
    dumped = json.loads(out.output)
    assert dumped == json.loads(json.dumps(answer.dump()))  # the JSON is the model's dump
    assert dumped["schema_version"] == SCHEMA_VERSION and "lang" not in dumped
    loaded = Answer.load(dumped)
    assert loaded == answer
    blocks = assert_valid_blocks(render_answer(answer, "en"))
    assert render_answer(loaded, "en") == blocks and render_answer(dumped, "en") == blocks
    assert render_text(loaded, "es") == render_text(answer, "es")
    best = answer.best
    shown = message_text(blocks)
    assert best.gpu_name in shown and usd(best.cost_usd) in shown
    assert dumped["options"][0]["gpu"] == best.gpu and dumped["options"][0]["cost_usd"] == best.cost_usd
    assert json.loads(blocks[-1]["elements"][0]["value"]) == {"gpu": best.gpu, "num_gpus": best.num_gpus}


def test_ask_json_carries_the_answer_the_bot_renders(cli, tmp_path):
    reply = Advisor(Catalog.open()).ask(QUESTION)
    out = json.loads(cli("ask", QUESTION, "--state-db", str(tmp_path / "none.db"), "--json").output)
    assert out["kind"] == "estimate" and Answer.load(out) == reply.answer
    assert out["head"]["understood"].startswith("Understood:")
    blocks = render_answer(out, reply.lang)  # what the bot does with the stored data
    assert blocks == render_answer(reply.answer, reply.lang, head=reply.data["head"])
    assert blocks[1]["block_id"] == "verdict" and blocks[1]["text"]["text"].startswith("*Yes: 1 x RTX 4090")
    assert blocks[2]["text"]["text"] == out["head"]["understood"]


def test_the_answer_holds_numbers_and_codes_not_sentences(catalog):
    answer = _answer(catalog, model="llama-3.1-70b", method="full", seq_len=4096)  # levers, reasons, notes
    dumped = answer.dump()
    assert "lang" not in dumped
    levers = [lv for o in answer.options for lv in o.levers]
    assert levers and all(set(lv) >= {"kind", "device_bytes", "fits"} and "description" not in lv
                          for o in dumped["options"] for lv in o["levers"])
    reasons = [o.reason for o in answer.options if o.reason is not None]
    assert reasons and all(r.text is None and r.need_bytes > 0 and r.term for r in reasons)
    assert answer.notes and all(n.text is None for n in answer.notes)
    for lang in ("en", "es"):  # every code has words in both languages
        assert all(note_text(n, answer, lang) for n in answer.notes)
        assert all(lever_text(lv, lang) for lv in levers)


# --- one fit rule ------------------------------------------------------------------------------


def test_the_fit_rule_keeps_the_margin_free():
    usable = 24 * 2**30
    assert fit_limit(usable) == usable * (1 - FIT_MARGIN)
    assert fits(usable * (1 - FIT_MARGIN), usable) and not fits(usable * (1 - FIT_MARGIN) + 1, usable)
    assert not fits(usable, usable)  # the whole GPU is not enough: FIT_MARGIN stays free


@pytest.mark.parametrize("lang, question", [
    ("en", "can I fine-tune llama-3.1-8b on an A10G?"),
    ("es", "¿puedo ajustar llama-3.1-8b en una A10G?"),
])
def test_the_faq_and_the_ranking_agree_on_the_a10g(catalog, lang, question):
    """The contradiction of issue #15: the FAQ said LoRA of llama-3.1-8b fits an A10G (21.6 GiB
    of 22.0 usable) while "lora llama-3.1-8b on a10g" said it needs two GPUs."""
    advisor = Advisor(catalog)
    faq = advisor.ask(question)
    assert faq.kind == "faq" and faq.data["gpu"] == "a10g"
    for method in ("full", "lora", "qlora"):
        ranked = advisor.ask(f"{method} llama-3.1-8b on a10g").answer.option("a10g")
        on_one = ranked.fits and ranked.num_gpus == 1
        assert faq.data["methods"][method]["fits"] == on_one, method
    assert faq.data["methods"]["lora"]["fits"] is False and faq.data["methods"]["qlora"]["fits"] is True


def test_the_largest_model_that_fits_uses_the_same_rule(catalog):
    advisor = Advisor(catalog)
    for gpu in ("a10g", "rtx-4090", "l40s"):
        usable = catalog.gpu(gpu).usable_memory_bytes
        faq = advisor.ask(f"can I fine-tune on an {gpu}?")
        for method, best in faq.data["methods"].items():
            if best is None:
                continue
            resolved = resolve_request(SpecRequest(method=method, model=best["model_id"]), catalog)
            assert memory_fits(estimate_memory(resolved.spec, resolved.arch), usable), (gpu, method)
            one = _answer(catalog, method=method, model=best["model_id"], gpu=gpu).option(gpu)
            assert one.fits and one.num_gpus == 1, (gpu, method)


# --- stored answers survive an upgrade -------------------------------------------------------


@pytest.mark.parametrize("name", ["qlora70b_en", "qlora70b_es", "lora8b_nodata_en", "full_huge_en"])
def test_an_answer_stored_by_schema_1_loads_and_renders(name):
    """The golden data were written by advisor.recommend before issue #15 (no schema_version:
    sentences in notes, reasons and levers); they load, keep their numbers, and round-trip."""
    case = json.loads((GOLDEN / f"answer_{name}.json").read_text(encoding="utf-8"))
    old = case["data"]
    answer = Answer.load(old)
    assert answer.schema_version == SCHEMA_VERSION and answer.recommended == old["recommended"]
    for o, before in zip(answer.options, old["options"]):
        assert (o.gpu, o.fits, o.num_gpus, o.device_bytes, o.cost_usd) == (
            before["gpu"], before["fits"], before["num_gpus"], before["memory"], before["cost_usd"])
        for lv, lv_before in zip(o.levers, before["levers"]):  # levers come back as codes ...
            assert lv.device_bytes == lv_before["memory_bytes"]
            # ... that say the same figures (the words and the number format are today's: one
            # vocabulary and one locale per answer, issue #16; schema 1 stored "4096 tokens")
            assert _figures(lever_text(lv, case["lang"]), case["lang"]) == _figures(lv_before["description"], "en")
    assert [note_text(n, answer, case["lang"]) for n in answer.notes] == old["notes"]  # kept verbatim
    assert Answer.load(json.loads(json.dumps(answer.dump()))) == answer
    assert_valid_blocks(render_answer(old, case["lang"]))


def _figures(text: str, lang: str) -> list[float]:
    """The numbers in ``text`` as values, read with ``lang``'s group and decimal symbols."""
    from advisor.i18n.numbers import symbols

    sym = symbols(lang)
    return [float(m.replace(sym["group"], "").replace(sym["decimal"], "."))
            for m in re.findall(r"\d[\d.,]*\d|\d", text)]


def test_an_answer_from_a_newer_advisor_is_refused_plainly():
    dumped = {"schema_version": SCHEMA_VERSION + 1, "spec": {}, "options": []}
    with pytest.raises(ValueError, match="newer"):
        Answer.load(dumped)


def test_schema_1_levers_all_come_back_as_codes():
    lv = {"lever": "combined", "description": "…", "memory_bytes": 5, "fits": True, "num_gpus": 4, "cost_factor": 2.0,
          "detail": {"parts": [["micro_batch", {"factor": 4}], ["seq_len", {"seq_len": 2048}]], "fsdp_n": 4}}
    old = json.loads((GOLDEN / "answer_full_huge_en.json").read_text(encoding="utf-8"))["data"]
    old = {**old, "options": [{**old["options"][0], "levers": [lv]}]}
    got = Answer.load(old).options[0].levers[0]
    assert isinstance(got, Lever) and got.kind == "combined" and got.fsdp_gpus == 4
    assert [(p.kind, p.factor, p.seq_len) for p in got.parts] == [("micro_batch", 4, None), ("shorter_seq", None, 2048)]
    assert lever_text(got, "en") == ("all of these together: micro-batch 1 with 4x gradient accumulation "
                                     "(same effective batch); shorter sequences: 2,048 tokens; FSDP over 4 GPUs")


def test_a_legacy_note_is_said_as_stored():
    answer = Answer.load(json.loads((GOLDEN / "answer_qlora70b_es.json").read_text(encoding="utf-8"))["data"])
    assert all(isinstance(n, Note) and n.code == "legacy" for n in answer.notes)
    assert note_text(answer.notes[0], answer, "en") == answer.notes[0].text  # the stored language stays


def test_every_note_code_has_its_words():
    from typing import get_args

    from advisor.answer_model import NoteCode
    from advisor.i18n import has
    from advisor.report import _NOTE_FIELDS

    assert set(get_args(NoteCode)) - {"legacy", "stack"} == set(_NOTE_FIELDS)
    assert all(has(f"notes.{code}") for code in _NOTE_FIELDS)


# --- schema 2 (issue #15's typed answer) -> 3 (issue #16: plans, the verdict) -------------------------

V2 = DATA / "answers_v2"


@pytest.mark.parametrize("name", ["mistral_4090", "qlora70b", "lora70b_data"])
def test_an_answer_stored_by_schema_2_loads_renders_and_keeps_its_buttons(name):
    """``advisor ask --json`` as the advisor at df197b6 (schema 2) wrote it, what an old thread's
    row in the bot's state database holds: it loads as schema 3 with no verdict and no plans (they
    were never computed), its windows priced for one GPU as they were, and its buttons unchanged."""
    old = json.loads((V2 / f"{name}.json").read_text(encoding="utf-8"))
    assert old["schema_version"] == 2 and "verdict" not in old
    answer = Answer.load(old)
    assert answer.schema_version == SCHEMA_VERSION == 3 and answer.verdict is None
    assert all(o.plan is None and o.rounded_from is None for o in answer.options)
    assert answer.planning.num_gpus == 1
    assert [w.price_usd for w in answer.planning.windows] == [w["price_usd"] for w in old["planning"]["windows"]]
    for o, before in zip(answer.options, old["options"]):
        assert (o.gpu, o.fits, o.num_gpus, o.device_bytes, o.cost_usd) == (
            before["gpu"], before["fits"], before["num_gpus"], before["device_bytes"], before["cost_usd"])
    assert Answer.load(json.loads(json.dumps(answer.dump()))) == answer
    blocks = assert_valid_blocks(render_answer(old, "en"))
    assert not any(b.get("block_id") == "verdict" for b in blocks)  # no verdict was stored: none is made up
    best = next(o for o in old["options"] if o["gpu"] == old["recommended"])
    assert json.loads(blocks[-1]["elements"][0]["value"]) == {"gpu": best["gpu"], "num_gpus": best["num_gpus"]}
    text = render_text(answer, "en")
    assert not text.startswith(("Yes", "No")) and text.count("Planning windows") == 1


def test_a_schema_3_dump_round_trips_with_its_verdict_and_plans(catalog):
    answer = Advisor(catalog).ask("can we LoRA Mistral 7B at 4k with batch 4 on a 4090?").answer
    dumped = json.loads(json.dumps(answer.dump()))
    assert dumped["schema_version"] == 3 and dumped["verdict"]["answer"] == "yes"
    assert dumped["verdict"]["plan"]["changes"][0]["kind"] == "micro_batch"
    again = Answer.load(dumped)
    assert again == answer and again.verdict.plan.keeps_job
    assert render_answer(dumped, "en") == render_answer(answer, "en")
