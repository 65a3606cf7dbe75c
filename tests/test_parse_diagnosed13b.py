"""Names, intents and configs: mechanisms read from the diagnosed round-11 sets' failures (issue #13, round 13b).

Each test uses phrasings written here, in both languages, not the sets' own texts; each names the mechanism and
its neighbours (other orders, other link shapes, other tools' keys), which is what a new set will try.

- A Hub page's URL ("…/Qwen/Qwen2.5-0.5B/tree/main", "/blob/main/config.json", "/resolve/…", "/commit/<sha>",
  "/discussions/N") names the whole repository id, never one cut at a dot, and its page path is no setting.
- A version's mark between a family and its version ("Llama v3.2 1B", "llama-v3.1-8b", "Qwen versión 2.5"), a name
  wrapped over a line break, and a size with a decimal comma ("smollm2 de 1,7B") name the family's catalog model.
- No adapters said ("a no-adapter full fine-tune", "adapter-free", "sin ningún adaptador", ``use_peft: false``,
  NeMo's ``peft_scheme=none``, OpenRLHF's train_sft without ``--lora_rank``) is a full fine-tune; Oumi's
  ``q_lora: true`` is QLoRA.
- "Data-parallel" alone names no sharding (ZeRO and FSDP are data parallelism too); DDP by its name does.
- A form factor after the card's memory ("H100 80GB PCIe") names that variant.
- A value withdrawn in a thread ("Paris, not Frankfurt", "scratch the H100s, …", "olvida las H100, …") gives way,
  and "scratch that, 8k" corrects the thread's request instead of starting a new one.
- A model, then apart from it a size of its series the catalog has, is that sibling after a change word ("now …
  the 72B one") and a question between the two without one.
- Intents: can-I questions said as "is an L40S any use for …", "what kind of GPU should we rent", "what can I ask
  you?", a price list asked for with any verb of handing it over, a comparison with a preposition after "or".
- A keyword argument of pasted code that we do not model ("timeout=86400") and Ray's resources_per_worker dict are
  read and left alone (no number question).
"""

from __future__ import annotations

import pytest

from advisor.parse import parse_message
from advisor.spec import SpecRequest


def said(text, catalog, previous=None):
    return parse_message(text, catalog, previous=previous).delta.said()


# --- Hub links --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, model", [
    ("lora on https://huggingface.co/Qwen/Qwen2.5-1.5B/tree/main at 2048", "qwen2.5-1.5b"),
    ("qlora https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct/blob/main/config.json seq 4k", "llama-3.1-8b"),
    ("full FT of https://hf.co/mistralai/Mistral-7B-v0.3/resolve/main/tokenizer.json, 2k context", "mistral-7b-v0.3"),
    ("afinar con LoRA https://huggingface.co/Qwen/Qwen3-0.6B/commit/0123abcd4567ef secuencia 1024", "qwen3-0.6b"),
    ("lora https://huggingface.co/Qwen/Qwen2.5-3B/discussions/7 a 4096 tokens", "qwen2.5-3b"),
])
def test_a_hub_page_url_names_the_whole_catalog_id(text, model, catalog):
    got = said(text, catalog)
    assert got["model"] == model
    assert "params_b" not in got


@pytest.mark.parametrize("text, ident", [
    ("lora https://huggingface.co/HuggingFaceTB/SmolLM3-3B/tree/main seq 2048", "HuggingFaceTB/SmolLM3-3B"),
    ("qlora sobre https://huggingface.co/allenai/OLMo-2-0425-1B-SFT/blob/main/README.md, secuencia 4096",
     "allenai/OLMo-2-0425-1B-SFT"),
])
def test_a_hub_page_url_of_a_model_the_catalog_lacks_is_its_hub_id(text, ident, catalog):
    assert said(text, catalog)["model"] == ident


def test_a_hub_url_ending_a_sentence_keeps_its_dots(catalog):
    assert said("full fine-tune, base https://huggingface.co/Qwen/Qwen2.5-0.5B.", catalog)["model"] == "qwen2.5-0.5b"


# --- family names -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, model", [
    ("lora Llama v3.1 8B at 2k", "llama-3.1-8b"),
    ("qlora on llama-v2-13b, seq 4096", "llama-2-13b"),
    ("LoRA del Qwen v2.5 de 14B a 4k", "qwen2.5-14b"),
    ("qlora Gemma versión 2 9B, secuencia 2048", "gemma-2-9b"),
    ("full fine-tune of Llama version 3.2 3B at 8k", "llama-3.2-3b"),
])
def test_a_version_mark_between_family_and_version(text, model, catalog):
    got = said(text, catalog)
    assert got["model"] == model and "params_b" not in got


