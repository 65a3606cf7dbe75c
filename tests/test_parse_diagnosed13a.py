"""Numbers and what they attach to: mechanisms read from the round-11 sets' failures (issue #13, i13-p9a).

Each test uses phrasings written here, in both languages, not the sets' own texts, and neighbours of each failure
(other orders, other words for the same thing, other config shapes).

- Master weights in fp32 with the math in a half type ("weights fp32, compute bf16", "pesos en fp32 y cómputo en
  bf16") is automatic mixed precision, one value (``bf16-mixed`` / ``fp16-mixed``), never two that conflict.
- The optimizer's states in fp32 ("fp32 states", "estados fp32") say nothing of the training precision.
- "α" is LoRA's alpha.
- An epoch said as a sweep, a round or a walk through the data ("5 sweeps over the data", "2 recorridos del
  dataset"), and "ep=N" / "ep: N" with the key first.
"""

from __future__ import annotations

import pytest

from advisor.parse import parse_message
from advisor.spec import SpecRequest
from tests.phrasings import parsed_and_said as _said


# --- precision: fp32 master weights with half-precision math is mixed precision ----------------------------

@pytest.mark.parametrize("text, precision", [
    ("qlora llama 3.1 8b seq 2048, master weights in fp32, compute in bf16", "bf16-mixed"),
    ("lora mistral 7b seq 4096; params fp32 + matmuls bf16", "bf16-mixed"),
    ("full qwen2.5 1.5b seq 1024, bf16 compute with fp32 master weights", "bf16-mixed"),
    ("lora qwen2.5 7b seq 2048, fp32 weights, fp16 compute", "fp16-mixed"),
    ("lora qwen2.5 7b, secuencia 2048, pesos en fp32 y cálculos en bf16", "bf16-mixed"),
    ("ajuste completo de llama 3.2 1b, cómputo en fp16, pesos en fp32, secuencia 1024", "fp16-mixed"),
    ("qlora de mistral 7b a 4k: activaciones en bf16 con pesos maestros en fp32", "bf16-mixed"),
])
def test_fp32_weights_with_half_precision_compute_is_mixed_precision(text, precision, catalog):
    result, said = _said(text, catalog)
    assert said.get("precision") == precision, (result.intent, result.clarify_code, said)
    assert result.clarify_code != "conflict"


@pytest.mark.parametrize("text", [
    "lora llama 3.1 8b seq 2048, plain AdamW, fp32 states",
    "qlora mistral 7b seq 4096 with adamw and optimizer states in fp32",
    "lora de qwen2.5 7b, secuencia 2048, AdamW normal, estados fp32",
    "ajuste completo de llama 3.2 1b a 1024, estados del optimizador en fp32",
])
def test_fp32_optimizer_states_state_no_precision(text, catalog):
    result, said = _said(text, catalog)
    assert "precision" not in said, said
    assert said.get("seq_len") in (1024, 2048, 4096)


def test_a_precision_said_beside_the_states_is_still_read(catalog):
    _, said = _said("lora llama 3.1 8b seq 2048, bf16, fp32 optimizer states", catalog)
    assert said.get("precision") == "bf16-mixed"


# --- the Greek alpha ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, rank, alpha", [
    ("lora llama 3.1 8b seq 2048, r=16 α=32", 16, 32.0),
    ("qlora mistral 7b at 4k with LoRA (rank 8, α 16)", 8, 16.0),
    ("lora de qwen2.5 7b a 2k, rango 64 y α 128", 64, 128.0),
])
def test_the_greek_alpha_is_lora_alpha(text, rank, alpha, catalog):
    _, said = _said(text, catalog)
    assert (said.get("lora_rank"), said.get("lora_alpha")) == (rank, alpha), said


def test_the_greek_alpha_in_a_follow_up(catalog):
    previous = SpecRequest(method="lora", model="llama-3.1-8b", seq_len=2048)
    result, said = _said("same but α 64", catalog, previous)
    assert result.intent == "followup" and said == {"lora_alpha": 64.0}


