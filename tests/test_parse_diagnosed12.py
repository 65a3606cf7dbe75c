"""Mechanisms read from the round-11 sets' failures once they were diagnosed (issue #13, c951d8f on).

Each test uses phrasings written here, in both languages, not the sets' own texts.

- A per-device rate said with a preposition before "each"/"every" ("4 samples on every GPU", "8 ejemplos por cada
  GPU", "muestras en cada tarjeta") is the micro batch (HF TrainingArguments.per_device_train_batch_size: the
  samples one device takes in one step), never a count of dataset samples multiplied into dataset tokens.
- A check or ballot mark after a setting ("grad ckpt ✗", "checkpointing ✓") is its state, off or on.
"""

from __future__ import annotations

import pytest

from advisor.parse import parse_message


@pytest.mark.parametrize("text, batch", [
    ("lora mistral 7b, seq 2048, 4 samples on every GPU", 4),
    ("qlora llama 3.1 8b, 2 sequences for each card, seq 1024", 2),
    ("full fine-tune qwen2.5 1.5b with 6 examples in each device, seq 4096", 6),
    ("lora qwen2.5 7b secuencia 2048, 8 ejemplos por cada GPU", 8),
    ("ajuste completo de qwen2.5 1.5b, 4 muestras en cada tarjeta, secuencia 4096", 4),
    ("qlora llama 3.1 8b, secuencia 1024, 3 secuencias para cada dispositivo", 3),
])
def test_items_on_each_device_are_the_micro_batch(text, batch, catalog):
    said = parse_message(text, catalog).delta.said()
    assert said.get("micro_batch") == batch
    assert "dataset_tokens" not in said and "dataset_examples" not in said


@pytest.mark.parametrize("text", ["now 16 samples on each GPU, rest unchanged", "ahora 16 muestras en cada GPU, lo demás igual"])
def test_a_follow_up_with_items_on_each_device_changes_the_batch_only(text, catalog):
    from advisor.spec import SpecRequest

    previous = SpecRequest(method="lora", model="llama-3.1-8b", seq_len=2048)
    result = parse_message(text, catalog, previous=previous)
    assert result.delta.said() == {"micro_batch": 16}


@pytest.mark.parametrize("text, on", [
    ("lora mistral 7b seq 2048, gradient checkpointing ✗", False),
    ("qlora llama 3.1 8b seq 1024, activation checkpointing ✔", True),
    ("lora qwen2.5 7b secuencia 2048, checkpointing de gradientes ✘", False),
    ("ajuste completo de qwen2.5 1.5b, secuencia 4096, checkpointing ✓", True),
])
def test_a_check_or_ballot_mark_after_a_setting_is_its_state(text, on, catalog):
    """A ballot mark (✗ ✘ ☒ ❌) turns the setting before it off, a check mark (✓ ✔ ☑) on (advisor/parse/text.py)."""
    assert parse_message(text, catalog).delta.said().get("gradient_checkpointing") is on
