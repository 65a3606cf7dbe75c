"""One test per class of failure read from the diagnosed sets (the round-3 held-out table split and
generated vocabulary, see benchmarks/parse_accuracy.py), each with phrasings written for the test,
not the failing messages: the mechanism is what is fixed, so other sentences with the same shape
must read right too.

Classes:
- a name inside a word rule's span ("train all of <model>'s weights"): blanking keeps names;
- "all of <the model>'s weights / parameters" is a full fine-tune whatever names the model;
- an adapter word qualifying a setting after it ("rango LoRA de 32") is not the method (in a thread
  it must not switch a QLoRA to LoRA);
- a size typed before the family and its version ("70b llama 3") is that exact version when the
  catalog has it, and a version is one token (or "3_1"), never "2 8" from "llama 2 8 sequences";
- a GPU count glued after a memory variant ("A100-40Gx8");
- typed slots: a dataset of a handful of tokens is implausible, a number that only an idiom's word
  stands next to ("on top of 33B") is not an ignored setting;
- the parser's own words are never "typos" ("param" is not corrected to "params").
"""

from __future__ import annotations

import pytest

from advisor.catalog import Catalog
from advisor.parse import parse_message
from advisor.spec import SpecRequest


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.in_memory()


def said(result) -> dict:
    return result.delta.model_dump(exclude_none=True)


@pytest.mark.parametrize("text, want", [
    ("we'd like to train all of Gemma 2 27B's parameters at 4k",
     {"method": "full", "model": "gemma-2-27b", "seq_len": 4096}),
    ("update all of phi-4's weights, 2 epochs", {"method": "full", "model": "phi-4", "epochs": 2.0}),
    ("all of a 7-billion-parameter network's weights, 2 epochs", {"method": "full", "params_b": 7.0, "epochs": 2.0}),
    ("train all of our 1.5B LLM's params on 2 L40S", {"method": "full", "params_b": 1.5, "num_gpus": 2, "gpu": "l40s"}),
    ("train all the weights of qwen3 8b with seq 2048", {"method": "full", "model": "qwen3-8b", "seq_len": 2048}),
    ("train all of <https://huggingface.co/Qwen/Qwen2.5-3B|Qwen2.5-3B>'s weights",
     {"method": "full", "model": "qwen2.5-3b"}),
])
def test_all_of_the_models_weights_is_full(catalog, text, want):
    result = parse_message(text, catalog)
    assert result.intent == "estimate"
    assert said(result) == want


def test_all_the_lora_weights_is_not_full(catalog):
    result = parse_message("lora on llama 3 8b, save all of the adapter weights", catalog)
    assert said(result)["method"] == "lora"


def test_a_model_after_instead_of_is_not_asked_for(catalog):
    result = parse_message("qlora qwen2.5 7b instead of llama 3 8b", catalog)
    assert said(result) == {"method": "qlora", "model": "qwen2.5-7b"}
    assert not result.warnings


@pytest.mark.parametrize("text, want", [
    ("¿y si subimos el rango del LoRA a 64?", {"lora_rank": 64}),
    ("and a rank of the adapters of 8?", {"lora_rank": 8}),
    ("alpha de LoRA 32", {"lora_alpha": 32.0}),
    ("rango de los adaptadores: 16", {"lora_rank": 16}),
])
def test_adapter_word_after_a_setting_keeps_the_threads_method(catalog, text, want):
    previous = SpecRequest(method="qlora", model="llama-3.1-8b", seq_len=4096)
    result = parse_message(text, catalog, previous=previous)
    assert result.intent == "followup"
    assert said(result) == want
    assert result.request.method == "qlora"


def test_adapter_word_after_a_setting_still_says_lora_in_a_new_request(catalog):
    result = parse_message("rango LoRA de 8 para qwen3 4b", catalog)
    assert said(result) == {"method": "lora", "model": "qwen3-4b", "lora_rank": 8}


