"""ms-swift's command line names the hf stack (advisor/parse/rules.py ``_SWIFT_CLI``): ``swift sft`` /
``swift pt`` / ``swift rlhf`` train with transformers' Trainer (ms-swift swift/trainers/trainers.py,
``class Trainer(PushToMsHubMixin, SwiftMixin, HfTrainer)``). Phrasings written for this file; the
word "swift" anywhere else states no stack."""

import pytest

from tests.phrasings import parsed_and_said as _said


@pytest.mark.parametrize("text,method", [
    ("swift sft --model Qwen/Qwen2.5-7B-Instruct --train_type lora --lora_rank 16 --max_length 4096", "lora"),
    ("which GPU for this?\n```\nCUDA_VISIBLE_DEVICES=0 swift sft \\\n  --model meta-llama/Llama-3.1-8B "
     "--train_type full --max_length 2048\n```", "full"),
    ("¿qué GPU para esto? swift rlhf --rlhf_type dpo --model Qwen/Qwen2.5-7B-Instruct --train_type lora "
     "--max_length 4096", "lora"),
])
def test_swift_command_lines_state_the_hf_stack(text, method, catalog):
    result, said = _said(text, catalog)
    assert said.get("stack") == "hf", (result.intent, said)
    assert said.get("method") == method, said


@pytest.mark.parametrize("text", [
    "we need a swift answer: lora on llama 3.1 8b, seq 4096",
    "respuesta swift por favor, qlora de qwen2.5 7b con seq 2048",
])
def test_the_word_swift_alone_states_no_stack(text, catalog):
    result, said = _said(text, catalog)
    assert "stack" not in said, said