@pytest.mark.parametrize("text, model", [
    ("lora on Llama\n3.1 70B, seq 4096", "llama-3.1-70b"),
    ("qlora del modelo Qwen2.5\n14B con secuencia 2048", "qwen2.5-14b"),
])
def test_a_name_wrapped_over_a_line_break(text, model, catalog):
    assert said(text, catalog)["model"] == model


@pytest.mark.parametrize("text, model", [
    ("lora qwen2.5 de 0,5B a 2048", "qwen2.5-0.5b"),
    ("ajuste completo del smollm2 de 1,7B, secuencia 1024", "smollm2-1.7b"),
    ("qlora 1,5b qwen2.5 seq 4096", "qwen2.5-1.5b"),
])
def test_a_size_with_a_decimal_comma_names_the_model(text, model, catalog):
    got = said(text, catalog)
    assert got["model"] == model and "params_b" not in got


def test_a_thousands_group_is_no_decimal_size(catalog):
    """Three digits after the comma group thousands ("3,000"): never a size of 3.0 billion."""
    got = said("lora llama 3 8b seq 2048, 3,000b tokens of data", catalog)
    assert got.get("model") == "llama-3-8b"


# --- no adapters: the full fine-tune ----------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "a no-adapter fine-tune of qwen2.5 7b at 2k",
    "adapter-free SFT on llama 3.1 8b, seq 4096",
    "fine-tune mistral 7b with no PEFT, 4k context",
    "afinar qwen2.5 7b sin ningún adaptador, secuencia 2048",
    "entrenamiento sin adaptadores LoRA de llama 3.1 8b a 4k",
])
def test_no_adapters_said_is_the_full_fine_tune(text, catalog):
    assert said(text, catalog)["method"] == "full"


@pytest.mark.parametrize("text, method", [
    ("trl sft --model_name_or_path Qwen/Qwen2.5-1.5B --use_peft false --max_length 2048", "full"),
    ("model:\n  model_name: Qwen/Qwen2.5-7B\n  model_max_length: 4096\ntraining:\n  use_peft: false\n", "full"),
    ("model:\n  model_name: meta-llama/Llama-3.1-8B\ntraining:\n  use_peft: true\npeft:\n  lora_r: 8\n  q_lora: true\n",
     "qlora"),
    ("model:\n  model_name: meta-llama/Llama-3.1-8B\ntraining:\n  use_peft: true\npeft:\n  lora_r: 8\n  q_lora: false\n",
     "lora"),
    ("python megatron_gpt_finetuning.py trainer.devices=8 model.data.train_ds.max_seq_length=4096 "
     "model.peft.peft_scheme=none para qwen2.5 7b", "full"),
    ("python megatron_gpt_finetuning.py trainer.devices=2 model.peft.peft_scheme=lora on llama 3.1 8b seq 2048", "lora"),
    ("deepspeed --module openrlhf.cli.train_sft --pretrain meta-llama/Llama-3.1-8B --max_len 2048 "
     "--micro_train_batch_size 2 --zero_stage 3 --bf16", "full"),
    ("deepspeed --module openrlhf.cli.train_sft --pretrain Qwen/Qwen2.5-7B --max_len 4096 --lora_rank 32 --bf16", "lora"),
    ("deepspeed --module openrlhf.cli.train_sft --pretrain Qwen/Qwen2.5-7B --max_len 4096 --lora_rank 16 "
     "--load_in_4bit --bf16", "qlora"),
])
def test_config_keys_and_tools_that_say_the_method(text, method, catalog):
    assert said(text, catalog)["method"] == method


def test_openrlhf_per_gpu_batch_is_the_micro_batch(catalog):
    text = ("deepspeed --module openrlhf.cli.train_sft --pretrain Qwen/Qwen2.5-3B --max_len 1024 "
            "--micro_train_batch_size 8 --zero_stage 2 --bf16")
    assert said(text, catalog)["micro_batch"] == 8