@pytest.mark.parametrize("text, want", [
    ("13b llama 2 lora", {"method": "lora", "model": "llama-2-13b"}),
    ("70B Llama 3 qlora, seq 2048", {"method": "qlora", "model": "llama-3-70b", "seq_len": 2048}),
    ("qlora for 405b llama 3", {"method": "qlora", "model": "llama-3.1-405b"}),  # no Llama 3 405B: the 3.1 one
    ("full ft 1b llama 3.2, 3 epochs", {"method": "full", "model": "llama-3.2-1b", "epochs": 3.0}),
    ("full fine-tune 8b llama 3 16 sequences per device", {"method": "full", "model": "llama-3-8b", "micro_batch": 16}),
    ("lora sobre 7b llama 2 4 épocas", {"method": "lora", "model": "llama-2-7b", "epochs": 4.0}),
    ("qlora 14b qwen3 - 2 gpus", {"method": "qlora", "model": "qwen3-14b", "num_gpus": 2}),
    ("lora 1.5b qwen 2.5: 1024 ctx", {"method": "lora", "model": "qwen2.5-1.5b", "seq_len": 1024}),
])
def test_size_before_family_and_version(catalog, text, want):
    result = parse_message(text, catalog)
    assert result.intent == "estimate"
    assert said(result) == want
    assert not any("could be" in w or "podría" in w for w in result.warnings)


def test_family_and_version_alone_asks_with_that_versions_models_first(catalog):
    result = parse_message("lora llama 3 at 4k", catalog)
    assert result.intent == "clarify" and result.clarify_code == "family"
    assert result.question.index("Llama 3 8B") < result.question.index("Llama 3.1")
    assert result.question.index("Llama 3 70B") < result.question.index("Llama 3.1")


@pytest.mark.parametrize("text, gpu, count", [
    ("lora qwen3 8b on A100-80gx2", "a100-80gb", 2),
    ("lora qwen3 8b on a100 40gbx4", "a100-40gb", 4),
    ("lora qwen3 8b, H100-80GBx8", "h100-sxm", 8),
])
def test_gpu_count_glued_after_a_memory_variant(catalog, text, gpu, count):
    result = parse_message(text, catalog)
    assert (result.delta.gpu, result.delta.num_gpus) == (gpu, count)


def test_a_dataset_of_a_handful_of_tokens_is_not_read(catalog):
    result = parse_message("qlora mistral 7b, a 300M-token corpus 8 samples per GPU", catalog)
    assert said(result) == {"method": "qlora", "model": "mistral-7b-v0.3", "dataset_tokens": 300_000_000,
                            "micro_batch": 8}
    assert not result.warnings


@pytest.mark.parametrize("text, want", [
    ("qlora on top of a 14B model", {"method": "qlora", "params_b": 14.0}),
    ("LoRA adapters on top of 2B-parameter base", {"method": "lora", "params_b": 2.0}),
])
def test_an_idiom_word_does_not_take_a_size(catalog, text, want):
    result = parse_message(text, catalog)
    assert said(result) == want


def test_ignored_setting_still_reads_what_touches_it(catalog):
    result = parse_message("lora qwen3 8b, top 3 GPUs please, warmup 100", catalog)
    assert said(result) == {"method": "lora", "model": "qwen3-8b"}
    assert result.intent == "estimate"


def test_the_parsers_own_words_are_not_typos(catalog):
    result = parse_message("full ft of a 3b-param model", catalog)
    assert said(result) == {"method": "full", "params_b": 3.0}
    assert not result.warnings


# --- classes read from the generator's first round-4 held-out split (now "diagnosed2") -----------------
#
# - thousands grouped by a (narrow) no-break space; an Ollama tag before a colon is not an emoji code;
# - vendor words before a GPU name, "N of our <GPU>s", "<GPU> (x4)";
# - config keys whose words are a setting's cue words; "for context:" is not a sequence length, and a
#   vague value ends at a stop, "?" / "!" or a thank-you;
# - "a full weight update", "every parameter"; "AdamW paginado de 8 bits"; "el 10% de los
#   entrenamientos fallan"; "mil gracias";
# - an article counts its own noun ("16 ... a node"); plurals are not typos, doubled letters are;
# - the typed-slot matching moves a number to the cue only it can use;
# - pasted configs: nested JSON (DeepSpeed), torchtune components and dtype, a Transformers script
#   without adapters, Unsloth code, "tune run" only as the torchtune CLI, a YAML key that opens a block.