# --- epochs said as passes over the data, and with the key first -----------------------------------------------

@pytest.mark.parametrize("text, epochs", [
    ("lora llama 3.1 8b seq 2048, 4 sweeps over the dataset", 4.0),
    ("full qwen2.5 1.5b at 1k, three rounds through the corpus", 3.0),
    ("qlora mistral 7b seq 4096, we go 2 times over the data", 2.0),
    ("lora llama 3.1 8b seq 2048 ep=3", 3.0),
    ("lora llama 3.1 8b seq 2048, eps: 2", 2.0),
    ("lora de qwen2.5 7b, secuencia 2048, 3 recorridos sobre el conjunto de datos", 3.0),
    ("qlora de mistral 7b a 4k, dos barridos del corpus", 2.0),
    ("ajuste completo de llama 3.2 1b a 1024, 5 veces por el dataset", 5.0),
    ("lora de qwen2.5 7b a 2k, ep=4", 4.0),
])
def test_epochs_said_as_passes_over_the_data(text, epochs, catalog):
    result, said = _said(text, catalog)
    assert said.get("epochs") == epochs, (result.intent, result.clarify_code, said)
    assert result.clarify_code != "number"


@pytest.mark.parametrize("text", ["ok, now ep=2", "y ahora 2 recorridos del dataset"])
def test_epochs_in_a_follow_up(text, catalog):
    previous = SpecRequest(method="lora", model="llama-3.1-8b", seq_len=2048)
    result, said = _said(text, catalog, previous)
    assert result.intent == "followup" and said == {"epochs": 2.0}


# --- numbers that are no setting: identifiers, dates, scores, durations, teams, unknown keyword arguments --------

@pytest.mark.parametrize("text, want", [
    ("lora llama 3.1 8b seq 2048 for job 4471 please", {"seq_len": 2048}),
    ("qlora mistral 7b at 4k, see ticket 2291, 2 H100", {"seq_len": 4096, "num_gpus": 2}),
    ("build 20250312-rc2 crashed; full qwen2.5 1.5b seq 1024 on one A100", {"seq_len": 1024, "num_gpus": 1}),
    ("eval loss 1.37 last week; lora qwen2.5 7b seq 4096", {"seq_len": 4096}),
    ("we hit 0.92 accuracy before; now qlora llama 3.1 8b at 2k", {"seq_len": 2048}),
    ("price drops on March 3: lora llama 3.1 8b seq 2048, 4 H100", {"seq_len": 2048, "num_gpus": 4}),
    ("lora llama 3.1 8b seq 2048; p99 latency 340 ms is fine", {"seq_len": 2048}),
    ("for a 6-person team, qlora mistral 7b at 4k", {"seq_len": 4096}),
    ("@app.function(gpu='H100:2', timeout=3600) def f(): lora llama 3.1 8b seq 2048", {"seq_len": 2048, "num_gpus": 2}),
    ("el build 20250312-rc2 falló; lora de qwen2.5 7b, secuencia 2048", {"seq_len": 2048}),
    ("con el anterior, pérdida 0,9; ahora qlora de mistral 7b a 4k", {"seq_len": 4096}),
    ("el 14 de marzo baja el precio: lora de llama 3.1 8b a 2k en 2 H100", {"seq_len": 2048, "num_gpus": 2}),
    ("somos un equipo de 5 personas; lora de qwen2.5 7b a 4k", {"seq_len": 4096}),
    ("latencia p95 de 200 ms; qlora de llama 3.1 8b, secuencia 1024", {"seq_len": 1024}),
])
def test_numbers_that_are_no_setting_are_left_alone(text, want, catalog):
    result, said = _said(text, catalog)
    assert result.clarify_code != "number", (result.intent, said)
    assert {k: said.get(k) for k in want} == want, said
    assert not {"dataset_tokens", "epochs", "micro_batch", "lora_rank"} & set(said), said