# --- sharding, GPUs -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "lora qwen2.5 7b seq 2048, data-parallel on 4 L40S",
    "qlora llama 3.1 8b a 4k con paralelismo de datos en 2 A100",
    "full fine-tune qwen2.5 1.5b at 2k, data parallel across 8 H100s",
])
def test_data_parallel_alone_names_no_sharding(text, catalog):
    got = said(text, catalog)
    assert "sharding" not in got and got.get("num_gpus") in (2, 4, 8)


@pytest.mark.parametrize("text, sharding", [
    ("lora qwen2.5 7b seq 2048 with DistributedDataParallel on 4 L40S", "ddp"),
    ("full fine-tune qwen2.5 1.5b at 2k, data parallel on 8 H100s with ZeRO-3", "zero3"),
])
def test_ddp_by_name_and_zero_beside_data_parallel(text, sharding, catalog):
    assert said(text, catalog)["sharding"] == sharding


@pytest.mark.parametrize("text", [
    "lora qwen2.5 7b seq 2048 on 2 H100 80GB PCIe",
    "qlora llama 3.1 8b a 4k en una H100 80 GB PCIe",
    "full fine-tune qwen2.5 1.5b on an H100 (80GB, PCIe) at 2k",
])
def test_a_form_factor_after_the_memory_names_the_variant(text, catalog):
    assert said(text, catalog)["gpu"] == "h100-pcie"


def test_the_memory_alone_keeps_the_sxm_part(catalog):
    assert said("lora qwen2.5 7b seq 2048 on 2 H100 80GB", catalog)["gpu"] == "h100-sxm"


# --- withdrawn values and corrections in a thread -------------------------------------------------------------

_REGION_THREAD = SpecRequest(method="lora", model="qwen2.5-7b", seq_len=4096, gpu="h100-sxm", num_gpus=2,
                             region="eu-west")


@pytest.mark.parametrize("text, region", [
    ("Frankfurt, not Paris", "eu-central"),
    ("sorry: in Frankfurt instead of Paris", "eu-central"),
    ("en Fráncfort, no en París", "eu-central"),
    ("descarta París, mejor Fráncfort", "eu-central"),
])
def test_a_withdrawn_region_gives_way(text, region, catalog):
    result = parse_message(text, catalog, previous=_REGION_THREAD)
    assert result.intent == "followup" and result.request.region == region


_GPU_THREAD = SpecRequest(method="qlora", model="llama-3.1-8b", seq_len=4096, gpu="h100-sxm", num_gpus=2)


@pytest.mark.parametrize("text", [
    "forget the H100s, try it on L40S",
    "drop the H100, L40S instead",
    "olvida las H100, pruébalo en L40S",
    "quita las H100 y ponle L40S",
])
def test_a_dropped_gpu_gives_way_to_the_new_one(text, catalog):
    result = parse_message(text, catalog, previous=_GPU_THREAD)
    assert result.intent == "followup"
    assert result.request.gpu == "l40s" and result.request.model == "llama-3.1-8b"


@pytest.mark.parametrize("text", ["scratch that, 2k", "forget that, seq 2048", "olvida eso, secuencia 2048",
                                  "olvida lo anterior, 2k"])
def test_scratch_that_with_a_value_corrects_the_thread(text, catalog):
    result = parse_message(text, catalog, previous=_GPU_THREAD)
    assert result.intent == "followup"
    assert result.request.seq_len == 2048 and result.request.model == "llama-3.1-8b"


@pytest.mark.parametrize("text", ["start over", "scratch that", "empecemos de cero"])
def test_a_reset_alone_still_resets(text, catalog):
    assert parse_message(text, catalog, previous=_GPU_THREAD).intent == "reset"


def test_start_over_with_a_new_model_is_a_fresh_request(catalog):
    result = parse_message("start over: full fine-tune of qwen2.5 1.5b at 2k", catalog, previous=_GPU_THREAD)
    assert result.intent == "estimate" and result.request.gpu is None


# --- a sibling size in the same message ---------------------------------------------------------------------------

@pytest.mark.parametrize("text, model", [
    ("we ran LoRA on Qwen2.5 7B at 4k last month; this time we want the 14B, same length", "qwen2.5-14b"),
    ("el Llama 3.1 de 8B con QLoRA a 2k ya lo probamos, ahora queremos el de 70B", "llama-3.1-70b"),
])
def test_a_sibling_size_after_a_change_word(text, model, catalog):
    assert said(text, catalog)["model"] == model