@pytest.mark.parametrize("text, want", [
    ("lora qwen3 8b, seq 8\u202f192", {"method": "lora", "model": "qwen3-8b", "seq_len": 8192}),
    ("lora qwen3 8b, 2\u00a0000\u00a0000 examples of 256 tokens",
     {"method": "lora", "model": "qwen3-8b", "dataset_tokens": 512_000_000}),
    ("qwen2.5:14b: qlora, seq 2048", {"method": "qlora", "model": "qwen2.5-14b", "seq_len": 2048}),
    ("qlora gemma2:2b :100: seq 1024", {"method": "qlora", "model": "gemma-2-2b", "seq_len": 1024}),
])
def test_typography_of_numbers_and_tags(catalog, text, want):
    assert said(parse_message(text, catalog)) == want


def test_a_plain_space_still_separates_numbers(catalog):
    result = parse_message("lora qwen3 8b, batch 8 2048", catalog)
    assert result.delta.seq_len in (None, 2048) and result.delta.micro_batch == 8


@pytest.mark.parametrize("text, gpu, count", [
    ("lora phi-4 on 4 of our NVIDIA A100s", "a100-80gb", 4),
    ("lora phi-4, eight AMD Instinct MI300X", "mi300x", 8),
    ("lora phi-4 on an HGX B200 (x8)", "b200", 8),
    ("lora phi-4 en 2 de nuestras GeForce RTX 4090", "rtx-4090", 2),
])
def test_counts_beside_vendor_words_and_parentheses(catalog, text, gpu, count):
    result = parse_message(text, catalog)
    assert (result.delta.gpu, result.delta.num_gpus) == (gpu, count)


@pytest.mark.parametrize("text, field, value", [
    ("qlora llama 3 8b per_device_batch_size=2", "micro_batch", 2),
    ("qlora llama 3 8b, micro_bs: 8", "micro_batch", 8),
    ("qlora llama 3 8b CONTEXT_LENGTH=4096", "seq_len", 4096),
    ("qlora llama 3 8b lora_rank_of=32", "lora_rank", 32),
])
def test_config_keys_spelled_as_cue_words(catalog, text, field, value):
    assert getattr(parse_message(text, catalog).delta, field) == value


@pytest.mark.parametrize("text", [
    "for context: we want lora on qwen3 8b with 2 gpus",
    "para dar contexto: queremos LoRA de qwen3 8b en 2 GPUs",
    "some context: lora, qwen3 8b, 2 gpus",
])
def test_context_as_a_common_noun_is_not_a_sequence_length(catalog, text):
    result = parse_message(text, catalog)
    assert result.intent == "estimate" and result.delta.seq_len is None and result.delta.num_gpus == 2


@pytest.mark.parametrize("text, typed", [
    ("lora qwen3 8b, max length: not sure yet!", "not sure yet"),
    ("lora qwen3 8b, batch: whatever fits, thanks", "whatever fits"),
    ("LoRA de qwen3 8b, contexto: el más largo posible, gracias", "el mas largo posible"),
])
def test_a_vague_value_ends_at_a_stop_or_a_thank_you(catalog, text, typed):
    result = parse_message(text, catalog)
    assert result.clarify_code == "unreadable"
    assert typed in result.question


@pytest.mark.parametrize("text, want", [
    ("a full-parameter update of yi 34b", {"method": "full", "model": "yi-34b"}),
    ("we'd update every parameter of olmo 2 7b", {"method": "full", "model": "olmo-2-7b"}),
    ("lora de qwen3 4b con AdamW paginado", {"method": "lora", "model": "qwen3-4b", "optimizer": "paged-adamw-8bit"}),
    ("lora de qwen3 4b, un 15% de los entrenamientos falla",
     {"method": "lora", "model": "qwen3-4b", "costs": {"failed_run_fraction": 0.15}}),
    ("lora de qwen3 4b, rango 16, mil gracias", {"method": "lora", "model": "qwen3-4b", "lora_rank": 16}),
])
def test_words_for_methods_settings_and_idioms(catalog, text, want):
    assert said(parse_message(text, catalog)) == want


def test_an_article_is_the_count_of_its_own_noun(catalog):
    result = parse_message("qlora llama 3 8b, rank 32 a machine with 2x h100", catalog)
    assert said(result) == {"method": "qlora", "model": "llama-3-8b", "lora_rank": 32, "num_gpus": 2,
                            "gpu": "h100-sxm"}


