"""Mechanisms behind the failures of round 15's generated set (tests/heldout/gen15.py, "diagnosed15"), issue #13.

Each class is tested with phrasings written for this file, in both languages, not copied from the set: the fix
is the mechanism, so other words, orders and near forms must pass too; and a near form that must NOT be read
sits beside each class."""

import pytest

from advisor.parse import parse_message


def _said(text, catalog, previous=None):
    result = parse_message(text, catalog, previous=previous)
    return result, result.delta.said()


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
