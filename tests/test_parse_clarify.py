"""Every question the parser asks back renders in English and Spanish with the arguments the parser
gives it (advisor/parse/request.py ``_clarify*``), and every example it shows parses back to what it
shows. A template that needs an argument nobody passes is a KeyError in front of a user: these tests
reach each question through parse_message, not by calling the templates with hand-picked arguments."""

import re
from pathlib import Path

import pytest

from advisor.i18n import t
from advisor.parse import parse_message
from advisor.parse.request import UNREADABLE_FIELDS, _example_setting, unreadable_question
from advisor.spec import SpecRequest

P8 = SpecRequest(method="lora", model="llama-3-8b", seq_len=2048)

# One message per question code and language; ``previous`` for the thread-only questions.
QUESTIONS = {
    "nothing": [("en", "fine-tune something for us, please", None), ("es", "queremos afinar algo, por favor", None)],
    "model": [("en", "we want to run a qlora job", None), ("es", "queremos hacer un qlora", None)],
    "family": [("en", "qlora on qwen for our bot", None), ("es", "qlora con qwen para el bot", None)],
    "followup_empty": [("en", "hmm, ok then", P8), ("es", "bueno, vale", P8)],
    "number": [("en", "qlora 8b, 4 GPUs, 555", None), ("es", "qlora 8b, 4 épocas y 333", None)],
    "unreadable": [("en", "lora llama 3 8b, rank: tbd", None), ("es", "lora llama 3 8b, secuencia máxima", None)],
    "did_you_mean": [("en", "lora mstrl 7b please", None), ("es", "qlora de mstrl 7b en una h10", None)],
    "limit": [("en", "lora 8b on a 4090, seq 300000000", None), ("es", "qlora 8b, lote 3000000", None)],
    "family_size": [("en", "qlora falcon3-7b at 4k", None), ("es", "lora de gemma 2 4b, secuencia 2048", None)],
    "relative": [("en", "+2 GPUs please", None), ("es", "y dos GPUs más", P8)],
    "conflict": [("en", "lora llama 3 8b with seq 2048 or seq 8192", None), ("es", "lora llama 3 8b con lote 2 y lote 6", None)],
}


def test_every_question_code_the_parser_asks_is_covered_here():
    source = (Path(__file__).resolve().parent.parent / "advisor" / "parse" / "request.py").read_text()
    assert set(re.findall(r'_clarify\("([a-z_]+)"', source)) == set(QUESTIONS)


@pytest.mark.parametrize("code,lang,text,previous", [(c, *case) for c, cases in QUESTIONS.items() for case in cases])
def test_each_question_renders_in_its_language_and_its_example_parses(code, lang, text, previous, catalog):
    # a thread passes its language as the hint (bot/), a first message stands on its own words
    result = parse_message(text, catalog, previous=previous, lang_hint=lang if previous else None)
    assert (result.intent, result.clarify_code, result.lang) == ("clarify", code, lang)
    assert result.question and "{" not in result.question and "}" not in result.question
    assert result.example and "{" not in result.example
    # the example is what to reply in the thread, where the bot keeps ``request`` as the thread's request
    reply = parse_message(result.example, catalog, previous=result.request if result.request.said() else None,
                          lang_hint=lang)
    assert reply.intent in ("estimate", "followup", "compare") and reply.lang == lang


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("name", sorted(UNREADABLE_FIELDS))
def test_the_unreadable_question_for_every_field_renders_and_its_example_reads_back(name, lang, catalog):
    question = unreadable_question(name, " lots ", lang)
    assert '"lots"' in question and t(f"parse.field.{name}", lang) in question and "{" not in question
    example = question.rsplit(": ", 1)[1].rstrip(".")
    said = parse_message("lora llama 3 8b, " + example, catalog, lang_hint=lang).delta.said()
    expected = _example_setting(name)
    assert said[name] == (expected.model_dump(exclude_none=True) if hasattr(expected, "model_dump") else expected)


# A value for each field a rule can find unreadable, typed where that rule reads it: the typed slots
# (seq/batch/rank/epochs), the config keys (rules._config) and a length range without its mean.
UNREADABLE_MESSAGES = [
    ("seq_len", "lora llama 3 8b, context window: as long as possible"),
    ("micro_batch", "lora llama 3 8b, lote: lo que quepa"),
    ("lora_rank", "lora llama 3 8b, rank ??"),
    ("epochs", "lora llama 3 8b, epochs: unknown yet"),
    ("lora_alpha", "lora on llama 3 8b\nlora_alpha: high"),
    ("lora_dropout", "lora on llama 3 8b\nlora_dropout: some"),
    ("num_gpus", "lora on llama 3 8b\nnum_gpus: several"),
    ("dataset_tokens", "lora on llama 3 8b\ndataset_tokens: plenty"),
    ("length_distribution", "lora llama 3 8b, the samples range from 64 to 3000 tokens"),
    ("length_distribution", "lora llama 3 8b, muestras entre 64 y 3000 tokens"),
]


def test_the_messages_below_reach_every_unreadable_field():
    assert {name for name, _ in UNREADABLE_MESSAGES} == UNREADABLE_FIELDS


@pytest.mark.parametrize("name,text", UNREADABLE_MESSAGES)
def test_a_stated_value_that_cannot_be_read_is_asked_about_by_its_field(name, text, catalog):
    result = parse_message(text, catalog)
    assert (result.intent, result.clarify_code) == ("clarify", "unreadable")
    assert t(f"parse.field.{name}", result.lang) in result.question and name not in result.delta.said()
