"""Mechanisms behind the failures of the generator's round-6 split (committed as "unseen" in 885447e,
measured once at fcadba0: 83.0% fully right, 116 answers with an unsaid value, 114 of them invented;
now "diagnosed7"). Each class is tested with phrasings written for this file, not copied from the
split: the fix is the mechanism, so other words for the same thing must pass too."""

import pytest

from advisor.parse import parse_message
from advisor.spec import SpecRequest

P8 = SpecRequest(method="qlora", model="llama-3-8b", seq_len=2048)


def _said(text, catalog, previous=None):
    result = parse_message(text, catalog, previous=previous)
    return result.intent, result.delta.said()


# --- items at a rate per device (and step): a batch, never a count of examples to multiply -----------
# (the split's largest class: "2 samples per step per GPU" x the sequence length became a dataset)

@pytest.mark.parametrize("text,batch", [
    ("lora qwen3 8b, seq 3072, 6 examples per iteration per device", 6),
    ("lora qwen3 8b, seq 3072, 6 sequences per card per step", 6),
    ("lora qwen3 8b, seq 3072, 6 seqs each step per gpu", 6),
    ("lora qwen3 8b, secuencia 3072, 6 ejemplos por iteracion y por tarjeta", 6),
    ("lora qwen3 8b, secuencia 3072, 6 secuencias por dispositivo y paso", 6),
    ("lora qwen3 8b, seq 3072, batch per step per gpu: 6", 6),
    ("lora qwen3 8b, seq 3072, batch/device 6", 6),
    ("lora qwen3 8b, seq 3072, gpu batch size 6", 6),
    ("lora qwen3 8b, seq 3072, per-device bs 6", 6),
])
def test_items_per_device_per_step_are_the_micro_batch(text, batch, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and said.get("micro_batch") == batch and "dataset_tokens" not in said, said


def test_items_per_step_without_a_device_are_no_dataset(catalog):
    intent, said = _said("lora qwen3 8b, seq 3072, 96 samples per iteration", catalog)
    assert "dataset_tokens" not in said and "micro_batch" not in said, said


def test_a_per_device_rate_in_a_thread_is_the_batch(catalog):
    intent, said = _said("and 12 examples per card per step?", catalog, previous=P8)
    assert intent == "followup" and said == {"micro_batch": 12}


# --- an adapter word joined to its setting qualifies it; in a thread it switches no method ------------

@pytest.mark.parametrize("text,rank", [
    ("what about adapters with rank 48", 48),
    ("try the adapters at r=24", 24),
    ("LoRA(rank=12) then", 12),
    ("lora with r 40 instead", 40),
    ("y con adaptadores de rango 20?", 20),
    ("prueba adaptadores con r=28", 28),
])
def test_adapter_words_joined_to_the_rank_keep_the_threads_method(text, rank, catalog):
    intent, said = _said(text, catalog, previous=P8)
    assert intent == "followup" and said == {"lora_rank": rank}


def test_a_lora_config_call_alone_still_says_lora_in_a_new_request(catalog):
    intent, said = _said("phi-4 with LoraConfig(r=8)", catalog)
    assert said.get("method") == "lora" and said.get("lora_rank") == 8, said


# --- a count's head with the counted noun: "epoch count 3", "número de épocas 3" ----------------------

@pytest.mark.parametrize("text,epochs", [
    ("lora qwen3 8b, seq 2048, pass count 4", 4.0),
    ("lora qwen3 8b, number of passes 4, seq 2048", 4.0),
    ("lora qwen3 8b, cantidad de épocas 4, secuencia 2048", 4.0),
])
def test_count_heads_name_the_epochs(text, epochs, catalog):
    intent, said = _said(text, catalog)
    assert said.get("epochs") == epochs and said.get("seq_len") == 2048, said


# --- architecture names are product-line words before a GPU; memory as a compound adjective ---------

@pytest.mark.parametrize("text,gpu,count", [
    ("lora qwen3 8b on 4 Hopper H100 SXM", "h100-sxm", 4),
    ("lora qwen3 8b, 3 Ampere A100 80GB", "a100-80gb", 3),
    ("lora qwen3 8b, dos Ada Lovelace L40S", "l40s", 2),
    ("lora qwen3 8b on 2 A100 40-GB cards", "a100-40gb", 2),
    ("lora qwen3 8b, 5 NV L40S", "l40s", 5),
])
def test_architecture_words_and_hyphenated_memory(text, gpu, count, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and (said.get("gpu"), said.get("num_gpus")) == (gpu, count), said


# --- "+1" opening a line is agreement, not a count -------------------------------------------------

@pytest.mark.parametrize("text", ["+1 lora qwen3 8b on a100 80gb, seq 2048", "<@U1> +1\nlora qwen3 8b on a100 80gb, seq 2048"])
def test_plus_one_is_no_setting(text, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and "num_gpus" not in said and said.get("seq_len") == 2048, said


def test_other_signed_numbers_are_not_dropped_silently(catalog):
    result = parse_message("lora qwen3 8b on a100 80gb, seq 2048, plus +3 whatever", catalog)
    assert result.intent == "clarify" and result.clarify_code == "number" and "3" in result.question


# --- a length per item is a length, and another clause's dataset words say nothing about it ----------

@pytest.mark.parametrize("text", [
    "full qwen3 8b training, 80M tokens of data; 3072 tokens at most per example",
    "full qwen3 8b training, corpus of 80M tokens, 3072 tokens each sequence",
    "entrenamiento completo de qwen3 8b: 80M tokens de datos, 3072 tokens como máximo por muestra",
    "full qwen3 8b training. dataset is 80M tokens. 3072 tokens per sample",
])
def test_a_per_item_length_beside_a_dataset(text, catalog):
    intent, said = _said(text, catalog)
    assert (said.get("dataset_tokens"), said.get("seq_len")) == (80_000_000, 3072), said


def test_dataset_words_in_the_same_clause_still_make_a_dataset(catalog):
    assert _said("lora qwen3 8b, seq 2048, dataset: 60k tokens", catalog)[1].get("dataset_tokens") == 60_000


# --- a stated but unreadable value is asked about, never dropped -------------------------------------

@pytest.mark.parametrize("text,field", [
    ("lora qwen3 8b rank plenty", "lora_rank"),
    ("lora qwen3 8b, seq len forever, on an a100 80gb", "seq_len"),
    ("qlora mistral 7b, batch size dunno", "micro_batch"),
    ("lora qwen3 8b, rango muchísimo", "lora_rank"),
    ("lora qwen3 8b, longitud de secuencia enorme?", "seq_len"),
])
def test_a_slot_word_with_an_unreadable_word_is_a_question(text, field, catalog):
    result = parse_message(text, catalog)
    assert result.intent == "clarify" and result.clarify_code == "unreadable", (result.intent, result.delta.said())
    assert field not in result.delta.said()


@pytest.mark.parametrize("text", [
    "lora qwen3 8b seq 2048, the rank matters.",
    "lora qwen3 8b seq 2048, rank 16 please",
    "lora qwen3 8b seq 2048. For context: we run nightly.",
])
def test_prose_around_slot_words_is_no_question(text, catalog):
    assert parse_message(text, catalog).intent == "estimate"


# --- an id we do not know is asked about, never sized as a generic model -----------------------------

@pytest.mark.parametrize("text,near", [
    ("qlora Qwen2.5-Math-7B, seq 2048", "qwen2.5-7b"),          # a family, a variant word, a size: one id
    ("lora gemma-2-foo-9b", "gemma-2-9b"),
    ("full Zephyr-LM-7B-beta, seq 4096", None),                 # hyphenated inner parts of an unknown id
    ("lora on Nemotron-Mini-4B-Instruct", None),
])
def test_unknown_hyphenated_ids_are_a_question(text, near, catalog):
    result = parse_message(text, catalog)
    assert result.intent == "clarify" and result.clarify_code == "did_you_mean", result.delta.said()
    assert "params_b" not in result.delta.said() and "model" not in result.delta.said()
    if near:
        assert catalog.find_model(near).display_name in result.question


def test_known_ids_with_their_suffixes_still_read(catalog):
    for text, model in (("lora gemma-2-9b-it", "gemma-2-9b"), ("lora qwen2.5-7b-instruct", "qwen2.5-7b")):
        assert _said(text, catalog)[1].get("model") == model


def test_an_unknown_name_with_nothing_near_says_what_would_work(catalog):
    result = parse_message("lora on Zzyzx-8B", catalog)
    assert result.intent == "clarify" and "?" not in result.question.split("Did you mean")[-1][:3]
    assert "Did you mean ?" not in result.question


def test_over_is_a_preposition_before_a_model_size(catalog):
    assert _said("run qlora over 90b model", catalog)[1] == {"method": "qlora", "params_b": 90.0}
    assert _said("qlora llama 3 8b over 50M tokens", catalog)[1].get("dataset_tokens") == 50_000_000


# --- gradient accumulation said with its verb (the spec reads it since #11): never dropped -----------

@pytest.mark.parametrize("text,steps", [
    ("lora qwen3 8b, micro batch 2, accumulating over 6 steps", 6),
    ("lora qwen3 8b, bs 2, we accumulate 12 micro-batches", 12),
    ("lora qwen3 8b, lote 2 y acumulamos 6 pasos", 6),
    ("lora qwen3 8b, bs 2 plus 12 steps of gradient accumulation", 12),
])
def test_accumulation_verbs_name_the_accumulation_steps(text, steps, catalog):
    said = _said(text, catalog)[1]
    assert said.get("micro_batch") == 2 and said.get("gradient_accumulation_steps") == steps, said


def test_a_count_of_training_steps_is_still_no_accumulation(catalog):
    said = _said("lora qwen3 8b, bs 2, stop after 300 steps", catalog)[1]
    assert "gradient_accumulation_steps" not in said and said.get("micro_batch") == 2, said
