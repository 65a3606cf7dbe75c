"""Round 19b (issue #13): the mechanisms behind gen17's missing values, each with forms the set does not use.

Labelled values (a key of a few words before a colon or between a Markdown row's cell walls), gradient
checkpointing said by its participle, a length's bound after its noun and truncation verbs, an owned misreading as
a correction, two sources' values for one setting, job specs' GPU counts (Azure ML, Vertex AI, gcloud), a lone card,
a cloud's region id, LitGPT's config, nested YAML keys, on/off answers, Spanish attention targets, a terse "full".
"""

import pytest

from advisor.parse import parse_message


def _said(text, catalog):
    result = parse_message(text, catalog)
    return result.intent, result.delta.said()


# --- labelled values -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,expected", [
    ("LoRA of llama 3 8b\n| epochs trained | 3 |\n| max seq. length (tokens) | 1024 |", {"epochs": 3.0, "seq_len": 1024}),
    ("LoRA de llama 3 8b\n| épocas entrenadas | 5 |\n| long. máx. de secuencia (tokens) | 6144 |",
     {"epochs": 5.0, "seq_len": 6144}),
    # other words qualifying the cue, a colon instead of a cell wall, other order
    ("LoRA of llama 3 8b\ncontext length used (tokens): 2048\nepochs run: 2", {"epochs": 2.0, "seq_len": 2048}),
    ("LoRA de llama 3 8b\nnúmero total de épocas previstas: 4\nrango de LoRA elegido: 32", {"epochs": 4.0, "lora_rank": 32}),
    ("LoRA of llama 3 8b\n| setting | value |\n|---|---|\n| LoRA rank used | 16 |\n| epochs completed | 1 |",
     {"lora_rank": 16, "epochs": 1.0}),
])
def test_a_labelled_value_is_the_field_its_label_names(text, expected, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate"
    assert {k: said.get(k) for k in expected} == expected


def test_rate_rows_of_a_table_are_read_and_left_alone(catalog):
    text = ("LoRA de llama 3 8b\n| hiperparámetro | valor |\n|---|---|\n| tasa de aprendizaje | 2e-4 |\n"
            "| decaimiento de pesos | 0,01 |\n| proporción de warmup | 0,03 |\n| épocas entrenadas | 2 |")
    assert _said(text, catalog) == ("estimate", {"method": "lora", "model": "llama-3-8b", "epochs": 2.0})


@pytest.mark.parametrize("text", [
    "LoRA of llama 3 8b. misread the ticket: 4096 tokens",  # an identifier's word is no key: the tokens say the length
    "LoRA de llama 3 8b. otros ajustes: 300 millones de tokens",  # "other settings" names no field
])
def test_a_label_without_a_field_leaves_the_value_to_its_own_cue(text, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate"
    assert said.get("epochs") is None and ("seq_len" in said or "dataset_tokens" in said)


# --- gradient checkpointing ----------------------------------------------------------------------------------

@pytest.mark.parametrize("text,value", [
    ("LoRA of llama 3 8b, checkpointed activations: yes", True),
    ("LoRA of llama 3 8b, checkpointed activations: off", False),
    ("LoRA of llama 3 8b with recomputed activations", True),
    ("LoRA of llama 3 8b, layers checkpointed", True),
    ("LoRA de llama 3 8b, activaciones con checkpoint: sí", True),
    ("LoRA de llama 3 8b, activaciones con checkpointing: no", False),
    ("LoRA de llama 3 8b, sin activaciones recomputadas", False),
    ("LoRA of llama 3 8b\nfsdp_config:\n  fsdp_activation_checkpointing: true\n  fsdp_version: 2", True),
])
def test_checkpointing_said_by_its_participle_or_with_con(text, value, catalog):
    assert _said(text, catalog)[1].get("gradient_checkpointing") is value


# --- sequence phrases and corrections ------------------------------------------------------------------------

@pytest.mark.parametrize("text,value", [
    ("LoRA de llama 3 8b con contexto tope de 2.048", 2048),
    ("LoRA de llama 3 8b, secuencia máxima de 4096", 4096),
    ("LoRA de llama 3 8b, muestras truncadas a 3072 tokens", 3072),
    ("LoRA of llama 3 8b, samples truncated to 8k", 8192),
    ("LoRA of llama 3 8b, truncating at 1024 tokens", 1024),
])
def test_a_bound_after_its_noun_and_truncation_verbs_are_the_length(text, value, catalog):
    assert _said(text, catalog) == ("estimate", {"method": "lora", "model": "llama-3-8b", "seq_len": value})


@pytest.mark.parametrize("text,value", [
    ("LoRA of llama 3 8b, truncated at 2k tokens ... I misspoke: 4096 tokens, not 2048", 4096),
    ("LoRA de llama 3 8b, contexto tope de 8192. me confundí: 2048 tokens, no 8192", 2048),
    ("LoRA de llama 3 8b, contexto 1024 ... leí mal la tabla: 4096, no 1024", 4096),
])
def test_an_owned_misreading_is_a_correction(text, value, catalog):
    assert _said(text, catalog) == ("estimate", {"method": "lora", "model": "llama-3-8b", "seq_len": value})


# --- two sources ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "LoRA of llama 3 8b, seq len 2048 according to the paper, 4096 according to the repo",
    "LoRA de llama 3 8b, rango 16 según Ana, 64 según el README",
    "LoRA of llama 3 8b with 3 epochs in the draft, 5 in the final plan",
    "LoRA de llama 3 8b: lote 8 en la hoja, y 4 en el ticket",
])
def test_two_sources_values_for_one_setting_are_asked_about(text, catalog):
    result = parse_message(text, catalog)
    assert (result.intent, result.clarify_code) == ("clarify", "conflict")


