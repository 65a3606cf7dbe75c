"""Mechanisms behind the failures of round 15's hand-written set (tests/heldout/table5.py, "diagnosed-table5"), issue #13.

Each class is tested with phrasings written for this file, in both languages, not copied from the set: the fix
is the mechanism, so other words, orders and near forms must pass too; and a near form that must NOT be read
sits beside each class."""

import pytest

from tests.phrasings import parsed_and_said as _said


# --- a number in a sentence of its own that says nothing we size is the story, not a setting -------------------

@pytest.mark.parametrize("text", [
    "Our office moved to floor 9 last month. lora qwen2.5-7b at 4k on an L40S",
    "Standup got moved to 10, just so you know; full fine-tune of llama-3.2-1b at 2k",
    "We scored 83,4 on the internal eval, nobody cares. qlora mistral 7b v0.3 at 4k",
    "Budget line 7710 (cost center 51) covers it: lora gemma-2-9b 4k, 2 epochs",
    "La reunión pasó al piso 9 el mes pasado. lora de qwen2.5-7b a 4k en una L40S",
    "El daily se movió a las 10, para que sepan; ajuste completo de llama-3.2-1b a 2k",
    "Sacamos 83,4 en la evaluación interna, da igual. qlora de mistral 7b v0.3 a 4k",
    "La partida 7710 (centro de coste 51) lo cubre: lora de gemma-2-9b a 4k, 2 épocas",
])
def test_a_number_in_a_sentence_about_something_else_is_not_asked_about(text, catalog):
    result, said = _said(text, catalog)
    assert result.intent == "estimate" and result.clarify_code is None, (result.intent, result.clarify_code, said)
    assert not {"num_gpus", "micro_batch", "lora_rank"} & set(said), said


@pytest.mark.parametrize("text", [
    "lora qwen2.5-7b at 4k. 24.",                 # a sentence of one bare number: a setting nobody named
    "lora qwen2.5-7b at 4k, then 24 please",      # in the request's own sentence
    "yesterday we left r pinned, 32 i think. lora qwen2.5-7b at 4k",  # a setting's word beside it, joined oddly
    "lora de qwen2.5-7b a 4k. 24.",
    "lora de qwen2.5-7b a 4k, y 24 porfa",
    "ayer dejamos el rango clavado, 32 creo. lora de qwen2.5-7b a 4k",
])
def test_a_bare_number_beside_the_request_or_a_setting_word_is_still_asked_about(text, catalog):
    result, said = _said(text, catalog)
    assert result.intent == "clarify" and result.clarify_code == "number", (result.intent, result.clarify_code, said)


def test_a_percentage_written_with_a_space_is_no_setting(catalog):
    for text in ("lora qwen2.5-7b a 4k, el 40 % más barato", "lora qwen2.5-7b at 4k, 40 % cheaper"):
        result, said = _said(text, catalog)
        assert result.clarify_code != "number", (text, result.intent, said)


# --- a typo of a setting's key right before its number is that key ------------------------------------------------

@pytest.mark.parametrize("text,field,value", [
    ("lora qwen2.5-7b at 4k, rabk 8", "lora_rank", 8),          # a neighbouring key (b beside n)
    ("lora qwen2.5-7b at 4k, rannk 8", "lora_rank", 8),         # a letter typed twice
    ("lora qwen2.5-7b at 4k, epohcs: 3", "epochs", 3),          # two letters swapped
    ("lora qwen2.5-7b at 4k, batcj 2", "micro_batch", 2),
    ("lora de qwen2.5-7b a 4k, ranfo 8", "lora_rank", 8),
    ("lora de qwen2.5-7b a 4k, epocaz 3", "epochs", 3),
    ("lora de qwen2.5-7b a 4k, lptes 2", "micro_batch", 2),
])
def test_a_typo_of_a_setting_key_before_a_number_is_read_as_the_key(text, field, value, catalog):
    result, said = _said(text, catalog)
    assert said.get(field) == value, (result.intent, said)