def test_plurals_are_words_and_doubled_letters_are_typos(catalog):
    result = parse_message("lora de qwen3 4b, el 20% de los entrenamientos fallidos, 3 epocass", catalog)
    assert said(result) == {"method": "lora", "model": "qwen3-4b", "epochs": 3.0,
                            "costs": {"failed_run_fraction": 0.2}}
    assert not any("entrenamientos" in w for w in result.warnings)


def test_a_short_unknown_word_before_a_size_near_a_family_is_asked_about(catalog):
    result = parse_message("lora flcn 40b at 2k", catalog)  # two edits from "falcon": too short to read as it
    assert result.clarify_code == "did_you_mean" and "Falcon 40B" in result.question
    assert result.delta.params_b is None


def test_a_number_moves_to_the_cue_only_it_can_use(catalog):
    result = parse_message("lora 3b, lote efectivo 512 contexto 32K", catalog)
    assert result.delta.seq_len == 32768
    assert not any("más de un" in w or "more than one" in w for w in result.warnings)


DEEPSPEED = """lora of Qwen/Qwen3-4B with this:
{"train_micro_batch_size_per_gpu": 4, "bf16": {"enabled": true}, "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "none"}}}"""


def test_a_nested_deepspeed_json_is_read(catalog):
    result = parse_message(DEEPSPEED, catalog)
    assert said(result) == {"method": "lora", "model": "qwen3-4b", "micro_batch": 4, "precision": "bf16-mixed",
                            "sharding": "zero3" if "zero3" in str(SpecRequest.model_fields["sharding"].annotation)
                            else "fsdp"}
    assert result.intent == "estimate"


TORCHTUNE = """```
model:
  _component_: torchtune.models.gemma2.qlora_gemma2_9b
  lora_attn_modules: ['q_proj', 'v_proj']
  lora_rank: 4
tokenizer:
  _component_: torchtune.models.gemma.gemma_tokenizer
  max_seq_len: 1024
optimizer:
  _component_: torchao.optim.AdamW8bit
batch_size: 8
dtype: bf16
```"""


def test_a_torchtune_config_names_method_model_targets_and_dtype(catalog):
    result = parse_message(TORCHTUNE, catalog)
    got = said(result)
    assert {k: got.get(k) for k in ("method", "model", "stack", "lora_rank", "seq_len", "micro_batch",
                                    "lora_targets", "precision")} == {
        "method": "qlora", "model": "gemma-2-9b", "stack": "torchtune", "lora_rank": 4, "seq_len": 1024,
        "micro_batch": 8, "lora_targets": "attention", "precision": "bf16"}


def test_a_transformers_script_without_adapters_is_full(catalog):
    text = ('m = AutoModelForCausalLM.from_pretrained("Qwen/Qwen3-1.7B")\n'
            "t = Trainer(model=m, args=TrainingArguments(per_device_train_batch_size=16, num_train_epochs=2))")
    # A Trainer(...) call runs on transformers: the stack said is hf (tests/test_parse_trainer_stack.py).
    assert said(parse_message(text, catalog)) == {"method": "full", "model": "qwen3-1.7b", "micro_batch": 16,
                                                  "epochs": 2.0, "stack": "hf"}


def test_unsloth_code_is_not_the_hf_stack(catalog):
    text = ('from unsloth import FastLanguageModel\nm, t = FastLanguageModel.from_pretrained("unsloth/Qwen3-4B", '
            "load_in_4bit=True)\nm = FastLanguageModel.get_peft_model(m, r=8)\nSFTTrainer(model=m)")
    got = said(parse_message(text, catalog))
    assert got.get("stack") != "hf" and got["method"] == "qlora"


def test_tune_run_is_the_cli_only(catalog):
    assert said(parse_message("qlora fine-tune run on qwen3 4b", catalog)).get("stack") is None
    assert said(parse_message("tune run lora_finetune_distributed on qwen2.5 7b", catalog))["stack"] == "torchtune"


