"""A pasted config of a tool that trains through Hugging Face's Trainer states the ``hf`` stack
(advisor/parse/rules.py, ``_trainer_config_stack``): axolotl, LLaMA-Factory, TRL and Transformers'
``TrainingArguments``, in YAML, JSON, a command line or code, in either language's frame; a stack a word,
a recipe or Unsloth's loader names wins, and a config that names no Trainer tool states none.
"""

import pytest

from advisor.parse import parse_message
from tests.phrasings import parsed_and_said

AXOLOTL_YAML = "```yaml\nbase_model: Qwen/Qwen2.5-7B\nadapter: lora\nlora_r: 16\nsequence_len: 4096\nmicro_batch_size: 2\n```"
AXOLOTL_FULL = "base_model: meta-llama/Llama-3.2-1B\nsequence_len: 2048\nmicro_batch_size: 4\nnum_epochs: 2"
AXOLOTL_JSON = '{"base_model": "mistralai/Mistral-7B-v0.3", "adapter": "qlora", "sequence_len": 8192, "micro_batch_size": 1}'
LF_YAML = ("model_name_or_path: Qwen/Qwen3-8B\nstage: sft\nfinetuning_type: lora\nlora_rank: 8\ncutoff_len: 4096\n"
           "per_device_train_batch_size: 2")
LF_CLI = ("llamafactory-cli train --model_name_or_path Qwen/Qwen2.5-14B-Instruct --finetuning_type lora "
          "--quantization_bit 4 --cutoff_len 2048")
TRL_CODE = ('args = SFTConfig(max_length=4096, per_device_train_batch_size=2)\n'
            'peft_config = LoraConfig(r=8, target_modules="all-linear")')
HF_CODE = ('model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-3B")\n'
           'args = TrainingArguments(output_dir="out", per_device_train_batch_size=4, num_train_epochs=1)')


@pytest.mark.parametrize("config, model", [
    (AXOLOTL_YAML, "qwen2.5-7b"), (AXOLOTL_FULL, "llama-3.2-1b"), (AXOLOTL_JSON, "mistral-7b-v0.3"),
    (LF_YAML, "qwen3-8b"), (LF_CLI, "qwen2.5-14b"), (TRL_CODE + "\nLoRA on Qwen/Qwen2.5-7B", "qwen2.5-7b"),
    (HF_CODE, "qwen2.5-3b"),
])
@pytest.mark.parametrize("frame", ["{c}", "can you size this?\n{c}", "¿me dimensionas esta config?\n{c}\n¿en qué GPU?",
                                   "our config:\n```\n{c}\n```\nthanks!"])
def test_a_trainer_tools_config_states_the_hf_stack(config, model, frame, catalog):
    result, said = parsed_and_said(frame.format(c=config), catalog)
    assert said.get("stack") == "hf", (frame, config, said)
    assert said.get("model") == model


@pytest.mark.parametrize("text, stack", [
    # a word naming another stack wins over the config's shape
    ("with torchtune, not the HF trainer:\n" + AXOLOTL_YAML.replace("Qwen/Qwen2.5-7B", "meta-llama/Llama-3.1-8B"),
     "torchtune"),
    # Unsloth's loader builds the model that TRL's SFTTrainer then trains: the Unsloth stack
    ('model, tok = FastLanguageModel.from_pretrained(model_name="unsloth/Qwen2.5-7B", max_seq_length=2048, '
     'load_in_4bit=True)\ntrainer = SFTTrainer(model=model, args=SFTConfig(per_device_train_batch_size=2))', "unsloth"),
])
def test_a_named_stack_or_loader_wins_over_the_shape(text, stack, catalog):
    _, said = parsed_and_said(text, catalog)
    assert said.get("stack") == stack


@pytest.mark.parametrize("text", [
    "torchrun --nproc_per_node 4 train.py --model Qwen/Qwen2.5-7B --seq 4096 --lora-r 8",  # a bare script: none
    '{"base_model_name_or_path": "Qwen/Qwen2.5-7B", "peft_type": "LORA", "r": 16}\nLoRA on it at 4k',  # PEFT's file
    "lora qwen2.5 7b seq 4096, base_model is the instruct one",  # the word in prose, no axolotl keys
    "LoRA de Qwen2.5 7B a 4096 tokens, lote 2",
])
def test_no_trainer_tool_in_the_message_states_no_stack(text, catalog):
    result = parse_message(text, catalog)
    assert "stack" not in result.delta.said(), (text, result.delta.said())
