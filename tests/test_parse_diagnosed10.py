"""Mechanisms behind the failures of the two round-9 sets, measured once blind on main at 95194cb and now diagnosed.

- ``heldout/diagnosed-table2`` (tests/heldout/table2.py: 84.4% fully right blind, 24 answers with an unsaid value);
- ``generated/diagnosed10`` (tests/heldout/gen9.py, seed 9: 45.1% fully right blind, 419 answers with an unsaid
  value, invented 270, misread 192).

The generated set's unsaid values came mostly from four mechanisms, each tested here with phrasings written for
this file, in both languages, never copied from either set:

- digits grouped by "_" (Python's literal syntax, "32_768") were read as the first group ("seq 32" asked about);
- a model's size linked to its family by a noun ("Gemma 3 in its 12B size", "the 9B variant of Gemma 2", "Qwen3 en
  su versión de 1.7B", "la variante de 32B de Qwen3", "Llama 3.3 (versión 70B)") became a generic model of that size;
- AdamW's modifiers listed after it ("AdamW, paged, 8-bit", "AdamW (8-bit, bitsandbytes)", "AdamW 8-bit paginado")
  were read as plain AdamW, or 8-bit without paging;
- a torchtune QLoRA config run through its LoRA recipe ("lora_finetune_single_device --config .../..._qlora...")
  was read as LoRA.
"""

import pytest

from advisor.parse import parse_message
from advisor.spec import SpecRequest


def _said(text, catalog, previous=None):
    result = parse_message(text, catalog, previous=previous)
    return result.intent, result.delta.said()


def _pick(said, want):
    return {k: said.get(k) for k in want}


# --- digits grouped by underscores -------------------------------------------------------------------------

