"""A value out of the spec's bounds is asked about by its field's name, for every field a message can set.

Before the names below existed, a gradient accumulation out of range ("gradient_accumulation_steps: 100000")
raised KeyError in ``_clarify_limit`` (advisor/parse/request.py) instead of asking: the question names the
field through ``parse.field.<name>`` (advisor/i18n/parse.py), and not every ``SpecRequest`` field had one.
"""

import pytest

from advisor.i18n import t
from advisor.parse import parse_message
from advisor.spec import SpecRequest


@pytest.mark.parametrize("lang", ["en", "es"])
def test_every_request_field_has_a_name_in_both_languages(lang):
    names = {f: t(f"parse.field.{f}", lang) for f in SpecRequest.model_fields if f != "costs"}
    assert all(name and not name.startswith("parse.") for name in names.values()), names


@pytest.mark.parametrize("text,lang,words", [
    ("lora qwen3 8b seq 4k gradient_accumulation_steps: 100000", "en", "gradient accumulation"),
    ("lora qwen3 8b seq 4k, grad accum 0", "en", "gradient accumulation"),
    ("lora qwen3 8b secuencia 4k, acumulación de gradientes 99999999", "es", "acumulación de gradientes"),
])
def test_an_accumulation_out_of_range_is_asked_by_name(text, lang, words, catalog):
    result = parse_message(text, catalog)
    assert result.intent == "clarify" and result.clarify_code == "limit", (result.intent, result.clarify_code)
    assert words in result.question.lower() and "4" in result.question
