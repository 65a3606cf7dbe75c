"""Block Kit renderers: golden messages, and Slack's limits under any data.

Golden files (tests/data/golden_blocks/*.json) hold the advisor's data for a question, frozen
(generated once from advisor.recommend, so these tests do not move when the models are tuned),
and the exact blocks expected. After an intended change of layout, regenerate the expected blocks
with ``UPDATE_GOLDEN=1 python -m pytest tests/test_bot_render.py`` and review the diff.
"""

import json
import os

import pytest

from advisor.answer_model import Answer, Change, Lever, Note
from advisor.i18n import t
from bot.render import blockkit as bk
from bot.render.answer import ACTION_CHART, ACTION_LAUNCH, ACTION_PILOT, ACTION_VERIFY, memory_bar, render_answer
from bot.render.simple import render_catalog, render_help, render_text
from bot.render.verify import render_verify
from bot.verify import Comparison
from tests.conftest import DATA
from tests.fakeslack import assert_valid_blocks, message_text

GOLDEN = DATA / "golden_blocks"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"


def check_golden(name, blocks):
    assert_valid_blocks(blocks)
    path = GOLDEN / f"{name}.blocks.json"
    if UPDATE or not path.exists():
        path.write_text(json.dumps(blocks, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    assert blocks == json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", ["qlora70b_en", "qlora70b_es", "lora8b_nodata_en", "full_huge_en"])
def test_answers_match_their_golden_blocks(name):
    case = json.loads((GOLDEN / f"answer_{name}.json").read_text(encoding="utf-8"))
    check_golden(f"answer_{name}", render_answer(case["data"], case["lang"], asked_by="UALICE", question="q"))


@pytest.mark.parametrize("name, must_show", [
    ("qlora70b_en", ["Recommended: 16 × NVIDIA L40S 48 GB", "$421", "Llama 3 70B", "seq 8,192", "Run pilot on L40S 48GB"]),
    ("qlora70b_es", ["Recomendado: 16 × NVIDIA L40S 48 GB", "Entendido", "Ventanas de planificación"]),
    ("full_huge_en", ["No GPU we rent fits", "To make it fit"]),
])
def test_answers_say_what_matters(name, must_show):
    case = json.loads((GOLDEN / f"answer_{name}.json").read_text(encoding="utf-8"))
    text = message_text(render_answer(case["data"], case["lang"]))
    assert [s for s in must_show if s not in text] == []


def test_buttons_carry_the_recommended_gpu_and_no_pilot_when_nothing_fits():
    fits = json.loads((GOLDEN / "answer_qlora70b_en.json").read_text())["data"]
    none = json.loads((GOLDEN / "answer_full_huge_en.json").read_text())["data"]
    ids = lambda blocks: [e["action_id"] for e in blocks[-1]["elements"]]  # noqa: E731
    blocks = render_answer(fits, "en")
    assert ids(blocks) == [ACTION_PILOT, ACTION_VERIFY, ACTION_CHART, ACTION_LAUNCH]
    assert json.loads(blocks[-1]["elements"][0]["value"]) == {"gpu": "l40s", "num_gpus": 16}
    assert json.loads(blocks[-1]["elements"][3]["value"]) == {"gpu": "l40s", "num_gpus": 16}  # the launch config's plan
    assert ids(render_answer(none, "en")) == [ACTION_VERIFY, ACTION_CHART]


def test_a_followup_says_what_changed():
    data = json.loads((GOLDEN / "answer_qlora70b_en.json").read_text())["data"]
    blocks = render_answer(data, "en", kind="followup", changed=["seq 8,192 → 16,384"])
    assert "Changed: seq 8,192 → 16,384" in message_text(blocks)


def test_enormous_data_still_fits_slacks_limits():
    answer = Answer.load(json.loads((GOLDEN / "answer_qlora70b_en.json").read_text())["data"])
    lever = Lever(kind="combined", parts=tuple(Change(kind="shorter_seq", seq_len=n) for n in range(200)),
                  device_bytes=1, fits=True)
    first = answer.options[0].model_copy(update={"levers": (lever,) * 10, "num_gpus": 1, "fits": False})
    answer = answer.model_copy(update={"options": (first, *answer.options[1:]) * 40, "model": "M" * 400,
                                       "notes": (Note(code="legacy", text="x" * 5000),) * 60})
    blocks = assert_valid_blocks(render_answer(answer, "en", asked_by="U1", question="q" * 5000))
    assert len(blocks) <= bk.MAX_BLOCKS and blocks[-1]["type"] == "actions"


@pytest.mark.parametrize("used, capacity, bar", [
    (0, 80, "░░░░░░░░░░  "), (40, 80, "█████░░░░░  "), (80, 80, "██████████  "),
    (81, 80, "██████████▲ "), (1, 0, "??????????  "),
])
def test_memory_bar(used, capacity, bar):
    assert memory_bar(used, capacity) == bar


def test_long_text_splits_into_sections_at_line_ends():
    text = "\n".join(f"line {i} " + "z" * 90 for i in range(100))
    blocks = bk.sections(text)
    assert len(blocks) == 4 and all(len(b["text"]["text"]) <= bk.MAX_SECTION_TEXT for b in blocks)
    assert "\n".join(b["text"]["text"] for b in blocks) == text


def test_code_sections_close_every_fence():
    blocks = bk.code_sections(["row " + "x" * 100] * 80, title="*T*")
    assert len(blocks) > 1 and all(b["text"]["text"].count("```") == 2 for b in blocks)


def test_a_button_value_over_the_limit_is_refused():
    with pytest.raises(ValueError, match="2000"):
        bk.button("x", "a", "v" * 2001)


@pytest.mark.parametrize("lang", ["en", "es"])
def test_help_golden(lang):
    check_golden(f"help_{lang}", render_help(lang))


def test_catalog_lists_every_rented_gpu_with_price(catalog):
    blocks = assert_valid_blocks(render_catalog(catalog, "en"))
    text = message_text(blocks)
    for g in catalog.gpus(offered_only=True):
        assert g.display_name in text and f"{g.price_usd_per_hour:.2f}" in text


def test_faq_text_is_escaped_and_carries_its_example():
    blocks = assert_valid_blocks(render_text("a <b> & c", "es", example="qlora 70b"))
    assert blocks[0]["text"]["text"] == "a &lt;b&gt; &amp; c"
    assert blocks[-1]["elements"][0]["text"] == t("bot.try_example", "es", example="qlora 70b")


def test_verify_golden():
    c = Comparison(model="Llama 3.1 8B", num_gpus=1, estimate_terms={"weights": 16 * 2**30, "activations": 3 * 2**30},
                   estimate_allocated=19 * 2**30, trace_terms={"weights": 16 * 2**30, "activations": 4 * 2**30},
                   trace_allocated=20 * 2**30, trace_phase="backward", seconds=3.2)
    check_golden("verify_en", render_verify(c, "en"))
    assert "-5.0%" in message_text(render_verify(c, "en"))
