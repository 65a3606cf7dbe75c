"""The held-out parser sets load, their labels are well formed, and benchmarks/parse_heldout.py runs.

Structure first, never which messages fail: every label names a real ``SpecRequest`` field with a
value the spec accepts, catalog names are canonical catalog ids, intents and clarify codes are the
ones ``ParseResult`` documents (advisor/parse/result.py), follow-ups carry the thread they follow, and
neither set repeats the hand-written table or the fresh set. Both sets were measured once, blind, at 95194cb (figures in benchmarks/parse_heldout.py's docstring) and are
now diagnosed, so the benchmark's ``--show`` prints their failures. The accuracy targets of issue #13 (at
least 97% fully right and no answer built on a value the user did not say, on each set) are
``test_*_meets_issue_13s_target``: marked ``xfail(strict=False)`` while the parser is below them, so CI
stays green and a pass shows as XPASS; their assertion messages carry counts only, never a message.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from advisor.catalog import Catalog
from advisor.parse.result import INTENTS
from advisor.spec import SpecRequest
from tests import phrasings, phrasings_fresh
from tests.heldout import gen9, table2

ROOT = Path(__file__).resolve().parent.parent
FIELDS = set(SpecRequest.model_fields)
# What ParseResult carries besides the request (advisor/parse/result.py), as tests.phrasegen.judge reads it.
RESULT_LABELS = {"intent", "clarify_code", "faq", "params", "gpus", "gpu_counts", "warning_codes"}
# ParseResult.clarify_code's values, as advisor/parse/result.py documents them.
CLARIFY_CODES = {"nothing", "model", "family", "limit", "number", "followup_empty", "unreadable", "did_you_mean",
                 "conflict", "family_size", "relative"}
FAQS = {"can_i_gpu", "a100_or_h100", "gpu_choice", "what_persists"}  # ParseResult.faq
NO_REQUEST_INTENTS = {"help", "catalog", "reset"}
TARGET = 0.97  # issue #13's "Done when": at least 97% fully right, zero answers with an unsaid value

TABLE = table2.load()
GEN = gen9.generate(gen9.N_DEFAULT, catalog=Catalog.in_memory(), seed=9)


def _ids(entries):
    return [f"{i}:{e['text'][:40]}" for i, e in enumerate(entries)]


def _fields(expected: dict) -> dict:
    return {k: v for k, v in expected.items() if k in FIELDS}


def _check_fields(said: dict, catalog: Catalog) -> None:
    phrasings.check_said_fields(said, catalog)


def _check_result_labels(expected: dict, catalog: Catalog) -> str:
    intent = expected.get("intent", "estimate")
    assert intent in INTENTS
    assert ("clarify_code" in expected) <= (intent == "clarify")
    if "clarify_code" in expected:
        assert expected["clarify_code"] in CLARIFY_CODES
    assert ("faq" in expected) == (intent == "faq")
    if intent == "faq":
        assert expected["faq"] in FAQS
    if "params" in expected:
        assert intent == "faq" and catalog.find_gpu(expected["params"]["gpu"]).id == expected["params"]["gpu"]
    assert ("gpus" in expected) == (intent == "compare")
    if intent == "compare":
        gpus = expected["gpus"]
        assert len(gpus) >= 2 and len(set(gpus)) == len(gpus)
        assert all(catalog.find_gpu(g).id == g for g in gpus)
        assert "gpu" not in expected, "a comparison's GPUs are in gpus, not in the request"
        assert set(expected.get("gpu_counts", {})) <= set(gpus)
    if intent in NO_REQUEST_INTENTS or expected.get("clarify_code") == "nothing":
        assert _fields(expected) == {}
    return intent


# --- the hand-written set --------------------------------------------------------------------------

def test_table2_is_big_bilingual_and_covers_every_kind():
    langs = Counter(e["lang"] for e in TABLE)
    assert len(TABLE) >= 500 and set(langs) == {"en", "es"}
    assert 0.4 <= langs["es"] / len(TABLE) <= 0.6
    kinds = Counter(k for e in TABLE for k in e["kind"])
    assert set(kinds) == set(table2.KINDS) and min(kinds.values()) >= 30
    intents = Counter(e["expected"].get("intent", "estimate") for e in TABLE)
    assert {"estimate", "followup", "compare", "faq", "reset", "help", "catalog", "clarify"} <= set(intents)
    codes = Counter(e["expected"].get("clarify_code") for e in TABLE if "clarify_code" in e["expected"])
    assert {"unreadable", "number", "model", "limit", "conflict", "relative", "nothing"} <= set(codes)


def test_table2_repeats_no_message_of_its_own_or_of_the_earlier_sets():
    keys = Counter((e["text"], json.dumps(e.get("previous"), sort_keys=True)) for e in TABLE)
    assert [k for k, n in keys.items() if n > 1] == []
    earlier = {e["text"].strip().lower() for e in phrasings.load() + phrasings_fresh.load()}
    assert sum(e["text"].strip().lower() in earlier for e in TABLE) == 0


@pytest.mark.parametrize("entry", TABLE, ids=_ids(TABLE))
def test_table2_labels_are_valid(entry, catalog):
    assert set(entry) <= {"text", "lang", "kind", "expected", "previous"}
    assert {"text", "lang", "kind", "expected"} <= set(entry) and "noise" not in entry  # judged as a table row
    assert isinstance(entry["text"], str) and entry["text"].strip() and entry["lang"] in ("en", "es")
    assert entry["kind"] and set(entry["kind"]) <= set(table2.KINDS)
    expected = entry["expected"]
    assert set(expected) <= FIELDS | RESULT_LABELS, set(expected) - FIELDS - RESULT_LABELS
    fields = _fields(expected)
    _check_fields({k: v for k, v in fields.items() if v is not None}, catalog)
    intent = _check_result_labels(expected, catalog)
    if intent == "followup" or "followup" in entry["kind"]:
        assert "previous" in entry
    if "previous" in entry:
        previous = SpecRequest(**entry["previous"])
        assert previous.said(), "a thread follow-up needs a request to follow"
        if intent == "followup":  # the merged request: every field of the thread kept, changed or cleared
            assert set(entry["previous"]) <= set(fields)
            assert {k for k in fields if fields[k] != entry["previous"].get(k)}, "a follow-up changes something"


# --- the generated split ---------------------------------------------------------------------------

def test_gen9_is_deterministic_bilingual_and_mixed(catalog):
    assert len(GEN) == gen9.N_DEFAULT == 3000
    assert gen9.generate(300, catalog=catalog, seed=9) == GEN[:300]
    assert gen9.generate(300, catalog=catalog, seed=10) != GEN[:300]
    langs = Counter(e["lang"] for e in GEN)
    assert 0.4 <= langs["es"] / len(GEN) <= 0.6
    kinds = Counter(e["kind"] for e in GEN)
    assert set(kinds) == {"estimate", "config", "followup", "no_model", "unreadable", "conflict"}
    shapes = {n for e in GEN for n in e["noise"] if n.startswith("config:")}
    assert len(shapes) == 7
    assert {"correction", "strike", "no_accents", "crlf", "typo", "distractor"} <= {n for e in GEN for n in e["noise"]}
    earlier = {e["text"].strip().lower() for e in phrasings.load() + phrasings_fresh.load()}
    assert sum(e["text"].strip().lower() in earlier for e in GEN) == 0


@pytest.mark.parametrize("entry", GEN[:600], ids=_ids(GEN[:600]))
def test_gen9_labels_are_valid(entry, catalog):
    assert entry["split"] == gen9.SPLIT and isinstance(entry["noise"], list)  # judged as generated: the delta
    expected = entry["expected"]
    assert set(expected) <= FIELDS | {"intent", "clarify_code"}
    said = _fields(expected)
    _check_fields(said, catalog)
    intent = _check_result_labels(expected, catalog)
    if intent == "followup":
        previous = SpecRequest(**entry["previous"]).said()
        assert previous and said and any(previous.get(k) != v for k, v in said.items())
    if intent == "estimate":
        assert "method" in said and ("model" in said or "params_b" in said)


def test_gen9_labels_are_valid_everywhere(catalog):
    """All 3,000, without one test id each: the parametrized test above reads the first 600."""
    for entry in GEN:
        expected = entry["expected"]
        _check_fields(_fields(expected), catalog)
        _check_result_labels(expected, catalog)


# --- the benchmark ---------------------------------------------------------------------------------

LINE = re.compile(r"^(heldout/diagnosed-table2|generated/diagnosed10)\s+(\d+)/(\d+) fully right = [\d.]+% \((?:en|es) [\d.]+% of \d+(?:, es [\d.]+% of \d+)?\); "
                  r"answered with a value the user did not say: \d+ \(invented \d+, misread \d+, "
                  r"default over a stated value \d+\)$")


def test_the_benchmark_runs_and_prints_counts_only():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "parse_heldout.py"), "--n", "40", "--limit", "40"],
                         capture_output=True, text=True, timeout=600, cwd=ROOT, check=True).stdout
    lines = [line for line in out.splitlines() if line.startswith(("heldout/", "generated/"))]
    assert [LINE.match(line).group(1) for line in lines] == ["heldout/diagnosed-table2", "generated/diagnosed10"]
    assert all(LINE.match(line).group(3) == "40" for line in lines)
    texts = [e["text"] for e in TABLE[:40] + GEN[:40]]
    assert not any(t in out for t in texts if len(t) > 12), "without --show the benchmark prints counts only"


def test_the_benchmark_shows_failures_of_the_diagnosed_sets():
    """Both sets were measured blind once (95194cb) and are now diagnosed: ``--show`` prints failures."""
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "parse_heldout.py"), "--n", "200", "--limit", "200",
                          "--show", "3"], capture_output=True, text=True, timeout=600, cwd=ROOT, check=True).stdout
    shown = [line for line in out.splitlines() if line.startswith("      want ")]
    counts = [LINE.match(line) for line in out.splitlines() if line.startswith(("heldout/", "generated/"))]
    failing = sum(min(3, int(m.group(3)) - int(m.group(2))) for m in counts)
    assert len(shown) == failing


# --- issue #13's target ------------------------------------------------------------------------------

def _measure(entries, catalog):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import parse_heldout

    return parse_heldout.summary(entries, parse_heldout.judge_all(entries, catalog))


@pytest.mark.slow
@pytest.mark.xfail(strict=False, reason="issue #13's target (>= 97% fully right, no unsaid value) on held-out sets; "
                                        "counts in benchmarks/parse_heldout.py")
@pytest.mark.parametrize("name", ["table2", "gen9"])
def test_each_heldout_set_meets_issue_13s_target(name, catalog):
    entries = {"table2": TABLE, "gen9": GEN}[name]
    s = _measure(entries, catalog)
    assert s["ok"] / s["n"] >= TARGET and s["unsaid"] == 0, (
        f"{name}: {s['ok']}/{s['n']} fully right, {s['unsaid']} answered with an unsaid value")
