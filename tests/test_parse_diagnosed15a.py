"""Mechanisms behind the failures of the hand-written diagnosed sets table3 and table4 (issue #13, round 15a).

Each class is tested with phrasings written for this file, in both languages, not copied from either set
(tests/data/heldout/table3.json, table4.json): the fix is the mechanism, so other words, orders and tools for
the same thing must pass too, and a near form that means something else must not be read."""

import pytest

from advisor.parse import parse_message
from advisor.spec import SpecRequest


def _said(text, catalog, previous=None):
    result = parse_message(text, catalog, previous=previous)
    return result.intent, result.delta.said()


# --- Unsloth's loader class names the Unsloth stack, even where "unsloth" is only inside a repo id -----------

@pytest.mark.parametrize("text", [
    "model, tok = FastLanguageModel.from_pretrained('unsloth/mistral-7b-v0.3', max_seq_length=2048, "
    "load_in_4bit=True)\nqlora, r=8",
    "```python\nm, t = FastLanguageModel.from_pretrained(model_name='mistralai/Mistral-7B-v0.1', max_seq_length=1024)"
    "\n```\nLoRA de rango 16",
    "cargamos con FastLanguageModel el qwen2.5 7b, lora a 2k",
])
def test_unsloth_loader_names_the_stack(text, catalog):
    intent, said = _said(text, catalog)
    assert said.get("stack") == "unsloth", (intent, said)


def test_a_fast_tokenizer_is_not_unsloth(catalog):  # a near form: transformers' fast tokenizers
    _, said = _said("lora mistral 7b a 2k con AutoTokenizer use_fast=True y PreTrainedTokenizerFast", catalog)
    assert said.get("stack") != "unsloth", said


# --- a word spelled as no English or Spanish word is (no vowel) before a size names a model nobody can place ------

@pytest.mark.parametrize("text", [
    "lora brtx 8b at 4k",
    "full fine-tune of qwrtz 3b, seq 1024",
    "afinar completo pfft 2b con contexto de 2k",
    "qlora del krnl 14b, secuencia 4096",
])
def test_a_vowelless_word_before_a_size_is_asked_about(text, catalog):
    result = parse_message(text, catalog)
    assert result.intent == "clarify" and result.delta.params_b is None, (result.clarify_code, result.delta.said())


@pytest.mark.parametrize("text,size", [
    ("the team wants 33b lora at 4k", 33.0),  # an ordinary word before the size
    ("lora against a 7b at 2k", 7.0),
    ("qlora para unos 13b, secuencia 2048", 13.0),
])
def test_an_ordinary_word_before_a_size_leaves_the_size(text, size, catalog):
    _, said = _said(text, catalog)
    assert said.get("params_b") == size, said


# --- "twice as many GPUs" scales the thread's count; with no count in the thread it asks for the total ------

_TWO = SpecRequest(method="lora", model="qwen3-8b", seq_len=2048, num_gpus=2)
_NONE = SpecRequest(method="lora", model="qwen3-8b", seq_len=2048)


@pytest.mark.parametrize("text,previous,want", [
    ("could we use twice as many cards?", _TWO, 4),
    ("half as many GPUs then", SpecRequest(method="lora", model="qwen3-8b", seq_len=2048, num_gpus=8), 4),
    ("three times as many gpus", _TWO, 6),
    ("¿y con el doble de GPUs?", _TWO, 4),
])
def test_as_many_scales_the_threads_count(text, previous, want, catalog):
    intent, said = _said(text, catalog, previous)
    assert intent == "followup" and said.get("num_gpus") == want, (intent, said)


@pytest.mark.parametrize("text", ["twice as many cards, please", "dale el doble de tarjetas", "¿y la mitad de GPUs?"])
def test_a_relative_gpu_count_without_one_in_the_thread_is_asked(text, catalog):
    result = parse_message(text, catalog, previous=_NONE)
    assert result.intent == "clarify" and result.clarify_code == "relative", (result.clarify_code, result.delta.said())


