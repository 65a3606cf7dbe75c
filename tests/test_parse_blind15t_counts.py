"""Round 15's hand-written blind set (tests/heldout/table5.py) loads, and its labels are well formed.

Structure only, never how the parser reads a message: no test here runs the parser. Every label names a
real ``SpecRequest`` field with a value the spec accepts, catalog names are canonical catalog ids
(tests/phrasings.check_said_fields), intents, clarify codes and FAQs are the ones ``ParseResult`` documents
(advisor/parse/result.py), comparisons name catalog GPUs, follow-ups carry the thread they follow and change
it, the set is big, bilingual and covers every kind in both languages, the configs it pastes are the new tools
its docstring lists, and it repeats no message of its own nor of any earlier set (the hand-written tables 2-4,
the phrasings files and the generated sets gen9, gen11 and gen13). The label checks are
tests/test_parse_blind_counts.py's helpers, imported. The set was frozen blind, before any parser run.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from advisor.catalog import Catalog
from advisor.parse.result import INTENTS
from tests.heldout import gen9, gen11, gen13, table3, table4, table5
from tests.test_parse_blind_counts import _earlier_texts, _ids, check_table_row

TABLE = table5.load()


def _earlier_sets() -> set[str]:
    catalog = Catalog.in_memory()
    entries = table3.load() + table4.load()
    entries += gen9.generate(gen9.N_DEFAULT, catalog=catalog, seed=9)
    entries += gen11.generate(gen11.N_DEFAULT, catalog=catalog, seed=11)
    entries += gen13.generate(gen13.N_DEFAULT, catalog=catalog, seed=13)
    return _earlier_texts() | {e["text"].strip().lower() for e in entries}


def test_table5_is_big_bilingual_and_covers_every_kind_in_both_languages():
    langs = Counter(e["lang"] for e in TABLE)
    assert len(TABLE) >= 520 and set(langs) == {"en", "es"}
    assert 0.45 <= langs["es"] / len(TABLE) <= 0.55
    assert table5.KINDS == table4.KINDS
    for lang in ("en", "es"):
        kinds = Counter(k for e in TABLE if e["lang"] == lang for k in e["kind"])
        assert set(kinds) == set(table5.KINDS) and min(kinds.values()) >= 20, (lang, kinds)
    intents = Counter(e["expected"].get("intent", "estimate") for e in TABLE)
    assert set(INTENTS) <= set(intents)
    codes = {e["expected"]["clarify_code"] for e in TABLE if "clarify_code" in e["expected"]}
    assert {"unreadable", "number", "model", "family", "family_size", "limit", "conflict", "relative", "nothing",
            "followup_empty"} <= codes
    faqs = {e["expected"]["faq"] for e in TABLE if "faq" in e["expected"]}
    assert faqs == {"can_i_gpu", "a100_or_h100", "gpu_choice", "what_persists"}
    for lang in ("en", "es"):  # questions back, comparisons and follow-ups in both languages
        mine = Counter(e["expected"].get("intent", "estimate") for e in TABLE if e["lang"] == lang)
        assert set(INTENTS) <= set(mine), (lang, mine)


def test_table5_pastes_the_new_config_tools_in_both_languages():
    for lang in ("en", "es"):
        configs = [e["text"].lower() for e in TABLE if "config" in e["kind"] and e["lang"] == lang]
        for tool in ("accelerators:", "sky launch", "@app.function(gpu=", "runpodctl", "gpu_", "mlflow", "wandb_version",
                     "openrlhf", "verl.trainer", "megatron_gpt_finetuning", "--seq-length", "local_batch_size",
                     "srun --nodes", "#sbatch", "### ", "docker run --gpus", "in [", "export ",
                     "nvidia.com/gpu", "accelerate launch", "bitsandbytesconfig", "loraconfig", "tune run",
                     "fastlanguagemodel"):
            assert any(tool in t for t in configs), (lang, tool)


def test_table5_repeats_no_message_of_its_own_or_of_the_earlier_sets():
    keys = Counter((e["text"], json.dumps(e.get("previous"), sort_keys=True)) for e in TABLE)
    assert [k for k, n in keys.items() if n > 1] == []
    assert len({e["text"].strip().lower() for e in TABLE if "previous" not in e}) == sum(
        "previous" not in e for e in TABLE)
    earlier = _earlier_sets()
    assert sum(e["text"].strip().lower() in earlier for e in TABLE) == 0


@pytest.mark.parametrize("entry", TABLE, ids=_ids(TABLE))
def test_table5_labels_are_valid(entry, catalog):
    check_table_row(entry, table5.KINDS, catalog)