@pytest.mark.parametrize("text", ["lora qwen2.5 7b at 4k, 14b", "qlora llama 3.1 8b 70b a 2k"])
def test_a_model_and_a_sibling_size_without_a_change_word_is_asked(text, catalog):
    result = parse_message(text, catalog)
    assert result.intent == "clarify" and result.clarify_code == "conflict"


# --- intents ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, gpu", [
    ("is a 4090 of any use for LLM fine-tuning?", "rtx-4090"),
    ("would a single L4 work for fine-tuning an LLM?", "l4"),
    ("is the A100 viable for fine-tuning?", "a100-80gb"),
    ("¿es útil una L40S para afinar modelos?", "l40s"),
    ("¿una 4090 aguanta un fine-tuning?", "rtx-4090"),
])
def test_can_i_questions(text, gpu, catalog):
    result = parse_message(text, catalog)
    assert result.intent == "faq" and result.faq == "can_i_gpu" and result.params["gpu"] == gpu


@pytest.mark.parametrize("text", ["first time here: what type of GPU would you recommend for fine-tuning?",
                                  "¿qué clase de GPU debería alquilar para entrenar un LLM?"])
def test_which_kind_of_gpu_is_the_gpu_choice_faq(text, catalog):
    result = parse_message(text, catalog)
    assert result.intent == "faq" and result.faq == "gpu_choice"


@pytest.mark.parametrize("text", ["what kind of things can I ask?", "what questions can the bot answer?",
                                  "¿qué cosas le puedo preguntar?", "¿qué preguntas contestas?"])
def test_what_can_i_ask_is_help(text, catalog):
    assert parse_message(text, catalog).intent == "help"


@pytest.mark.parametrize("text", ["could you share the price list?", "send me the pricing", "¿me pasas el catálogo?",
                                  "dame la lista de precios", "compárteme los precios"])
def test_asking_for_the_price_list_is_the_catalog(text, catalog):
    assert parse_message(text, catalog).intent == "catalog"


@pytest.mark.parametrize("text", ["qlora llama 3.1 8b at 2k on 2 L40S or on 1 H100",
                                  "lora qwen2.5 7b a 4k con 4 4090 o con 1 A100"])
def test_a_comparison_with_a_preposition_after_or(text, catalog):
    result = parse_message(text, catalog)
    assert result.intent == "compare" and len(result.gpus) == 2 and sorted(result.gpu_counts.values()) in ([1, 2], [1, 4])


# --- code keyword arguments -------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    'qlora llama 3.1 8b seq 2048\n```python\n@app.function(gpu="L40S:2", timeout=7200, retries=3)\ndef train(): ...\n```',
    "lora qwen2.5 7b a 4k: Trainer(model=m, seed=1234, save_total_limit=2)",
    'full fine-tune qwen2.5 1.5b at 2k, ScalingConfig(num_workers=2, use_gpu=True, resources_per_worker={"GPU": 1})',
])
def test_unmodelled_keyword_arguments_raise_no_number_question(text, catalog):
    result = parse_message(text, catalog)
    assert result.intent == "estimate", (result.intent, result.clarify_code)


def test_ray_workers_times_gpus_per_worker(catalog):
    text = 'lora qwen2.5 7b at 2k, ScalingConfig(num_workers=2, use_gpu=True, resources_per_worker={"GPU": 4})'
    assert said(text, catalog)["num_gpus"] == 8


@pytest.mark.parametrize("text", [
    "lora https://huggingface.co/Qwen/Qwen2.5-7B?library=transformers at 2k",
    "qlora https://huggingface.co/Qwen/Qwen2.5-7B#training-details, secuencia 2048",
])
def test_a_hub_links_query_or_fragment_is_no_setting(text, catalog):
    got = said(text, catalog)
    assert got["model"] == "qwen2.5-7b" and "stack" not in got


@pytest.mark.parametrize("text, attention", [
    ("model_name_or_path: Qwen/Qwen2.5-7B\nstage: sft\nfinetuning_type: lora\ncutoff_len: 4096\nflash_attn: fa2\n", "flash"),
    ("llamafactory-cli train --model_name_or_path Qwen/Qwen2.5-7B --finetuning_type lora --flash_attn disabled "
     "--cutoff_len 2048", "eager"),
    ("model_name_or_path: Qwen/Qwen2.5-7B\nfinetuning_type: lora\ncutoff_len: 4096\nflash_attn: sdpa\n", "flash"),
])
def test_llamafactory_flash_attn_names_the_attention(text, attention, catalog):
    assert said(text, catalog)["attention"] == attention


