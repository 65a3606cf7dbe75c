"""The round-11 blind parser sets load, their labels are well formed, and benchmarks/parse_blind.py runs.

Structure only, never which messages fail: every label names a real ``SpecRequest`` field with a
value the spec accepts, catalog names are canonical catalog ids (tests/phrasings.check_said_fields),
intents and clarify codes are the ones ``ParseResult`` documents (advisor/parse/result.py), follow-ups
carry the thread they follow, neither set repeats a message of the earlier sets, and gen11's
vocabulary is absent from the generators the parser was tuned on. Both sets were measured once, blind,
at c951d8f (figures in benchmarks/parse_blind.py's docstring) and are now diagnosed, so the benchmark's
``--show`` prints their failures. Issue #13's targets (at least 97% fully right and no answer
built on a value the user did not say, on each set) are ``test_each_blind_set_meets_issue_13s_target``:
marked ``slow`` and ``xfail(strict=False)`` as tests/test_parse_heldout_counts.py's are, so CI stays
green while the parser is below them and a pass shows as XPASS; its assertion message carries counts
only, never a message.
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
from tests.heldout import gen11, table2, table3

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

TABLE = table3.load()
GEN = gen11.generate(gen11.N_DEFAULT, catalog=Catalog.in_memory(), seed=11)


def _ids(entries):
    return [f"{i}:{e['text'][:40]}" for i, e in enumerate(entries)]


def _fields(expected: dict) -> dict:
    return {k: v for k, v in expected.items() if k in FIELDS}


def _earlier_texts() -> set[str]:
    return {e["text"].strip().lower() for e in phrasings.load() + phrasings_fresh.load() + table2.load()}


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


def check_table_row(entry: dict, kinds, catalog: Catalog, *, merged_intents=("followup", "clarify")) -> None:
    """A hand-written table's row is well formed (tables 3 to 6 share these checks).

    ``merged_intents``: the intents whose label is the merged thread request (every field of ``previous`` kept,
    changed or cleared). Tables 3 and 4 were labelled with that convention for follow-ups only, so their
    clarifying questions in a thread list just what the question is about; from table 5 on a clarify is merged too.
    """
    assert set(entry) <= {"text", "lang", "kind", "expected", "previous"}
    assert {"text", "lang", "kind", "expected"} <= set(entry) and "noise" not in entry  # judged as a table row
    assert isinstance(entry["text"], str) and entry["text"].strip() and entry["lang"] in ("en", "es")
    assert entry["kind"] and set(entry["kind"]) <= set(kinds) and len(set(entry["kind"])) == len(entry["kind"])
    expected = entry["expected"]
    assert set(expected) <= FIELDS | RESULT_LABELS, set(expected) - FIELDS - RESULT_LABELS
    fields = _fields(expected)
    phrasings.check_said_fields({k: v for k, v in fields.items() if v is not None}, catalog)
    SpecRequest(**fields)  # every value within the spec's bounds, the cost assumptions included
    intent = _check_result_labels(expected, catalog)
    assert not (fields.get("model") and fields.get("params_b")), "a catalog model and a size are never both set"
    if intent == "followup" or "followup" in entry["kind"]:
        assert "previous" in entry
    if "previous" in entry:
        previous = SpecRequest(**entry["previous"])
        assert previous.said(), "a thread follow-up needs a request to follow"
        if intent in merged_intents:  # the merged request: every field of the thread kept, changed or cleared
            assert set(entry["previous"]) <= set(fields)
        if intent == "followup":
            assert {k for k in fields if fields[k] != entry["previous"].get(k)}, "a follow-up changes something"
    if intent == "estimate":
        assert "method" in fields and ("model" in fields or "params_b" in fields)
    if intent == "compare":
        assert all(n >= 1 for n in expected.get("gpu_counts", {}).values())
    if expected.get("method") != "qlora":
        assert expected.get("quant") is None, "quantized base weights are QLoRA"


# --- the hand-written set --------------------------------------------------------------------------

def test_table3_is_big_bilingual_and_covers_every_kind():
    langs = Counter(e["lang"] for e in TABLE)
    assert len(TABLE) >= 500 and set(langs) == {"en", "es"}
    assert 0.45 <= langs["es"] / len(TABLE) <= 0.55
    kinds = Counter(k for e in TABLE for k in e["kind"])
    assert set(kinds) == set(table3.KINDS) and min(kinds.values()) >= 25
    for lang in ("en", "es"):  # every kind in both languages
        assert set(k for e in TABLE if e["lang"] == lang for k in e["kind"]) == set(table3.KINDS)
    intents = Counter(e["expected"].get("intent", "estimate") for e in TABLE)
    assert set(INTENTS) <= set(intents)
    codes = Counter(e["expected"].get("clarify_code") for e in TABLE if "clarify_code" in e["expected"])
    assert {"unreadable", "number", "model", "limit", "conflict", "relative", "nothing"} <= set(codes)


def test_table3_repeats_no_message_of_its_own_or_of_the_earlier_sets():
    keys = Counter((e["text"], json.dumps(e.get("previous"), sort_keys=True)) for e in TABLE)
    assert [k for k, n in keys.items() if n > 1] == []
    earlier = _earlier_texts()
    assert sum(e["text"].strip().lower() in earlier for e in TABLE) == 0


@pytest.mark.parametrize("entry", TABLE, ids=_ids(TABLE))
def test_table3_labels_are_valid(entry, catalog):
    check_table_row(entry, table3.KINDS, catalog, merged_intents=("followup",))


# --- the generated split ---------------------------------------------------------------------------

def test_gen11_is_deterministic_bilingual_and_mixed(catalog):
    assert len(GEN) == gen11.N_DEFAULT == 3000
    assert gen11.generate(300, catalog=catalog, seed=11) == GEN[:300]
    assert gen11.generate(300, catalog=catalog, seed=12) != GEN[:300]
    langs = Counter(e["lang"] for e in GEN)
    assert 0.45 <= langs["es"] / len(GEN) <= 0.55
    kinds = Counter(e["kind"] for e in GEN)
    assert set(kinds) == set(gen11.KINDS) and min(kinds.values()) >= 50
    shapes = {n for e in GEN for n in e["noise"] if n.startswith("config:")}
    assert shapes == {f"config:{s}" for s in ("modal", "docker", "oumi", "openrlhf", "csv", "fabric", "nemo")}
    assert {"distractor", "nbsp", "wrapped", "double_space", "no_opening_marks", "eyes", "oncall",
            "correction"} <= {n for e in GEN for n in e["noise"]}
    earlier = _earlier_texts() | {e["text"].strip().lower() for e in TABLE}
    assert sum(e["text"].strip().lower() in earlier for e in GEN) == 0


def check_generated_entry(entry, catalog, split):
    """A generated entry's labels are well formed (every generated set's check: gen11, gen13, gen15): judged as
    generated (``noise`` present, so ``judge`` compares the parse's delta), labels only ``SpecRequest`` fields
    the catalog accepts plus an intent and clarify code, a follow-up changes something of its thread, and an
    estimate names a method and a model or size. Returns the fields said and the intent."""
    assert entry["split"] == split and isinstance(entry["noise"], list)  # judged as generated: the delta
    expected = entry["expected"]
    assert set(expected) <= FIELDS | {"intent", "clarify_code"}
    said = _fields(expected)
    phrasings.check_said_fields(said, catalog)
    intent = _check_result_labels(expected, catalog)
    if intent == "followup":
        previous = SpecRequest(**entry["previous"]).said()
        assert previous and said and any(previous.get(k) != v for k, v in said.items())
    if intent == "estimate":
        assert "method" in said and ("model" in said or "params_b" in said)
    return said, intent


def test_gen11_labels_are_valid_everywhere(catalog):
    for entry in GEN:
        said, _ = check_generated_entry(entry, catalog, gen11.SPLIT)
        if entry["kind"] == "correction":  # the corrected value is the one labelled, the old one is in the text
            assert str(said["seq_len"]) in entry["text"]


def test_gen11_foreign_models_are_unknown_to_the_catalog(catalog):
    assert all(catalog.find_model(hub) is None for hub in gen11.FOREIGN)


def test_gen11_vocabulary_is_not_in_the_generators_the_parser_was_tuned_on():
    """Each distinctive form (its text before the first slot) is absent from phrasegen.py and gen9.py."""
    tuned = ((ROOT / "tests" / "phrasegen.py").read_text(encoding="utf-8")
             + (ROOT / "tests" / "heldout" / "gen9.py").read_text(encoding="utf-8")).lower()
    tables = [gen11.SEQ, gen11.BATCH, gen11.RANK, gen11.EPOCHS, gen11.DATASET, gen11.TEMPLATES, gen11.FOLLOWUP,
              gen11.SIZE_FORMS]
    forms = [f for table in tables for lang in table.values() for f in lang]
    forms += [f for table in (gen11.GPU_SLOT, gen11.GC, gen11.PRECISION, gen11.OPTIMIZER, gen11.REGION,
                              gen11.UNREADABLE, gen11.RELATIVE) for lang in table.values() for f, *_ in lang]
    forms += [f for lang in gen11.METHOD.values() for words in lang.values() for f, _ in words
              if f not in ("QLoRA", "LoRA", "full fine-tune", "ajuste completo")]
    forms += [f for forms_ in gen11.GPU_FORMS.values() for f in forms_]
    found = []
    for form in forms:
        pieces = [p.strip(" ,.;:|—") for p in re.split(r"\{\w+\}", form)]
        pieces = [p for p in pieces if len(p) >= 5]
        if pieces and all(p.lower() in tuned for p in pieces):
            found.append(form)
    assert found == []


# --- the benchmark ---------------------------------------------------------------------------------

LINE = re.compile(r"^(heldout/diagnosed-table3|generated/diagnosed11)\s+(\d+)/(\d+) fully right = [\d.]+% \((?:en|es) [\d.]+% of \d+"
                  r"(?:, es [\d.]+% of \d+)?\); answered with a value the user did not say: \d+ \(invented \d+, "
                  r"misread \d+, default over a stated value \d+\)$")
COMPOSITION = re.compile(r"^    composition: (?:en \d+)?(?:, )?(?:es \d+)?; by kind: .+; by expected intent: .+$")


def test_the_benchmark_runs_and_prints_counts_only():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "parse_blind.py"), "--n", "40", "--limit", "40"],
                         capture_output=True, text=True, timeout=600, cwd=ROOT, check=True).stdout
    lines = [line for line in out.splitlines() if line.startswith(("heldout/", "generated/"))]
    assert [LINE.match(line).group(1) for line in lines] == ["heldout/diagnosed-table3", "generated/diagnosed11"]
    assert all(LINE.match(line).group(3) == "40" for line in lines)
    assert sum(bool(COMPOSITION.match(line)) for line in out.splitlines()) == 2
    others = [line for line in out.splitlines()
              if not (LINE.match(line) or COMPOSITION.match(line) or line.startswith("    raised an unexpected error"))]
    assert others == []
    texts = [e["text"] for e in TABLE[:40] + GEN[:40]]
    assert not any(t in out for t in texts if len(t) > 12), "without --show the benchmark prints counts only"


def test_the_benchmark_shows_failures_of_the_diagnosed_sets():
    """Both sets were measured blind once (c951d8f) and are now diagnosed: ``--show`` prints failures."""
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "parse_blind.py"), "--n", "200", "--limit", "200",
                          "--show", "3"], capture_output=True, text=True, timeout=600, cwd=ROOT, check=True).stdout
    shown = [line for line in out.splitlines() if line.startswith("      want ")]
    counts = [LINE.match(line) for line in out.splitlines() if line.startswith(("heldout/", "generated/"))]
    failing = sum(min(3, int(m.group(3)) - int(m.group(2))) for m in counts)
    assert len(shown) == failing


# --- issue #13's target ------------------------------------------------------------------------------

def _measure(entries, catalog):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import parse_blind

    return parse_blind.summary(entries, parse_blind.judge_all(entries, catalog))


@pytest.mark.slow
@pytest.mark.xfail(strict=False, reason="issue #13's target (>= 97% fully right, no unsaid value) on the round-11 "
                                        "blind sets; counts in benchmarks/parse_blind.py")
@pytest.mark.parametrize("name", ["table3", "gen11"])
def test_each_blind_set_meets_issue_13s_target(name, catalog):
    entries = {"table3": TABLE, "gen11": GEN}[name]
    s = _measure(entries, catalog)
    assert s["ok"] / s["n"] >= TARGET and s["unsaid"] == 0, (
        f"{name}: {s['ok']}/{s['n']} fully right, {s['unsaid']} answered with an unsaid value")
