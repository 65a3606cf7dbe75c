"""Golden answers in both languages (issue #16, Done when): the CLI text and the Slack blocks of
tests/golden.py's questions equal the files under tests/data/golden/ exactly; each golden answer
is in one locale and carries the table block. Regenerate: python -m tests.golden --write."""

from __future__ import annotations

import json

import pytest

from tests.fakeslack import assert_valid_blocks, message_text
from tests.golden import CASES, GOLDEN, REGENERATE, diff, render
from tests.localecheck import locale_problems

PAIRS = [(case, lang) for case, phrases in CASES.items() for lang in phrases]


@pytest.mark.parametrize("case, lang", PAIRS)
def test_the_answer_equals_its_golden_files(catalog, case, lang):
    got = render(case, lang, catalog)
    differences = [diff(name, (GOLDEN / name).read_text(encoding="utf-8") if (GOLDEN / name).exists() else None,
                        content) for name, content in got.items()]
    differences = [d for d in differences if d]
    assert not differences, "".join(differences) + "\n" + REGENERATE


@pytest.mark.parametrize("case, lang", PAIRS)
def test_golden_answers_are_in_one_locale_with_one_table_block(case, lang):
    text = (GOLDEN / f"{case}_{lang}.txt").read_text(encoding="utf-8")
    slack = json.loads((GOLDEN / f"{case}_{lang}.blocks.json").read_text(encoding="utf-8"))
    blocks = assert_valid_blocks(slack["blocks"])
    assert [b["type"] for b in blocks].count("table") == 1
    assert slack["text"] + "\n" == text  # the message's text fallback is the CLI's answer
    for shown in (text, message_text(blocks)):
        assert not locale_problems(shown, lang), locale_problems(shown, lang)


def test_every_golden_file_belongs_to_a_case():
    expected = {f"{c}_{lang}{ext}" for c, lang in PAIRS for ext in (".txt", ".blocks.json")}
    assert {p.name for p in GOLDEN.iterdir()} == expected
