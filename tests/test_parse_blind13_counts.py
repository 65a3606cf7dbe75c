"""The round-13 parser sets (blind once, now diagnosed) load, their labels are well formed, and benchmarks/parse_blind13.py runs.

Structure only, never which messages fail: every label names a real ``SpecRequest`` field with a
value the spec accepts, catalog names are canonical catalog ids (tests/phrasings.check_said_fields),
intents and clarify codes are the ones ``ParseResult`` documents (advisor/parse/result.py), follow-ups
carry the thread they follow, neither set repeats a message of the earlier sets, and gen13's
vocabulary is absent from the generators the parser was tuned on (phrasegen.py, gen9.py, gen11.py).
The label checks are tests/test_parse_blind_counts.py's helpers, imported. Both sets were measured once,
blind, at 73426e4 (figures in benchmarks/parse_blind13.py's docstring) and are now diagnosed, so the
benchmark's ``--show`` prints their failures. Issue #13's targets (at least 97% fully right and no
answer built on a value the user did not say, on each set) are
``test_each_round13_blind_set_meets_issue_13s_target``: marked ``slow`` and ``xfail(strict=False)`` as
tests/test_parse_heldout_counts.py's are, so CI stays green while the parser is below them and a pass
shows as XPASS; its assertion message carries counts only, never a message.
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
from tests.heldout import gen11, gen13, table3, table4
from tests.test_parse_blind_counts import TARGET, _earlier_texts, _ids, check_generated_entry, check_table_row

ROOT = Path(__file__).resolve().parent.parent

TABLE = table4.load()
GEN = gen13.generate(gen13.N_DEFAULT, catalog=Catalog.in_memory(), seed=13)


def _round11_texts() -> set[str]:
    return {e["text"].strip().lower() for e in table3.load()} | {
        e["text"].strip().lower() for e in gen11.generate(gen11.N_DEFAULT, catalog=Catalog.in_memory(), seed=11)}


# --- the hand-written set --------------------------------------------------------------------------

def test_table4_is_big_bilingual_and_covers_every_kind():
    langs = Counter(e["lang"] for e in TABLE)
    assert len(TABLE) >= 500 and set(langs) == {"en", "es"}
    assert 0.45 <= langs["es"] / len(TABLE) <= 0.55
    kinds = Counter(k for e in TABLE for k in e["kind"])
    assert set(kinds) == set(table4.KINDS) and min(kinds.values()) >= 20
    for lang in ("en", "es"):  # every kind in both languages
        assert set(k for e in TABLE if e["lang"] == lang for k in e["kind"]) == set(table4.KINDS)
    intents = Counter(e["expected"].get("intent", "estimate") for e in TABLE)
    assert set(INTENTS) <= set(intents)
    codes = Counter(e["expected"].get("clarify_code") for e in TABLE if "clarify_code" in e["expected"])
    assert {"unreadable", "number", "model", "family", "limit", "conflict", "relative", "nothing"} <= set(codes)
    configs = [e["text"] for e in TABLE if "config" in e["kind"]]
    for tool in ("axolotl", "LLaMA-Factory", "SFTConfig", "trl sft", "tune run", "FastLanguageModel", "ScalingConfig",
                 "nvidia.com/gpu", "#SBATCH --gres=gpu:", "trainer.devices=", "Makefile", "usage:", "toml", "dict(",
                 "accelerate launch", "torchrun", "deepspeed --num_gpus", "adapter_config.json", "TrainingArguments",
                 "BitsAndBytesConfig", "llamafactory-cli", "docker compose"):
        assert any(tool.lower() in t.lower() for t in configs), tool


def test_table4_repeats_no_message_of_its_own_or_of_the_earlier_sets():
    keys = Counter((e["text"], json.dumps(e.get("previous"), sort_keys=True)) for e in TABLE)
    assert [k for k, n in keys.items() if n > 1] == []
    earlier = _earlier_texts() | _round11_texts()
    assert sum(e["text"].strip().lower() in earlier for e in TABLE) == 0


@pytest.mark.parametrize("entry", TABLE, ids=_ids(TABLE))
def test_table4_labels_are_valid(entry, catalog):
    check_table_row(entry, table4.KINDS, catalog, merged_intents=("followup",))


# --- the generated split ---------------------------------------------------------------------------

def test_gen13_is_deterministic_bilingual_and_mixed(catalog):
    assert len(GEN) == gen13.N_DEFAULT == 3000
    assert gen13.generate(300, catalog=catalog, seed=13) == GEN[:300]
    assert gen13.generate(300, catalog=catalog, seed=14) != GEN[:300]
    langs = Counter(e["lang"] for e in GEN)
    assert 0.45 <= langs["es"] / len(GEN) <= 0.55
    kinds = Counter(e["kind"] for e in GEN)
    assert set(kinds) == set(gen13.KINDS) and min(kinds.values()) >= 50
    shapes = {n for e in GEN for n in e["noise"] if n.startswith("config:")}
    assert shapes == {f"config:{s}" for s in ("trainjob", "autotrain", "dstack", "nvidia_smi", "namespace", "logline",
                                              "curl")}
    assert {"distractor", "ps", "reply_to", "check_emoji", "version_tag", "diamond_bullets", "semicolons",
            "correction"} <= {n for e in GEN for n in e["noise"]}
    earlier = _earlier_texts() | _round11_texts() | {e["text"].strip().lower() for e in TABLE}
    assert sum(e["text"].strip().lower() in earlier for e in GEN) == 0


def test_gen13_labels_are_valid_everywhere(catalog):
    for entry in GEN:
        said, _ = check_generated_entry(entry, catalog, gen13.SPLIT)
        if entry["kind"] == "correction":  # the corrected value is the one labelled, and it is in the text
            assert f"{said['seq_len']}]" in entry["text"] or f"make it {said['seq_len']}" in entry["text"] \
                or f"que sea {said['seq_len']}" in entry["text"]


def test_gen13_foreign_models_are_unknown_to_the_catalog(catalog):
    assert all(catalog.find_model(hub) is None for hub in gen13.FOREIGN)
    assert not set(gen13.FOREIGN) & set(gen11.FOREIGN)


def test_gen13_vocabulary_is_not_in_the_generators_the_parser_was_tuned_on():
    """Each distinctive form (its text between slots, pieces of 5+ characters) is absent from phrasegen.py,
    gen9.py and gen11.py: a form counts as found when all its pieces are."""
    tuned = "".join((ROOT / "tests" / f).read_text(encoding="utf-8")
                    for f in ("phrasegen.py", "heldout/gen9.py", "heldout/gen11.py")).lower()
    tables = (gen13.SEQ, gen13.BATCH, gen13.RANK, gen13.EPOCHS, gen13.DATASET, gen13.TEMPLATES, gen13.CORES,
              gen13.CORRECTION, gen13.FOLLOWUP, gen13.SIZE_FORMS, gen13.MODEL_FORMS, gen13.NO_MODEL)
    forms = [f for table in tables for lang in table.values() for f in lang]
    forms += [f for lang in gen13.HEAD.values() for words in lang.values() for f in words]
    forms += [f for table in (gen13.GPU_SLOT, gen13.GC, gen13.PRECISION, gen13.OPTIMIZER, gen13.REGION, gen13.SHARDING,
                              gen13.ATTENTION, gen13.PACKING, gen13.UNREADABLE, gen13.RELATIVE)
              for lang in table.values() for f, *_ in lang]
    forms += [f for lang in gen13.METHOD.values() for words in lang.values() for f in words
              if f not in gen13.PLAIN_METHODS]
    forms += list(gen13.GPU_FORMS.values()) + list(gen13.CONFLICT.values()) + list(gen13.PS.values())
    forms += list(gen13.REPLY.values()) + [d for lang in gen13.DISTRACTORS.values() for d in lang] + list(gen13.FOREIGN)
    found = []
    for form in forms:
        pieces = [p.strip(" ,.;:|—") for p in re.split(r"\{\w+\}", form)]
        pieces = [p for p in pieces if len(p) >= 5]
        if pieces and all(p.lower() in tuned for p in pieces):
            found.append(form)
    assert found == []
    for shape in ("TrainJob", "autotrain llm", "dstack", "nvidia-smi", "Namespace(", "world_size", "curl "):
        assert shape.lower() not in tuned, shape


# --- the benchmark ---------------------------------------------------------------------------------

LINE = re.compile(r"^(heldout/diagnosed-table4|generated/diagnosed13)\s+(\d+)/(\d+) fully right = [\d.]+% \((?:en|es) [\d.]+% of \d+"
                  r"(?:, es [\d.]+% of \d+)?\); answered with a value the user did not say: \d+ \(invented \d+, "
                  r"misread \d+, default over a stated value \d+\)$")
COMPOSITION = re.compile(r"^    composition: (?:en \d+)?(?:, )?(?:es \d+)?; by kind: .+; by expected intent: .+$")


def test_the_benchmark_runs_and_prints_counts_only():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "parse_blind13.py"), "--n", "40", "--limit", "40"],
                         capture_output=True, text=True, timeout=600, cwd=ROOT, check=True).stdout
    lines = [line for line in out.splitlines() if line.startswith(("heldout/", "generated/"))]
    assert [LINE.match(line).group(1) for line in lines] == ["heldout/diagnosed-table4", "generated/diagnosed13"]
    assert all(LINE.match(line).group(3) == "40" for line in lines)
    assert sum(bool(COMPOSITION.match(line)) for line in out.splitlines()) == 2
    others = [line for line in out.splitlines()
              if not (LINE.match(line) or COMPOSITION.match(line) or line.startswith("    raised an unexpected error"))]
    assert others == []
    texts = [e["text"] for e in TABLE[:40] + GEN[:40]]
    assert not any(t in out for t in texts if len(t) > 12), "without --show the benchmark prints counts only"


def test_the_benchmark_shows_failures_of_the_diagnosed_sets():
    """Both sets were measured blind once (73426e4) and are now diagnosed: ``--show`` prints failures."""
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "parse_blind13.py"), "--n", "200", "--limit",
                          "200", "--show", "3"], capture_output=True, text=True, timeout=600, cwd=ROOT,
                         check=True).stdout
    shown = [line for line in out.splitlines() if line.startswith("      want ")]
    counts = [LINE.match(line) for line in out.splitlines() if line.startswith(("heldout/", "generated/"))]
    assert len(counts) == 2
    failing = sum(min(3, int(m.group(3)) - int(m.group(2))) for m in counts)
    assert len(shown) == failing


# --- issue #13's target ------------------------------------------------------------------------------

def _measure(entries, catalog):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import parse_blind13

    return parse_blind13.summary(entries, parse_blind13.judge_all(entries, catalog))


@pytest.mark.slow
@pytest.mark.xfail(strict=False, reason="issue #13's target (>= 97% fully right, no unsaid value) on the round-13 "
                                        "blind sets; counts in benchmarks/parse_blind13.py")
@pytest.mark.parametrize("name", ["table4", "gen13"])
def test_each_round13_blind_set_meets_issue_13s_target(name, catalog):
    entries = {"table4": TABLE, "gen13": GEN}[name]
    s = _measure(entries, catalog)
    assert s["ok"] / s["n"] >= TARGET and s["unsaid"] == 0, (
        f"{name}: {s['ok']}/{s['n']} fully right, {s['unsaid']} answered with an unsaid value")