def test_llamafactory_flash_attn_auto_names_none(catalog):
    got = said("model_name_or_path: Qwen/Qwen2.5-7B\nfinetuning_type: lora\ncutoff_len: 4096\nflash_attn: auto\n", catalog)
    assert "attention" not in got


@pytest.mark.parametrize("text, named", [
    ("lora llama 3.1 8b at 2k on 2 H100 NVL", ("H100 PCIe", "H100 SXM")),
    ("qlora qwen2.5 7b a 4k en dos H200 NVL", ("H200",)),
])
def test_a_form_factor_the_catalog_lacks_is_asked(text, named, catalog):
    """A variant we do not list is a "did you mean" with the parts we do, never the other part sized silently."""
    result = parse_message(text, catalog)
    assert result.intent == "clarify" and result.clarify_code == "did_you_mean"
    assert all(name in result.question for name in named), result.question


def test_the_cards_own_form_over_a_line_break_is_part_of_its_name(catalog):
    got = said("lora qwen2.5 7b at 2k, one node with 8 B200\nSXM cards", catalog)
    assert got["gpu"] == "b200" and got["num_gpus"] == 8


@pytest.mark.parametrize("text, gpu", [("¿vale una L4 para fine-tuning?", "l4"), ("¿vale la 4090 para afinar un LLM?", "rtx-4090")])
def test_vale_before_a_gpu_is_a_can_i_question(text, gpu, catalog):
    result = parse_message(text, catalog)
    assert result.intent == "faq" and result.faq == "can_i_gpu" and result.params["gpu"] == gpu


@pytest.mark.parametrize("text", ["what gets erased when the instance shuts down?", "which files are gone once the job ends?",
                                  "¿qué se borra cuando termina el trabajo?", "¿qué se guarda al apagar la GPU?"])
def test_what_is_deleted_or_kept_after_the_job_is_the_persist_faq(text, catalog):
    result = parse_message(text, catalog)
    assert result.intent == "faq" and result.faq == "what_persists"


@pytest.mark.parametrize("text, gpu", [
    ("what's the rental price for an A100?", "a100-80gb"),
    ("cost per hour of the H200?", "h200"),
    ("¿cuál es la tarifa de la L4?", "l4"),
    ("¿a cuánto sale la B200?", "b200"),
])
def test_a_gpus_hourly_price_asked_is_the_catalog(text, gpu, catalog):
    result = parse_message(text, catalog)
    assert result.intent == "catalog" and result.params.get("gpu") == gpu


@pytest.mark.parametrize("text", ["what GPUs are there in Paris?", "do you have any GPUs in Frankfurt?",
                                  "¿hay tarjetas en Fráncfort?", "¿tienen algo en París?"])
def test_the_gpus_of_a_region_asked_is_the_catalog(text, catalog):
    assert parse_message(text, catalog).intent == "catalog"


@pytest.mark.parametrize("text, model", [
    ("lora on a 3B Llama (3.2) at 2k", "llama-3.2-3b"),
    ("qlora del llama de 8b (3.1) a 4k", "llama-3.1-8b"),
    ("full fine-tune of qwen 7b (v2.5), 2048 tokens", "qwen2.5-7b"),
])
def test_a_version_in_parentheses_after_the_family(text, model, catalog):
    result = parse_message(text, catalog)
    assert result.intent == "estimate" and result.delta.said()["model"] == model


def test_a_parenthesis_the_family_has_no_release_for_stays_a_question(catalog):
    result = parse_message("lora llama 8b (2) at 4k", catalog)
    assert result.intent == "clarify"


@pytest.mark.parametrize("text, method", [
    ("python finetune.py --base_model mistralai/Mistral-7B-v0.3 --use_lora --cutoff_len 2048", "lora"),
    ("python train.py --model_name_or_path Qwen/Qwen2.5-7B --lora_enable True --model_max_length 2048", "lora"),
    ("python train.py --model_name_or_path Qwen/Qwen2.5-7B --use_lora false --model_max_length 4096", "full"),
])
def test_a_scripts_lora_switch_says_the_method(text, method, catalog):
    assert said(text, catalog)["method"] == method


