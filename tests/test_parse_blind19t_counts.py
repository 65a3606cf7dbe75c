"""Round 19's hand-written blind set (tests/heldout/table7.py) loads, and its labels are well formed.

Structure only, never how the parser reads a message: no test here runs the parser. Every label names a
real ``SpecRequest`` field with a value the spec accepts, catalog names are canonical catalog ids
(tests/phrasings.check_said_fields), intents, clarify codes and FAQs are the ones ``ParseResult`` documents
(advisor/parse/result.py), comparisons name catalog GPUs, follow-ups carry the thread they follow and change
it, the set is big, bilingual and covers every kind, intent, FAQ and clarify code in both languages, the configs
it pastes are the new tools its docstring lists (``NEW_TOOLS``, each in both languages), a stack is labelled where
a pasted tool states one (``STACK_OF``: of this round's tools only ms-swift, built on the transformers Trainer and
PEFT; table6's stack-stating tools are kept as a guard) and only there, and it repeats no message of its own nor
of any earlier set (the hand-written tables 2-6, the phrasings files and the generated sets gen9, gen11, gen13,
gen15 and gen17). The label checks are tests/test_parse_blind_counts.py's helpers, imported. The set was frozen
blind, before any parser run.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from advisor.catalog import Catalog
from advisor.parse.result import INTENTS
from advisor.spec import STACKS
from tests.heldout import gen9, gen11, gen13, gen15, gen17, table3, table4, table5, table6, table7
from tests.test_parse_blind_counts import _earlier_texts, _ids, check_table_row

TABLE = table7.load()
CODES = {"unreadable", "number", "model", "family", "family_size", "limit", "conflict", "relative", "nothing",
         "followup_empty"}
FAQS = {"can_i_gpu", "a100_or_h100", "gpu_choice", "what_persists"}


def _earlier_sets() -> set[str]:
    catalog = Catalog.in_memory()
    entries = table3.load() + table4.load() + table5.load() + table6.load()
    entries += gen9.generate(gen9.N_DEFAULT, catalog=catalog, seed=9)
    entries += gen11.generate(gen11.N_DEFAULT, catalog=catalog, seed=11)
    entries += gen13.generate(gen13.N_DEFAULT, catalog=catalog, seed=13)
    entries += gen15.generate(gen15.N_DEFAULT, catalog=catalog, seed=15)
    entries += gen17.generate(gen17.N_DEFAULT, catalog=catalog, seed=17)
    return _earlier_texts() | {e["text"].strip().lower() for e in entries}


def test_table7_is_big_bilingual_and_covers_every_kind_in_both_languages():
    langs = Counter(e["lang"] for e in TABLE)
    assert len(TABLE) >= 400 and set(langs) == {"en", "es"}
    assert 0.45 <= langs["es"] / len(TABLE) <= 0.55
    assert table7.KINDS == table6.KINDS
    assert table7.PATH.name == "table7.json"
    for lang in ("en", "es"):
        kinds = Counter(k for e in TABLE if e["lang"] == lang for k in e["kind"])
        assert set(kinds) == set(table7.KINDS) and min(kinds.values()) >= 15, (lang, kinds)
    for lang in ("en", "es"):  # every intent, every FAQ and the clarify codes in both languages
        mine = [e["expected"] for e in TABLE if e["lang"] == lang]
        assert set(INTENTS) <= {x.get("intent", "estimate") for x in mine}, lang
        assert {x["faq"] for x in mine if "faq" in x} == FAQS, lang
        assert CODES <= {x["clarify_code"] for x in mine if "clarify_code" in x}, lang


# This round's config tools and shapes (lower case, as they appear in the pasted text).
NEW_TOOLS = ("accelerators:", "num_nodes:", "@app.function(gpu=", "scalingconfig(", "peft_scheme", "trainer.devices",
             "swift sft", "xtuner train", "openrlhf", "levanter", "num_gpus=", "docker run --gpus", "nvidia.com/gpu",
             "wandb_version", "mlflow", "cuda_visible_devices=", ".phony", "\t", "seq_len,num_gpus", "## pr #",
             "issue #")


def test_table7_pastes_the_new_config_tools_in_both_languages():
    for lang in ("en", "es"):
        configs = [e["text"].lower() for e in TABLE if "config" in e["kind"] and e["lang"] == lang]
        for tool in NEW_TOOLS:
            assert any(tool in t for t in configs), (lang, tool)


# The pasted tools that state a stack (this round's: ms-swift, a layer over the transformers Trainer and PEFT,
# like LLaMA-Factory; table6's stack-stating tools kept so that none slips in unlabelled).
STACK_OF = {"swift sft": "hf", "litgpt": "litgpt", "_component_: torchtune": "torchtune", "tune run": "torchtune",
            "fastlanguagemodel": "unsloth", "base_model:": "hf", "finetuning_type:": "hf", "trainingarguments(": "hf",
            "sftconfig(": "hf"}


def test_the_stacks_named_are_ones_the_spec_accepts():
    assert set(STACK_OF.values()) <= set(STACKS)


@pytest.mark.parametrize("entry", TABLE, ids=_ids(TABLE))
def test_table7_labels_a_stack_only_where_a_pasted_tool_states_one(entry):
    text, stack = entry["text"].lower(), entry["expected"].get("stack")
    stated = {s for tool, s in STACK_OF.items() if tool in text}
    assert len(stated) <= 1
    if stack is not None:
        assert "config" in entry["kind"] and stated == {stack}
    elif "config" in entry["kind"]:
        assert not stated, "a pasted tool that states a stack is labelled with it"


def test_table7_repeats_no_message_of_its_own_or_of_the_earlier_sets():
    keys = Counter((e["text"], json.dumps(e.get("previous"), sort_keys=True)) for e in TABLE)
    assert [k for k, n in keys.items() if n > 1] == []
    assert len({e["text"].strip().lower() for e in TABLE if "previous" not in e}) == sum(
        "previous" not in e for e in TABLE)
    earlier = _earlier_sets()
    repeated = [i for i, e in enumerate(TABLE) if e["text"].strip().lower() in earlier]
    assert repeated == [], f"{len(repeated)} messages repeat an earlier set's (entries {repeated})"


@pytest.mark.parametrize("entry", TABLE, ids=_ids(TABLE))
def test_table7_labels_are_valid(entry, catalog):
    check_table_row(entry, table7.KINDS, catalog)