@pytest.mark.parametrize("text", [
    "lora qwen2.5-7b at 4k, rack 8",            # a word of its own, one key away from nothing we read
    "lora qwen2.5-7b at 4k, past 3 weeks",      # "pass" is prose too: never a typo's target
    "lora de qwen2.5-7b a 4k, pasa 3 veces",
])
def test_an_ordinary_word_before_a_number_is_no_typo_of_a_key(text, catalog):
    result, said = _said(text, catalog)
    assert not {"lora_rank", "epochs", "micro_batch"} & set(said), (result.intent, said)


# --- dates, hours of the clock, phone numbers, identifiers and decimals are no settings -------------------------

@pytest.mark.parametrize("text", [
    "lora qwen2.5-7b at 4k, due 28/09 for the demo",                    # a day no month can be
    "lora qwen2.5-7b at 4k, review on 07/11/2026",                      # with the year
    "ring me on +44 20 7946 0958 about the lora qwen2.5-7b at 4k",      # a telephone number
    "invoice 55120 covers a lora of qwen2.5-7b at 4k",                  # a document's number
    "the eval rose from 55.2 with the adapter, so lora qwen2.5-7b at 4k",  # scores with a fraction
    "lora de qwen2.5-7b a 4k, entrega el 28/09 para la demo",
    "lora de qwen2.5-7b a 4k, revisión el 07/11/2026",
    "llamame al +34 91 123 4567 por el lora de qwen2.5-7b a 4k",
    "desde las 7 con esto, lora de qwen2.5-7b a 4k",                    # an hour of the clock
    "la factura 55120 cubre un lora de qwen2.5-7b a 4k",
])
def test_dates_hours_phones_ids_and_scores_are_no_settings(text, catalog):
    result, said = _said(text, catalog)
    assert result.intent == "estimate" and said.get("seq_len") == 4096, (result.intent, result.clarify_code, said)
    assert not {"num_gpus", "micro_batch", "lora_rank", "epochs"} & set(said), said


@pytest.mark.parametrize("text,field,values", [
    ("lora qwen2.5-7b at 4k on 8/16 GPUs", "num_gpus", None),           # two powers of two: alternatives, not a date
    ("lora qwen2.5-7b seq 2048/4096", "seq_len", None),
    ("lora de qwen2.5-7b a 4k en 4 GPUs a las 9", "num_gpus", 4),       # the count still read beside an hour
    ("lora qwen2.5-7b at 4k +2 GPUs", None, None),                      # one number after "+": a change, no phone
])
def test_near_forms_of_dates_and_hours_keep_their_settings(text, field, values, catalog):
    result, said = _said(text, catalog)
    if values is None:
        assert result.intent == "clarify", (result.intent, said)  # two values or a change with no count: asked
    else:
        assert said.get(field) == values, (result.intent, said)


# --- the machine a message leaves is no GPU of this job -------------------------------------------------------

@pytest.mark.parametrize("text", [
    "the old L4 keeps running out of memory, so lora qwen2.5-7b at 4k please",
    "our previous A100 box died; lora qwen2.5-7b at 4k",
    "la L4 vieja se queda sin memoria, así que lora de qwen2.5-7b a 4k",
])
def test_the_old_card_is_not_this_jobs_gpu(text, catalog):
    result, said = _said(text, catalog)
    assert "gpu" not in said, (result.intent, said)


def test_a_card_said_with_the_job_is_still_its_gpu(catalog):
    for text in ("move from the old L4 to an H100: lora qwen2.5-7b at 4k", "de la L4 vieja a una H100: lora de qwen2.5-7b a 4k"):
        result, said = _said(text, catalog)
        assert said.get("gpu") == "h100-sxm", (text, result.intent, said)


# --- a quota's count is no GPU count of this job -----------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "we have an allocation of 32 GPUs this quarter; lora qwen2.5-7b at 4k",
    "the quota is 24 cards in Oregon, but lora qwen2.5-7b at 4k on whatever fits",
    "nos dieron cuota de 32 GPUs este trimestre; lora de qwen2.5-7b a 4k",
    "la asignación es de 24 tarjetas, pero lora de qwen2.5-7b a 4k con lo que quepa",
])
def test_a_quotas_count_is_not_the_jobs(text, catalog):
    result, said = _said(text, catalog)
    assert "num_gpus" not in said and said.get("seq_len") == 4096, (result.intent, said)