@pytest.mark.parametrize("text, model", [
    ("lora qwen 2,5 7b a 4k", "qwen2.5-7b"),
    ("qlora del llama 3,1 de 70b, secuencia 8192", "llama-3.1-70b"),
    ("LoRA of Qwen 2,5 14B at 2k", "qwen2.5-14b"),
])
def test_a_version_with_a_decimal_comma(text, model, catalog):
    assert said(text, catalog)["model"] == model


@pytest.mark.parametrize("text, n", [
    ("lora qwen2.5 7b at 4k\n```\ndocker run --rm --gpus '\"device=0,1,2\"' -v /ckpt:/ckpt myorg/trainer:2.0\n```", 3),
    ("ajuste completo de qwen2.5 1.5b a 2k: docker run --gpus device=5 trainer", 1),
])
def test_dockers_device_list_counts_the_gpus(text, n, catalog):
    assert said(text, catalog)["num_gpus"] == n


def test_autotrain_int4_quantization_is_qlora(catalog):
    text = "autotrain llm --train --model Qwen/Qwen2.5-7B --peft --quantization int4 --block_size 4096"
    assert said(text, catalog)["method"] == "qlora"


@pytest.mark.parametrize("text, want", [
    ("from the sheet:\n```\nmodel,method,seq_len,num_gpus,gpu\nQwen/Qwen2.5-7B,qlora,4096,2,L40S\n```",
     {"model": "qwen2.5-7b", "method": "qlora", "seq_len": 4096, "num_gpus": 2, "gpu": "l40s"}),
    ("fila de la hoja:\nmodel;method;max_seq_length;gpus\nmeta-llama/Llama-3.1-8B;full;2048;8",
     {"model": "llama-3.1-8b", "method": "full", "seq_len": 2048, "num_gpus": 8}),
])
def test_a_csv_row_under_its_header_is_read_as_pairs(text, want, catalog):
    got = said(text, catalog)
    assert {k: got.get(k) for k in want} == want


def test_two_csv_rows_with_two_lengths_are_asked(catalog):
    text = "model,method,seq_len\nQwen/Qwen2.5-7B,lora,2048\nQwen/Qwen2.5-7B,lora,8192"
    result = parse_message(text, catalog)
    assert result.intent == "clarify" and result.clarify_code == "conflict"


def test_prose_lines_with_commas_are_no_csv(catalog):
    got = said("lora qwen2.5 7b, 4k, 2 L40S\nthanks, cheers, bye", catalog)
    assert got == {"method": "lora", "model": "qwen2.5-7b", "seq_len": 4096, "num_gpus": 2, "gpu": "l40s"}


@pytest.mark.parametrize("text", ["qlora on 01-ai's Yi-6B at 4k", "qlora del Yi-6B de 01-ai a 4k", "qlora Yi-6B (by 01-ai), seq 4096"])
def test_an_organisation_said_apart_from_its_repo_is_no_number(text, catalog):
    result = parse_message(text, catalog)
    assert result.intent == "estimate" and result.delta.said()["model"] == "yi-6b"


@pytest.mark.parametrize("text", ["qwen2.5 3b at 4k, nothing frozen", "train qwen2.5 3b at 4k without freezing any layers",
                                  "qwen2.5 3b a 4k sin congelar nada", "afinar qwen2.5 3b a 4k, sin capas congeladas"])
def test_nothing_frozen_is_the_full_fine_tune(text, catalog):
    assert said(text, catalog)["method"] == "full"


@pytest.mark.parametrize("text, region", [("lora qwen2.5 3b a 4k en Europa occidental", "eu-west"),
                                          ("lora qwen2.5 3b a 4k en el centro de Europa", "eu-central"),
                                          ("qlora llama 3.1 8b a 2k, UE oeste", "eu-west")])
def test_a_region_by_its_part_of_europe_in_spanish(text, region, catalog):
    assert said(text, catalog)["region"] == region


@pytest.mark.parametrize("text", ["has anyone reserved the A100s for tomorrow's workshop?", "who took the L40S this morning?",
                                  "¿alguien está usando las 4090?", "¿quién tiene la H200 hoy?"])
def test_talk_about_people_around_a_card_is_no_request(text, catalog):
    result = parse_message(text, catalog)
    assert result.intent == "clarify" and result.clarify_code == "nothing"
    assert result.delta.said() == {}  # nothing carried into the thread


def test_a_card_alone_still_asks_for_the_model(catalog):
    result = parse_message("on 2 H100s", catalog)
    assert result.intent == "clarify" and result.clarify_code == "model"
