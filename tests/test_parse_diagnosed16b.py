"""Mechanisms behind the failures of round 15's generated set (tests/heldout/gen15.py, "diagnosed15"), issue #13.

Each class is tested with phrasings written for this file, in both languages, not copied from the set: the fix
is the mechanism, so other words, orders and near forms must pass too; and a near form that must NOT be read
sits beside each class."""

import pytest

from tests.phrasings import parsed_and_said as _said


# --- a per-sample length past the spec's bounds is a question back, never a crash nor a length ------------------

@pytest.mark.parametrize("text", [
    "LoRA on Mistral 7B, 3 billion tokens per sample, seq 2048",
    "LoRA en Mistral 7B, 3 mil millones de tokens por muestra, secuencia de 2048",
    "qlora of llama 3 8b: 2 billion tokens each sample / max length 4096",
])
def test_a_per_sample_length_out_of_bounds_is_asked_about(text, catalog):
    result, said = _said(text, catalog)  # it used to raise pydantic's ValidationError showing the two lengths
    assert result.intent == "clarify" and said.get("seq_len") != 3_000_000_000, (result.intent, said)
    assert all(v <= 1_048_576 for k, v in said.items() if k == "seq_len")


@pytest.mark.parametrize("text", [
    "LoRA on Mixtral 8x7B: 5 billion tokens / sample length 1024",
    "full fine-tune of qwen2.5 3b — 300M tokens / sample size capped, seq 2048",
])
def test_an_item_word_modifying_the_next_noun_is_no_per_sample_length(text, catalog):
    # "tokens / sample length": a " / "-joined list, then "sample length"; the tokens are the data's, not per sample
    result, said = _said(text, catalog)
    assert said.get("seq_len") in (None, 1024, 2048), (result.intent, said)
    assert said.get("dataset_tokens") in (5_000_000_000, 300_000_000), (result.intent, said)


def test_tokens_per_sample_is_still_a_per_sample_length(catalog):
    # the near form that must still be read: "512 tokens/sample" with a count is the dataset's size
    result, said = _said("LoRA on Mistral 7B, 512 tokens/sample, 10k samples", catalog)
    assert said.get("dataset_tokens") == 5_120_000, (result.intent, said)


# --- items per forward pass are the micro-batch -----------------------------------------------------------------

@pytest.mark.parametrize("text,batch", [
    ("LoRA on Llama 3 8B, seq 2048, 4 examples in each fwd pass", 4),
    ("full fine-tune of qwen2.5 3b, 6 sequences every forward, seq 1024", 6),
    ("QLoRA de Llama 3 8B, 2 ejemplos por pasada hacia adelante, secuencia 4096", 2),
    ("ajuste completo de qwen2.5 3b con 12 secuencias en cada pasada", 12),
])
def test_items_per_forward_pass_are_the_micro_batch(text, batch, catalog):
    result, said = _said(text, catalog)
    assert said.get("micro_batch") == batch and "dataset_tokens" not in said, (result.intent, said)


@pytest.mark.parametrize("text,epochs", [
    ("LoRA on Llama 3 8B, seq 2048, 3 passes over the data", 3.0),
    ("LoRA de Llama 3 8B, secuencia 2048, 2 pasadas por los datos", 2.0),
])
def test_passes_over_the_data_stay_epochs(text, epochs, catalog):
    # the near form: a pass over the data, no items before it, is an epoch, never a batch
    result, said = _said(text, catalog)
    assert said.get("epochs") == epochs and "micro_batch" not in said, (result.intent, said)


# --- "actually NEW, not OLD" where OLD is a value this message gave one field earlier ----------------------------

@pytest.mark.parametrize("text,field,value", [
    ("LoRA on Llama 3 8B, seq 2048, rank 16. wait, 4096 not 2048", "seq_len", 4096),
    ("LoRA on Llama 3 8B at seq 2048 with rank 8 — no wait, 64 instead of 8", "lora_rank", 64),
    ("LoRA de Llama 3 8B, rango 16, secuencia 2048 — perdón, 32, no 16", "lora_rank", 32),
    ("ajuste completo de qwen2.5 3b con contexto de 4k; mejor dicho 8192 en vez de 4096", "seq_len", 8192),
])
def test_a_bare_correction_names_the_field_said_earlier(text, field, value, catalog):
    result, said = _said(text, catalog)
    assert result.intent == "estimate" and said.get(field) == value, (result.intent, said)


@pytest.mark.parametrize("text", [
    "LoRA on Llama 3 8B, seq 2048, 8 not 4",  # the withdrawn 4 was never said: both are asked about
    "LoRA on Llama 3 8B, seq 2048 rank 2048, oops 4096 not 2048",  # two fields have 2048: which one is unknown
    "LoRA de Llama 3 8B, secuencia 2048 y rango 2048; perdón, 4096, no 2048",
])
def test_a_bare_correction_with_no_single_field_is_asked_about(text, catalog):
    result, said = _said(text, catalog)
    assert result.intent == "clarify" and said.get("seq_len") == 2048, (result.intent, said)


# --- precision: the half type "end to end" is pure; with its fp32 masters beside it, mixed ---------------------

@pytest.mark.parametrize("text,precision", [
    ("LoRA on Llama 3 8B, bf16 throughout, no fp32 copy", "bf16"),
    ("LoRA on Llama 3 8B, bf16 end-to-end", "bf16"),
    ("LoRA de Llama 3 8B en bf16 de principio a fin", "bf16"),
    ("LoRA on Llama 3 8B, autocast bf16 (with fp32 master weights)", "bf16-mixed"),
    ("LoRA de Llama 3 8B con AMP bf16 (pesos maestros en fp32)", "bf16-mixed"),
    ("LoRA on Llama 3 8B, fp16 amp, fp32 masters", "fp16-mixed"),
])
def test_the_half_type_pure_or_over_fp32_masters(text, precision, catalog):
    result, said = _said(text, catalog)
    assert result.intent == "estimate" and said.get("precision") == precision, (result.intent, said)


def test_two_precisions_for_two_phases_stay_asked_about(catalog):
    # the near form: bf16 then fp32 for another phase is two values, not masters beside the half type
    result, said = _said("LoRA on Llama 3 8B, bf16, then fp32 eval", catalog)
    assert result.intent == "clarify", (result.intent, said)


# --- voice-to-text: the letter Q spoken ---------------------------------------------------------------------------

@pytest.mark.parametrize("text,method", [
    ("so we'd do queue lora on llama 3 8b at a context of two thousand forty eight", "qlora"),
    ("um kyu lora for mistral 7b on one h100", "qlora"),
    ("pues hacemos cu lora sobre llama 3 8b con contexto de 4096", "qlora"),
    ("so we'd do lora on llama 3 8b, cue the estimate", "lora"),  # near form: "cue" not before LoRA is no letter
])
def test_the_letter_q_spoken_before_lora_is_qlora(text, method, catalog):
    result, said = _said(text, catalog)
    assert said.get("method") == method, (result.intent, said)
