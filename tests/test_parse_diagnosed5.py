"""Mechanisms behind the failures of the generator's last round-4 split (committed as "unseen" in
1d19e12, measured once at aed0e24: 67.8% fully right, 342 answers with an unsaid value; now
"diagnosed5"). Each class is tested here with phrasings written for this file, not copied from the
split: the fix is the mechanism, so other words for the same thing must pass too."""

import pytest

from advisor.parse import parse_message
from advisor.spec import SpecRequest

P8 = SpecRequest(method="qlora", model="llama-3-8b", seq_len=2048)


def _said(text, catalog, previous=None):
    result = parse_message(text, catalog, previous=previous)
    return result.intent, result.delta.said()


@pytest.mark.parametrize("text,gpu,count", [
    # a form factor or a memory size typed before the name names the same variant as after it
    ("lora qwen3 8b on 4 PCIe H100 cards", "h100-pcie", 4),
    ("lora qwen3 8b, tres PCIe H100", "h100-pcie", 3),
    ("lora qwen3 8b using 2 SXM5 H100", "h100-sxm", 2),
    ("lora qwen3 8b on six 40GB A100s", "a100-40gb", 6),
    ("lora qwen3 8b en dos A100 de 40GB", "a100-40gb", 2),
    # the memory after a slash or a hyphen, with or without its unit; the product line's last word
    ("lora qwen3 8b on 3 A100/40GB", "a100-40gb", 3),
    ("lora qwen3 8b, 2x a100-80", "a100-80gb", 2),
    ("lora qwen3 8b on the RTX 6000 Ada Generation x3", "rtx-6000-ada", 3),
    # counts in an order form, and N-way
    ("lora qwen3 8b, L40S, quantity 6", "l40s", 6),
    ("lora qwen3 8b; GPU: A10G; cantidad 3", "a10g", 3),
    ("lora qwen3 8b, 6 unidades de L40S", "l40s", 6),
    ("lora qwen3 8b, an 8-way H100 box", "h100-sxm", 8),
    ("lora qwen3 8b on a lone L40S", "l40s", 1),
])
def test_gpu_variants_and_counts_around_the_name(text, gpu, count, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and (said.get("gpu"), said.get("num_gpus")) == (gpu, count), said


@pytest.mark.parametrize("text,method", [
    ("quantized LoRA on qwen3 8b", "qlora"),
    ("adaptadores LoRA cuantizados sobre qwen3 8b", "qlora"),
    ("qwen3 8b, LoRA w/o quantization", "lora"),
    ("non-LoRA training of every weight of qwen3 8b", "full"),
    ("qwen3 8b, full training (non-PEFT)", "full"),
    ("swift sft --model Qwen/Qwen3-8B --train_type lora --max_length 4096", "lora"),
    ("swift sft --model Qwen/Qwen3-8B --train_type full --max_length 4096", "full"),
])
def test_method_words_negated_or_quantized(text, method, catalog):
    intent, said = _said(text, catalog)
    assert (intent, said.get("method")) == ("estimate", method), said


@pytest.mark.parametrize("text,precision", [("lora qwen3 8b, bf16 without autocast", "bf16"),
                                            ("lora qwen3 8b en bf16, sin precisión mixta", "bf16"),
                                            ("lora qwen3 8b bf16 w/o amp", "bf16"),
                                            ("lora qwen3 8b bf16 amp", "bf16-mixed")])
def test_bf16_without_autocast_is_pure_bf16(text, precision, catalog):
    assert _said(text, catalog)[1]["precision"] == precision


@pytest.mark.parametrize("text,expected", [
    # the per-device batch key in ms-swift's and others' word order; an abbreviated effective batch is not it
    ("lora qwen3 8b, train_batch_size_per_device=6 (eff. batch 96)", {"micro_batch": 6}),
    ("lora qwen3 8b, bs 3, accum 12", {"micro_batch": 3}),
    ("lora qwen3 8b, lote de 3 (acumulación 12)", {"micro_batch": 3}),
    # an abbreviation's period before a number, and a digit with its own word
    ("lora qwen3 8b, long. máx. 6.144 tokens", {"seq_len": 6144}),
    ("lora qwen3 8b, longitud máx. 6.144", {"seq_len": 6144}),
    ("lora qwen3 8b, 1 única época", {"epochs": 1.0}),
    ("lora qwen3 8b, 1 single epoch", {"epochs": 1.0}),
    # failure rates with a modal verb
    ("lora qwen3 8b, roughly 15% of runs might fail", {"costs": {"failed_run_fraction": 0.15}}),
    ("lora qwen3 8b, el 15% de las ejecuciones van a fallar", {"costs": {"failed_run_fraction": 0.15}}),
])
def test_settings_in_other_word_orders(text, expected, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and {k: said.get(k) for k in expected} == expected, said


@pytest.mark.parametrize("text,expected", [
    # the count's own length is the one right after it; another per-sample length is the sequence length
    ("lora qwen3 8b, 8k tokens per sample, 30k rows of ~900 tokens each", {"dataset_tokens": 27_000_000, "seq_len": 8192}),
    ("lora qwen3 8b, 4096 tok/sample; 30k rows, 900 tokens each", {"dataset_tokens": 27_000_000, "seq_len": 4096}),
    ("lora qwen3 8b, 30.000 filas, ~900 tokens cada una", {"dataset_tokens": 27_000_000}),
    ("lora qwen3 8b, 30k question-answer pairs of 900 tokens", {"dataset_tokens": 27_000_000}),
    ("lora qwen3 8b, 30.000 pares pregunta-respuesta de 900 tokens", {"dataset_tokens": 27_000_000}),
])
def test_example_lengths_bind_to_their_count(text, expected, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and {k: said.get(k) for k in expected} == expected, said


@pytest.mark.parametrize("text,expected", [
    ("what about r64 adapters?", {"lora_rank": 64}),
    ("y con rango 64 (LoRA)?", {"lora_rank": 64}),
    ("hazlo con una pasada completa", {"epochs": 1.0}),
    ("and one full pass then", {"epochs": 1.0}),
    ("make it train_batch_size_per_device=2", {"micro_batch": 2}),
])
def test_thread_replies_change_only_what_they_say(text, expected, catalog):
    """A rank's adapter word and an epoch's "full" qualify those settings, not the method."""
    assert _said(text, catalog, previous=P8) == ("followup", expected)


def test_a_gpu_with_its_memory_after_a_slash_is_no_hub_repository(catalog):
    result = parse_message("qlora qwen3 8b on two A100/80GB", catalog)
    assert result.intent == "estimate" and result.request.model == "qwen3-8b" and result.request.gpu == "a100-80gb"


# --- classes read from the round-5 split (committed as "unseen" in 6f61962, measured once at that commit:
# 61.0% fully right, 448 answers with an unsaid value; now "diagnosed6") ------------------------------

def test_a_markdown_settings_table_is_read_row_by_row(catalog):
    text = ("| field | value |\n|:---|---:|\n| model | Qwen/Qwen3-8B |\n| method | LoRA |\n| seq len | 3072 |\n"
            "| batch size | 2 |\n| rank | 12 |")
    assert _said(text, catalog) == ("estimate", {"method": "lora", "model": "qwen3-8b", "seq_len": 3072,
                                                 "micro_batch": 2, "lora_rank": 12})


@pytest.mark.parametrize("text,expected", [
    ("lora qwen3 8b, adapter dim 24", {"lora_rank": 24}),
    ("lora qwen3 8b, dimensión del adaptador 24", {"lora_rank": 24}),
    ("lora qwen3 8b, hidden size 4096, rank 24", {"lora_rank": 24}),  # the model's width is no rank
    ("lora qwen3 8b, lote por tarjeta de 6", {"micro_batch": 6}),
    ("lora qwen3 8b, a batch of 6 per card", {"micro_batch": 6}),
    ("lora qwen3 8b, 3 seqs per device (global 96)", {"micro_batch": 3}),
    ("lora qwen3 8b, seqs capped at 3,072", {"seq_len": 3072}),
    ("lora qwen3 8b, ventana de contexto de 3072", {"seq_len": 3072}),
    ("lora qwen3 8b, two passes through the data", {"epochs": 2.0}),
    ("lora qwen3 8b, tres pases por los datos", {"epochs": 3.0}),
    ("lora qwen3 8b, AdamW with 8-bit optimizer states", {"optimizer": "adamw-8bit"}),
    ("lora qwen3 8b, plan for 12% of attempts to fail", {"costs": {"failed_run_fraction": 0.12}}),
    ("lora qwen3 8b, contamos con un 12% de trabajos fallidos", {"costs": {"failed_run_fraction": 0.12}}),
    ("lora qwen3 8b, 40k convos @ 800 tokens", {"dataset_tokens": 32_000_000}),
    ("lora qwen3 8b, 40k ejemplos (800 tokens)", {"dataset_tokens": 32_000_000}),
])
def test_round5_setting_words(text, expected, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and {k: said.get(k) for k in expected} == expected, said


@pytest.mark.parametrize("text,gpu,count", [
    ("lora qwen3 8b, H200 141GB — 6 of them", "h200", 6),
    ("lora qwen3 8b; L40S 48G — 6 en total", "l40s", 6),
    ("lora qwen3 8b on 6 A100-SXM4-40GB", "a100-40gb", 6),
])
def test_a_count_after_a_dash_counts_the_gpu_before_it(text, gpu, count, catalog):
    intent, said = _said(text, catalog)
    assert (said.get("gpu"), said.get("num_gpus")) == (gpu, count), said


@pytest.mark.parametrize("text", ["(2/3) lora qwen3 8b, seq 4096", "lora qwen3 8b, seq 4096 (3/3)"])
def test_a_part_counter_is_no_setting(text, catalog):
    assert _said(text, catalog) == ("estimate", {"method": "lora", "model": "qwen3-8b", "seq_len": 4096})


@pytest.mark.parametrize("text,expected", [("and adapter dim 48?", {"lora_rank": 48}),
                                           ("ahora con dimensión LoRA 48", {"lora_rank": 48}),
                                           ("what about r = 48 adapters", {"lora_rank": 48})])
def test_round5_thread_replies_change_only_the_rank(text, expected, catalog):
    assert _said(text, catalog, previous=P8) == ("followup", expected)