@pytest.mark.parametrize("text, epochs", [("lora llama 3.1 8b seq 2048, run 3 epochs", 3.0),
                                          ("lora de qwen2.5 7b a 2k, job de 2 épocas", 2.0)])
def test_an_identifier_word_never_takes_a_cued_number(text, epochs, catalog):
    assert _said(text, catalog)[1].get("epochs") == epochs


@pytest.mark.parametrize("text", ["run 3 for the bot: lora llama 3.1 8b seq 2048, 88213", "lora llama 3.1 8b seq 2048 256"])
def test_a_number_nothing_explains_is_still_asked_about(text, catalog):
    assert parse_message(text, catalog).clarify_code == "number"


# --- GPU counts: device lists, processes, makers before the card, "an H100 and no more" ------------------------

@pytest.mark.parametrize("text, gpus", [
    ("docker run --gpus '\"device=0,1,2\"' trainer --model mistralai/Mistral-7B-v0.1 --method lora --seq-len 2048", 3),
    ("NVIDIA_VISIBLE_DEVICES=0,1 python train.py, lora llama 3.1 8b seq 2048", 2),
    ("lora llama 3.1 8b seq 2048 with 4 ranks on H100", 4),
    ("full qwen2.5 1.5b seq 1024, 8 processes on A100", 8),
    ("qlora mistral 7b at 4k on 2 GCP L4", 2),
    ("lora llama 3.1 8b seq 2048 on 4 NVIDIA Hopper H100", 4),
    ("lora llama 3.1 8b seq 2048 on an H100 and nothing else", 1),
    ("lora de qwen2.5 7b a 2k con paralelismo de datos en 4 A100", 4),
    ("qlora de mistral 7b a 4k en 3 AWS A10G", 3),
    ("lora de llama 3.1 8b, secuencia 2048, una L40S y ninguna más", 1),
    ("lora de llama 3.1 8b, secuencia 2048, una H100 80GB PCIe y ninguna más", 1),
    ("qlora mistral 7b at 4k on an L4, 24 GB VRAM, and nothing else", 1),
    ("ajuste completo de qwen2.5 1.5b a 1024 con 2 procesos en H100", 2),
])
def test_gpu_counts(text, gpus, catalog):
    result, said = _said(text, catalog)
    assert said.get("num_gpus") == gpus, (result.intent, result.clarify_code, said)
    assert "dataset_tokens" not in said


def test_an_article_alone_names_a_card_and_no_count(catalog):
    assert "num_gpus" not in _said("lora llama 3.1 8b seq 2048 on an H100", catalog)[1]
    assert "num_gpus" not in _said("lora de llama 3.1 8b a 2k en una H100", catalog)[1]


# --- two values said as a choice: "either A or B", "o bien A o bien B" -----------------------------------------

@pytest.mark.parametrize("text", ["lora llama 3.1 8b, seq either 1024 or 4096", "qlora mistral 7b on either 2 or 4 H100s",
                                  "lora de qwen2.5 7b, secuencia o bien 2048 o bien 8192",
                                  "qlora de mistral 7b, rango ya sea 16 o 32"])
def test_a_choice_between_two_values_is_asked_about(text, catalog):
    result = parse_message(text, catalog)
    assert (result.intent, result.clarify_code) == ("clarify", "conflict"), result.delta.said()


# --- a bare power of two from 1024 to 128k is the context length, alone -------------------------------------

@pytest.mark.parametrize("text, seq, gpus", [
    ("qlora mistral 7b 8192 on 2 h100", 8192, 2),
    ("full llama 3.2 1b 1024 l4", 1024, None),
    ("lora qwen2.5 7b 32,768 zero3 8xh100", 32768, 8),
    ("lora de qwen2.5 7b 4096 en 2 A100", 4096, 2),
    ("qlora de mistral 7b 32.768", 32768, None),
    ("completo llama 3.2 1b 2048 l40s", 2048, None),
])
def test_a_bare_length_alone_is_the_sequence_length(text, seq, gpus, catalog):
    result, said = _said(text, catalog)
    assert said.get("seq_len") == seq and said.get("num_gpus") == gpus, (result.intent, result.clarify_code, said)


