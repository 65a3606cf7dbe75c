"""The round-15 generated blind set (tests/heldout/gen15.py) loads and its labels are well formed.

Structure only, never how the parser reads it (no test here runs the parser): the set is big, bilingual
and deterministic for a seed, covers every kind and config shape, every label names a real ``SpecRequest``
field with a value the spec accepts, catalog names are canonical catalog ids (tests/phrasings.
check_said_fields), intents and clarify codes are the ones ``ParseResult`` documents (advisor/parse/
result.py), follow-ups carry the thread they follow and change it, it repeats no message of the earlier
sets, and its vocabulary, frames, noise and config shapes are absent from the generators the parser was
tuned on (phrasegen.py, gen9.py, gen11.py, gen13.py). The label checks are tests/test_parse_blind_counts.py's
helpers, imported, as tests/test_parse_blind13_counts.py uses them for gen13.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from advisor.catalog import Catalog
from advisor.spec import SpecRequest
from tests.heldout import gen9, gen11, gen13, gen15
from tests.test_parse_blind13_counts import GEN as GEN13
from tests.test_parse_blind13_counts import TABLE as TABLE4
from tests.test_parse_blind13_counts import _round11_texts
from tests.test_parse_blind_counts import _earlier_texts, check_generated_entry

ROOT = Path(__file__).resolve().parent.parent
GEN = gen15.generate(gen15.N_DEFAULT, catalog=Catalog.in_memory(), seed=15)
TUNED = ("phrasegen.py", "heldout/gen9.py", "heldout/gen11.py", "heldout/gen13.py")


def test_gen15_is_deterministic_bilingual_and_mixed(catalog):
    assert len(GEN) == gen15.N_DEFAULT == 3000
    assert gen15.generate(300, catalog=catalog, seed=15) == GEN[:300]
    assert gen15.generate(300, catalog=catalog, seed=16) != GEN[:300]
    langs = Counter(e["lang"] for e in GEN)
    assert set(langs) == {"en", "es"} and 0.45 <= langs["es"] / len(GEN) <= 0.55
    kinds = Counter(e["kind"] for e in GEN)
    assert set(kinds) == set(gen15.KINDS) and min(kinds.values()) >= 50
    for lang in ("en", "es"):  # every kind in both languages
        assert {e["kind"] for e in GEN if e["lang"] == lang} == set(gen15.KINDS)
    shapes = {n for e in GEN for n in e["noise"] if n.startswith("config:")}
    assert shapes == {f"config:{s}" for s in gen15.CONFIG_SHAPES}
    assert {"distractor", "line_wrap", "emoji", "lowercase", "caps_method", "quote", "mention", "voice", "codeswitch",
            "correction", "followup", "relative"} <= {n for e in GEN for n in e["noise"]}
    intents = Counter(e["expected"].get("intent", "estimate") for e in GEN)
    assert {"estimate", "followup", "clarify"} <= set(intents)
    codes = {e["expected"].get("clarify_code") for e in GEN if "clarify_code" in e["expected"]}
    assert codes == {"unreadable", "conflict", "relative", "model"}


def test_gen15_repeats_no_message_of_its_own_or_of_the_earlier_sets():
    keys = Counter((e["text"].strip().lower(), repr(e.get("previous"))) for e in GEN)
    assert [k for k, n in keys.items() if n > 1] == []
    earlier = _earlier_texts() | _round11_texts() | {e["text"].strip().lower() for e in TABLE4 + GEN13}
    assert sum(e["text"].strip().lower() in earlier for e in GEN) == 0


def test_gen15_labels_are_valid_everywhere(catalog):
    for entry in GEN:
        assert set(entry) <= {"text", "lang", "expected", "previous", "noise", "split", "kind"}
        assert isinstance(entry["text"], str) and entry["text"].strip() and entry["lang"] in ("en", "es")
        assert entry["kind"] in gen15.KINDS
        said, intent = check_generated_entry(entry, catalog, gen15.SPLIT)
        expected = entry["expected"]
        if intent == "followup":  # gen15's follow-ups state only changes
            previous = SpecRequest(**entry["previous"]).said()
            assert all(previous.get(k) != v for k, v in said.items()), "a follow-up changes"
        if intent == "estimate":
            assert "previous" not in entry
        if expected.get("clarify_code") == "relative":
            assert "previous" in entry and said == {}
        if expected.get("clarify_code") == "model":
            assert "model" not in said and "params_b" not in said
        if entry["kind"] == "correction":  # the corrected value is the one labelled, and it is in the text
            assert re.search(rf"(?:actually|edit: seq is|el contexto es|en realidad) {said['seq_len']},\s", entry["text"])
        if "lora_rank" in said or "lora_targets" in said:
            assert said.get("method") in ("lora", "qlora", None)


def test_gen15_config_labels_follow_the_tool_they_paste():
    """Spot checks of the launchers' GPU arithmetic against the text (nodes x GPUs per node)."""
    for entry in GEN:
        shape = next((n.split(":", 1)[1] for n in entry["noise"] if n.startswith("config:")), None)
        text, want = entry["text"], entry["expected"]
        if shape == "pbs":
            nodes, per = map(int, re.search(r"select=(\d+):ncpus=\d+:ngpus=(\d+)", text).groups())
            assert want["num_gpus"] == nodes * per
        elif shape == "sagemaker":
            itype, count = re.search(r'instance_type="([^"]+)", instance_count=(\d+)', text).groups()
            assert (want["gpu"], want["num_gpus"]) == (gen15.SAGEMAKER[itype][0], gen15.SAGEMAKER[itype][1] * int(count))
        elif shape == "nemo2":
            nodes, per = map(int, re.search(r"num_nodes=(\d+), num_gpus_per_node=(\d+)", text).groups())
            assert want["num_gpus"] == nodes * per
        elif shape == "llmfoundry":
            assert f"max_duration: {want['epochs']:g}ep" in text and want["sharding"] == "fsdp"