def test_a_count_for_the_job_beside_a_quota_is_read(catalog):
    for text in ("lora qwen2.5-7b at 4k on 4 GPUs, our quota is 16", "lora de qwen2.5-7b a 4k en 4 GPUs, la cuota es de 16"):
        result, said = _said(text, catalog)
        assert said.get("num_gpus") == 4, (text, result.intent, said)


# --- "N tokens context" is a length, however large -----------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "qlora qwen2.5-7b with 3 million tokens of context",
    "qlora qwen2.5-7b, 2M tokens context window",
    "qlora de qwen2.5-7b con 3 millones de tokens de contexto",
])
def test_a_huge_count_of_tokens_of_context_is_a_length_beyond_the_limit(text, catalog):
    result, said = _said(text, catalog)
    assert result.intent == "clarify" and result.clarify_code == "limit" and "dataset_tokens" not in said, (result.intent, said)


@pytest.mark.parametrize("text,tokens,seq", [
    ("qlora qwen2.5-7b, 30M tokens, context max 4096", 30_000_000, 4096),     # the context has its own number
    ("qlora de qwen2.5-7b, 30M tokens contexto máximo 4096", 30_000_000, 4096),
    ("qlora qwen2.5-7b, 8192 tokens of context", None, 8192),
])
def test_tokens_beside_a_context_with_its_own_number_stay_the_dataset(text, tokens, seq, catalog):
    result, said = _said(text, catalog)
    assert said.get("dataset_tokens") == tokens and said.get("seq_len") == seq, (result.intent, said)


# --- a piece of the data with no size is a stated dataset nobody can read ---------------------------------------

@pytest.mark.parametrize("text", [
    "lora qwen2.5-7b at 4k on a subset of the corpus",
    "lora qwen2.5-7b at 4k over a small slice of our training data",
    "lora de qwen2.5-7b a 4k con un trozo del dataset",
    "lora de qwen2.5-7b a 4k sobre un subconjunto de nuestros datos",
])
def test_a_piece_of_the_data_is_asked_about(text, catalog):
    result, said = _said(text, catalog)
    assert result.intent == "clarify" and result.clarify_code == "unreadable", (result.intent, said)


@pytest.mark.parametrize("text,tokens", [
    ("lora qwen2.5-7b at 4k on a 20M-token subset of the corpus", 20_000_000),
    ("lora de qwen2.5-7b a 4k con un trozo del dataset de 20M tokens", 20_000_000),
])
def test_a_piece_of_the_data_with_its_size_is_that_size(text, tokens, catalog):
    result, said = _said(text, catalog)
    assert said.get("dataset_tokens") == tokens, (result.intent, said)


# --- "N more <card>" changes the thread's count, as "N more GPUs" does -------------------------------------------

_THREAD = {"method": "qlora", "model": "llama-3.3-70b", "seq_len": 8192, "num_gpus": 2, "gpu": "h100-sxm"}


@pytest.mark.parametrize("text,total", [
    ("throw in three more H100s", 5),
    ("one fewer H100 then", 1),
    ("sumale dos H100 más", 4),
    ("con tres H100 más", 5),
])
def test_more_of_the_threads_card_changes_its_count(text, total, catalog):
    from advisor.spec import SpecRequest
    result, said = _said(text, catalog, previous=SpecRequest(**_THREAD))
    assert result.intent == "followup" and result.request.num_gpus == total, (result.intent, said)


def test_cheaper_cards_are_no_change_of_count(catalog):
    from advisor.spec import SpecRequest
    for text in ("dos H100 más baratas", "two H100s, more or less"):
        result, said = _said(text, catalog, previous=SpecRequest(**_THREAD))
        assert result.request.num_gpus == 2, (text, result.intent, said)


# --- intents said in other words: how to pick a GPU, what the bot needs, a reset after a dropped thought, the catalog