@pytest.mark.parametrize("text", ["qlora mistral 7b 512", "lora llama 3.1 8b 6000", "qlora de mistral 7b 4096 8192",
                                  "lora llama 3.1 8b seq 2048, 4096", "lora de qwen2.5 7b a 4k, 2048"])
def test_a_bare_number_that_is_no_length_or_a_second_one_is_asked_about(text, catalog):
    result = parse_message(text, catalog)
    assert result.intent == "clarify" and result.clarify_code in ("number", "conflict"), result.delta.said()


# --- terse keys and corrections ----------------------------------------------------------------------------------

@pytest.mark.parametrize("text, want", [
    ("lora mistral 7b seq 2048 mb 4 ga 16", {"micro_batch": 4, "gradient_accumulation_steps": 16}),
    ("qlora llama 3.1 8b seq 1024 mb=2 gas=8", {"micro_batch": 2, "gradient_accumulation_steps": 8}),
    ("lora qwen2.5 7b seq 2048 r8 a16", {"lora_rank": 8, "lora_alpha": 16.0}),
    ("lora de qwen2.5 7b a 2k, mb 8 ga 2", {"micro_batch": 8, "gradient_accumulation_steps": 2}),
])
def test_terse_keys(text, want, catalog):
    _, said = _said(text, catalog)
    assert {k: said.get(k) for k in want} == want, said


@pytest.mark.parametrize("text, field, value", [
    ("lora mistral 7b seq 2048 on 4 A100, sorry I meant 8", "num_gpus", 8),
    ("qlora llama 3.1 8b at 4k, rank 8 (edit: rank 64)", "lora_rank", 64),
    ("lora qwen2.5 7b seq 2048 bs 4 (update: bs 2)", "micro_batch", 2),
    ("last run used 4k context, this time 8192, qlora mistral 7b", "seq_len", 8192),
    ("lora mistral 7b seq 2048, 2 epochs, no, 3 epochs", "epochs", 3.0),
    ("lora de mistral 7b a 2k en 4 A100, perdón, quise decir 8", "num_gpus", 8),
    ("qlora de llama 3.1 8b a 4k, rango 8 (errata: rango 64)", "lora_rank", 64),
    ("lora de qwen2.5 7b, lote 4, bueno, que sea lote 2, secuencia 2048", "micro_batch", 2),
    ("la otra vez usamos contexto de 4k, esta vez 8192: qlora de mistral 7b", "seq_len", 8192),
    ("lora de mistral 7b a 2k, 2 épocas, no, 3 épocas", "epochs", 3.0),
])
def test_a_correction_takes_the_later_value(text, field, value, catalog):
    result, said = _said(text, catalog)
    assert said.get(field) == value and result.clarify_code != "conflict", (result.intent, result.clarify_code, said)


@pytest.mark.parametrize("text", ["lora mistral 7b seq 2048, no 4096", "lora de mistral 7b, secuencia 2048 y no 4096"])
def test_no_before_a_value_still_withdraws_it(text, catalog):
    assert _said(text, catalog)[1].get("seq_len") == 2048


# --- prose wrapped at a width: a cue split over a line break -------------------------------------------------

@pytest.mark.parametrize("text, want", [
    ("qlora mistral 7b, context of 8192\ntokens, 2 samples on\neach GPU", {"seq_len": 8192, "micro_batch": 2}),
    ("lora llama 3.1 8b at 2k, 3 passes over\nthe dataset", {"seq_len": 2048, "epochs": 3.0}),
    ("lora de qwen2.5 7b, secuencias de 4096\ntokens, 4 ejemplos por\ncada GPU", {"seq_len": 4096, "micro_batch": 4}),
    ("qlora de mistral 7b a 2k con 50\nmillones de tokens", {"seq_len": 2048, "dataset_tokens": 50_000_000}),
])
def test_a_line_break_inside_a_phrase_is_a_space(text, want, catalog):
    result, said = _said(text, catalog)
    assert {k: said.get(k) for k in want} == want, (result.intent, result.clarify_code, said)


