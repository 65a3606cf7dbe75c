"""Mechanisms behind the failures of the generator's round-7 split (committed as "unseen" in f9054fb,
measured once at df197b6: 95.0% fully right, 68 answers with an unsaid value, 27 invented and 42 misread;
now "diagnosed8"). Each class is tested with phrasings written for this file, not copied from the
split: the fix is the mechanism, so other words for the same thing must pass too."""

import pytest

from advisor.parse import parse_message
from advisor.spec import SpecRequest

P8 = SpecRequest(method="qlora", model="llama-3-8b", seq_len=2048)


def _said(text, catalog, previous=None):
    result = parse_message(text, catalog, previous=previous)
    return result.intent, result.delta.said()


# --- the checkpointing noun phrase, head last: a negation before it negates the whole phrase -----------
# (the split's largest class: "no activation recompute" was read as checkpointing on)

@pytest.mark.parametrize("text,gc", [
    ("lora qwen3 8b, no activation recomputation", False),
    ("lora qwen3 8b, without activations recompute", False),
    ("lora qwen3 8b, disable activation remat", False),
    ("lora qwen3 8b with activation rematerialization", True),
    ("lora qwen3 8b, activation recompute on", True),
    ("lora qwen3 8b, sin recomputar las activaciones", False),
    ("lora qwen3 8b, desactiva la recomputación de activaciones", False),
])
def test_activation_recompute_phrases_and_their_negation(text, gc, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and said.get("gradient_checkpointing") is gc, said


# --- a step named by what it updates is a step: items per optimizer step are the global batch ---------
# ("512 sequences per optimizer step" was a sequence length of 512, or a dataset of 512 x seq)

@pytest.mark.parametrize("text", [
    "lora qwen3 8b, micro batch 2, 96 samples per optimization step",
    "lora qwen3 8b, micro batch 2, 96 examples every training step",
    "lora qwen3 8b, micro batch 2, 96 seqs per gradient update",
    "lora qwen3 8b, micro lote 2, 96 muestras por paso de optimización",
    "lora qwen3 8b, micro lote 2, 96 secuencias por paso del optimizador",
])
def test_items_per_optimizer_step_are_neither_a_length_nor_a_dataset(text, catalog):
    intent, said = _said(text, catalog)
    assert said.get("micro_batch") == 2 and "seq_len" not in said and "dataset_tokens" not in said, said


def test_items_per_optimizer_step_in_a_thread(catalog):
    intent, said = _said("and 3 per device, 192 samples per optimizer step?", catalog, previous=P8)
    assert intent == "followup" and "seq_len" not in said and "dataset_tokens" not in said, said


# --- a setting, its value, then the adapters it belongs to: in a thread no method switch --------------

@pytest.mark.parametrize("text,field,value", [
    ("then rank 24 for the adapters", "lora_rank", 24),
    ("try r of 12 on the adapters", "lora_rank", 12),
    ("alpha 48 for the adapters instead", "lora_alpha", 48.0),
    ("y rango 40 para los adaptadores?", "lora_rank", 40),
    ("prueba r de 12 sobre los adaptadores", "lora_rank", 12),
])
def test_a_setting_qualified_by_the_adapters_after_it_keeps_the_threads_method(text, field, value, catalog):
    intent, said = _said(text, catalog, previous=P8)
    assert intent == "followup" and said == {field: value}, said


# --- Hydra / OmegaConf overrides: a dotted key is its last part -------------------------------------------

@pytest.mark.parametrize("text,method", [
    ("python run.py trainer.method=full model.id=Qwen/Qwen3-8B optim.lr=2e-5", "full"),
    ("python run.py finetune.finetuning_type=lora model.id=Qwen/Qwen3-8B", "lora"),
    ("python run.py cfg.peft.train_type=qlora model.id=Qwen/Qwen3-8B", "qlora"),
])
def test_dotted_override_keys_name_their_setting(text, method, catalog):
    intent, said = _said(text, catalog)
    assert said.get("method") == method and said.get("model") == "qwen3-8b", said


# --- a GPU's own form factor and memory technology after its name are part of the name -------------------

@pytest.mark.parametrize("text,gpu,count", [
    ("lora qwen3 8b on MI300X OAM x2", "mi300x", 2),
    ("lora qwen3 8b, MI300X (OAM) ×8", "mi300x", 8),
    ("lora qwen3 8b on H100 HBM3 ×4", "h100-sxm", 4),
    ("lora qwen3 8b, H200 141GB HBM3e x2", "h200", 2),
    ("lora qwen3 8b en RTX 4090 GDDR6X ×2", "rtx-4090", 2),
])
def test_form_factor_and_memory_type_after_a_gpu_name(text, gpu, count, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and said.get("gpu") == gpu and said.get("num_gpus") == count, said


def test_all_of_a_quoted_models_weights_is_full(catalog):
    intent, said = _said('retrain all of "Qwen3 8B"\'s parameters', catalog)
    assert said.get("method") == "full" and said.get("model") == "qwen3-8b", said


# === the lead's classes (noticed by hand, general mechanisms; phrasings written here) =====================

# --- a method word opening the request, or right beside its model, is the method at any length ------------

LONG_TAIL = ("; our dataset is about 30M tokens of support chats, we want seq 4096 and the cheapest card that "
             "fits, ideally in Frankfurt")
LONG_TAIL_ES = ("; el dataset son unos 30M tokens de chats de soporte, queremos secuencia 4096 y la tarjeta más "
                "barata que sirva, idealmente en Frankfurt")


@pytest.mark.parametrize("text", [
    "full mistral 7b" + LONG_TAIL,
    "hey, full on qwen2.5 14b" + LONG_TAIL,
    "we'd run qwen2.5 14b full" + LONG_TAIL,
    "completo de qwen2.5 14b" + LONG_TAIL_ES,
    "hola: qwen2.5 14b completo" + LONG_TAIL_ES,
])
def test_full_at_the_start_or_beside_the_model_is_the_method_at_any_length(text, catalog):
    intent, said = _said(text, catalog)
    assert said.get("method") == "full" and said.get("seq_len") == 4096, said


@pytest.mark.parametrize("text", [
    "lora qwen2.5 14b" + LONG_TAIL.replace("seq 4096", "seq 4096 at full context"),
    "lora qwen2.5 14b, precision: full" + LONG_TAIL,
    "lora qwen2.5 14b in full fp32" + LONG_TAIL,
])
def test_full_qualifying_another_setting_is_no_method(text, catalog):
    intent, said = _said(text, catalog)
    assert said.get("method") == "lora", said


# --- two values for one field: a question, unless a correction says which ---------------------------------

@pytest.mark.parametrize("text,lang", [
    ("qlora qwen2.5 7b, seq 1024 and seq 8192", "en"),
    ("qlora qwen2.5 7b on 2 GPUs, on 8 GPUs", "en"),
    ("qlora qwen2.5 7b on an L4 with an L40S", "en"),
    ("qlora con qwen2.5 7b, lote 2 y lote 16", "es"),
    ("qlora con qwen2.5 7b, 2 épocas, 5 épocas", "es"),
])
def test_two_values_for_one_field_are_asked_about(text, lang, catalog):
    result = parse_message(text, catalog)
    assert (result.intent, result.clarify_code, result.lang) == ("clarify", "conflict", lang)
    assert result.question and "{" not in result.question
    said = result.delta.said()
    assert not ({"seq_len", "num_gpus", "gpu", "micro_batch", "epochs"} & set(said)), said  # neither is kept


@pytest.mark.parametrize("text,field,value", [
    ("qlora qwen2.5 7b, seq 1024, actually seq 8192", "seq_len", 8192),
    ("qlora qwen2.5 7b on 2 GPUs, sorry, 8 GPUs", "num_gpus", 8),
    ("qlora qwen2.5 7b, batch 2... I mean batch 6", "micro_batch", 6),
    ("qlora con qwen2.5 7b, lote 2, perdón, lote 6", "micro_batch", 6),
    ("qlora con qwen2.5 7b, 2 épocas; mejor 5 épocas", "epochs", 5.0),
    ("qlora con qwen2.5 7b en 2 GPUs, no, en 4 GPUs", "num_gpus", 4),
])
def test_a_correction_takes_the_later_value(text, field, value, catalog):
    result = parse_message(text, catalog)
    assert result.intent == "estimate" and result.delta.said()[field] == value
    assert "parse.warn.corrected" in result.warning_codes


def test_a_gpu_in_a_links_path_is_no_second_gpu(catalog):
    intent, said = _said("lora qwen2.5 7b on 2 L40S, notes at https://wiki.example.com/bench/a100/run-7", catalog)
    assert intent == "estimate" and said.get("gpu") == "l40s" and said.get("num_gpus") == 2, said


# --- increments of a count in a thread: relative to the thread's count, or a question --------------------

P2 = SpecRequest(method="qlora", model="llama-3-8b", seq_len=2048, num_gpus=2)


@pytest.mark.parametrize("text,count", [
    ("+4 GPUs", 6), ("what about 2 more cards?", 4), ("add another 2 GPUs", 4), ("an extra GPU then", 3),
    ("-1 GPU", 1), ("one GPU fewer", 1), ("y tres GPUs más?", 5), ("otras 2 tarjetas", 4), ("una GPU menos", 1),
])
def test_an_increment_changes_the_threads_gpu_count(text, count, catalog):
    intent, said = _said(text, catalog, previous=P2)
    assert intent == "followup" and said == {"num_gpus": count}, said


@pytest.mark.parametrize("text,previous", [
    ("+2 GPUs", P8), ("y dos GPUs más", P8), ("lora qwen2.5 7b, 2 more gpus", None), ("+1 tarjeta por favor", None),
])
def test_an_increment_with_no_count_to_add_to_is_asked_about(text, previous, catalog):
    result = parse_message(text, catalog, previous=previous)
    assert (result.intent, result.clarify_code) == ("clarify", "relative")
    assert "num_gpus" not in result.delta.said()


def test_a_said_count_wins_over_nothing_and_comparatives_are_no_increment(catalog):
    assert _said("then 6 GPUs", catalog, previous=P2) == ("followup", {"num_gpus": 6})
    intent, said = _said("¿y dos GPUs más baratas?", catalog, previous=P2)
    assert said.get("num_gpus") == 2, said  # "two cheaper GPUs": a count, the comparative qualifies them
    intent, said = _said("+1 gpu advice for a 7b lora please", catalog)
    assert "num_gpus" not in said  # "+1" opening a line is agreement


# --- a family at a size the catalog lacks: a question naming the family's nearest models, no stand-in -----

@pytest.mark.parametrize("text,lang,near", [
    ("qlora falcon3-7b at 4k", "en", "Falcon 7B"),
    ("lora on Gemma 2 4B please", "en", "Gemma"),
    ("full fine-tune of a qwen 5b, seq 2048", "en", "Qwen"),
    ("qlora de gemma 2 4b con secuencia 2048", "es", "Gemma"),
    ("afinar llama 34b con lora", "es", "Llama"),
])
def test_a_family_at_a_size_the_catalog_lacks_is_asked_about(text, lang, near, catalog):
    result = parse_message(text, catalog)
    assert (result.intent, result.clarify_code, result.lang) == ("clarify", "family_size", lang)
    assert "params_b" not in result.delta.said() and "model" not in result.delta.said()
    assert near in result.question and "Hugging Face" in result.question
    reply = parse_message(result.example, catalog, previous=result.request, lang_hint=lang)
    assert reply.intent in ("estimate", "followup") and reply.request.model is not None


def test_a_generic_size_said_on_purpose_is_sized(catalog):
    intent, said = _said("qlora a 7b model at 4k", catalog)
    assert intent == "estimate" and said.get("params_b") == 7.0


def test_a_family_size_in_a_thread_is_asked_about(catalog):
    result = parse_message("what about falcon3-7b instead?", catalog, previous=P8)
    assert (result.intent, result.clarify_code) == ("clarify", "family_size")