@pytest.mark.parametrize("text,intent", [
    ("how should we choose the hardware for training an LLM?", "faq"),
    ("¿cómo escojo una tarjeta para entrenar un LLM?", "faq"),
    ("what would the bot need to know to make an estimate?", "help"),
    ("¿qué información necesitas para hacerme un presupuesto?", "help"),
    ("which kind of commands do you take?", "help"),
    ("¿qué clase de comandos entiendes?", "help"),
    ("never mind, just reset", "reset"),
    ("no importa, mejor reinicia", "reset"),
    ("start the conversation over", "reset"),
    ("empezar el chat de nuevo", "reset"),
    ("*prices?*", "catalog"),
    ("¿qué tarjetas se pueden rentar acá?", "catalog"),
])
def test_intents_said_in_other_words(text, intent, catalog):
    result, said = _said(text, catalog)
    assert result.intent == intent, (result.intent, result.clarify_code, said)


def test_a_dropped_thought_before_a_value_is_a_correction_not_a_reset(catalog):
    from advisor.spec import SpecRequest
    thread = SpecRequest(method="qlora", model="llama-3.3-70b", seq_len=8192, num_gpus=2, gpu="h100-sxm")
    for text in ("nvm, make it 8 GPUs", "nada, mejor 8 GPUs"):
        result, said = _said(text, catalog, previous=thread)
        assert result.intent == "followup" and result.request.model == "llama-3.3-70b" and said.get("num_gpus") == 8, (
            text, result.intent, said)


# --- a throughput is no length nor dataset ------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "last run did 2,900 tokens/sec, fyi. lora qwen2.5-7b at 4k",
    "we hit 1.8k tok/s before; lora qwen2.5-7b at 4k",
    "íbamos a 2.900 tokens por segundo; lora de qwen2.5-7b a 4k",
])
def test_a_throughput_is_no_setting(text, catalog):
    result, said = _said(text, catalog)
    assert result.intent == "estimate" and said.get("seq_len") == 4096 and "dataset_tokens" not in said, (result.intent, said)


def test_tokens_per_sample_stay_a_length(catalog):
    for text in ("lora qwen2.5-7b, 2048 tokens/sample", "lora de qwen2.5-7b, 2048 tokens por muestra"):
        result, said = _said(text, catalog)
        assert said.get("seq_len") == 2048, (text, result.intent, said)


# --- one more epoch where the thread never said how many: ask for the total, never add to the default ----------

@pytest.mark.parametrize("text", ["let's do two more epochs", "+1 epoch please", "dale dos épocas más", "una época menos"])
def test_an_epoch_change_with_no_count_in_the_thread_is_asked_about(text, catalog):
    from advisor.spec import SpecRequest
    thread = SpecRequest(method="lora", model="qwen2.5-7b", seq_len=4096)
    result, said = _said(text, catalog, previous=thread)
    assert result.intent == "clarify" and result.clarify_code == "relative" and "epochs" not in said, (result.intent, said)


@pytest.mark.parametrize("text,total", [("let's do two more epochs", 5), ("dale dos épocas más", 5), ("una época menos", 2)])
def test_an_epoch_change_adds_to_the_threads_count(text, total, catalog):
    from advisor.spec import SpecRequest
    thread = SpecRequest(method="lora", model="qwen2.5-7b", seq_len=4096, epochs=3)
    result, said = _said(text, catalog, previous=thread)
    assert result.intent == "followup" and result.request.epochs == total, (result.intent, said)


# --- a correction that names only a memory size names that variant of the same card ----------------------------

@pytest.mark.parametrize("text", [
    "qlora qwen2.5-7b at 4k on an A100 80GB... wait, the 40GB one",
    "qlora de qwen2.5-7b a 4k en una A100 de 80GB, perdón, la de 40GB",
])
def test_a_memory_after_a_correction_is_the_cards_variant(text, catalog):
    result, said = _said(text, catalog)
    assert said.get("gpu") == "a100-40gb", (result.intent, said)


def test_a_memory_without_a_correction_changes_no_card(catalog):
    for text in ("qlora qwen2.5-7b at 4k on an A100 40GB, the 80GB ones are booked",
                 "qlora de qwen2.5-7b a 4k en una A100 de 40GB, las de 80GB están ocupadas"):
        result, said = _said(text, catalog)
        assert said.get("gpu") == "a100-40gb", (text, result.intent, said)


# --- "one or two H100s", "a 4090 or two": two counts, a question back, never the larger one -----------------------