def test_a_yaml_key_that_opens_a_block_does_not_take_the_next_line(catalog):
    text = "lora qwen3 4b\noptimizer:\n  name: adamw_8bit\n  lr: 1e-4"
    result = parse_message(text, catalog)
    assert not any("not modeled" in w for w in result.warnings), result.warnings


# --- classes read from the generator's second round-4 held-out split (now "diagnosed3") ----------------
#
# - a size in parentheses after a name ("Gemma 3 (12B)"), never a version ("yi (3 passes");
# - a GPU's own memory and form factor after its name ("L40S 48GB x2", "A100 80GB SXM (x4)");
# - Spanish "una H100 nada más" is one GPU; "N full passes" is a count of epochs, not the method;
# - "unfreeze all of X", "retrain all layers of X", "all-weights SFT" are full fine-tunes;
# - "rank-64 LoRA" / "LoRA de rango 16" in a thread change the rank, not the method;
# - every sequence head word with every measure word ("ctx length", "input size"), "N-token seqs";
# - chats, messages and prompts are examples; digits in links and after "#" are no setting;
# - a sentence boundary is not filler between a cue and a number; one word binds one number;
# - accelerate's config keys (mixed_precision, distributed_type, fsdp_sharding_strategy).


@pytest.mark.parametrize("text, want", [
    ("qlora Gemma 3 (12B), seq 4096", {"method": "qlora", "model": "gemma-3-12b", "seq_len": 4096}),
    ("lora on 9b gemma 2 (2 epochs)", {"method": "lora", "model": "gemma-2-9b", "epochs": 2.0}),
    ("lora qwen2.5 (14b) on L40S 48GB x2", {"method": "lora", "model": "qwen2.5-14b", "gpu": "l40s", "num_gpus": 2}),
    ("lora qwen3 8b on A100 80GB SXM (x4)", {"method": "lora", "model": "qwen3-8b", "gpu": "a100-80gb", "num_gpus": 4}),
    ("LoRA de qwen3 8b en una L4 (24 GB) nada más", {"method": "lora", "model": "qwen3-8b", "gpu": "l4", "num_gpus": 1}),
])
def test_sizes_and_memory_in_parentheses(catalog, text, want):
    assert said(parse_message(text, catalog)) == want


@pytest.mark.parametrize("text, want", [
    ("unfreeze the whole of qwen3 4b and train it", {"method": "full", "model": "qwen3-4b"}),
    ("retrain all of the layers of phi-4, 2 full passes", {"method": "full", "model": "phi-4", "epochs": 2.0}),
    ("ajustar todas las capas de gemma 2 9b", {"method": "full", "model": "gemma-2-9b"}),
    ("all-weights SFT on olmo 2 7b", {"method": "full", "model": "olmo-2-7b"}),
])
def test_more_ways_to_say_full(catalog, text, want):
    assert said(parse_message(text, catalog)) == want


def test_lora_on_all_layers_is_not_full(catalog):
    assert said(parse_message("LoRA on all layers of qwen3 4b", catalog))["method"] == "lora"


@pytest.mark.parametrize("text, want", [
    ("and 3 full passes?", {"epochs": 3.0}),
    ("¿y con rank-32 LoRA?", {"lora_rank": 32}),
    ("mejor LoRA de rango 8", {"lora_rank": 8}),
])
def test_thread_changes_that_name_a_method_word_without_switching(catalog, text, want):
    previous = SpecRequest(method="qlora", model="qwen3-8b", seq_len=2048)
    result = parse_message(text, catalog, previous=previous)
    assert said(result) == want and result.request.method == "qlora"


@pytest.mark.parametrize("text, seq", [
    ("lora qwen3 8b, ctx length 2048", 2048), ("lora qwen3 8b, max context size 8k", 8192),
    ("lora qwen3 8b, input length 1024", 1024), ("lora qwen3 8b with 4096-tok samples", 4096),
    ("lora qwen3 8b, 16 steps 1024-token seqs", 1024),
])
def test_sequence_cues_combined(catalog, text, seq):
    assert parse_message(text, catalog).delta.seq_len == seq


@pytest.mark.parametrize("text", [
    "lora qwen3 8b, 50k prompts averaging 400 tokens", "lora qwen3 8b, 50k messages of 400 tokens",
    "LoRA de qwen3 8b, 50k mensajes de 400 tokens",
])
def test_chat_items_are_examples(catalog, text):
    assert parse_message(text, catalog).delta.dataset_tokens == 20_000_000