# --- GPUs ----------------------------------------------------------------------------------------------------

def test_azure_ml_instances_times_processes_are_the_gpus(catalog):
    text = ("LoRA of llama 3 8b:\njob = command(code='./src', compute='gpu-cluster', instance_count=3,\n"
            "    distribution=PyTorchDistribution(process_count_per_instance=4))")
    assert _said(text, catalog)[1].get("num_gpus") == 12


def test_vertex_accelerator_count_times_replicas(catalog):
    text = ('LoRA of llama 3 8b: {"machine_spec": {"accelerator_type": "NVIDIA_L4", "accelerator_count": 2}, '
            '"replica_count": 2}')
    said = _said(text, catalog)[1]
    assert said.get("num_gpus") == 4 and said.get("gpu") == "l4"


@pytest.mark.parametrize("text,count", [
    ("LoRA of llama 3 8b: gcloud compute instances create box --accelerator=type=nvidia-l4,count=2", 2),
    ("LoRA of llama 3 8b: gcloud compute instances create box --accelerator=count=4,type=nvidia-l4", 4),
])
def test_gcloud_accelerator_count(text, count, catalog):
    said = _said(text, catalog)[1]
    assert said.get("num_gpus") == count and said.get("gpu") == "l4"


def test_a_gcp_zone_is_no_region_of_ours_unless_its_id_is(catalog):
    text = "LoRA of llama 3 8b: gcloud compute instances create box --zone=europe-west4-b --accelerator=type=nvidia-l4,count=1"
    intent, said = _said(text, catalog)
    assert intent == "estimate" and "region" not in said  # europe-west4 is the Netherlands: no stray "4" either
    assert _said(text.replace("west4", "west9"), catalog)[1].get("region") == "eu-west"  # Paris


@pytest.mark.parametrize("text,gpu", [
    ("LoRA de llama 3 8b con una H200 SXM 141 GB única y ya", "h200"),
    ("LoRA de llama 3 8b en un L4 (g6) único", "l4"),
    ("LoRA of llama 3 8b on one A10G, no more", "a10g"),
    ("LoRA of llama 3 8b on an RTX 4090 and nothing more", "rtx-4090"),
])
def test_a_lone_card_is_one(text, gpu, catalog):
    said = _said(text, catalog)[1]
    assert said.get("num_gpus") == 1 and said.get("gpu") == gpu


