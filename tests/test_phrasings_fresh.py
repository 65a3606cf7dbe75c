"""The fresh (once held-out, diagnosed in round 9) phrasing set is well formed (tests/phrasings_fresh.py).

Structure only, never accuracy: every label names a real ``SpecRequest`` field with a value the spec
accepts, catalog names are canonical catalog ids, intents and codes are the ones ``ParseResult``
carries (advisor/parse/result.py), follow-ups label the merged request, and the set is independent
of the hand-written table. How well the parser reads it is ``benchmarks/parse_accuracy.py``'s
"table/diagnosed-fresh" line.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from advisor.parse.result import INTENTS
from advisor.spec import SpecRequest
from tests import phrasings, phrasings_fresh

ENTRIES = phrasings_fresh.load()
ENTRY_KEYS = {"text", "lang", "expected", "previous"}
# What ParseResult carries besides the request (advisor/parse/result.py), as tests.phrasegen.judge reads it.
RESULT_LABELS = {"intent", "clarify_code", "faq", "params", "gpus", "gpu_counts", "warning_codes"}
FIELDS = set(SpecRequest.model_fields)
# ParseResult.clarify_code and ParseResult.faq, as documented in advisor/parse/result.py.
CLARIFY_CODES = {"nothing", "model", "family", "limit", "number", "followup_empty", "unreadable", "did_you_mean"}
FAQS = {"can_i_gpu", "a100_or_h100", "gpu_choice", "what_persists"}
NO_REQUEST_INTENTS = {"help", "catalog", "reset"}


def _ids(entries):
    return [f"{i}:{e['text'][:40]}" for i, e in enumerate(entries)]


def _fields(expected: dict) -> dict:
    return {k: v for k, v in expected.items() if k in FIELDS}


def test_the_set_is_big_and_mixed_as_planned():
    langs = Counter(e["lang"] for e in ENTRIES)
    assert len(ENTRIES) >= 450
    assert set(langs) == {"en", "es"}
    assert 0.30 <= langs["es"] / len(ENTRIES) <= 0.50
    intents = Counter(e["expected"].get("intent", "estimate") for e in ENTRIES)
    # every intent a message can have, except a family question (a name that is not ambiguous was written instead)
    assert {"estimate", "followup", "compare", "faq", "reset", "help", "catalog", "clarify"} <= set(intents)
    assert intents["estimate"] >= len(ENTRIES) // 2


def test_no_message_is_repeated_and_none_comes_from_the_table():
    keys = Counter((e["text"], json.dumps(e.get("previous"), sort_keys=True)) for e in ENTRIES)
    assert [k for k, n in keys.items() if n > 1] == []
    table = {e["text"].strip().lower() for e in phrasings.load()}
    assert sum(e["text"].strip().lower() in table for e in ENTRIES) == 0


@pytest.mark.parametrize("entry", ENTRIES, ids=_ids(ENTRIES))
def test_entry_labels_are_valid(entry, catalog):
    assert set(entry) <= ENTRY_KEYS and {"text", "lang", "expected"} <= set(entry)
    assert isinstance(entry["text"], str) and entry["text"].strip()
    assert entry["lang"] in ("en", "es")
    expected = entry["expected"]
    assert set(expected) <= FIELDS | RESULT_LABELS, set(expected) - FIELDS - RESULT_LABELS
    intent = expected.get("intent", "estimate")
    assert intent in INTENTS

    fields = _fields(expected)
    said = {k: v for k, v in fields.items() if v is not None}
    phrasings.check_said_fields(said, catalog)

    assert ("clarify_code" in expected) <= (intent == "clarify")
    if "clarify_code" in expected:
        assert expected["clarify_code"] in CLARIFY_CODES
    assert ("faq" in expected) == (intent == "faq")
    if intent == "faq":
        assert expected["faq"] in FAQS
    if "params" in expected:
        assert intent == "faq" and catalog.find_gpu(expected["params"]["gpu"]).id == expected["params"]["gpu"]
        assert said.get("gpu", expected["params"]["gpu"]) == expected["params"]["gpu"]
    assert ("gpus" in expected) == (intent == "compare")
    if intent == "compare":
        gpus = expected["gpus"]
        assert len(gpus) >= 2 and len(set(gpus)) == len(gpus)
        assert all(catalog.find_gpu(g).id == g for g in gpus)
        assert "gpu" not in fields, "a comparison's GPUs are in gpus, not in the request"
        assert set(expected.get("gpu_counts", {})) <= set(gpus)
    if intent in NO_REQUEST_INTENTS or expected.get("clarify_code") == "nothing":
        assert fields == {}

    if intent == "followup":
        assert "previous" in entry
    if "previous" in entry:
        previous = SpecRequest(**entry["previous"])
        assert previous.said(), "a thread follow-up needs a request to follow"
        if intent == "followup":
            # the merged request: every field of the thread is labelled (kept, changed or cleared)
            assert set(entry["previous"]) <= set(fields)
            changed = {k for k in fields if fields[k] != entry["previous"].get(k)}
            assert changed, "a follow-up changes something"