@pytest.mark.parametrize("text", [
    "lora qwen3 8b at 4k, see issue #4821", "lora qwen3 8b at 4k (https://intranet.example.org/exp/2231/run)",
    "lora qwen3 8b at 4k — notes at wiki.example.com/ml/77",
])
def test_digits_in_links_and_identifiers_are_not_settings(catalog, text):
    result = parse_message(text, catalog)
    assert result.intent == "estimate" and said(result) == {"method": "lora", "model": "qwen3-8b", "seq_len": 4096}


def test_a_sentence_boundary_is_not_filler(catalog):
    result = parse_message("a 20M token dataset. 1.5B-param model, lora.", catalog)
    assert said(result) == {"method": "lora", "params_b": 1.5, "dataset_tokens": 20_000_000}


def test_accelerate_config_keys(catalog):
    text = ("qlora qwen3 8b seq 2048\ncompute_environment: LOCAL_MACHINE\ndistributed_type: FSDP\n"
            "mixed_precision: fp16\nnum_processes: 4\nfsdp_config:\n  fsdp_sharding_strategy: FULL_SHARD")
    got = said(parse_message(text, catalog))
    assert {k: got.get(k) for k in ("num_gpus", "precision", "sharding")} == {
        "num_gpus": 4, "precision": "fp16-mixed", "sharding": "fsdp"}


# --- classes read from the generator's third round-4 held-out split (now "diagnosed4") ----------------
#
# - Spanish "todo el modelo" / "entrenar todo X", "complete parameter fine-tuning", "a full-weights run";
# - a TRL config without use_peft is full; LitGPT's CLI (finetune_lora / finetune_full, --precision,
#   --quantize, --devices, jsonargparse namespaces "--train.epochs");
# - "8B-param Qwen3": a size, its unit word, the family; a library version ("transformers 4.46") is
#   neither the stack nor a setting; dates and clock times are no setting; "16-bit" is a width;
# - "world size 4", "lote local 2", "16 samples/GPU", "lote total", "n_epochs=3", "grad accumulation x8";
# - an article counts only a singular noun, Spanish "a" is a preposition; "paged 8-bit AdamW";
# - "checkpointing de gradiente desactivado", "10% de tasa de fallo" (never "fallo en 8 GPUs");
# - "rank 8 for the LoRA" in a thread; "all - parameter" is no compound; "docs" are examples;
# - "at N tokens" after a dataset is a length; "80 GBs"; a vague value that runs on into an aside.


@pytest.mark.parametrize("text, want", [
    ("afinar todo el modelo phi-4 con 2 épocas", {"method": "full", "model": "phi-4", "epochs": 2.0}),
    ("entrenar todo Gemma 2 9B", {"method": "full", "model": "gemma-2-9b"}),
    ("complete weights fine-tuning of qwen3 4b", {"method": "full", "model": "qwen3-4b"}),
    ("a full-parameter job on yi 6b", {"method": "full", "model": "yi-6b"}),
    ("hi all - parameter efficient LoRA on yi 6b", {"method": "lora", "model": "yi-6b"}),
])
def test_full_in_more_words(catalog, text, want):
    assert said(parse_message(text, catalog)) == want


def test_a_trl_config_without_peft_is_full(catalog):
    text = ("trl sft --config run.yaml\n```\nmodel_name_or_path: Qwen/Qwen3-1.7B\ndataset_name: my/data\n"
            "max_length: 1024\nper_device_train_batch_size: 4\n```")
    assert said(parse_message(text, catalog))["method"] == "full"


@pytest.mark.parametrize("text, want", [
    ("litgpt finetune_full Qwen/Qwen3-4B --devices 4 --precision 32-true --train.epochs 2",
     {"method": "full", "stack": "litgpt", "model": "qwen3-4b", "num_gpus": 4, "precision": "fp32", "epochs": 2.0}),
    ("litgpt finetune Qwen/Qwen3-4B --quantize bnb.nf4-dq --train.max_seq_length 1024",
     {"method": "qlora", "stack": "litgpt", "model": "qwen3-4b", "quant": "nf4", "double_quant": True, "seq_len": 1024}),
])
def test_litgpt_command_lines(catalog, text, want):
    assert said(parse_message(text, catalog)) == want