def test_twice_as_many_epochs_scales_the_default(catalog):
    # (round 19a: no default is scaled any more, a relative change with no thread value is asked about, as every
    # held-out set labels it: gen15 "two more epochs", table6 "halve the batch"; the thread's value still scales)
    result = parse_message("twice as many epochs", catalog, previous=_NONE)
    assert result.intent == "clarify" and result.clarify_code == "relative", (result.clarify_code, result.delta.said())
    intent, said = _said("twice as many epochs", catalog, _NONE.model_copy(update={"epochs": 2.0}))
    assert intent == "followup" and said.get("epochs") == 4, said


def test_many_gpus_alone_is_still_unreadable(catalog):  # the near form: no factor, a vague count
    result = parse_message("lora qwen3 8b on many GPUs", catalog)
    assert result.clarify_code == "unreadable", result.clarify_code


# --- a count per day / week / month is the product's traffic, no dataset size nor a number to ask about ----------

@pytest.mark.parametrize("text", [
    "lora qwen3 8b at 2k; support gets 300 tickets a week",
    "We see 2,500 user messages per day, want a LoRA of qwen3 8b at 2k",
    "lora de qwen3 8b a 2k, entran unas 5.000 consultas por semana",
    "qlora qwen3 8b seq 2048 (800 daily users)",
    "lora qwen3 8b a 2k; recibimos 40 mil mensajes al mes",
])
def test_a_rate_per_period_is_no_setting(text, catalog):
    result = parse_message(text, catalog)
    said = result.delta.said()
    assert result.intent == "estimate" and "dataset_tokens" not in said and said.get("seq_len") == 2048, (
        result.clarify_code, said)


def test_examples_to_train_on_are_still_data(catalog):  # the near form: a count of examples, no period
    _, said = _said("lora qwen3 8b, 20k examples of 512 tokens", catalog)
    assert said.get("dataset_tokens") == 20_000 * 512, said


# --- a value quoted from the bot's last answer is the thread's; the other number is the new one ----------------

_EIGHT = SpecRequest(method="lora", model="qwen3-8b", seq_len=4096, num_gpus=8)


@pytest.mark.parametrize("text,want", [
    ("you suggested 8 GPUs, what about 4?", {"num_gpus": 4}),
    ("the bot said 8 cards; could we do it on 2?", {"num_gpus": 2}),
    ("me dijiste 8 GPUs; ¿y con 16?", {"num_gpus": 16}),
    ("tu respuesta dice 4096 de contexto, ¿probamos 8192?", {"seq_len": 8192}),
    ("your last answer had 4096 context, try 2048?", {"seq_len": 2048}),
])
def test_a_quoted_answer_value_names_the_new_ones_field(text, want, catalog):
    intent, said = _said(text, catalog, _EIGHT)
    assert intent == "followup" and {k: said.get(k) for k in want} == want, (intent, said)


def test_two_counts_without_a_quote_stay_a_question(catalog):  # the near form: nothing says which is the thread's
    result = parse_message("8 GPUs or 4?", catalog, previous=_EIGHT)
    assert result.intent == "clarify", result.delta.said()


# --- a judgement of a length, a dataset named by habit: stated values nobody can read --------------

@pytest.mark.parametrize("text,field", [
    ("qlora mistral 7b with a reasonable context", "seq_len"),
    ("lora de mistral 7b con secuencias razonables", "seq_len"),
    ("full fine-tune of qwen2.5 1.5b, generous context please", "seq_len"),
    ("qlora de mistral 7b con un buen contexto", "seq_len"),
    ("lora mistral 7b at 2k on the same data as always", "dataset_tokens"),
    ("lora de mistral 7b a 2k con nuestro dataset habitual", "dataset_tokens"),
    ("lora mistral 7b 2k, corpus: the usual one", "dataset_tokens"),
])
def test_a_judged_or_habitual_value_is_asked_about(text, field, catalog):
    result = parse_message(text, catalog)
    assert result.intent == "clarify" and result.clarify_code == "unreadable", (result.clarify_code, result.delta.said())
    assert getattr(result.delta, field) is None


@pytest.mark.parametrize("text", [
    "lora mistral 7b at 2k, we got decent results last time",  # a judgement of results, not of a length
    "lora mistral 7b at 2k on some H100 card",  # one card, which one unsaid: a card, not a count
    "lora mistral 7b, a reasonable context of 4096",  # the judgement beside the value it states
])
def test_near_forms_state_their_value(text, catalog):
    result = parse_message(text, catalog)
    assert result.intent == "estimate", (result.clarify_code, result.delta.said())


