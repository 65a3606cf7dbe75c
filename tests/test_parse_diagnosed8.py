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