@pytest.mark.parametrize("text", [
    "lora qwen2.5-7b at 4k on one or two L40S",
    "lora qwen2.5-7b at 4k, an L40S or two",
    "lora de qwen2.5-7b a 4k en una o dos L40S",
    "lora de qwen2.5-7b a 4k, una L40S o dos",
])
def test_one_or_two_cards_is_asked_about(text, catalog):
    result, said = _said(text, catalog)
    assert result.intent == "clarify" and "num_gpus" not in said and said.get("gpu") == "l40s", (result.intent, said)


@pytest.mark.parametrize("text,intent", [
    ("lora qwen2.5-7b at 4k on an L40S or an A100", "compare"),
    ("lora de qwen2.5-7b a 4k en una L40S o una A100", "compare"),
    ("lora qwen2.5-7b at 4k on two L40S", "estimate"),
])
def test_a_card_or_another_card_is_no_count(text, intent, catalog):
    result, said = _said(text, catalog)
    assert result.intent == intent and said.get("num_gpus") in (None, 2), (result.intent, said)


# --- "what I can train on an X": the subject before its verb is still the can-I-GPU question ---------------------

@pytest.mark.parametrize("text", [
    "the largest model we could fine-tune on an L40S?",
    "what's the biggest thing one can train on a 4090?",
    "¿cuál es el modelo más grande que podemos afinar en una L40S?",
])
def test_what_i_can_train_on_a_card_is_the_faq(text, catalog):
    result, said = _said(text, catalog)
    assert result.intent == "faq" and result.faq == "can_i_gpu", (result.intent, result.clarify_code, said)


def test_a_named_job_with_can_we_run_is_an_estimate(catalog):
    for text in ("lora llama-3.1-8b at 4k, can we run it on an H200?", "lora de llama-3.1-8b a 4k, ¿podemos correrlo en una H200?"):
        result, said = _said(text, catalog)
        assert result.intent == "estimate" and said.get("gpu") == "h200", (text, result.intent, said)


# --- "4x the batch", "el lote por 4": the number is the factor, not the value -------------------------------------

_BATCH_THREAD = {"method": "full", "model": "qwen2.5-1.5b", "seq_len": 4096, "micro_batch": 4, "num_gpus": 2}


@pytest.mark.parametrize("text,batch", [
    ("3x the batch", 12),
    ("ok, 2x the micro batch then", 8),
    ("el micro-lote por 3", 12),
    ("el lote por dos", 8),
])
def test_a_factor_said_as_a_number_multiplies_the_threads_value(text, batch, catalog):
    from advisor.spec import SpecRequest
    result, said = _said(text, catalog, previous=SpecRequest(**_BATCH_THREAD))
    assert result.intent == "followup" and result.request.micro_batch == batch, (result.intent, said)


@pytest.mark.parametrize("text,batch", [("batch 3", 3), ("lote 3", 3), ("el lote por dispositivo 3", 3)])
def test_a_batch_said_outright_is_that_batch(text, batch, catalog):
    from advisor.spec import SpecRequest
    result, said = _said(text, catalog, previous=SpecRequest(**_BATCH_THREAD))
    assert result.request.micro_batch == batch, (result.intent, said)


# --- a sentence the user dismisses says no value of this job ------------------------------------------------------

@pytest.mark.parametrize("text", [
    "we've got 6 spare GPUs right now but that doesn't matter: lora qwen2.5-7b at 4k",
    "the old box had 4 A10G cards, irrelevant I know. lora qwen2.5-7b at 4k",
    "ahora mismo hay 6 GPUs libres pero eso no importa: lora de qwen2.5-7b a 4k",
    "la máquina tenía 4 tarjetas A10G, da igual. lora de qwen2.5-7b a 4k",
])
def test_a_dismissed_sentence_states_no_value(text, catalog):
    result, said = _said(text, catalog)
    assert "num_gpus" not in said and "gpu" not in said and said.get("seq_len") == 4096, (result.intent, said)


def test_the_request_itself_is_never_dismissed(catalog):
    for text in ("lora qwen2.5-7b at 4k on 4 GPUs, that doesn't matter much", "lora de qwen2.5-7b a 4k en 4 GPUs, da igual"):
        result, said = _said(text, catalog)
        assert said.get("num_gpus") == 4 and said.get("model") == "qwen2.5-7b", (text, result.intent, said)