# --- configs -------------------------------------------------------------------------------------------------

def test_litgpt_finetune_config_states_its_stack_and_nested_keys_are_left_alone(catalog):
    text = ("LoRA of llama 3 8b, our config:\ncheckpoint_dir: checkpoints/meta-llama/Meta-Llama-3-8B\n"
            "out_dir: out/finetune/run-7\ndevices: 2\ntrain:\n  global_batch_size: 16\n  epochs: 2\n"
            "eval:\n  interval: 50\n  iters: 100")
    intent, said = _said(text, catalog)
    assert intent == "estimate"
    assert said.get("stack") == "litgpt" and said.get("epochs") == 2.0 and said.get("num_gpus") == 2


def test_a_nested_value_under_a_setting_is_the_setting(catalog):
    text = "W&B config:\nbase_model:\n  value: meta-llama/Meta-Llama-3-8B\nlora_r:\n  value: 32\nmax_seq_len:\n  value: 2048"
    said = _said(text, catalog)[1]
    assert said.get("seq_len") == 2048


def test_unsloth_full_finetuning(catalog):
    text = ('FastModel.from_pretrained(model_name = "meta-llama/Meta-Llama-3-8B", max_seq_length = 1024,\n'
            "    load_in_4bit = False, full_finetuning = True)")
    assert _said(text, catalog)[1].get("method") == "full"


# --- on/off answers, attention targets, a terse "full" -------------------------------------------------------

@pytest.mark.parametrize("text,packing", [
    ("LoRA de llama 3 8b, empaquetado de secuencias: sí", True),
    ("LoRA de llama 3 8b, empaquetado de secuencias: no", False),
    ("LoRA of llama 3 8b, packing of sequences: yes", True),
])
def test_an_on_off_answer_is_no_unreadable_length(text, packing, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and said.get("packing") is packing and "seq_len" not in said


def test_a_length_said_as_a_word_is_still_asked_about(catalog):
    result = parse_message("LoRA of llama 3 8b, seq: banana", catalog)
    assert (result.intent, result.clarify_code) == ("clarify", "unreadable")


@pytest.mark.parametrize("text", ["LoRA de llama 3 8b, LoRA solo en proyecciones de atención",
                                  "LoRA de llama 3 8b sobre los módulos de atención"])
def test_spanish_attention_projections_are_the_targets(text, catalog):
    assert _said(text, catalog)[1].get("lora_targets") == "attention"


@pytest.mark.parametrize("text,expected", [
    ("4x A100 llama 3 8b seq 2048 full", {"method": "full", "model": "llama-3-8b", "seq_len": 2048,
                                          "num_gpus": 4, "gpu": "a100-80gb"}),
    ("qwen2.5 7b ctx 4096, full (asked by the PM)", {"method": "full", "model": "qwen2.5-7b", "seq_len": 4096}),
    ("> ana wrote: any update?\nfull, 13B context 2048", {"method": "full", "params_b": 13.0, "seq_len": 2048}),
])
def test_a_terse_specs_full(text, expected, catalog):
    assert _said(text, catalog) == ("estimate", expected)


@pytest.mark.parametrize("text", ["LoRA de llama 3 8b en una A100, fp32 completo", "llama 3 8b on 8 H100, sharding full"])
def test_full_of_another_setting_is_no_method(text, catalog):
    assert _said(text, catalog)[1].get("method") in (None, "lora")


def test_cloud_instance_types_name_their_gpu(catalog):
    aws = 'LoRA of llama 3 8b: HuggingFace(entry_point="run.py", instance_type="ml.p6-b200.48xlarge", instance_count=2)'
    said = _said(aws, catalog)[1]
    assert said.get("gpu") == "b200" and said.get("num_gpus") == 16
    azure = ("LoRA of llama 3 8b\njob = command(instance_count=1, distribution=PyTorchDistribution("
             "process_count_per_instance=4))\n# VM size: Standard_ND96asr_v4")
    said = _said(azure, catalog)[1]
    assert said.get("gpu") == "a100-40gb" and said.get("num_gpus") == 4
