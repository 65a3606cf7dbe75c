"""Mechanisms behind the failures of the two sets diagnosed in round 9, and vague values.

- The generator's round-8 split (committed as "unseen" in bb98599, measured once on main at 8f133db:
  74.8% fully right, 3 answers with an unsaid value; now "diagnosed9");
- the hand-written fresh set (tests/data/phrasings_fresh.json, last blind measurement 92.2% fully right,
  16 answers with an unsaid value; now "table/diagnosed-fresh").

Each class is tested with phrasings written for this file, in both languages, not copied from either
set: the fix is the mechanism, so other words for the same thing must pass too. Answers built on a
value nobody said come first (the fresh set's classes), then the questions a vague value gets."""

import pytest

from advisor.parse import parse_message
from advisor.spec import SpecRequest


def _said(text, catalog, previous=None):
    result = parse_message(text, catalog, previous=previous)
    return result.intent, result.delta.said()


# --- a list item's number is its place in the list, no setting (diagnosed9's largest class) -------------

@pytest.mark.parametrize("text,want", [
    ("1) qlora for mistral 7b\n2) seq 4096\n3) two H100s", {"method": "qlora", "seq_len": 4096, "num_gpus": 2}),
    ("1. full fine-tune of qwen2.5 3b\n2. 3 epochs", {"method": "full", "epochs": 3.0}),
    ("Quick note: 1) lora on phi-4\n2) rank 32", {"method": "lora", "lora_rank": 32}),
    ("1) lora de phi-4\n2) secuencia 2048\n3) 4 épocas", {"method": "lora", "seq_len": 2048, "epochs": 4.0}),
    ("Una duda, 1) qlora de qwen3 8b\n2) contexto de 8k", {"method": "qlora", "seq_len": 8192}),
    ("(1) lora qwen3 8b\n(2) batch 8", {"method": "lora", "micro_batch": 8}),
])
def test_list_markers_are_no_settings(text, want, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and {k: said.get(k) for k in want} == want, said


def test_a_number_closing_a_parenthesis_after_a_colon_is_still_a_value(catalog):
    intent, said = _said("lora qwen3 8b (secuencia 2048, épocas: 2) — ¿qué GPU?", catalog)
    assert said.get("epochs") == 2.0 and said.get("seq_len") == 2048


# --- SLURM batch scripts: nodes, generic resources per node; a colon-separated field is no emoji --------

@pytest.mark.parametrize("text,gpus", [
    ("#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gres=gpu:4\nsrun python train.py --model Qwen/Qwen2.5-7B --method lora", 8),
    ("#SBATCH -N 3\n#SBATCH --gres=gpu:a100:8\nsrun python sft.py --model meta-llama/Llama-3.1-8B --method full", 24),
    ("#SBATCH --nodes=1\n#SBATCH --gres=gpu:2\nsrun torchrun --nproc_per_node 2 ft.py --model microsoft/phi-4 --method qlora", 2),
])
def test_slurm_nodes_and_gres_count_the_gpus(text, gpus, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and said["num_gpus"] == gpus, said


def test_a_gres_type_names_the_gpu(catalog):
    _, said = _said("#SBATCH --gres=gpu:h100:4\nsrun python train.py --model Qwen/Qwen2.5-7B --method lora", catalog)
    assert said["gpu"] == "h100-sxm" and said["num_gpus"] == 4


# --- "full-rank" and "low-rank" are compound adjectives: the method, never a LoRA rank -------------------

@pytest.mark.parametrize("text,method", [
    ("full-rank training of gemma 2 9b, seq 2048", "full"),
    ("full rank fine-tuning on qwen3 4b, 2 epochs", "full"),
    ("low-rank adaptation of qwen3 4b at 4k", "lora"),
    ("adaptación de bajo rango (LoRA) para qwen3 4b, secuencia 4096", "lora"),
])
def test_rank_adjectives_are_no_rank(text, method, catalog):
    result = parse_message(text, catalog)
    assert result.intent == "estimate" and result.delta.method == method and result.delta.lora_rank is None


# --- the failure rate said with a relative clause ------------------------------------------------------

@pytest.mark.parametrize("text,fraction", [
    ("lora qwen3 8b on 2 L40S, plan for 15% of runs that fail", 0.15),
    ("qlora llama 3 8b, assume 5% of jobs which crash", 0.05),
    ("lora de qwen3 8b, cuenta un 25% de entrenamientos que fallan", 0.25),
])
def test_failure_rate_with_a_relative_clause(text, fraction, catalog):
    result = parse_message(text, catalog)
    assert result.delta.costs is not None and result.delta.costs["failed_run_fraction"] == pytest.approx(fraction)


# --- a key joined to its value, or a cue touching it, keeps its number before a GPU count after it -------

@pytest.mark.parametrize("text,field,value", [
    ("lora llama 3 8b, rank = 16 NVIDIA A100", "lora_rank", 16),
    ("lora llama 3 8b, rango LoRA: 32 NVIDIA L40S", "lora_rank", 32),
    ("full qwen3 4b, mbs 4 H100", "micro_batch", 4),
    ("full qwen3 4b, lote = 2 A100", "micro_batch", 2),
])
def test_a_joined_value_is_not_a_gpu_count(text, field, value, catalog):
    intent, said = _said(text, catalog)
    assert said.get(field) == value and "num_gpus" not in said, said


def test_then_a_count_of_the_gpu_said_after_is_no_conflict(catalog):
    intent, said = _said("full qwen3 4b, micro_bsz 8 L4 (24 GB), 4 units", catalog)
    assert intent == "estimate" and said["micro_batch"] == 8 and said["num_gpus"] == 4


# --- a parenthesized form factor between a GPU and its count ---------------------------------------------

@pytest.mark.parametrize("text,gpu,count", [
    ("qlora qwen3 8b on H100 (SXM) x4", "h100-sxm", 4),
    ("qlora qwen3 8b en MI300X (OAM) × 2", "mi300x", 2),
])
def test_form_factor_in_parentheses_then_the_count(text, gpu, count, catalog):
    _, said = _said(text, catalog)
    assert said.get("gpu") == gpu and said.get("num_gpus") == count, said


# --- a heading word ("Context:") whose text names another setting is no unreadable value -----------------

@pytest.mark.parametrize("text,field,value", [
    ("Context: three GPUs and one epoch. Ask: lora qwen3 8b, seq 2048", "num_gpus", 3),
    ("Contexto: cuatro tarjetas. Pregunta: lora de qwen3 8b, secuencia 2048", "num_gpus", 4),
    ("Context: just two epochs. Question: full fine-tune of phi-4 at 4k?", "epochs", 2.0),
])
def test_a_heading_then_another_setting(text, field, value, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and said.get(field) == value, said


def test_a_heading_with_a_vague_length_is_still_asked_about(catalog):
    result = parse_message("lora qwen3 8b, context: whatever fits", catalog)
    assert (result.intent, result.clarify_code) == ("clarify", "unreadable") and result.delta.seq_len is None


# --- a size's word is no setting before an example count ---------------------------------------------------

@pytest.mark.parametrize("text,tokens", [
    ("full fine-tune of Llama 3 8B weights 50k examples of 1024 tokens", 51_200_000),
    ("lora sobre qwen3 8b weights 20k ejemplos de 500 tokens", 10_000_000),
    ("qlora gemma 2 9b, 10k samples at ~300 tokens apiece", 3_000_000),
])
def test_examples_after_a_size_word(text, tokens, catalog):
    _, said = _said(text, catalog)
    assert said.get("dataset_tokens") == tokens, said


# --- fresh set: a LoRA setting in a thread on a full fine-tune is LoRA ------------------------------------

@pytest.mark.parametrize("text", ["what about lora rank 8?", "¿y con rango LoRA 64?"])
def test_lora_setting_on_a_full_thread_switches_to_lora(text, catalog):
    result = parse_message(text, catalog, previous=SpecRequest(method="full", model="qwen3-8b", seq_len=2048))
    assert result.intent == "followup" and result.request.method == "lora" and result.request.lora_rank


def test_lora_setting_on_a_qlora_thread_keeps_qlora(catalog):
    result = parse_message("¿y con rango LoRA 64?", catalog, previous=SpecRequest(method="qlora", model="qwen3-8b"))
    assert result.request.method == "qlora" and result.request.lora_rank == 64


# --- fresh set: trillions are trillions (a question: beyond the limit), "billones" the anglicism ---------

@pytest.mark.parametrize("text", ["qlora of a 1.2T model at 2k", "full fine-tune of a 3 trillion parameter LLM"])
def test_trillions_are_asked_as_beyond_the_limit(text, catalog):
    result = parse_message(text, catalog)
    assert (result.intent, result.clarify_code) == ("clarify", "limit") and result.delta.params_b is None


def test_billones_is_still_read_as_billions_with_a_warning(catalog):
    result = parse_message("qlora de un modelo de 13 billones de parámetros, secuencia 2048", catalog)
    assert result.delta.params_b == 13 and result.warnings


# --- fresh set: "a sequence of N tokens" is a length in tokens, asked about when beyond the limit ---------

@pytest.mark.parametrize("text,seq", [
    ("lora qwen3 8b with a sequence of 8192 tokens", 8192),
    ("lora de qwen3 8b con contexto de 16384 tokens", 16384),
])
def test_a_sequence_of_n_tokens(text, seq, catalog):
    _, said = _said(text, catalog)
    assert said.get("seq_len") == seq and "dataset_tokens" not in said, said


@pytest.mark.parametrize("text", ["lora qwen3 8b, a sequence of 3 million tokens", "lora de qwen3 8b, secuencia de 2 millones de tokens"])
def test_a_sequence_beyond_the_limit_is_no_dataset(text, catalog):
    result = parse_message(text, catalog)
    assert (result.intent, result.clarify_code) == ("clarify", "limit") and result.delta.dataset_tokens is None


def test_a_length_then_a_dataset_stay_apart(catalog):
    _, said = _said("lora qwen3 8b, 4096-token context 30,000,000 tokens", catalog)
    assert said["seq_len"] == 4096 and said["dataset_tokens"] == 30_000_000


# --- fresh set: the family's model of a size said with the possessive -------------------------------------

@pytest.mark.parametrize("text,model", [
    ("lora del 14b de qwen2.5, secuencia 2048", "qwen2.5-14b"),
    ("qlora al 70b de llama 3.1 con contexto de 8k", "llama-3.1-70b"),
    ("full fine-tune of the 9b of gemma 2, seq 1024", "gemma-2-9b"),
])
def test_size_de_family(text, model, catalog):
    _, said = _said(text, catalog)
    assert said.get("model") == model and "params_b" not in said, said


# --- fresh set: costs said with a verb; Spanish thousand millions; accelerate's FSDP flag; a swapped FSDP --

@pytest.mark.parametrize("text,key,value", [
    ("lora qwen3 8b at 4k, evaluate 2 times per epoch", "evals_per_epoch", 2),
    ("lora qwen3 8b at 4k, evaluate twice an epoch", "evals_per_epoch", 2),
    ("lora de qwen3 8b a 4k, evaluar 3 veces por época", "evals_per_epoch", 3),
    ("lora qwen3 8b at 4k, storing 4 checkpoints for 2 months", "checkpoints_kept", 4),
    ("lora de qwen3 8b a 4k, conservando 2 checkpoints durante 3 meses", "checkpoints_kept", 2),
])
def test_cost_settings_with_their_verb(text, key, value, catalog):
    costs = parse_message(text, catalog).delta.costs
    assert costs is not None and costs[key] == value


@pytest.mark.parametrize("text,tokens", [
    ("lora de qwen3 8b con mil millones de tokens", 1_000_000_000),
    ("lora de qwen3 8b con tres mil millones de tokens", 3_000_000_000),
    ("lora de qwen3 8b con 2,5 mil millones de tokens", 2_500_000_000),
])
def test_spanish_thousand_millions(text, tokens, catalog):
    _, said = _said(text, catalog)
    assert said.get("dataset_tokens") == tokens, said


@pytest.mark.parametrize("text", ["full qwen3 8b at 4k: accelerate launch --use_fsdp --num_processes 4 sft.py",
                                  "full qwen3 8b at 4k on 4 H100, fdsp"])
def test_fsdp_from_accelerate_and_a_swapped_typo(text, catalog):
    _, said = _said(text, catalog)
    assert said.get("sharding") == "fsdp", said


# --- fresh set: a bare integer says nothing of itself ------------------------------------------------------

# (A bare power of two from 1024 to 128k alone in a message is its context length since round 13, as the round-11
# hand-written set labels it: "lora llama-2-13b 4096 ddp", tests/test_parse_diagnosed13a.py. Smaller ones, other
# integers and a second bare length are still asked about.)
@pytest.mark.parametrize("text", ["full qwen3 8b 512", "lora de qwen3 8b 3000", "qlora llama 3 8b 64 please",
                                  "full qwen3 8b 2048 4096"])
def test_a_bare_integer_is_asked_about(text, catalog):
    result = parse_message(text, catalog)
    assert (result.intent, result.clarify_code) == ("clarify", "number") and result.delta.seq_len is None


# --- vague values: a field mentioned without a value is a question about that field ----------------------

@pytest.mark.parametrize("text,field", [
    ("lora llama 3 8b, a few epochs", "epochs"),
    ("lora qwen3 8b for several epochs at 2k", "epochs"),
    ("lora de llama 3 8b, unas cuantas épocas", "epochs"),
    ("qlora de qwen3 8b durante varias épocas", "epochs"),
    ("qlora llama 3 8b on a bunch of GPUs", "num_gpus"),
    ("qlora llama 3 8b on a few H100s", "num_gpus"),
    ("lora de qwen3 8b en varias GPUs", "num_gpus"),
    ("lora de qwen3 8b con un montón de tarjetas", "num_gpus"),
    ("lora llama 3 8b with some data", "dataset_tokens"),
    ("lora llama 3 8b on a huge dataset, seq 2048", "dataset_tokens"),
    ("lora de llama 3 8b con muchos datos", "dataset_tokens"),
    ("lora de llama 3 8b, dataset: enorme", "dataset_tokens"),
    ("qlora a big model at 4k", "params_b"),
    ("qlora de un modelo grande con contexto de 4k", "params_b"),
    ("lora llama 3 8b with long context", "seq_len"),
    ("lora llama 3 8b on long sequences", "seq_len"),
    ("lora de llama 3 8b con secuencias largas", "seq_len"),
])
def test_a_vague_value_is_a_question_about_its_field(text, field, catalog):
    result = parse_message(text, catalog)
    assert (result.intent, result.clarify_code) == ("clarify", "unreadable"), result.delta.said()
    assert getattr(result.delta, field) is None
    assert result.question and "{" not in result.question and "§" not in result.question
    assert result.lang == ("es" if any(w in text for w in (" de ", " con ", " en ", "épocas")) else "en")


@pytest.mark.parametrize("text,field,value", [
    ("qlora a big model like llama 3.1 70b", "model", "llama-3.1-70b"),
    ("lora llama 3 8b, long context (32k)", "seq_len", 32768),
    ("lora de llama 3 8b, un montón de GPUs: 8 H100", "num_gpus", 8),
    ("lora llama 3 8b on a couple of H100s", "num_gpus", 2),
    ("lora qwen3 8b on some L40S card, seq 2048", "gpu", "l40s"),
    ("lora qwen3 8b, dataset: alpaca_en_demo, seq 2048", "seq_len", 2048),
])
def test_a_vague_phrase_beside_a_stated_value_is_no_question(text, field, value, catalog):
    result = parse_message(text, catalog)
    assert result.intent == "estimate" and getattr(result.delta, field) == value, result.question


def test_how_many_gpus_is_a_question_of_the_user_not_a_vague_count(catalog):
    result = parse_message("lora qwen3 8b at 4k, how many GPUs?", catalog)
    assert result.intent == "estimate" and result.delta.num_gpus is None


@pytest.mark.parametrize("lang,text,words", [
    ("en", "lora llama 3 8b, a few epochs", ("How many epochs", '"a few epochs"', "3 epochs")),
    ("es", "lora de llama 3 8b, unas cuantas épocas", ("¿Cuántas épocas", "3 épocas")),
    ("en", "qlora a big model at 4k", ("Which model", "7B")),
    ("es", "qlora de un modelo grande con contexto de 4k", ("¿Qué modelo", "7B")),
])
def test_the_vague_question_names_the_field_and_an_example(lang, text, words, catalog):
    result = parse_message(text, catalog)
    assert result.lang == lang and all(w in result.question for w in words), result.question


def test_the_answer_to_a_vague_question_reads_back_in_the_thread(catalog):
    result = parse_message("lora llama 3 8b, a few epochs", catalog)
    reply = parse_message("3 epochs", catalog, previous=result.request)
    assert reply.intent == "followup" and reply.request.epochs == 3 and reply.request.model == "llama-3-8b"
