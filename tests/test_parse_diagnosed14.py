"""Mechanisms behind the failures of the two round-13 sets, diagnosed from this round on.

- heldout/diagnosed-table4 (tests/heldout/table4.py, measured once blind at 73426e4: 83.9% fully right,
  12 answers with an unsaid value);
- generated/diagnosed13 (tests/heldout/gen13.py, 3000 from seed 13, measured once blind at 73426e4:
  48.9% fully right, 207 answers with an unsaid value).

Each class is tested with phrasings written for this file, in both languages, not copied from either
set: the fix is the mechanism, so other words for the same thing must pass too."""

import pytest

from advisor.parse import parse_message


def _said(text, catalog, previous=None):
    result = parse_message(text, catalog, previous=previous)
    return result.intent, result.delta.said()


# --- a value withdrawn by repeating it, then replaced (gen13's largest misread class) -----------------

@pytest.mark.parametrize("text,field,want", [
    ("full fine-tune of qwen2.5 7b, context 2048 — drop the 2048, make it 3072", "seq_len", 3072),
    ("lora mistral 7b, rank 64; forget that 64, make it 8", "lora_rank", 8),
    ("qlora llama 3.1 8b, 2k context. ignore the 2048, actually 4096", "seq_len", 4096),
    ("ajuste completo de qwen2.5 7b, contexto 2048; descarta el 2048, que sea 3072", "seq_len", 3072),
    ("lora de mistral 7b con rango 64 — olvida ese 64, mejor 8", "lora_rank", 8),
    ("qlora de llama 3.1 8b, lote 2, tacha el 2, que sea 6", "micro_batch", 6),
])
def test_a_repeated_value_withdrawn_is_replaced_by_the_correction(text, field, want, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and said.get(field) == want, said


@pytest.mark.parametrize("text", [
    "lora mistral 7b, context 2048 — drop the 1024, make it 3072",  # no value of the message is 1024
    "lora de mistral 7b, contexto 2048; olvida el 512, que sea 3072",
])
def test_withdrawing_a_value_nobody_said_is_a_question(text, catalog):
    result = parse_message(text, catalog)
    assert result.intent == "clarify" and result.delta.said().get("seq_len") != 3072


# --- a Kubeflow TrainJob's numNodes times its per-node GPU limit (gen13's config:trainjob) ----------------

@pytest.mark.parametrize("lead,nodes,per_node", [
    ("size a LoRA of qwen2.5 7b for this job", 3, 4),
    ("¿cuánto cuesta un LoRA de qwen2.5 7b con este job?", 2, 8),
])
def test_a_trainjob_counts_nodes_times_gpus_per_node(lead, nodes, per_node, catalog):
    text = (f"{lead}\n```yaml\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nspec:\n  trainer:\n"
            f"    resourcesPerNode:\n      limits:\n        nvidia.com/gpu: {per_node}\n    numNodes: {nodes}\n```")
    intent, said = _said(text, catalog)
    assert said.get("num_gpus") == nodes * per_node, said


# --- bf16 with no fp32 master copy is pure bf16; a glued "AdamW8bit" before "paginado" is paged ----------

@pytest.mark.parametrize("text", [
    "lora qwen2.5 7b, bf16 with no fp32 master weights",
    "full fine-tune of phi-4, everything in bf16",
    "lora qwen2.5 7b, bf16 (no master copy)",
    "lora de qwen2.5 7b, bf16 y sin pesos maestros",
    "ajuste completo de phi-4, todo en bf16",
])
def test_bf16_without_fp32_masters_is_pure_bf16(text, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and said.get("precision") == "bf16", said


@pytest.mark.parametrize("text", [
    "lora de qwen2.5 7b con AdamW8bit paginado",
    "ajuste completo de phi-4, optimizador adamw 8-bit paginado",
])
def test_a_glued_8bit_adamw_then_paginado_is_paged(text, catalog):
    intent, said = _said(text, catalog)
    assert said.get("optimizer") == "paged-adamw-8bit", said


# --- a LoRA pair joined by ":" ("rank:alpha 32:64"): each name takes the number in its place ---------------

@pytest.mark.parametrize("text,rank,alpha", [
    ("lora qwen2.5 7b with r:alpha 16:32", 16, 32.0),
    ("qlora mistral 7b, alpha:rank = 64:32", 32, 64.0),
    ("lora de qwen2.5 7b, rango:alfa 8:16", 8, 16.0),
    ("qlora de mistral 7b con alfa:rango 128:64", 64, 128.0),
])
def test_a_colon_joined_lora_pair_reads_each_in_its_place(text, rank, alpha, catalog):
    intent, said = _said(text, catalog)
    assert said.get("lora_rank") == rank and said.get("lora_alpha") == alpha, said


# --- "PCIe-form-factor H100": the datasheet's form-factor phrase before the name names the variant ---------

@pytest.mark.parametrize("text,gpu", [
    ("lora qwen2.5 7b on two SXM form factor H100s", "h100-sxm"),
    ("full fine-tune of phi-4 on 4 PCIe form-factor H100 cards", "h100-pcie"),
    ("lora de qwen2.5 7b en dos tarjetas SXM-form-factor H100", "h100-sxm"),
    ("ajuste completo de phi-4 en 4 GPUs PCIe form factor H100", "h100-pcie"),
])
def test_a_form_factor_phrase_before_the_gpu_names_its_variant(text, gpu, catalog):
    intent, said = _said(text, catalog)
    assert said.get("gpu") == gpu, said


# --- pasted `nvidia-smi -L`: one line per GPU of the box; index and UUID digits are no settings -------------

@pytest.mark.parametrize("lead,count", [("size a LoRA of qwen2.5 7b, seq 2048, on this machine:", 2),
                                        ("calcula un LoRA de qwen2.5 7b, secuencia 2048, en esta máquina:", 4)])
def test_nvidia_smi_list_counts_the_boxs_gpus(lead, count, catalog):
    lines = "\n".join(f"GPU {i}: NVIDIA L40S (UUID: GPU-{i}9a7c3e1-5b{i}2-4d0f)" for i in range(count))
    intent, said = _said(f"{lead}\n```\n$ nvidia-smi -L\n{lines}\n```", catalog)
    assert intent == "estimate" and said.get("num_gpus") == count and said.get("gpu") == "l40s", said


# --- a terse spec line's abbreviations: "act. ckpt yes", "ckpt de activaciones: no"; "N trips through the set" ---

@pytest.mark.parametrize("text,on", [
    ("full fine-tune of phi-4, seq 2048, act. ckpt on", True),
    ("full fine-tune of phi-4 | act ckpt: off | seq 2048", False),
    ("ajuste completo de phi-4, secuencia 2048, ckpt de activaciones: sí", True),
    ("ajuste completo de phi-4 · checkpoints de activaciones: no · secuencia 2048", False),
])
def test_abbreviated_activation_checkpointing_is_read(text, on, catalog):
    intent, said = _said(text, catalog)
    assert said.get("gradient_checkpointing") is on, said


@pytest.mark.parametrize("text,epochs", [("lora phi-4 seq 2048, 3 trips through the dataset", 3.0),
                                         ("qlora mistral 7b, seq 1024, two walks over the training set", 2.0)])
def test_trips_through_the_data_are_epochs(text, epochs, catalog):
    intent, said = _said(text, catalog)
    assert said.get("epochs") == epochs, said


def test_a_trip_alone_is_no_epoch(catalog):
    intent, said = _said("lora phi-4 seq 2048 in Paris, 3 trips planned this month", catalog)
    assert "epochs" not in said, said


# --- "bf16 autocast over fp32 masters": a half type's math over an fp32 master copy is mixed precision ------

@pytest.mark.parametrize("text,precision", [
    ("lora phi-4 seq 2048, fp16 autocast over fp32 masters", "fp16-mixed"),
    ("full fine-tune of qwen2.5 7b, bf16 math over the fp32 masters", "bf16-mixed"),
    ("lora de phi-4, secuencia 2048, autocast fp16 con maestros fp32", "fp16-mixed"),
    ("ajuste completo de qwen2.5 7b, cómputo bf16 sobre maestros fp32", "bf16-mixed"),
])
def test_half_math_over_fp32_masters_is_mixed(text, precision, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and said.get("precision") == precision, said