@pytest.mark.parametrize("text, want", [
    ("qlora for a 13B model\nsequences of 4096 tokens\ncheapest?", {"params_b": 13.0, "seq_len": 4096}),
    ("lora llama 3.1 8b\n- seq 2048\n- 4 H100", {"seq_len": 2048, "num_gpus": 4}),
    ("lora de qwen2.5 7b a 2k\nnum_epochs: 3\nmicro_batch_size: 2", {"epochs": 3.0, "micro_batch": 2}),
])
def test_separate_lines_stay_apart(text, want, catalog):
    result, said = _said(text, catalog)
    assert {k: said.get(k) for k in want} == want, (result.intent, result.clarify_code, said)


def test_openrlhf_micro_train_batch_size_is_the_micro_batch(catalog):
    text = ("deepspeed --module openrlhf.cli.train_sft --pretrain Qwen/Qwen2.5-7B --max_len 4096 "
            "--micro_train_batch_size 2 --train_batch_size 128 --zero_stage 3 --bf16 --lora_rank 16")
    result, said = _said(text, catalog)
    assert said.get("micro_batch") == 2 and said.get("seq_len") == 4096, said


# --- a CSV header and its row, pasted from a sheet ------------------------------------------------------------

@pytest.mark.parametrize("text, want", [
    ("from the sheet:\nmodel,method,seq_len,num_gpus,gpu\nQwen/Qwen2.5-7B,lora,4096,2,H100",
     {"model": "qwen2.5-7b", "method": "lora", "seq_len": 4096, "num_gpus": 2}),
    ("```\nmethod,model,max_seq_length,per_device_train_batch_size\nqlora,mistralai/Mistral-7B-v0.1,2048,4\n```",
     {"method": "qlora", "seq_len": 2048, "micro_batch": 4}),
    ("de la planilla:\nmodelo,metodo,secuencia,gpus\nllama 3.1 8b,full,1024,8",
     {"method": "full", "seq_len": 1024, "num_gpus": 8}),
])
def test_a_csv_row_reads_by_its_header(text, want, catalog):
    result, said = _said(text, catalog)
    assert {k: said.get(k) for k in want} == want, (result.intent, result.clarify_code, said)


def test_prose_with_commas_is_no_csv(catalog):
    _, said = _said("hi team, quick question, sizing\nqlora llama 3.1 8b, seq 2048, 4 H100", catalog)
    assert (said.get("method"), said.get("seq_len"), said.get("num_gpus")) == ("qlora", 2048, 4), said


# --- a key glued to its number, halves, others, and a release in parentheses ------------------------------------

@pytest.mark.parametrize("text, want", [
    ("qlora mistral 7b ctx4096 bs2 ga8", {"seq_len": 4096, "micro_batch": 2, "gradient_accumulation_steps": 8}),
    ("full llama 3.2 1b seq1024 ep2 on 2 L4", {"seq_len": 1024, "epochs": 2.0, "num_gpus": 2}),
    ("lora de qwen2.5 7b secuencia2048 lote4", {"seq_len": 2048, "micro_batch": 4}),
])
def test_a_key_glued_to_its_number(text, want, catalog):
    _, said = _said(text, catalog)
    assert {k: said.get(k) for k in want} == want, said


@pytest.mark.parametrize("text, epochs", [("lora mistral 7b seq 2048, two and a half epochs", 2.5),
                                          ("lora mistral 7b seq 2048 for 1 and a half passes", 1.5),
                                          ("lora de mistral 7b a 2k, tres épocas y media", 3.5),
                                          ("lora de mistral 7b a 2k, una pasada y media", 1.5)])