@pytest.mark.parametrize("text, want", [
    ("lora on 14B-parameter Qwen2.5, seq 2048", {"method": "lora", "model": "qwen2.5-14b", "seq_len": 2048}),
    ("lora qwen3 8b (env: trl 0.19, accelerate 1.2) seq 1024", {"method": "lora", "model": "qwen3-8b", "seq_len": 1024}),
    ("lora qwen3 8b seq 1024, due 2026-01-15 at 09:30", {"method": "lora", "model": "qwen3-8b", "seq_len": 1024}),
    ("lora qwen3 8b with an 8-bit optimizer state? no: 32-bit adam, seq 1024",
     {"method": "lora", "model": "qwen3-8b", "seq_len": 1024, "optimizer": "adamw"}),
])
def test_numbers_that_are_no_setting(catalog, text, want):
    result = parse_message(text, catalog)
    assert said(result) == want and result.intent == "estimate"


@pytest.mark.parametrize("text, field, value", [
    ("qlora qwen3 8b, world size 8", "num_gpus", 8), ("QLoRA de qwen3 8b, lote local 4", "micro_batch", 4),
    ("qlora qwen3 8b, 4 seqs/device", "micro_batch", 4), ("qlora qwen3 8b max_epochs=2", "epochs", 2.0),
    ("QLoRA de qwen3 8b, lote 2, lote total 64", "micro_batch", 2),
])
def test_more_setting_words(catalog, text, field, value):
    result = parse_message(text, catalog)
    assert getattr(result.delta, field) == value and result.intent == "estimate"


def test_accumulation_as_a_multiplier_is_read_and_left(catalog):
    result = parse_message("qlora qwen3 8b, bs 2 + grad accumulation x16", catalog)
    assert result.intent == "estimate" and result.delta.micro_batch == 2 and result.delta.num_gpus is None


def test_articles_and_prepositions(catalog):
    previous = SpecRequest(method="lora", model="qwen3-8b", seq_len=2048)
    assert said(parse_message("¿y pasando a épocas 3?", catalog, previous=previous)) == {"epochs": 3.0}
    assert said(parse_message("and an epoch?", catalog, previous=previous)) == {"epochs": 1.0}


@pytest.mark.parametrize("text, want", [
    ("lora qwen3 8b, paged 32-bit AdamW", {"method": "lora", "model": "qwen3-8b", "optimizer": "adamw"}),
    ("LoRA de qwen3 8b, checkpointing de activación desactivado",
     {"method": "lora", "model": "qwen3-8b", "gradient_checkpointing": False}),
    ("LoRA de qwen3 8b, 15% de tasa de fallos", {"method": "lora", "model": "qwen3-8b",
                                                 "costs": {"failed_run_fraction": 0.15}}),
    ("LoRA de qwen3 8b: tasa de fallo en 2 GPUs baja", {"method": "lora", "model": "qwen3-8b", "num_gpus": 2}),
    ("lora qwen3 8b, 30k docs of 500 tokens", {"method": "lora", "model": "qwen3-8b", "dataset_tokens": 15_000_000}),
    ("lora qwen3 8b: a 10M token dataset at 4096 tokens", {"method": "lora", "model": "qwen3-8b",
                                                            "dataset_tokens": 10_000_000, "seq_len": 4096}),
    ("lora qwen3 8b on 2 H100 80 GBs", {"method": "lora", "model": "qwen3-8b", "gpu": "h100-sxm", "num_gpus": 2}),
])
def test_assorted_round_four_phrasings(catalog, text, want):
    assert said(parse_message(text, catalog)) == want


def test_a_rank_for_the_lora_in_a_thread(catalog):
    previous = SpecRequest(method="qlora", model="qwen3-8b", seq_len=2048)
    result = parse_message("then rank 32 for the LoRA", catalog, previous=previous)
    assert said(result) == {"lora_rank": 32}


def test_a_vague_value_that_runs_into_an_aside(catalog):
    result = parse_message("lora qwen3 8b, seq len: as long as we can afford, cc @ana", catalog)
    assert result.clarify_code == "unreadable"
