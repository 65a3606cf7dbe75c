"""The round-17 generated blind set (tests/heldout/gen17.py) loads and its labels are well formed.

Structure only, never how the parser reads it (no test here runs the parser): the set is big, bilingual
and deterministic for a seed, covers every kind and config shape in both languages, every label names a real
``SpecRequest`` field with a value the spec accepts, catalog names are canonical catalog ids, intents and
clarify codes are the ones ``ParseResult`` documents (advisor/parse/result.py), follow-ups carry the thread
they follow and change it, it repeats no message of its own beyond a small share nor any of the earlier sets,
and its vocabulary, frames and config shapes are absent from the earlier generators (phrasegen.py, gen9.py,
gen11.py, gen13.py, gen15.py). The label checks are tests/test_parse_blind_counts.py's helpers, imported, as
tests/test_parse_blind15g_counts.py uses them for gen15.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from advisor.catalog import Catalog
from advisor.spec import MAX_EPOCHS, MAX_GPUS, MAX_MICRO_BATCH, MAX_PARAMS_B, MAX_SEQ_LEN, SpecRequest
from tests.heldout import gen9, gen11, gen13, gen15, gen17
from tests.test_parse_blind13_counts import GEN as GEN13
from tests.test_parse_blind13_counts import TABLE as TABLE4
from tests.test_parse_blind13_counts import _round11_texts
from tests.test_parse_blind_counts import _earlier_texts, check_generated_entry

ROOT = Path(__file__).resolve().parent.parent
GEN = gen17.generate(gen17.N_DEFAULT, catalog=Catalog.in_memory(), seed=17)
EARLIER_GENERATORS = ("phrasegen.py", "heldout/gen9.py", "heldout/gen11.py", "heldout/gen13.py", "heldout/gen15.py")


def test_gen17_is_deterministic_bilingual_and_mixed(catalog):
    assert len(GEN) == gen17.N_DEFAULT == 3000
    assert gen17.generate(300, catalog=catalog, seed=17) == GEN[:300]
    assert gen17.generate(300, catalog=catalog, seed=18) != GEN[:300]
    langs = Counter(e["lang"] for e in GEN)
    assert set(langs) == {"en", "es"} and 0.45 <= langs["es"] / len(GEN) <= 0.55
    kinds = Counter(e["kind"] for e in GEN)
    assert set(kinds) == set(gen17.KINDS) and min(kinds.values()) >= 50
    for lang in ("en", "es"):  # every kind in both languages
        assert {e["kind"] for e in GEN if e["lang"] == lang} == set(gen17.KINDS)
    for lang in ("en", "es"):  # every config shape in both languages
        shapes = {n for e in GEN if e["lang"] == lang for n in e["noise"] if n.startswith("config:")}
        assert shapes == {f"config:{s}" for s in gen17.CONFIG_SHAPES}
    assert {"distractor", "wrap", "udash", "nbsp", "thinsp", "fullwidth", "emoji", "quoted", "channel",
            "double_space", "typo:method", "typo:model", "typo:setting", "correction", "followup", "adjacent",
            "paper_table"} <= {n for e in GEN for n in e["noise"]}
    intents = Counter(e["expected"].get("intent", "estimate") for e in GEN)
    assert {"estimate", "followup", "clarify"} <= set(intents)
    codes = {e["expected"].get("clarify_code") for e in GEN if "clarify_code" in e["expected"]}
    assert codes == {"unreadable", "conflict", "limit", "family_size", "number"}
    stacks = Counter(e["expected"].get("stack") for e in GEN if "stack" in e["expected"])
    assert set(stacks) == {"hf", "litgpt", "unsloth"}


def test_gen17_is_fast(catalog):
    import time
    start = time.perf_counter()
    gen17.generate(gen17.N_DEFAULT, catalog=catalog, seed=17)
    assert time.perf_counter() - start < 2.0


def test_gen17_repeats_no_message_of_its_own_or_of_the_earlier_sets(catalog):
    keys = Counter((e["text"].strip().lower(), repr(e.get("previous"))) for e in GEN)
    assert [k for k, n in keys.items() if n > 1] == []
    texts = Counter(e["text"].strip().lower() for e in GEN)  # the same text in two threads: a small share
    assert sum(n - 1 for n in texts.values() if n > 1) <= 0.02 * len(GEN)
    gen15_texts = {e["text"].strip().lower() for e in gen15.generate(gen15.N_DEFAULT, catalog=catalog, seed=15)}
    earlier = _earlier_texts() | _round11_texts() | {e["text"].strip().lower() for e in TABLE4 + GEN13} | gen15_texts
    assert sum(e["text"].strip().lower() in earlier for e in GEN) == 0


def test_gen17_labels_are_valid_everywhere(catalog):
    for entry in GEN:
        assert set(entry) <= {"text", "lang", "expected", "previous", "noise", "split", "kind"}
        assert isinstance(entry["text"], str) and entry["text"].strip() and entry["lang"] in ("en", "es")
        assert entry["kind"] in gen17.KINDS
        said, intent = check_generated_entry(entry, catalog, gen17.SPLIT)
        expected = entry["expected"]
        SpecRequest(**said)  # every label a field with a value the spec accepts
        if intent == "followup":  # gen17's follow-ups state only changes
            previous = SpecRequest(**entry["previous"]).said()
            assert all(previous.get(k) != v for k, v in said.items()), "a follow-up changes"
        else:
            assert "previous" not in entry
        if intent == "estimate":
            assert said, "an estimate states something"
        assert not ("model" in said and "params_b" in said)
        if entry["kind"] == "correction":  # the corrected value is the one labelled, and it is in the text
            said_new = r"(?:should read|misread the ticket:|secuencia es|leí mal el ticket:)"
            assert re.search(rf"{said_new} {said['seq_len']}\b", _plain(entry["text"]))
        if "lora_rank" in said or "lora_targets" in said or "lora_alpha" in said:
            assert said.get("method") in ("lora", "qlora", None)
        if "quant" in said:
            assert said.get("method") == "qlora"
        if expected.get("clarify_code") == "family_size":
            assert "model" not in said and "params_b" not in said
        if "stack" in said:  # only a pasted config of a tool that is a Stack states one
            assert entry["kind"] == "config"


def test_gen17_config_labels_follow_the_tool_they_paste():
    """Spot checks of the launchers' GPU arithmetic and the tools' own keys against the text."""
    seen = set()
    for entry in GEN:
        shape = next((n.split(":", 1)[1] for n in entry["noise"] if n.startswith("config:")), None)
        if shape is None:
            continue
        seen.add(shape)
        text, want = entry["text"], entry["expected"]
        if shape == "torchrun_nnodes":
            nodes, per = map(int, re.search(r"--nnodes=(\d+) --nproc-per-node=(\d+)", text).groups())
            assert want["num_gpus"] == nodes * per
        elif shape == "azureml":
            count = int(re.search(r"instance_count=(\d+)", text).group(1))
            per = int(re.search(r"process_count_per_instance=(\d+)", text).group(1))
            vm = re.search(r"VM size: (\w+)", text).group(1)
            assert (want["gpu"], want["num_gpus"]) == (gen17.AZURE_VM[vm][0], count * per)
            assert gen17.AZURE_VM[vm][1] == per
        elif shape == "sagemaker_hf":
            itype, count = re.search(r'instance_type="([^"]+)", instance_count=(\d+)', text).groups()
            gid, per = gen17.SAGEMAKER_HF[itype]
            assert (want["gpu"], want["num_gpus"]) == (gid, per * int(count))
        elif shape == "vertex":
            acc, count = re.search(r'"accelerator_type": "(\w+)", "accelerator_count": (\d+)', text).groups()
            assert (want["gpu"], want["num_gpus"]) == (gen17.VERTEX[acc][0], int(count))
        elif shape == "gcloud":
            acc, count = re.search(r"--accelerator=type=([\w-]+),count=(\d+)", text).groups()
            assert (want["gpu"], want["num_gpus"]) == (gen17.GCLOUD[acc][0], int(count))
        elif shape == "accelerate_fsdp2":
            assert f"num_processes: {want['num_gpus']}\n" in text and want["sharding"] == "fsdp"
        elif shape == "litgpt_yaml":
            assert want["stack"] == "litgpt" and want["precision"] == "bf16"
            assert ("quantize: bnb.nf4-dq" in text) == (want["method"] == "qlora") == ("quant" in want)
        elif shape == "unsloth_fastmodel":
            assert want["stack"] == "unsloth"
            assert ("full_finetuning = True" in text) == (want["method"] == "full")
            assert ("load_in_4bit = True" in text) == (want["method"] == "qlora")
        elif shape in ("axolotl_ds", "llamafactory_ds"):
            assert want["stack"] == "hf" and want["sharding"] in ("zero2", "zero3")
            assert f"z{want['sharding'][-1]}" in text.replace("zero", "z")
    assert seen == set(gen17.CONFIG_SHAPES)


def _plain(text: str) -> str:
    """The text without its unicode-space, hyphen and line-wrap noise."""
    return re.sub(r"\s+", " ", text.replace("\u2011", "-").replace("\u00a0", " ").replace("\u202f", " "))


def test_gen17_questions_back_are_what_they_say():
    for entry in GEN:
        text = _plain(entry["text"])
        code = entry["expected"].get("clarify_code")
        said = {k: v for k, v in entry["expected"].items() if k in SpecRequest.model_fields}
        if code == "limit":  # the out-of-range value is in the text and not labelled
            over = [int(x) for x in re.findall(r"\b(\d{4,})\b", text)]
            assert "2000B" in text or any(x > min(MAX_SEQ_LEN, MAX_GPUS, MAX_MICRO_BATCH, MAX_EPOCHS)
                                                   for x in over)
            assert all(said.get(k) is None or said[k] <= hi for k, hi in (
                ("seq_len", MAX_SEQ_LEN), ("num_gpus", MAX_GPUS), ("micro_batch", MAX_MICRO_BATCH),
                ("epochs", MAX_EPOCHS), ("params_b", MAX_PARAMS_B)))
        if code == "family_size":
            assert any(f in text for f in gen17.FAMILY_SIZE)


def test_gen17_foreign_models_and_family_sizes_are_unknown_to_the_catalog(catalog):
    assert all(catalog.find_model(hub) is None for hub in gen17.FOREIGN)
    assert not set(gen17.FOREIGN) & (set(gen9.FOREIGN) | set(gen11.FOREIGN) | set(gen13.FOREIGN) | set(gen15.FOREIGN))
    assert all(catalog.find_model(name) is None for name in gen17.FAMILY_SIZE)


def _forms() -> list[str]:
    g = gen17
    tables = (g.SEQ, g.BATCH, g.RANK, g.EPOCHS, g.DATASET, g.TEMPLATES, g.QUESTIONS, g.CORRECTION, g.FOLLOWUP,
              g.SIZE_FORMS, g.MODEL_FORMS, g.DISTRACTORS, g.HEAD)
    forms = [f for table in tables for lang in table.values() for f in lang]
    forms += [f for table in (g.GPU_SLOT, g.GC, g.PRECISION, g.OPTIMIZER, g.REGION, g.SHARDING, g.ATTENTION,
                              g.TARGETS, g.COMPILE, g.PACKING, g.UNREADABLE, g.CONFLICT, g.LIMIT, g.SETTING_TYPOS)
              for lang in table.values() for f, *_ in lang]
    forms += [f for lang in g.METHOD.values() for words in lang.values() for f in words if f not in g.PLAIN_METHODS]
    forms += [f for lang in g.DATASET_VALUES for forms_ in lang[1:] for f in forms_]
    forms += [v for lang in g.PAPER.values() for v in lang.values()]
    forms += list(g.GPU_FORMS.values()) + list(g.QUOTED.values()) + list(g.FOREIGN) + list(g.MONEY.values())[0]
    forms += list(g.NUMBER.values()) + list(g.LIMIT_SIZE.values())
    forms += [t for typos in g.FAMILY_TYPOS.values() for t in typos]
    forms += [t for table in (g.METHOD_TYPOS, g.METHOD_TYPOS_ES) for typos in table.values() for t in typos]
    return forms


def _pieces(form: str) -> list[str]:
    pieces = [p.strip(" ,.;:|—?¿\n•()`[]") for p in re.split(r"\{\w+\}", form)]
    return [p for p in pieces if len(p) >= 5]


def test_gen17_vocabulary_is_not_in_the_earlier_generators():
    """Each distinctive form (its text between slots, pieces of 5+ characters) is absent from phrasegen.py,
    gen9.py, gen11.py, gen13.py and gen15.py: a form counts as found when all its pieces are. The plain method
    words, the sequence words the issue lists ("seq", "context", "secuencia") and catalog names are shared."""
    earlier = "".join((ROOT / "tests" / f).read_text(encoding="utf-8") for f in EARLIER_GENERATORS).lower()
    found = [form for form in _forms() if _pieces(form) and all(p.lower() in earlier for p in _pieces(form))]
    assert found == []
    for marker in gen17.SHAPE_MARKERS:
        assert marker.lower() not in earlier, marker


def test_every_form_is_used_by_the_set():
    """A form no message uses would be checked for nothing: the distinctive forms all occur in the texts."""
    texts = "\n".join(_plain(e["text"]) for e in GEN).lower()
    unused = [form for form in _forms() if _pieces(form) and not all(p.lower() in texts for p in _pieces(form))]
    assert unused == []
    assert all(marker.lower() in texts for marker in gen17.SHAPE_MARKERS)