def test_and_a_half(text, epochs, catalog):
    assert _said(text, catalog)[1].get("epochs") == epochs


@pytest.mark.parametrize("text, gpus", [
    ("qlora mistral 7b at 4k on 2 A100 since the other 6 are busy", 2),
    ("lora llama 3.1 8b seq 2048 on one H100; the other 3 GPUs are taken", 1),
    ("lora de mistral 7b a 4k en 2 A100, las otras 6 están ocupadas", 2),
    ("lora de qwen2.5 7b a 2k en una sola L40S, somos 3 en el equipo", 1),
])
def test_others_and_who_we_are_are_no_count(text, gpus, catalog):
    result, said = _said(text, catalog)
    assert said.get("num_gpus") == gpus and result.clarify_code != "number", (result.clarify_code, said)


@pytest.mark.parametrize("text", ["lora a 7B Qwen (2.5) at 2048", "qlora del Llama de 8B (el 3.1) a 4k"])
def test_a_release_in_parentheses_after_the_model_is_no_stray(text, catalog):
    assert parse_message(text, catalog).clarify_code != "number"


@pytest.mark.parametrize("text, want", [
    ("lora llama 3.1 8b at 2k, LoRA rank\n16, on an AWS A10G and no more", {"lora_rank": 16, "num_gpus": 1}),
    ("qlora de mistral 7b, rango\n32, una 4090 (Ada, 24 GB) y ninguna más", {"lora_rank": 32, "num_gpus": 1}),
    ("full qwen2.5 1.5b, seq\n4096, 1.5B params are fine", {"seq_len": 4096}),
])
def test_a_key_at_a_line_end_and_its_number_on_the_next(text, want, catalog):
    result, said = _said(text, catalog)
    assert {k: said.get(k) for k in want} == want, (result.intent, result.clarify_code, said)


# --- vague values: asked about, never a default ---------------------------------------------------------------

@pytest.mark.parametrize("text, field", [
    ("lora llama 3.1 8b at 2k on some GPUs", "num_gpus"),
    ("qlora mistral 7b seq 4096 on a few-ish GPUs", "num_gpus"),
    ("lora de mistral 7b con una ventana de contexto bien larga", "seq_len"),
    ("full qwen2.5 1.5b seq 1024 with the largest batch size that fits", "micro_batch"),
    ("qlora de llama 3.1 8b a 2k con el lote más grande posible", "micro_batch"),
])
def test_a_vague_value_is_asked_about(text, field, catalog):
    result = parse_message(text, catalog)
    assert (result.intent, result.clarify_code) == ("clarify", "unreadable"), result.delta.said()
    assert getattr(result.delta, field) is None


@pytest.mark.parametrize("text", ["lora llama 3.1 8b seq 2048 on some L40S card", "lora llama 3.1 8b seq 2048, some H100 SXM"])
def test_some_card_is_one_card_of_that_kind(text, catalog):
    """("some H100": English "some" before a singular is "a certain one"; the name matcher takes the plural's "s", so a
    card named after "some" is never a vague count.)"""
    result = parse_message(text, catalog)
    assert result.intent == "estimate" and result.delta.num_gpus is None


@pytest.mark.parametrize("text, field", [("lora llama 3.1 8b seq 2048, epochs: until it converges", "epochs"),
                                         ("qlora de mistral 7b a 4k, épocas: hasta que converja", "epochs"),
                                         ("lora de qwen2.5 7b a 2k, lote: hasta donde quepa", "micro_batch")])
def test_a_stopping_rule_for_a_value_is_asked_about(text, field, catalog):
    result = parse_message(text, catalog)
    assert (result.intent, result.clarify_code) == ("clarify", "unreadable"), result.delta.said()
    assert getattr(result.delta, field) is None


def test_up_to_a_number_after_a_key_is_the_value(catalog):
    assert _said("lora de llama 3.1 8b, secuencia: hasta 4096", catalog)[1].get("seq_len") == 4096
