"""The round-19 generated blind set (tests/heldout/gen19.py) loads and its labels are well formed.

Structure only, never how the parser reads it (no test here runs the parser): the set is big, bilingual
and deterministic for a seed, covers every kind and config shape in both languages, every label names a real
``SpecRequest`` field with a value the spec accepts, catalog names are canonical catalog ids, intents and
clarify codes are the ones ``ParseResult`` documents (advisor/parse/result.py), follow-ups carry the thread
they follow and change it, it repeats no message of its own nor any of the earlier sets (phrasegen's, table4,
gen9, gen11, gen13, gen15, gen17), and its vocabulary, frames and config shapes are absent from the earlier
generators (phrasegen.py, gen9.py, gen11.py, gen13.py, gen15.py, gen17.py). The label checks are
tests/test_parse_blind_counts.py's helpers, imported, as tests/test_parse_blind17g_counts.py uses them for gen17.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from advisor.catalog import Catalog
from advisor.parse.result import INTENTS
from advisor.spec import MAX_EPOCHS, MAX_GPUS, MAX_MICRO_BATCH, MAX_PARAMS_B, MAX_SEQ_LEN, SpecRequest
from tests.heldout import gen9, gen11, gen13, gen15, gen17, gen19
from tests.test_parse_blind13_counts import GEN as GEN13
from tests.test_parse_blind13_counts import TABLE as TABLE4
from tests.test_parse_blind13_counts import _round11_texts
from tests.test_parse_blind_counts import _earlier_texts, check_generated_entry

ROOT = Path(__file__).resolve().parent.parent
GEN = gen19.generate(gen19.N_DEFAULT, catalog=Catalog.in_memory(), seed=19)
EARLIER_GENERATORS = ("phrasegen.py", "heldout/gen9.py", "heldout/gen11.py", "heldout/gen13.py", "heldout/gen15.py",
                      "heldout/gen17.py")
CLARIFY_CODES = ("nothing", "model", "family", "limit", "number", "followup_empty", "unreadable", "did_you_mean",
                 "conflict", "family_size", "relative")


def test_gen19_is_deterministic_bilingual_and_mixed(catalog):
    assert len(GEN) == gen19.N_DEFAULT == 3000
    assert gen19.generate(300, catalog=catalog, seed=19) == GEN[:300]
    assert gen19.generate(300, catalog=catalog, seed=20) != GEN[:300]
    langs = Counter(e["lang"] for e in GEN)
    assert set(langs) == {"en", "es"} and 0.45 <= langs["es"] / len(GEN) <= 0.55
    kinds = Counter(e["kind"] for e in GEN)
    assert set(kinds) == set(gen19.KINDS) and min(kinds.values()) >= 50
    for lang in ("en", "es"):  # every kind in both languages
        assert {e["kind"] for e in GEN if e["lang"] == lang} == set(gen19.KINDS)
    for lang in ("en", "es"):  # every config shape in both languages
        shapes = {n for e in GEN if e["lang"] == lang for n in e["noise"] if n.startswith("config:")}
        assert shapes == {f"config:{s}" for s in gen19.CONFIG_SHAPES}
    assert {"distractor", "smart_quotes", "nbsp", "zwsp", "emoji", "double_space", "mixed_case", "wrap40", "html",
            "thinsp", "mention", "mobile", "typo:method", "typo:model", "typo:setting", "correction", "followup",
            "adjacent", "form", "sheet_row"} <= {n for e in GEN for n in e["noise"]}
    intents = Counter(e["expected"].get("intent", "estimate") for e in GEN)
    assert {"estimate", "followup", "clarify"} <= set(intents) and set(intents) <= set(INTENTS)
    codes = {e["expected"].get("clarify_code") for e in GEN if "clarify_code" in e["expected"]}
    assert codes == {"unreadable", "conflict", "limit", "family_size", "number"} and codes <= set(CLARIFY_CODES)
    stacks = Counter(e["expected"].get("stack") for e in GEN if "stack" in e["expected"])
    assert set(stacks) == {"hf"}


def test_gen19_is_fast(catalog):
    import time
    start = time.perf_counter()
    gen19.generate(gen19.N_DEFAULT, catalog=catalog, seed=19)
    assert time.perf_counter() - start < 3.0


def test_gen19_repeats_no_message_of_its_own_or_of_the_earlier_sets(catalog):
    keys = Counter((e["text"].strip().lower(), repr(e.get("previous"))) for e in GEN)
    assert [k for k, n in keys.items() if n > 1] == []
    texts = Counter(e["text"].strip().lower() for e in GEN)  # the same text in two threads: a small share
    assert sum(n - 1 for n in texts.values() if n > 1) <= 0.02 * len(GEN)
    earlier = _earlier_texts() | _round11_texts() | {e["text"].strip().lower() for e in TABLE4 + GEN13}
    for mod in (gen9, gen11, gen13, gen15, gen17):
        seed = int(mod.SPLIT.removeprefix("gen"))
        earlier |= {e["text"].strip().lower() for e in mod.generate(mod.N_DEFAULT, catalog=catalog, seed=seed)}
    assert sum(e["text"].strip().lower() in earlier for e in GEN) == 0


def test_gen19_labels_are_valid_everywhere(catalog):
    for entry in GEN:
        assert set(entry) <= {"text", "lang", "expected", "previous", "noise", "split", "kind"}
        assert isinstance(entry["text"], str) and entry["text"].strip() and entry["lang"] in ("en", "es")
        assert entry["kind"] in gen19.KINDS and entry["split"] == gen19.SPLIT
        said, intent = check_generated_entry(entry, catalog, gen19.SPLIT)
        expected = entry["expected"]
        assert set(expected) <= set(SpecRequest.model_fields) | {"intent", "clarify_code"}
        SpecRequest(**said)  # every label a field with a value the spec accepts
        if "model" in said and "/" not in said["model"]:  # a catalog model by its canonical id
            assert catalog.find_model(said["model"]) is not None and said["model"] in {m.id for m in catalog.models()}
        if "gpu" in said:
            assert said["gpu"] in {g.id for g in catalog.gpus()}
        if "region" in said:
            assert said["region"] in {r.id for r in catalog.regions()}
        if intent == "followup":  # gen19's follow-ups state only changes
            previous = SpecRequest(**entry["previous"]).said()
            assert all(previous.get(k) != v for k, v in said.items()), "a follow-up changes"
        else:
            assert "previous" not in entry
        if intent == "estimate":
            assert said, "an estimate states something"
        assert not ("model" in said and "params_b" in said)
        if entry["kind"] == "correction":  # the corrected value is the one labelled, and it is in the text
            said_new = r"(?:context is|-- edit:|el contexto es|-- corrijo:)"
            assert re.search(rf"{said_new} {said['seq_len']}\b", _plain(entry["text"]))
        if "lora_rank" in said or "lora_targets" in said or "lora_alpha" in said:
            assert said.get("method") in ("lora", "qlora", None)
        if "quant" in said:
            assert said.get("method") == "qlora"
        if expected.get("clarify_code") == "family_size":
            assert "model" not in said and "params_b" not in said
        if "stack" in said:  # only a pasted config of a tool that is a Stack states one
            assert entry["kind"] == "config"


def test_gen19_config_labels_follow_the_tool_they_paste():
    """Spot checks of the launchers' GPU arithmetic and the tools' own keys against the text."""
    seen = set()
    for entry in GEN:
        shape = next((n.split(":", 1)[1] for n in entry["noise"] if n.startswith("config:")), None)
        if shape is None:
            continue
        seen.add(shape)
        text, want = entry["text"], entry["expected"]
        if shape == "skypilot":
            acc, per = re.search(r"accelerators: ([\w-]+):(\d+)", text).groups()
            nodes = re.search(r"num_nodes: (\d+)", text)
            count = int(per) * int(nodes.group(1) if nodes else 1)
            assert (want["gpu"], want["num_gpus"]) == (gen19.SKY_ACC[acc], count)
        elif shape == "modal":
            acc, count = re.search(r'gpu="([\w-]+):(\d+)"', text).groups()
            assert (want["gpu"], want["num_gpus"]) == (gen19.MODAL_GPU[acc], int(count))
        elif shape == "ray_train":
            assert want["num_gpus"] == int(re.search(r"num_workers=(\d+)", text).group(1))
            acc = re.search(r'accelerator_type="([\w-]+)"', text)
            assert want.get("gpu") == (gen19.RAY_ACC[acc.group(1)] if acc else None)
        elif shape == "nemo_yaml":
            d = int(re.search(r"devices: (\d+)", text).group(1))
            n = int(re.search(r"num_nodes: (\d+)", text).group(1))
            assert want["num_gpus"] == d * n and want["precision"] == "bf16-mixed" and "stack" not in want
            assert ("peft_scheme: lora" in text) == (want["method"] == "lora") == ("lora_rank" in want)
        elif shape == "swift_cli":
            nproc = re.search(r"NPROC_PER_NODE=(\d+)", text)
            assert want["num_gpus"] == (int(nproc.group(1)) if nproc else 1) and want["stack"] == "hf"
            assert ("--quant_bits 4" in text) == (want["method"] == "qlora")
            assert ("--train_type full" in text) == (want["method"] == "full")
        elif shape == "openrlhf":
            assert want["num_gpus"] == int(re.search(r"--num_gpus (\d+)", text).group(1))
            assert want["sharding"] == "zero" + re.search(r"--zero_stage (\d)", text).group(1)
            assert ("--load_in_4bit" in text) == (want["method"] == "qlora")
            assert ("--lora_rank" in text) == (want["method"] != "full") and "stack" not in want
        elif shape == "env_launch":
            assert want["num_gpus"] == int(re.search(r"\b(?:NUM_GPUS|NGPUS|GPUS)=(\d+)", text).group(1))
        elif shape == "cuda_visible":
            ids = re.search(r"CUDA_VISIBLE_DEVICES=([\d,]+)", text).group(1).split(",")
            assert want["num_gpus"] == len(ids)
        elif shape == "k8s_job":
            prod = re.search(r"nvidia\.com/gpu\.product: ([\w-]+)", text).group(1)
            count = int(re.search(r"nvidia\.com/gpu: (\d+)", text).group(1))
            assert (want["gpu"], want["num_gpus"]) == (gen19.K8S_PRODUCT[prod], count)
        elif shape == "wandb_dump":
            assert want["stack"] == "hf" and want["precision"] == "bf16-mixed"
            assert ("peft_config" in text) == (want["method"] != "full")
            assert ("load_in_4bit: true" in text) == (want["method"] == "qlora") == ("quant" in want)
    assert seen == set(gen19.CONFIG_SHAPES)


def _plain(text: str) -> str:
    """The text without its unicode-space, quote and line-wrap noise."""
    text = text.replace("\u200b", "").replace("\u00a0", " ").replace("\u2009", " ")
    text = text.replace("\u2019", "'").replace("\u201c", '"').replace("\u201d", '"')
    return re.sub(r"\s+", " ", text)


def test_gen19_questions_back_are_what_they_say():
    for entry in GEN:
        text = _plain(entry["text"])
        code = entry["expected"].get("clarify_code")
        said = {k: v for k, v in entry["expected"].items() if k in SpecRequest.model_fields}
        if code == "limit":  # the out-of-range value is in the text and not labelled
            over = [int(x) for x in re.findall(r"\b(\d{4,})\b", text)]
            assert "1500b" in text.lower() or any(x > min(MAX_SEQ_LEN, MAX_GPUS, MAX_MICRO_BATCH, MAX_EPOCHS)
                                                  for x in over)
            assert all(said.get(k) is None or said[k] <= hi for k, hi in (
                ("seq_len", MAX_SEQ_LEN), ("num_gpus", MAX_GPUS), ("micro_batch", MAX_MICRO_BATCH),
                ("epochs", MAX_EPOCHS), ("params_b", MAX_PARAMS_B)))
        if code == "family_size":
            assert any(f.lower() in text.lower() for f in gen19.FAMILY_SIZE)
        if code == "number":
            assert re.search(r"\b(\d+) (?:too|también)\b", text)


def test_gen19_foreign_models_and_family_sizes_are_unknown_to_the_catalog(catalog):
    assert all(catalog.find_model(hub) is None for hub in gen19.FOREIGN)
    earlier = set(gen9.FOREIGN) | set(gen11.FOREIGN) | set(gen13.FOREIGN) | set(gen15.FOREIGN) | set(gen17.FOREIGN)
    assert not {h.lower() for h in gen19.FOREIGN} & {h.lower() for h in earlier}
    assert all(catalog.find_model(name) is None for name in gen19.FAMILY_SIZE)
    assert not set(gen19.FAMILY_SIZE) & set(gen17.FAMILY_SIZE)


def _forms() -> list[str]:
    g = gen19
    tables = (g.SEQ, g.BATCH, g.RANK, g.EPOCHS, g.DATASET, g.TEMPLATES, g.QUESTIONS, g.CORRECTION, g.FOLLOWUP,
              g.SIZE_FORMS, g.MODEL_FORMS, g.DISTRACTORS, g.HEAD)
    forms = [f.removeprefix("MOBILE:") for table in tables for lang in table.values() for f in lang]
    forms += [f for table in (g.GPU_SLOT, g.GC, g.PRECISION, g.OPTIMIZER, g.REGION, g.SHARDING, g.ATTENTION,
                              g.TARGETS, g.COMPILE, g.PACKING, g.UNREADABLE, g.CONFLICT, g.LIMIT, g.SETTING_TYPOS)
              for lang in table.values() for f, *_ in lang]
    forms += [f for lang in g.METHOD.values() for words in lang.values() for f in words if f not in g.PLAIN_METHODS]
    forms += [f for lang in g.DATASET_VALUES for forms_ in lang[1:] for f in forms_]
    forms += [lang[k] for lang in g.FORM.values() for k in ("head", "intro")]
    forms += [v for lang in g.SHEET.values() for v in lang["intro"]]
    forms += list(g.QUOTE_HTML.values()) + list(g.FOREIGN) + list(g.NUMBER.values()) + list(g.LIMIT_SIZE.values())
    forms += [t for typos in g.FAMILY_TYPOS.values() for t in typos]
    forms += [t for table in (g.METHOD_TYPOS, g.METHOD_TYPOS_ES) for typos in table.values() for t in typos]
    return forms


def _pieces(form: str) -> list[str]:
    pieces = [re.sub(r"\s+", " ", p).strip(" ,.;:|—?¿\n•()`[]*-") for p in re.split(r"\{\w+\}", form)]
    return [p for p in pieces if len(p) >= 5]


def test_gen19_vocabulary_is_not_in_the_earlier_generators():
    """Each distinctive form (its text between slots, pieces of 5+ characters) is absent from phrasegen.py,
    gen9.py, gen11.py, gen13.py, gen15.py and gen17.py: a form counts as found when all its pieces are. The plain
    method words, the sequence words the issue lists ("seq", "context", "secuencia") and catalog names are shared."""
    earlier = "".join((ROOT / "tests" / f).read_text(encoding="utf-8") for f in EARLIER_GENERATORS).lower()
    earlier = earlier + "\n" + re.sub(r"\s+", " ", earlier)
    found = [form for form in _forms() if _pieces(form) and all(p.lower() in earlier for p in _pieces(form))]
    assert found == []
    for marker in gen19.SHAPE_MARKERS:
        assert marker.lower() not in earlier, marker
    labels = [v for lang in gen19.FORM.values() for k, v in lang.items() if v.startswith("*")]
    assert [label for label in labels if label.lower() in earlier] == []  # the form's bold labels, as written


def test_every_form_is_used_by_the_set():
    """A form no message uses would be checked for nothing: the distinctive forms all occur in the texts."""
    texts = "\n".join(_plain(e["text"]) for e in GEN).lower()
    unused = [form for form in _forms() if _pieces(form) and not all(p.lower() in texts for p in _pieces(form))]
    assert unused == []
    assert all(marker.lower() in texts for marker in gen19.SHAPE_MARKERS)
    assert all(v.lower() in texts for lang in gen19.FORM.values() for v in lang.values())