@pytest.mark.parametrize("text,want", [
    ("qlora on mistral 7b with a 65_536 context", {"seq_len": 65536}),
    ("lora llama 3.1 8b, max_len 8_192, 50_000_000 tokens of data", {"seq_len": 8192, "dataset_tokens": 50_000_000}),
    ("full fine-tune de qwen2.5 0.5b con contexto de 16_384", {"seq_len": 16384}),
    ("lora de phi-4, longitud 4_096 y 2_000_000 tokens de datos", {"seq_len": 4096, "dataset_tokens": 2_000_000}),
])
def test_digits_grouped_by_underscores_are_one_number(text, want, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and _pick(said, want) == want, said


def test_underscore_grouping_as_a_followup(catalog):
    previous = SpecRequest(method="lora", model="llama-3.1-8b", seq_len=2048)
    intent, said = _said("what about a 12_288 context then?", catalog, previous)
    assert intent == "followup" and said["seq_len"] == 12288, said


@pytest.mark.parametrize("text", [
    "qlora on qwen2_5 7b seq 2048",  # torchtune's folder name: a version, never 25
    "lora llama3_1_8b seq 4096",
])
def test_underscores_inside_a_name_are_not_digit_groups(text, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and said.get("model") and said["seq_len"] in (2048, 4096), said


# --- a size linked to its family by a noun --------------------------------------------------------------

@pytest.mark.parametrize("text,model", [
    ("lora on Qwen2.5 in its 7B version, 4k context", "qwen2.5-7b"),
    ("how much for a full fine-tune of the 8B release of Llama 3.1, seq 2048?", "llama-3.1-8b"),
    ("qlora, Mistral (7B variant), 8k tokens", None),  # Mistral 7B: several versions, the parser asks which
    ("the 27B size of Gemma 2 with qlora at seq 4096", "gemma-2-27b"),
    ("QLoRA a Gemma 2 en su tamaño de 9B, secuencia 2048", "gemma-2-9b"),
    ("lora sobre la versión de 3B de Qwen2.5, contexto 4096", "qwen2.5-3b"),
    ("ajuste completo de Qwen3 (variante de 4B), longitud 1024", "qwen3-4b"),
    ("lora al Llama 3.1 en su variante 70B con secuencia 8192", "llama-3.1-70b"),
])
def test_a_size_said_through_a_linking_noun_names_the_familys_model(text, model, catalog):
    result = parse_message(text, catalog)
    said = result.delta.said()
    assert "params_b" not in said, said  # never a generic model of that size
    if model is None:
        assert result.intent == "clarify" or said.get("model", "").startswith("mistral-7b"), (result.intent, said)
    else:
        assert said.get("model") == model, said


@pytest.mark.parametrize("text", ["lora llama 3 8b; what fits in its 24gb card?",
                                  "qlora qwen2.5 7b, en su versión de 4 bits, secuencia 2048"])
def test_linking_nouns_without_a_size_in_parameters_are_left_alone(text, catalog):
    said = parse_message(text, catalog).delta.said()
    assert "params_b" not in said and said.get("model") in ("llama-3-8b", "qwen2.5-7b"), said


# --- AdamW and its modifiers ----------------------------------------------------------------------------

@pytest.mark.parametrize("text,optimizer", [
    ("lora qwen3 8b seq 2048, optimizer AdamW / paged / 8bit", "paged-adamw-8bit"),
    ("lora qwen3 8b seq 2048 with AdamW (paged, 8 bit)", "paged-adamw-8bit"),
    ("lora qwen3 8b seq 2048 using AdamW (bitsandbytes, 8-bit)", "adamw-8bit"),
    ("lora qwen3 8b seq 2048, AdamW (8-bit)", "adamw-8bit"),
    ("lora de qwen3 8b, secuencia 2048, AdamW (paginado)", "paged-adamw-8bit"),
    ("lora de qwen3 8b, secuencia 2048, con AdamW de 8 bits y paginado", "paged-adamw-8bit"),
    ("lora de qwen3 8b, secuencia 2048, AdamW (paginado, 8 bits)", "paged-adamw-8bit"),
    ("lora de qwen3 8b, secuencia 2048, AdamW (8 bits, bnb)", "adamw-8bit"),
    ("lora qwen3 8b seq 2048, AdamW, paged, 32-bit", "adamw"),  # paged 32-bit: AdamW's memory (with a warning)
])
def test_adamws_modifiers_after_it_name_one_optimizer(text, optimizer, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and said.get("optimizer") == optimizer, said


def test_bnb_before_a_4bit_quantization_is_the_base_models_not_the_optimizers(catalog):
    for text in ("qlora llama 3 8b seq 2048, AdamW, bnb 4-bit base", "qlora de llama 3 8b, AdamW, bnb nf4, secuencia 2048"):
        said = parse_message(text, catalog).delta.said()
        assert said.get("optimizer") == "adamw" and said["method"] == "qlora", said


# --- torchtune: a QLoRA config through the LoRA recipe -----------------------------------------------------

@pytest.mark.parametrize("text,method", [
    ("tune run lora_finetune_single_device --config llama3_2/3B_qlora_single_device tokenizer.max_seq_len=4096", "qlora"),
    ("cuánto cuesta esto: tune run lora_finetune_single_device --config=qwen2_5/0.5B_qlora_single_device batch_size=4",
     "qlora"),
    ("tune run lora_finetune_single_device --config llama3_2/3B_lora_single_device tokenizer.max_seq_len=4096", "lora"),
    ("tune run --nproc_per_node 2 full_finetune_distributed --config qwen2_5/3B_full batch_size=2", "full"),
])
def test_torchtunes_config_name_says_qlora_under_the_lora_recipe(text, method, catalog):
    said = parse_message(text, catalog).delta.said()
    assert said["method"] == method and said["stack"] == "torchtune", said


# --- two LoRA settings named as a pair, and "equal to" -------------------------------------------------------

@pytest.mark.parametrize("text,want", [
    ("lora on qwen2.5 7b, seq 4096, rank/alpha 8/16", {"lora_rank": 8, "lora_alpha": 16.0}),
    ("lora on qwen2.5 7b, seq 4096, alpha/rank: 128/64", {"lora_rank": 64, "lora_alpha": 128.0}),
    ("lora de qwen2.5 7b, secuencia 4096, rango/alfa 4/8", {"lora_rank": 4, "lora_alpha": 8.0}),
    ("lora de qwen2.5 7b, secuencia 4096, r/a = 32/16", {"lora_rank": 32, "lora_alpha": 16.0}),
    ("lora on qwen2.5 7b, seq 4096, rank set to 64", {"lora_rank": 64}),
    ("lora on qwen2.5 7b, seq 4096, with the rank equal to 4", {"lora_rank": 4}),
    ("lora de qwen2.5 7b, secuencia 4096, rango fijado en 32", {"lora_rank": 32}),
    ("lora de qwen2.5 7b, secuencia 4096, alfa igual a 16", {"lora_alpha": 16.0}),
])
def test_lora_settings_said_as_a_pair_or_with_equal_words(text, want, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and _pick(said, want) == want, said


def test_a_pair_of_lora_settings_in_a_followup(catalog):
    previous = SpecRequest(method="lora", model="qwen2.5-7b", seq_len=4096)
    intent, said = _said("y con rango/alfa 16/16?", catalog, previous)
    assert intent == "followup" and said["lora_rank"] == 16 and said["lora_alpha"] == 16.0, said


# --- a Kubernetes manifest's apiVersion is no model -----------------------------------------------------

@pytest.mark.parametrize("head", ["LoRA run on the cluster, cost?", "corrida LoRA en el clúster, ¿coste?"])
def test_a_manifests_api_version_is_not_a_hub_model(head, catalog):
    text = (f"{head}\n```yaml\napiVersion: batch/v1\nkind: Job\nspec:\n  template:\n    spec:\n      containers:\n"
            "      - image: ghcr.io/acme/train:v2\n        args: [\"--model_name_or_path\", \"Qwen/Qwen2.5-3B\", \"--max_length\", \"2048\"]\n```")
    said = parse_message(text, catalog).delta.said()
    assert said.get("model") == "qwen2.5-3b" and said.get("seq_len") == 2048, said


# --- "vueltas" count epochs; an adverb or an order form counts the GPUs ------------------------------------

@pytest.mark.parametrize("text,want", [
    ("qlora de mistral 7b, secuencia 1024, cinco vueltas a los datos", {"epochs": 5.0}),
    ("lora de phi-4 con 3 vueltas, contexto 2048", {"epochs": 3.0}),
])
def test_spanish_laps_over_the_data_are_epochs(text, want, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and _pick(said, want) == want, said


def test_a_la_vuelta_is_no_epoch_count(catalog):
    said = parse_message("lora de phi-4, contexto 2048; a la vuelta lo revisamos", catalog).delta.said()
    assert "epochs" not in said, said


@pytest.mark.parametrize("text,count,gpu", [
    ("lora de qwen2.5 7b, secuencia 4096, en exactamente una H100", 1, "h100-sxm"),
    ("qlora de llama 3 8b con secuencia 2048 en tan solo una RTX 4090", 1, "rtx-4090"),
    ("qlora de llama 3 8b con secuencia 2048, nada más que una L40S", 1, "l40s"),
    ("lora on qwen2.5 7b, seq 4096, A100 80GB (8 pcs)", 8, "a100-80gb"),
    ("full fine-tune of qwen2.5 1.5b, seq 2048, L40S (48 GB) (2 pieces)", 2, "l40s"),
    ("ajuste completo de qwen2.5 1.5b, secuencia 2048, H100 (4 piezas)", 4, "h100-sxm"),
])
def test_a_gpu_count_from_an_adverb_or_an_order_form(text, count, gpu, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and said.get("num_gpus") == count and said.get("gpu") == gpu, said


# --- Spanish "de" between the family and its size (table2) --------------------------------------------------

@pytest.mark.parametrize("text,model", [
    ("qlora de un gemma 2 de 9b, secuencia 2048", "gemma-2-9b"),
    ("lora sobre el llama 3.1 de 70b a 4k", "llama-3.1-70b"),
    ("ajuste completo del qwen3 de 1.7b con secuencia 1024", "qwen3-1.7b"),
])
def test_spanish_de_links_a_family_to_its_size(text, model, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and said.get("model") == model and "params_b" not in said, said


def test_de_before_a_count_of_tokens_is_no_size(catalog):
    said = parse_message("lora de qwen3 8b con 2b tokens de datos, secuencia 2048", catalog).delta.said()
    assert said.get("model") == "qwen3-8b" and said.get("dataset_tokens") == 2_000_000_000, said


@pytest.mark.parametrize("text", ["lora qwen3 8b seq 2048, paged AdamW (8-bit)", "lora de qwen3 8b, secuencia 2048, AdamW paginado (8 bits)",
                                  "lora de qwen3 8b, secuencia 2048, paginado AdamW (8 bits, bnb)"])
def test_a_modifier_before_adamw_joins_those_after_it(text, catalog):
    assert parse_message(text, catalog).delta.said().get("optimizer") == "paged-adamw-8bit"