def test_gen15_foreign_models_are_unknown_to_the_catalog(catalog):
    assert all(catalog.find_model(hub) is None for hub in gen15.FOREIGN)
    assert not set(gen15.FOREIGN) & (set(gen9.FOREIGN) | set(gen11.FOREIGN) | set(gen13.FOREIGN))


def _forms() -> list[str]:
    g = gen15
    tables = (g.SEQ, g.BATCH, g.RANK, g.EPOCHS, g.DATASET, g.TEMPLATES, g.QUESTIONS, g.CORES, g.CORRECTION,
              g.FOLLOWUP, g.RELATIVE_FRAMES, g.SIZE_FORMS, g.MODEL_FORMS, g.NO_MODEL, g.VOICE, g.DISTRACTORS)
    forms = [f for table in tables for lang in table.values() for f in lang]
    forms += [f for lang in g.HEAD.values() for words in lang.values() for f in words]
    forms += [f for table in (g.GPU_SLOT, g.GC, g.PRECISION, g.OPTIMIZER, g.REGION, g.SHARDING, g.ATTENTION, g.TARGETS,
                              g.UNREADABLE, g.RELATIVE, g.CONFLICT)
              for lang in table.values() for f, *_ in lang]
    forms += [f for lang in g.METHOD.values() for words in lang.values() for f in words if f not in g.PLAIN_METHODS]
    forms += [f for lang in g.VOICE_METHOD.values() for words in lang.values() for f in words
              if f.lower() not in {m.lower() for m in g.PLAIN_METHODS}]
    forms += [f for lang in g.VOICE_GPU.values() for words in lang.values() for f in words]
    forms += [f for lang in g.VOICE_SLOTS.values() for f in lang.values()]
    forms += [f for lang in g.NUM_WORDS.values() for f in lang.values() if len(f.split()) > 1]
    forms += [f for lang in g.DATASET_VALUES for forms_ in lang[1:] for f in forms_]
    forms += list(g.GPU_FORMS.values()) + list(g.QUOTE.values()) + list(g.CODESWITCH.values()) + list(g.FOREIGN)
    forms += list(g.RUNPOD_GPU.values())
    return forms


def test_gen15_vocabulary_is_not_in_the_generators_the_parser_was_tuned_on():
    """Each distinctive form (its text between slots, pieces of 5+ characters) is absent from phrasegen.py,
    gen9.py, gen11.py and gen13.py: a form counts as found when all its pieces are. Number words that are
    one word ("two", "dos") are plain words every generator may share; longer spoken numbers are checked."""
    tuned = "".join((ROOT / "tests" / f).read_text(encoding="utf-8") for f in TUNED).lower()
    found = []
    for form in _forms():
        pieces = [p.strip(" ,.;:|—?¿\n•()") for p in re.split(r"\{\w+\}", form)]
        pieces = [p for p in pieces if len(p) >= 5]
        if pieces and all(p.lower() in tuned for p in pieces):
            found.append(form)
    assert found == []
    for marker in gen15.SHAPE_MARKERS:
        assert marker.lower() not in tuned, marker


def test_every_form_is_used_by_the_set():
    """A form no message uses would be checked for nothing: the distinctive forms all occur in the texts."""
    texts = "\n".join(e["text"] for e in GEN).lower()
    unused = []
    for form in _forms():
        pieces = [p.strip(" ,.;:|—?¿\n•()") for p in re.split(r"\{\w+\}", form)]
        pieces = [p for p in pieces if len(p) >= 5]
        if pieces and not all(p.lower() in texts for p in pieces):
            unused.append(form)
    assert unused == []
    assert all(marker.lower() in texts for marker in gen15.SHAPE_MARKERS)