# --- "N of them" after a count of people is part of that group, never a GPU count ------------------------------

@pytest.mark.parametrize("text", [
    "we are 8 engineers, 3 of them on call; lora qwen3 8b at 2k",
    "Team of 12 people (4 of them new): qlora qwen3 8b seq 2048",
    "somos 5 personas, 2 de ellas de ML: lora de qwen3 8b a 2k",
    "10 investigadores, 3 de ellos en remoto; lora qwen3 8b secuencia 2048",
])
def test_part_of_a_group_of_people_is_no_gpu_count(text, catalog):
    result = parse_message(text, catalog)
    said = result.delta.said()
    assert result.intent == "estimate" and "num_gpus" not in said and said.get("seq_len") == 2048, (
        result.clarify_code, said)


def test_of_them_after_a_card_still_counts_gpus(catalog):  # the near form: the group is of cards
    _, said = _said("lora qwen3 8b at 2k on L4 24GB, 4 of them", catalog)
    assert said.get("num_gpus") == 4 and said.get("gpu") == "l4", said


# --- an arrow between two values of one field, each with its cue, is a correction: the later one --------------

@pytest.mark.parametrize("text,want", [
    ("lora de mistral 7b, lote 4 => lote 8", {"micro_batch": 8}),
    ("full qwen2.5 3b seq 2048 -> seq 4096, 2 epochs", {"seq_len": 4096}),
    ("qlora mistral 7b 2k, r 32 → r 16", {"lora_rank": 16}),
    ("qlora de mistral 7b, épocas 3 → épocas 1", {"epochs": 1.0}),
])
def test_an_arrow_between_cued_values_takes_the_later(text, want, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and {k: said.get(k) for k in want} == want, (intent, said)


def test_two_cued_values_without_an_arrow_are_asked(catalog):  # the near form: "or" is no correction
    result = parse_message("qlora mistral 7b, rank 16 or rank 8?", catalog)
    assert result.clarify_code == "conflict", result.clarify_code


# --- "+1," agreeing in a thread and a notebook's "In [14]:" prompt are no numbers to ask about -----------------

@pytest.mark.parametrize("text,want", [
    ("> qlora qwen3 8b at 2k?\n+1, and on 2 L40S please", {"num_gpus": 2, "seq_len": 2048}),
    ("> lora de qwen3 8b a 4k\n+1. en 2 A100", {"num_gpus": 2, "seq_len": 4096}),
    ("In [22]: job = dict(method='lora', model='Qwen/Qwen3-8B', seq_len=2048)\nsize it?", {"seq_len": 2048}),
    ("Out[3]: {'method': 'qlora', 'model': 'Qwen/Qwen3-8B', 'seq_len': 4096}\n¿cuánto cuesta?", {"seq_len": 4096}),
])
def test_agreement_and_notebook_prompts_are_no_settings(text, want, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and {k: said.get(k) for k in want} == want, (intent, said)


def test_a_decimal_after_plus_one_is_still_a_number(catalog):  # the near form: "+1,5" is one and a half
    _, said = _said("lora qwen3 8b at 2k\n+1,5 epochs", catalog)
    assert said.get("epochs") == 1.5, said


# --- "the 27B, not the 9B": a negation right before the second of two values withdraws it ---------------------

_NINE = SpecRequest(method="qlora", model="gemma-2-9b", seq_len=4096)


@pytest.mark.parametrize("text", [
    "oops, the 27B one, not the 9B",
    "quise decir el de 27B y no el de 9B",
    "it should be the 27B rather than the 9B",
    "era el de 27B, no el de 9B, perdona",
])
def test_a_negated_second_size_is_withdrawn(text, catalog):
    intent, said = _said(text, catalog, _NINE)
    assert intent == "followup" and said.get("model") == "gemma-2-27b", (intent, said)


def test_a_negated_second_setting_is_withdrawn(catalog):
    _, said = _said("lora qwen3 8b at 2k, rank 16 instead of rank 8", catalog)
    assert said.get("lora_rank") == 16, said


def test_two_sizes_with_or_stay_a_question(catalog):  # the near form: an alternative, no negation
    result = parse_message("the 27B or the 9B?", catalog, previous=_NINE)
    assert result.intent == "clarify", result.delta.said()


# --- a planning period's number and a setting turned off by a verb ----------------------------------------------

@pytest.mark.parametrize("text,want", [
    ("for sprint 22: lora qwen3 8b at 2k", {"seq_len": 2048}),
    ("para el hito 3: lora de qwen3 8b a 2k", {"seq_len": 2048}),
    ("milestone 4 - qlora qwen3 8b seq 4096", {"seq_len": 4096}),
    ("lora qwen3 8b at 2k, gradient checkpointing turned off", {"gradient_checkpointing": False}),
    ("lora qwen3 8b at 2k, activation checkpointing switched off", {"gradient_checkpointing": False}),
    ("lora de qwen3 8b a 2k, el checkpointing queda apagado", {"gradient_checkpointing": False}),
])
def test_sprint_numbers_and_settings_turned_off(text, want, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and {k: said.get(k) for k in want} == want, (intent, said)


def test_a_setting_turned_on_stays_on(catalog):  # the near form: "turned" is no typo of "tuned"
    _, said = _said("lora qwen3 8b at 2k, gradient checkpointing turned on", catalog)
    assert said.get("gradient_checkpointing") is True, said


# --- a number spelled out with thousands, hundreds or tens and units is that number ---------------------------

@pytest.mark.parametrize("text,want", [
    ("lora de qwen2.5 7b, cuatro mil noventa y seis tokens de contexto", {"seq_len": 4096}),
    ("lora qwen2.5 7b, secuencia de mil veinticuatro", {"seq_len": 1024}),
    ("qlora qwen2.5 7b, sequence length eight thousand one hundred ninety-two", {"seq_len": 8192}),
    ("lora qwen2.5 7b at two thousand forty-eight tokens", {"seq_len": 2048}),
    ("lora de qwen2.5 7b, rango treinta y dos, secuencia 2048", {"lora_rank": 32}),
    ("lora qwen2.5 7b, quinientos doce tokens de secuencia", {"seq_len": 512}),
])
def test_spelled_out_numbers_are_read(text, want, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and {k: said.get(k) for k in want} == want, (intent, said)


def test_two_units_in_a_row_are_no_compound_number(catalog):  # the near form: "dos tres" is no 5
    from advisor.parse.text import normalize

    assert "dos tres" in normalize("lora de qwen3 8b, dos tres veces")
    assert normalize("dos mil millones de tokens").startswith("2000 millones")  # a thousand millions stay millions


# --- a thanks alone in a thread is nothing asked; a new job or a dropped thread is a reset ---------------------

_THREAD = SpecRequest(method="qlora", model="qwen3-8b", seq_len=4096)


@pytest.mark.parametrize("text", ["perfect, ty", "cheers mate!", "vale, genial", "muchas gracias, chavales"])
def test_a_thanks_alone_is_nothing_asked(text, catalog):
    result = parse_message(text, catalog, previous=_THREAD)
    assert result.intent == "clarify" and result.clarify_code == "nothing", result.clarify_code


def test_a_thanks_with_a_change_is_the_change(catalog):  # the near form: thanks, then a value
    intent, said = _said("thanks, and with 4 GPUs?", catalog, _THREAD)
    assert intent == "followup" and said.get("num_gpus") == 4, said


@pytest.mark.parametrize("text", ["new task, disregard everything above", "drop this conversation please",
                                  "nuevo encargo, ignora lo de arriba", "olvida este hilo"])
def test_a_new_job_or_a_dropped_thread_is_a_reset(text, catalog):
    assert parse_message(text, catalog, previous=_THREAD).intent == "reset"


def test_a_new_job_with_its_spec_is_that_spec(catalog):  # the near form: the new job said in the message
    intent, said = _said("new job: full fine-tune of qwen2.5 1.5b at 2k", catalog, _THREAD)
    assert said.get("method") == "full" and said.get("seq_len") == 2048, (intent, said)


# --- the cards asked for with their prices are the catalog; how to pick GPUs for training is the FAQ ------------

@pytest.mark.parametrize("text", ["show me your cards with their prices", "muéstrame las tarjetas con sus precios",
                                  "list gpus and hourly rates", "dame la lista de gráficas con precios"])
def test_cards_with_prices_are_the_catalog(text, catalog):
    assert parse_message(text, catalog).intent == "catalog"


@pytest.mark.parametrize("text", ["new to renting GPUs for fine-tuning - how should we choose?",
                                  "nunca he alquilado GPUs para entrenar, ¿cómo escojo?"])
def test_how_to_pick_gpus_for_training_is_the_faq(text, catalog):
    result = parse_message(text, catalog)
    assert result.intent == "faq" and result.faq == "gpu_choice", (result.intent, result.clarify_code)


def test_the_gpus_used_before_are_no_catalog(catalog):  # the near form: no prices asked
    assert parse_message("list the gpus we used last time", catalog).intent != "catalog"


# --- a notebook's or a script's own key names, and a device count beside what makes the devices GPUs -----------

@pytest.mark.parametrize("text,want", [
    (">>> train_tokens = 30_000_000\nlora qwen3 8b seq 2048", {"dataset_tokens": 30_000_000}),
    (">>> tokens_totales = 12_000_000\n>>> lora de qwen3 8b a 2k", {"dataset_tokens": 12_000_000}),
    ('cfg = {"model": "Qwen/Qwen3-8B", "method": "lora", "max_seq_len": 2048, "batch_per_gpu": 4}', {"micro_batch": 4}),
    ("deploy:\n  resources:\n    reservations:\n      devices:\n        - driver: nvidia\n          count: 8\n"
     "          capabilities: [gpu]\nlora qwen3 8b at 2k", {"num_gpus": 8}),
    ('devices:\n  - capabilities: ["gpu"]\n    count: 2\nlora de qwen3 8b a 2k', {"num_gpus": 2}),
    ("hardware:\n  gpu: H100\n  count: 4\ntrain:\n  method: lora\nmodel: Qwen/Qwen3-8B", {"num_gpus": 4}),
])
def test_script_keys_and_device_counts(text, want, catalog):
    intent, said = _said(text, catalog)
    assert {k: said.get(k) for k in want} == want, (intent, said)


def test_a_count_of_something_else_is_no_gpu_count(catalog):  # the near form: no GPU beside the count
    _, said = _said("lora qwen3 8b at 2k; retry count: 3", catalog)
    assert "num_gpus" not in said, said


# --- in a thread, a bare count a run is done "with" is the GPU count; "N more" changes it ----------------------

_NO_COUNT = SpecRequest(method="qlora", model="qwen3-8b", seq_len=4096)
_TWO_4090 = SpecRequest(method="qlora", model="qwen2.5-32b", seq_len=4096, gpu="rtx-4090", num_gpus=2)


@pytest.mark.parametrize("text,previous,want", [
    ("what about with 8?", _NO_COUNT, 8),
    ("y con solo 2?", _NO_COUNT, 2),
    ("can we do it with six?", _NO_COUNT, 6),
    ("and with 3 more?", _TWO_4090, 5),
    ("¿y con dos más?", _TWO_4090, 4),
])
def test_a_bare_count_with_is_the_gpu_count(text, previous, want, catalog):
    intent, said = _said(text, catalog, previous)
    assert intent == "followup" and said.get("num_gpus") == want, (intent, said)


def test_more_with_no_count_in_the_thread_is_asked(catalog):
    result = parse_message("and with 3 more?", catalog, previous=_NO_COUNT)
    assert result.clarify_code == "relative", result.clarify_code


@pytest.mark.parametrize("text,field", [("and with 8192?", "seq_len"), ("¿y con lora?", "method")])
def test_with_a_length_or_a_method_is_that(text, field, catalog):  # near forms: not a device count
    _, said = _said(text, catalog, _NO_COUNT)
    assert field in said and "num_gpus" not in said, said


# --- a meal's or a meeting's time of day is no number to ask about ----------------------------------------------

@pytest.mark.parametrize("text", ["coffee at 3?", "¿cenamos a las 9?", "quedamos a las 10 para revisar"])
def test_a_meeting_time_is_nothing_asked(text, catalog):
    result = parse_message(text, catalog)
    assert result.intent == "clarify" and result.clarify_code == "nothing", result.clarify_code


def test_a_meeting_time_beside_a_request_leaves_the_request(catalog):
    intent, said = _said("standup at 10, then lora qwen3 8b at 2k on 4 GPUs", catalog)
    assert intent == "estimate" and said.get("num_gpus") == 4 and said.get("seq_len") == 2048, said


# --- a card named as a quota's or an allocation's is what the team holds, not this job's card -------------------

@pytest.mark.parametrize("text,gpu", [
    ("our A100 allocation is full, so lora qwen3 8b at 2k on 2 L40S", "l40s"),
    ("si no queda cuota de H100 (tenemos 8), lora de qwen3 8b a 2k en 2 L40S", "l40s"),
    ("the quota of H100s ran out; qlora qwen3 8b seq 2048 on one A100", "a100-80gb"),
])
def test_a_quota_card_is_not_this_jobs(text, gpu, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and said.get("gpu") == gpu, (intent, said)


def test_a_card_asked_for_is_still_read(catalog):  # the near form: no quota
    _, said = _said("lora qwen3 8b at 2k on 2 H100s", catalog)
    assert said.get("gpu") == "h100-sxm" and said.get("num_gpus") == 2, said


# --- a region or a card said to have no room is the one not to use ----------------------------------------------

_PARIS = SpecRequest(method="full", model="qwen2.5-7b", seq_len=4096, gpu="h100-sxm", num_gpus=8, region="eu-west")


@pytest.mark.parametrize("text,want", [
    ("Frankfurt, since Paris is out of capacity", {"region": "eu-central"}),
    ("Fráncfort, que París está lleno", {"region": "eu-central"}),
    ("A100s then, the H100s are sold out", {"gpu": "a100-80gb"}),
])
def test_a_full_region_or_card_is_not_used(text, want, catalog):
    intent, said = _said(text, catalog, _PARIS)
    assert intent == "followup" and {k: said.get(k) for k in want} == want, (intent, said)


def test_two_regions_without_a_reason_stay_a_question(catalog):  # the near form: nothing rules one out
    result = parse_message("Frankfurt or Paris?", catalog, previous=_PARIS)
    assert result.intent == "clarify", result.delta.said()


def test_a_bigger_bare_count_with_is_asked(catalog):  # the near form: 64 may be a rank or a batch
    result = parse_message("and with 32?", catalog, previous=_NO_COUNT)
    assert result.clarify_code == "number", result.clarify_code


# --- a paged optimizer's bits said with a preposition -----------------------------------------------------------

@pytest.mark.parametrize("text", ["qlora de phi 3 medium a 2k, adamw paginado de 8 bits",
                                  "qlora phi 3 medium seq 2048, paged AdamW in 8 bits",
                                  "qlora de phi 3 medium, secuencia 2048, paged adamw en 8 bits"])
def test_paged_adamw_with_its_bits_after_a_preposition(text, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and said.get("optimizer") == "paged-adamw-8bit", (intent, said)


def test_plain_adamw_with_a_count_after_it_is_no_paged_optimizer(catalog):  # the near form
    _, said = _said("qlora phi 3 medium seq 2048, adamw, 8 gpus", catalog)
    assert said.get("optimizer") == "adamw" and said.get("num_gpus") == 8, said


# --- a share of the data under or over a length is a statistic, not the length trained at ----------------------

@pytest.mark.parametrize("text", [
    "90% of the examples are over 512 tokens; lora qwen3 8b at 2k",
    "el 80% de las muestras tiene menos de 1k tokens; lora de qwen3 8b a 2048",
    "lora qwen3 8b seq 2048 (95% of our tickets are shorter than 900 tokens)",
])
def test_a_share_under_a_length_is_no_length(text, catalog):
    intent, said = _said(text, catalog)
    assert intent == "estimate" and said.get("seq_len") == 2048, (intent, said)


def test_a_bound_on_every_sample_is_still_the_length(catalog):  # the near form: no share
    _, said = _said("full fine-tune of Qwen2.5 0.5B, samples under 2k tokens", catalog)
    assert said.get("seq_len") == 2048, said
