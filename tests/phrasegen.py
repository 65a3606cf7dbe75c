"""A generator of labelled chat messages: templates x vocabularies x both languages x slot orders
x noise, with a fixed seed, so the parser is measured on thousands of messages nobody tuned it on.

    from tests.phrasegen import generate, judge
    entries = generate(3000, split="diagnosed9", catalog=catalog, seed=13)   # SPLITS: tune, diagnosed..diagnosed9
    verdict = judge(entry, parse_message(entry["text"], catalog, previous=...))

Each entry is shaped like a row of tests/data/phrasings.json: ``text``, ``lang``, ``expected``
(the SpecRequest fields the message states, ``intent`` when it is not "estimate", and
``clarify_code`` where the right answer is a question back), ``previous`` for thread follow-ups,
and ``noise`` (what was done to the text).

Four vocabularies (``SPLITS``). Every list below has a ``tune`` part and a ``diagnosed`` part,
written together before the round-3 parser's rules, and round 4 added two more:

- ``tune`` draws only ``tune`` forms and templates; the parser is tuned on it.
- ``diagnosed`` draws ``diagnosed`` forms where a slot has them (tune forms only where it has none)
  and only ``diagnosed`` templates and config formats. It was the round-3 held-out split
  ("heldout", same seeds: the same messages); in round 4 its failures were read and their
  mechanisms fixed (tests/test_parse_diagnosed.py), so it no longer measures generalization.
- ``diagnosed2`` was round 4's first fresh vocabulary (committed as "unseen" in e5d3e32 before the
  parser ran on it): new model spellings (Ollama tags, upper-case display names, snake_case ids,
  plain Hub URLs, "-Instruct" repos, "the 8B Llama 3.1"), GPUs the earlier splits never name (H100
  PCIe, RTX 6000 Ada, A10G), new sentence frames, new config shapes (torchtune recipe YAML, a
  Transformers + PEFT script, an Unsloth script, a DeepSpeed JSON) and new noise (Slack quotes,
  group and channel mentions, thin-space thousands "16 384", mixed case "LLaMA", zero-width spaces,
  "thx!", blank lines, one-edit typos in setting words). Measured once (74.5% fully right, 204
  answers with an unsaid value), then diagnosed like ``diagnosed``.
- ``diagnosed3`` was round 4's second fresh vocabulary (committed as "unseen" in 7e626c0 before the
  parser ran on it): models written as "Llama-3.1-8B", "huggingface.co/<id>", "Llama 3.1 (8B)",
  catalog aliases, "<name> base"; LLaMA-Factory JSON, an accelerate config, a ``train.py`` command
  line, axolotl with packing and target lists; noise: Title Case, a comma without a space,
  ellipses, ticket and PR numbers, quarters and wiki links, hashtags, ZWJ emoji. Measured once
  (83.4% fully right, 183 answers with an unsaid value), then diagnosed.
- ``diagnosed4`` was round 4's third fresh vocabulary (committed as "unseen" in 4b61305 before the
  parser ran on it): models written as the Hub name alone ("Meta-Llama-3-8B"), "<display> model",
  "llama 3.1-8b", "8B-param Llama 3.1"; a TRL YAML recipe, a PEFT adapter_config.json, LitGPT's
  command line; noise: library versions, dates and times, a plain-text @name, smart quotes,
  "EDIT:", markdown headers and bold, a word of the other language. Measured once (64.9% fully
  right, 317 answers with an unsaid value), then diagnosed.
- ``diagnosed5`` was round 4's last fresh vocabulary (committed as "unseen" in 1d19e12 before the
  parser ran on it; measured once at aed0e24: 67.8% fully right, 342 answers with an unsaid value),
  then diagnosed (tests/test_parse_diagnosed5.py): models as "LLAMA-3.1-8B", a lower-cased Hub id, "Llama 3.1-8B"; GPUs as
  "a100-80", "40GB A100", "SXM H100", "PCIe H100", "L40-S", "MI-300X"; counts as "8-way", "qty 4",
  "NPROC=4", "4 unidades de"; new frames; a short axolotl config on an 8-bit base, Transformers
  TrainingArguments as JSON, ms-swift's command line; noise: Slack italics, tags ("[FYI]"), a word
  typed twice, "≈", a trailing "any thoughts?".
- ``diagnosed6`` was round 5's fresh vocabulary (committed as "unseen" in 6f61962 before the parser
  ran on it; measured once there: 61.0% fully right, 448 answers with an unsaid value), then diagnosed: models as "Llama 3.1–8B" (an en dash), "the <display> checkpoint", the Hub id in
  backticks; GPUs as "A100-SXM4-80GB", "H100 80GB HBM3", "AMD Instinct MI300X", "RTX4090"; counts as
  "across N X cards", "N× X", "X — N of them"; new frames; a Markdown settings table and an
  environment-variable launch line; noise: a "(1/2)" part counter, "btw"/"por cierto", a phone
  signature, a bullet for a comma.
- ``diagnosed7`` was round 6's fresh vocabulary (committed as "unseen" in 885447e before the parser
  ran on it; measured once at fcadba0: 83.0% fully right, 116 answers with an unsaid value), then diagnosed: models as "<hub id>@main", "Llama_3.1_8B", "<display> (base)"; GPUs as "A100 (80 GB)",
  "H100 SXM5", "Blackwell B200", "Instinct MI300X", "L40S card"; counts as "over Nx X", "N X GPUs in total",
  "a pool of N X"; new frames; a TOML config and a Python dict of settings; noise: Slack's "(edited)",
  "+1", a dashboard link, doubled question marks.
- ``diagnosed8`` was round 7's fresh vocabulary (committed as "unseen" in f9054fb before the parser
  ran on it; measured once at df197b6: 95.0% fully right, 68 answers with an unsaid value, 27 invented and
  42 misread), then diagnosed (tests/test_parse_diagnosed8.py): models as "hf.co/<hub id>", the display name in double quotes, "<display> base
  model"; GPUs as "A100-80GB-SXM", "H100 (SXM)", "H200 141G", "MI300X OAM", "H100-PCIE-80GB"; counts as
  "<GPU> ×N", "a node of N <GPU>"; new frames; LLaMA-Factory's command line and Hydra overrides; noise: a
  quoted line, a chat timestamp, an ellipsis for a comma, "lmk"/"avisad".
- ``diagnosed9`` was round 8's fresh vocabulary (committed as "unseen" in bb98599 before the parser
  ran on it; measured once at main 8f133db: 74.8% fully right (en 74.0%, es 75.9%), 3 answers with an
  unsaid value, 3 invented), then diagnosed (tests/test_parse_diagnosed9.py): models as "<org>/<name>" with a trailing "(HF)", "<display>, the base one",
  "<display> weights"; GPUs as "Nvidia H100 80G SXM5", "L40S-48GB", "RTX-4090", "AMD MI300X 192GB",
  "H200 SXM 141GB", "B200 (HGX)"; counts as "a N-GPU <GPU> box", "<GPU>, N units",
  "N of the <GPU> cards"; new frames ("Context: ... Question: ...", a numbered list); a nested YAML
  (OmegaConf) and a SLURM batch script with srun torchrun; noise: a "Re:" subject line, a trailing
  "(sent from mobile)", "FWIW"/"para que conste", tabs between items.

A quarter of each later split's forms are still familiar ones (``_FAMILIAR``), as in real traffic.

Labels are what a careful reader takes from the text, by construction (the slot that wrote the
phrase knows its value). Conventions follow ``advisor.parse``: k = 1024 in a sequence length and
1000 in token counts; "on an H100" names a GPU and no count, "on a single H100" a count of 1; a
family with a size ("llama 70b") is that family's newest model of that size; an axolotl config
without ``adapter`` is a full fine-tune (axolotl's docs: leave ``adapter`` blank to train all
parameters); LLaMA-Factory's ``quantization_bit: 4`` with ``finetuning_type: lora`` is QLoRA and
``lora_target: all`` every linear layer; TRL's ``--use_peft --load_in_4bit`` is QLoRA; torchtune's
``dtype: bf16`` trains pure bf16 (no fp32 master weights). A setting the spec gains from another
part of the advisor (gradient accumulation steps, an Unsloth stack, ZeRO stages) is labelled only
once ``advisor.spec.SpecRequest`` accepts it (``_spec_accepts``); until then the parser must read
it and leave it alone.

Noise: Slack markup (mentions, *bold*, `code`, emoji, links), upper/lower case, spacing and line
breaks, thousands separators of both conventions ("2,048", "2.048", "50.000.000"), decimal commas
in Spanish ("1,2B"), one-edit typos in method and model words (read as the word: the label keeps
the value) and two-edit typos in model words (the right answer is "did you mean ...?").
"""

from __future__ import annotations

import random
import re
from typing import Any

from advisor.catalog import Catalog
from advisor.spec import SpecRequest

SPLITS = ("tune", "diagnosed", "diagnosed2", "diagnosed3", "diagnosed4", "diagnosed5", "diagnosed6", "diagnosed7",
          "diagnosed8", "diagnosed9")
# The random stream of each split: "diagnosed" keeps round 3's "heldout" stream and "diagnosed2" the
# stream it had when it was round 4's first "unseen" split ("diagnosed3" its second's), so their messages are
# the ones measured then.
_STREAM = {"diagnosed": "heldout", "diagnosed2": "unseen", "diagnosed3": "unseen-r4b", "diagnosed4": "unseen-r4c",
           "diagnosed5": "unseen-r4d", "diagnosed6": "unseen-r5", "diagnosed7": "unseen-r6",
           "diagnosed8": "unseen-r7", "diagnosed9": "unseen-r8"}
# Familiar forms a quarter of each later split's messages still use.
_FAMILIAR = {"diagnosed": ("tune",), "diagnosed2": ("tune", "diagnosed"), "diagnosed3": ("tune", "diagnosed", "diagnosed2"),
             "diagnosed4": ("tune", "diagnosed", "diagnosed2", "diagnosed3"),
             "diagnosed5": ("tune", "diagnosed", "diagnosed2", "diagnosed3", "diagnosed4"),
             "diagnosed6": ("tune", "diagnosed", "diagnosed2", "diagnosed3", "diagnosed4", "diagnosed5"),
             "diagnosed7": ("tune", "diagnosed", "diagnosed2", "diagnosed3", "diagnosed4", "diagnosed5", "diagnosed6"),
             "diagnosed8": ("tune", "diagnosed", "diagnosed2", "diagnosed3", "diagnosed4", "diagnosed5", "diagnosed6",
                            "diagnosed7"),
             "diagnosed9": ("tune", "diagnosed", "diagnosed2", "diagnosed3", "diagnosed4", "diagnosed5", "diagnosed6",
                        "diagnosed7", "diagnosed8")}
ROUND4 = ("diagnosed2", "diagnosed3", "diagnosed4", "diagnosed5", "diagnosed6", "diagnosed7", "diagnosed8", "diagnosed9")  # and round 5's "unseen"

# --- vocabularies: slot -> lang -> split -> [(form, value)] ------------------------------------

METHODS = {
    "en": {
        "qlora": {"tune": ["qlora", "QLoRA", "q-lora", "QLORA", "4-bit LoRA", "LoRA in 4 bits", "4bit qlora",
                           "QLoRA fine-tune", "qlora finetuning", "4-bit qlora",
                           "qlora-style", "Q LoRA"],
                  "diagnosed": ["Q-LoRA", "qLoRA", "LoRA on a 4-bit base", "quantized LoRA (4-bit)", "4-bit QLoRA",
                              "LoRA w/ 4-bit quantization"]},
        "lora": {"tune": ["lora", "LoRA", "LoRA adapters", "peft lora", "PEFT", "LoRA fine-tuning", "LoRA finetune",
                          "LoRA SFT", "peft/lora", "LoRA-based fine-tuning", "a lora", "LORA"],
                 "diagnosed": ["low-rank adapters", "LoRA (PEFT)", "a LoRA adapter", "Lora", "LoRA-tune"]},
        "full": {"tune": ["full fine-tune", "full fine-tuning", "full FT", "full-parameter fine-tuning", "full finetune",
                          "full parameter training", "FFT", "SFT (full)", "full finetuning", "full-FT",
                          "full model fine-tuning", "all-parameter fine-tuning", "full SFT",
                          "full-weights FT", "whole-model fine-tuning"],
                 "diagnosed": ["full-weight fine-tuning", "full fine tuning", "full-param FT", "complete fine-tune",
                             "fine-tuning of all parameters", "full-parameter SFT"]},
    },
    "es": {
        "qlora": {"tune": ["QLoRA", "qlora", "LoRA en 4 bits", "LoRA cuantizado a 4 bits", "QLoRA de 4 bits", "QLoRA 4 bits"],
                  "diagnosed": ["Q-LoRA", "LoRA con base en 4 bits", "LoRA sobre un modelo cuantizado en 4 bits"]},
        "lora": {"tune": ["LoRA", "lora", "adaptadores LoRA", "ajuste fino con LoRA", "adaptadores PEFT",
                          "LoRA (adaptadores)"],
                 "diagnosed": ["adaptadores de bajo rango", "un adaptador LoRA", "PEFT con LoRA"]},
        "full": {"tune": ["ajuste fino completo", "ajuste completo", "entrenamiento completo", "fine-tuning completo",
                          "afinamiento completo", "ajuste fino total", "ajuste completo de parámetros",
                          "ajuste fino de todos los pesos", "full fine-tuning", "ajuste completo del modelo",
                          "afinamiento total", "fine-tuning de todos los parámetros"],
                 "diagnosed": ["afinado completo", "ajuste de todos los parámetros", "fine-tune completo",
                             "reentrenamiento completo", "entrenamiento de todos los pesos"]},
    },
}
# Method words that wrap the model ("entrenar X completo").
WRAPS = {
    "en": {"full": {"tune": ["fully fine-tune {model}", "full fine-tune of {model}"],
                    "diagnosed": ["fine-tune {model} end to end (all weights)", "train all of {model}'s weights"]},
           "lora": {"tune": ["LoRA-finetune {model}"], "diagnosed": ["put LoRA adapters on {model}"]},
           "qlora": {"tune": ["QLoRA-finetune {model}"], "diagnosed": ["4-bit LoRA on top of {model}"]}},
    "es": {"full": {"tune": ["entrenar {model} completo", "afinar {model} completo"],
                    "diagnosed": ["ajustar {model} entero", "entrenar todos los pesos de {model}"]},
           "lora": {"tune": ["afinar {model} con LoRA"], "diagnosed": ["ponerle adaptadores LoRA a {model}"]},
           "qlora": {"tune": ["afinar {model} con QLoRA"], "diagnosed": ["entrenar {model} con QLoRA"]}},
}

SEQ_VALUES = (512, 1024, 2048, 4096, 8192, 16384, 32768, 131072)
SEQ = {
    "en": {"tune": ["seq {n}", "seq {k}k", "at {k}k", "{k}k context", "context {n}", "seq_len {n}", "seq_len={n}",
                    "sequence length {n}", "max_seq_length {n}", "{n} tokens", "ctx {k}k", "{k}k ctx",
                    "context length {n}", "seq len {k}k", "seq_len: {n}", "max_seq_len={n}",
                    "{n} seq", "sequence length of {n}", "context of {k}k", "{k}k seq", "context={n}", "ctx={n}",
                    "max context {n}", "{n} ctx", "with {k}k context", "ctx length {n}",
                    "sequence length: {n}", "ctx window {k}k", "{k}k-token context", "context len {n}", "max_len {n}",
                    "{n} context length", "{n}-length sequences", "seq={n}"],
           "diagnosed": ["seq. {n}", "sequence {n}", "{n}-token context", "context window {k}k", "a {k}k context window",
                       "max length {n}", "{k}K context", "@ {k}k", "seqlen {n}", "cutoff_len {n}", "sequences of {n}"]},
    "es": {"tune": ["secuencia de {n}", "contexto de {k}k", "contexto {n}", "longitud de secuencia {n}",
                    "con {k}k de contexto", "secuencias de {n}", "seq {n}", "{k}k de contexto", "ctx {k}k",
                    "contexto de {n} tokens", "secuencias de {k}k", "con contexto {k}k", "largo de contexto {n}",
                    "longitud {n}", "contexto máximo de {n}", "secuencias de {n} tokens", "{k}k tokens de contexto"],
           "diagnosed": ["longitud de contexto de {n}", "ventana de contexto de {k}k", "secuencia {n}",
                       "{n} tokens de contexto", "con un contexto de {k}k", "largo de secuencia {n}"]},
}

GPU_FORMS = {
    "rtx-4090": {"tune": ["4090", "RTX 4090", "rtx4090"], "diagnosed": ["GeForce RTX 4090", "RTX-4090"]},
    "l40s": {"tune": ["L40S", "l40s"], "diagnosed": ["L40S 48GB"]},
    "a100-80gb": {"tune": ["A100", "A100 80GB", "a100"], "diagnosed": ["A100-80G", "A100 SXM"]},
    "h100-sxm": {"tune": ["H100", "H100 SXM", "h100"], "diagnosed": ["H100 80GB", "H100-SXM5"]},
    "h200": {"tune": ["H200"], "diagnosed": ["H200 SXM"]},
    "a100-40gb": {"tune": ["A100 40GB"], "diagnosed": ["A100-40G"]},
    "l4": {"tune": ["L4"], "diagnosed": ["NVIDIA L4"]},
    "b200": {"tune": ["B200"], "diagnosed": ["HGX B200"]},
    "mi300x": {"tune": ["MI300X"], "diagnosed": ["Instinct MI300X"]},
}
COUNT_WORDS = {"en": {2: "two", 4: "four", 8: "eight"}, "es": {2: "dos", 4: "cuatro", 8: "ocho"}}
# (form, says_count, says_gpu); {c} count, {cw} count word, {g} GPU
GPU_SLOT = {
    "en": {"tune": [("on {c} {g}s", 1, 1), ("on {c}x {g}", 1, 1), ("on {c} x {g}", 1, 1), ("{c}x{g}", 1, 1),
                    ("on a single {g}", "one", 1), ("on one {g}", "one", 1), ("on an {g}", 0, 1), ("on {g}", 0, 1),
                    ("with {c} GPUs", 1, 0), ("on {c} GPUs", 1, 0), ("torchrun --nproc_per_node {c}", 1, 0),
                    ("accelerate launch --num_processes {c}", 1, 0), ("deepspeed --num_gpus {c}", 1, 0),
                    ("with {c}x {g}", 1, 1), ("using {c} {g}s", 1, 1), ("{g} x{c}", 1, 1), ("{g}x{c}", 1, 1),
                    ("on one node of {c} {g}", 1, 1), ("single {g}", "one", 1), ("1x {g}", "one", 1),
                    ("{c} {g} cards", 1, 1), ("{c}×{g}", 1, 1), ("{cw} {g}", "word", 1), ("one {g}", "one", 1)],
           "diagnosed": [("across {c} {g}s", 1, 1), ("using {c}× {g}", 1, 1), ("on {cw} {g}s", "word", 1),
                       ("{c} {g} GPUs", 1, 1), ("on {c} cards", 1, 0), ("on 1 x {g}", "one", 1),
                       ("torchrun --nproc-per-node={c} train.py", 1, 0),
                       ("accelerate launch --multi_gpu --num_processes={c}", 1, 0), ("with a {g}", 0, 1)]},
    "es": {"tune": [("en {c} {g}", 1, 1), ("en {cw} {g}", "word", 1), ("en una {g}", 0, 1), ("en {g}", 0, 1),
                    ("con {c} GPUs", 1, 0), ("en una sola {g}", "one", 1), ("{c}x {g}", 1, 1),
                    ("con {c} {g}", 1, 1), ("en {c}x {g}", 1, 1), ("en un nodo de {c} {g}", 1, 1),
                    ("{cw} {g}", "word", 1), ("{c} tarjetas {g}", 1, 1), ("una {g}", 0, 1)],
           "diagnosed": [("usando {c} {g}", 1, 1), ("sobre {c} tarjetas {g}", 1, 1), ("con {c} GPUs {g}", 1, 1),
                       ("en {c} x {g}", 1, 1), ("con {cw} GPUs", "word", 0), ("torchrun --nproc_per_node {c}", 1, 0)]},
}

BATCH = {
    "en": {"tune": ["batch {b}", "bs {b}", "bs={b}", "micro-batch {b}", "micro batch size {b}",
                    "per_device_train_batch_size {b}", "batch size {b}", "micro batch {b}",
                    "mbs={b}", "batch size of {b}", "bsz {b}", "per-device batch size {b}", "{b} per device",
                    "batch={b}", "micro-batch size {b}", "{b} samples per device"],
           "diagnosed": ["mbs {b}", "{b} sequences per GPU", "per-device batch of {b}", "micro_batch_size: {b}",
                       "batch_size={b}", "a micro batch of {b}"]},
    "es": {"tune": ["lote {b}", "micro-lote de {b}", "tamaño de lote {b}", "batch {b}", "lote de {b}",
                    "tamaño del lote {b}", "micro-lote {b}", "batch de {b}", "tamaño de micro-lote {b}",
                    "lote por dispositivo {b}"],
           "diagnosed": ["lote por GPU de {b}", "micro lote {b}", "{b} secuencias por GPU"]},
}
GLOBAL_NOTE = {
    "en": {"tune": [" (global batch {gb})", ", grad accum {ga}"], "diagnosed": [" with gradient accumulation of {ga}",
                                                                            " (effective batch {gb})"]},
    "es": {"tune": [" (lote global {gb})", ", acumulación de gradientes {ga}"], "diagnosed": [" y lote efectivo de {gb}"]},
}
RANK = {
    "en": {"tune": ["rank {r}", "r={r}", "lora_r {r}", "lora rank {r}", "r {r}", "rank={r}", "lora_r={r}",
                    "LoRA rank of {r}", "r: {r}", "rank: {r}", "r of {r}", "LoRA rank={r}"],
           "diagnosed": ["rank-{r} adapters", "adapter rank {r}", "r{r}", "lora_r: {r}", "LoRA r = {r}"]},
    "es": {"tune": ["rango {r}", "rango de {r}", "r={r}", "r {r}", "con rango de {r}", "rango: {r}"], "diagnosed": ["rango LoRA de {r}", "con rango {r}", "rank {r}"]},
}
EPOCHS = {
    "en": {"tune": ["{e} epochs", "epochs={e}", "for {e} epochs", "{ew} epochs", "epochs: {e}", "num_epochs {e}",
                    "train for {e} epochs", "epochs {e}", "{e} full epochs", "train {e} epochs"],
           "diagnosed": ["{ew} epochs", "num_train_epochs {e}", "{e} passes over the data"]},
    "es": {"tune": ["{e} épocas", "{ew} épocas", "épocas: {e}", "por {e} épocas", "épocas {e}"], "diagnosed": ["durante {e} épocas", "{e} pasadas"]},
}
ONE_EPOCH = {"en": {"tune": ["1 epoch", "one epoch"], "diagnosed": ["a single epoch", "one pass over the data"]},
             "es": {"tune": ["una época", "1 época"], "diagnosed": ["una sola época", "una pasada"]}}
EPOCH_WORDS = {"en": {2: "two", 3: "three", 4: "four", 5: "five"}, "es": {2: "dos", 3: "tres", 4: "cuatro", 5: "cinco"}}

DATASET_VALUES = (5_000_000, 20_000_000, 50_000_000, 100_000_000, 200_000_000, 500_000_000, 1_200_000_000)
DATASET = {
    "en": {"tune": ["{D} tokens", "a dataset of {D} tokens", "{Dfull} tokens", "over {D} tokens",
                    "{D} training tokens", "{D} tokens total", "{D} tokens of data", "dataset: {D} tokens",
                    "{D} tokens of text", "dataset size {D} tokens", "~{D} tokens", "{D} toks"],
           "diagnosed": ["{Dwords} tokens", "a corpus of {D} tokens", "{D}-token dataset", "training on {D} tokens"]},
    "es": {"tune": ["{D} tokens", "datos de {D} tokens", "{Dfull} tokens", "{D} tokens de datos",
                    "dataset de {D} tokens", "{D} tokens en total", "unos {D} tokens", "{D} tokens de texto"],
           "diagnosed": ["un corpus de {D} tokens", "{Dwords} de tokens", "un dataset de {D} tokens"]},
}
EXAMPLES = {  # {X} examples of {L} tokens each -> X * L
    "en": {"tune": ["{X} examples of {L} tokens", "{X} samples of {L} tokens", "{X} training examples of {L} tokens"],
           "diagnosed": ["{X} samples averaging {L} tokens", "{X} rows x {L} tokens", "{X} conversations of ~{L} tokens"]},
    "es": {"tune": ["{X} ejemplos de {L} tokens", "{X} filas de {L} tokens"], "diagnosed": ["{X} muestras de unos {L} tokens",
                                                               "{X} conversaciones de {L} tokens"]},
}
GC = {
    "en": {"tune": [("with gradient checkpointing", True), ("without gradient checkpointing", False),
                    ("no gradient checkpointing", False), ("grad ckpt on", True)],
           "diagnosed": [("activation checkpointing enabled", True), ("gradient_checkpointing: false", False),
                       ("gc off", False), ("turn off gradient checkpointing", False)]},
    "es": {"tune": [("con gradient checkpointing", True), ("sin gradient checkpointing", False)],
           "diagnosed": [("sin checkpointing de activaciones", False), ("con checkpointing de gradientes", True)]},
}
OPTIMIZER = {
    "en": {"tune": [("8-bit adam", "adamw-8bit"), ("paged adamw 8bit", "paged-adamw-8bit"), ("adamw", "adamw"),
                    ("sgd", "sgd")],
           "diagnosed": [("adamw_bnb_8bit", "adamw-8bit"), ("optim=paged_adamw_8bit", "paged-adamw-8bit"),
                       ("bnb 8-bit AdamW", "adamw-8bit"), ("plain AdamW", "adamw")]},
    "es": {"tune": [("adam de 8 bits", "adamw-8bit"), ("adamw", "adamw")],
           "diagnosed": [("AdamW en 8 bits", "adamw-8bit"), ("paged_adamw_8bit", "paged-adamw-8bit")]},
}
PRECISION = {
    "en": {"tune": [("bf16", "bf16-mixed"), ("fp16", "fp16-mixed"), ("pure bf16", "bf16"), ("fp32", "fp32")],
           "diagnosed": [("bfloat16 mixed precision", "bf16-mixed"), ("fp16 mixed precision", "fp16-mixed"),
                       ("float32", "fp32"), ("bf16 everywhere", "bf16")]},
    "es": {"tune": [("bf16 mixta", "bf16-mixed"), ("fp32", "fp32")],
           "diagnosed": [("precisión mixta bf16", "bf16-mixed"), ("float32", "fp32")]},
}
REGION = {
    "en": {"tune": [("in Paris", "eu-west"), ("in Frankfurt", "eu-central")],
           "diagnosed": [("in EU West", "eu-west"), ("in Germany", "eu-central")]},
    "es": {"tune": [("en París", "eu-west"), ("en Fráncfort", "eu-central")],
           "diagnosed": [("en Francia", "eu-west"), ("en Alemania", "eu-central")]},
}
FAILED = {
    "en": {"tune": ["{p}% failed runs", "assume {p}% failed runs"], "diagnosed": ["failure rate {p}%"]},
    "es": {"tune": ["{p}% de ejecuciones fallidas"], "diagnosed": ["tasa de fallos del {p}%"]},
}
UNREADABLE = {  # a slot word with a value nobody can read: the answer is a question about that field
    "en": {"tune": [("seq len: max", "seq_len"), ("context: full", "seq_len"), ("rank: ?", "lora_rank"),
                    ("batch: tbd", "micro_batch")],
           "diagnosed": [("seq ??", "seq_len"), ("context length: big", "seq_len"), ("batch size: whatever fits", "micro_batch"),
                       ("lora rank: tbd", "lora_rank")]},
    "es": {"tune": [("secuencia: larga", "seq_len"), ("lote: ?", "micro_batch")],
           "diagnosed": [("contexto: el máximo", "seq_len"), ("rango: por decidir", "lora_rank")]},
}
# Family + size forms a person types, with the model they mean (the family's newest of that size).
FAMILY_SIZES = {"tune": [("llama 70b", "llama-3.3-70b"), ("qwen 7b", "qwen2.5-7b"), ("mistral 7b", "mistral-7b-v0.3"),
                         ("gemma 27b", "gemma-3-27b")],
                "diagnosed": [("qwen 14b", "qwen3-14b"), ("llama 8b", "llama-3.1-8b"), ("gemma 9b", "gemma-2-9b")]}
SIZES = (0.5, 1.5, 3, 7, 13, 20, 33, 70)
SIZE_FORMS = {
    "en": {"tune": ["{s}b", "{s}B", "a {s}B model", "{s}B model", "{s}B params"],
           "diagnosed": ["a {s}-billion-parameter model", "a {s}B-param LLM", "{s}B-parameter model"]},
    "es": {"tune": ["{s}B", "un modelo de {s}B", "{s} mil millones de parámetros"],
           "diagnosed": ["un modelo de {s} mil millones", "un LLM de {s}B", "modelo {s}B"]},
}

TEMPLATES = {
    "en": {"tune": ["{core} {rest}", "{core}, {rest}", "can we {core} {rest}?", "{rest} {core}", "need {core}: {rest}",
                    "how much to {core} with {rest}?", "{core}",
                    "can I {core} {rest}?", "what does it cost to {core} with {rest}", "{core} -- {rest}",
                    "how long to {core}, {rest}?", "we want to {core} with {rest}",
                    "- {core}\n- {rest}", "Q: {core}? {rest}", "{core}\n{rest}", "team wants {core} ({rest}), thoughts",
                    "sizing request: {core}, {rest}", "{core} {rest} pls", "{rest}. {core}.",
                    "do we have enough GPU for {core} {rest}?", "Estimate {core} w/ {rest}"],
           "diagnosed": ["what gpu should i rent to {core} {rest}?", "quick q: {core} - {rest}",
                       "is it feasible to {core} ({rest})?", "{core} | {rest}", "planning to {core} with {rest}, which card?",
                       "hi! {core}; {rest}. thoughts?"]},
    "es": {"tune": ["{core} {rest}", "{core}, {rest}", "¿podemos hacer {core} {rest}?", "quiero {core} con {rest}",
                    "{core}", "¿cuánto cuesta {core} con {rest}?", "¿se puede {core} {rest}?", "queremos {core}, {rest}",
                    "- {core}\n- {rest}", "pregunta: {core}, {rest}", "{core}\n{rest}", "¿nos alcanza para {core} con {rest}?",
                    "estimación para {core}: {rest}", "{rest}. {core}."],
           "diagnosed": ["¿qué GPU alquilo para {core} {rest}?", "necesitamos {core}: {rest}",
                       "¿cuánto costaría {core} con {rest}?", "{core} - {rest}", "hola, {core}; {rest}. ¿qué opinas?"]},
}
CORES = {
    "en": {"tune": ["{method} {model}", "{method} on {model}", "{method} of {model}", "{model} {method}",
                    "{method} with {model}", "{method}: {model}", "{model}, {method}"],
           "diagnosed": ["{method} for {model}", "{model} with {method}", "{model} ({method})"]},
    "es": {"tune": ["{method} de {model}", "{method} para {model}", "{model} con {method}", "{method} con {model}",
                    "{model}, {method}"],
           "diagnosed": ["{method} sobre {model}", "{model} en {method}"]},
}
FOLLOWUPS = {
    "en": {"tune": ["what about {slot}?", "and {slot}?", "same but {slot}", "try {slot}", "{slot} instead", "with {slot}",
                    "ok, {slot}", "what if {slot}?", "now with {slot}"],
           "diagnosed": ["ok now {slot}", "how about {slot}?", "and if we use {slot}?", "let's try {slot}", "redo it with {slot}"]},
    "es": {"tune": ["¿y con {slot}?", "¿y {slot}?", "mejor {slot}", "prueba con {slot}", "¿y si {slot}?",
                    "ahora con {slot}", "¿con {slot}?"],
           "diagnosed": ["¿qué tal con {slot}?", "ahora {slot}", "¿y si usamos {slot}?", "cambia a {slot}"]},
}
SWITCH_METHOD = {"en": {"tune": ["switch to {m}", "and with {m}?"], "diagnosed": ["what if we do {m} instead?"]},
                 "es": {"tune": ["¿y con {m}?", "cambia a {m}"], "diagnosed": ["¿y si hacemos {m}?"]}}
CONFIG_FORMATS = {"tune": ["axolotl", "llamafactory", "trl_python"], "diagnosed": ["axolotl_json", "trl_cli", "llamafactory_cli"]}
CONFIG_QUESTION = {
    "en": {"tune": ["will this fit on {a} {g}?", "can you check this config?", "cost of this on {c} {g}s?"],
           "diagnosed": ["does this run on {a} {g}?", "sanity check pls"]},
    "es": {"tune": ["¿esto cabe en una {g}?", "¿puedes revisar esta config?"], "diagnosed": ["¿cuánto cuesta esto en {c} {g}?"]},
}
MENTIONS = ("<@U04ABCDEF>", "<@U01ZZZ9|advisor>")
EMOJI = (" :rocket:", " 🙏", " :pray:", " :thinking_face:", " 🚀")

# --- the first round-4 held-out vocabulary ("diagnosed2") -------------------------------------------------------------
#
# Written in one go and committed (e5d3e32, as "unseen") before the parser ran on any of it; measured
# once there (74.5% fully right, 204 answers with an unsaid value), then its failures were read and their
# mechanisms fixed (tests/test_parse_diagnosed.py): diagnosed, like round 3's held-out forms.

METHODS["en"]["qlora"]["diagnosed2"] = ["4bit LoRA", "LoRA over a 4-bit quantized base", "QLoRA-style adapters",
                                    "quantised LoRA, 4 bit", "qlora (4-bit)", "Qlora"]
METHODS["en"]["lora"]["diagnosed2"] = ["LoRA adapter tuning", "parameter-efficient LoRA", "lora-based PEFT",
                                   "plain LoRA (no quantization)", "a LoRA finetune", "LoRA training"]
METHODS["en"]["full"]["diagnosed2"] = ["full-parameter training", "a full weight update", "full-model SFT",
                                   "dense full fine-tune", "complete fine-tuning (all params)", "a full finetune"]
METHODS["es"]["qlora"]["diagnosed2"] = ["QLoRA en 4 bits", "LoRA sobre base cuantizada a 4 bits", "qlora (4 bits)"]
METHODS["es"]["lora"]["diagnosed2"] = ["LoRA con PEFT", "adaptadores LoRA (PEFT)", "ajuste con LoRA"]
METHODS["es"]["full"]["diagnosed2"] = ["entrenamiento completo de todos los pesos", "ajuste completo (todos los parámetros)",
                                   "fine-tuning total", "afinado total", "ajuste fino completo del modelo entero"]
WRAPS["en"]["full"]["diagnosed2"] = ["fine-tune every weight of {model}", "update all of {model}'s parameters",
                                 "do a full fine-tune on {model}"]
WRAPS["en"]["lora"]["diagnosed2"] = ["train LoRA adapters for {model}", "attach LoRA to {model}"]
WRAPS["en"]["qlora"]["diagnosed2"] = ["load {model} in 4-bit and train LoRA on it", "QLoRA {model} in 4-bit"]
WRAPS["es"]["full"]["diagnosed2"] = ["reentrenar {model} entero", "ajustar todos los parámetros de {model}"]
WRAPS["es"]["lora"]["diagnosed2"] = ["entrenar adaptadores LoRA para {model}"]
WRAPS["es"]["qlora"]["diagnosed2"] = ["cargar {model} en 4 bits y entrenar LoRA encima"]

SEQ["en"]["diagnosed2"] = ["seq_len of {n}", "{n} token context", "context: {n}", "max_seq_len {n}", "ctx={k}k",
                       "{k}k-token sequences", "sequences up to {n} tokens", "context window of {n}",
                       "{n}-tok seqs", "max sequence length {n}", "@{k}k ctx", "seqlen={n}"]
SEQ["es"]["diagnosed2"] = ["longitud máxima de {n}", "secuencias de hasta {n} tokens", "ventana de {n} tokens",
                       "contexto {k}K", "longitud de secuencia: {n}", "largo máximo {n} tokens"]

for _ident, _forms in {"rtx-4090": ["RTX4090 24GB", "GeForce 4090"], "l40s": ["NVIDIA L40S", "L40S-48GB"],
                       "a100-80gb": ["A100-SXM4-80GB", "A100 (80GB)"], "h100-sxm": ["H100-SXM-80GB", "NVIDIA H100"],
                       "h200": ["H200-141GB", "NVIDIA H200"], "a100-40gb": ["A100 40 GB", "A100-SXM4-40GB"],
                       "l4": ["L4 24GB"], "b200": ["B200 180GB"], "mi300x": ["AMD MI300X"]}.items():
    GPU_FORMS[_ident]["diagnosed2"] = _forms
# GPUs only the round-4 splits name.
GPU_FORMS_R4 = {"h100-pcie": {"diagnosed2": ["H100 PCIe", "H100-PCIe-80GB"]},
                    "rtx-6000-ada": {"diagnosed2": ["RTX 6000 Ada"]}, "a10g": {"diagnosed2": ["A10G"]}}
GPU_SLOT["en"]["diagnosed2"] = [("spread over {c} {g}s", 1, 1), ("{c} GPUs ({g})", 1, 1), ("a node with {c}x{g}", 1, 1),
                            ("on a {c}-GPU {g} node", 1, 1), ("{g} (x{c})", 1, 1), ("we have {c} {g} cards", 1, 1),
                            ("torchrun --standalone --nproc_per_node={c}", 1, 0), ("deepspeed --num_gpus={c} train.py", 1, 0),
                            ("on just one {g}", "one", 1), ("using our {g}", 0, 1), ("{cw} GPUs", "word", 0),
                            ("{c} of our {g}s", 1, 1)]
GPU_SLOT["es"]["diagnosed2"] = [("repartido en {c} {g}", 1, 1), ("en un nodo con {c}x {g}", 1, 1), ("{c} GPUs ({g})", 1, 1),
                            ("en nuestra {g}", 0, 1), ("con solo una {g}", "one", 1), ("{cw} tarjetas", "word", 0),
                            ("usando {cw} {g}", "word", 1)]
BATCH["en"]["diagnosed2"] = ["micro-batch of {b}", "{b} per GPU", "per_device_batch_size={b}",
                         "train_micro_batch_size_per_gpu: {b}", "{b} seqs per device", "batch per device {b}", "micro_bs={b}"]
BATCH["es"]["diagnosed2"] = ["micro-lote por GPU de {b}", "lote de {b} por dispositivo", "{b} muestras por GPU",
                         "tamaño de micro-lote: {b}"]
GLOBAL_NOTE["en"]["diagnosed2"] = [" (grad accumulation {ga})", ", effective batch size {gb}", " and {ga} accumulation steps"]
GLOBAL_NOTE["es"]["diagnosed2"] = [" (acumulación de gradiente {ga})", ", lote efectivo {gb}"]
RANK["en"]["diagnosed2"] = ["LoRA r={r}", "rank {r} adapters", "lora_rank: {r}", "with r={r}", "a rank of {r}", "r = {r}"]
RANK["es"]["diagnosed2"] = ["rango de LoRA {r}", "con r={r}", "rango del adaptador {r}", "rango = {r}"]
EPOCHS["en"]["diagnosed2"] = ["{e} epochs total", "num_epochs={e}", "for {ew} epochs", "{e} training epochs", "epochs = {e}"]
EPOCHS["es"]["diagnosed2"] = ["{e} épocas de entrenamiento", "num_epochs: {e}", "{ew} pasadas por los datos", "entrenar {e} épocas"]
ONE_EPOCH["en"]["diagnosed2"] = ["just one epoch", "a single pass over the dataset"]
ONE_EPOCH["es"]["diagnosed2"] = ["solo una época", "una única época"]
DATASET["en"]["diagnosed2"] = ["{D} tokens worth of data", "about {D} tokens in total", "data: {D} tokens", "{D} tok dataset",
                           "{Dfull} training tokens", "{Dwords} tokens of training data"]
DATASET["es"]["diagnosed2"] = ["corpus de {D} tokens", "{D} tokens para entrenar", "en total {D} tokens",
                           "{Dwords} de tokens de entrenamiento"]
EXAMPLES["en"]["diagnosed2"] = ["{X} samples, avg {L} tokens each", "{X} examples (~{L} tokens each)", "{X} rows of about {L} tokens"]
EXAMPLES["es"]["diagnosed2"] = ["{X} ejemplos de ~{L} tokens", "{X} muestras con una media de {L} tokens"]
GC["en"]["diagnosed2"] = [("with activation checkpointing", True), ("grad checkpointing off", False),
                      ("gradient_checkpointing=True", True), ("no activation checkpointing", False)]
GC["es"]["diagnosed2"] = [("con recomputación de activaciones", True), ("desactivando el gradient checkpointing", False),
                      ("gradient checkpointing activado", True)]
OPTIMIZER["en"]["diagnosed2"] = [("8bit AdamW", "adamw-8bit"), ("paged AdamW (8-bit)", "paged-adamw-8bit"),
                             ("optim adamw_8bit", "adamw-8bit"), ("the AdamW optimizer", "adamw")]
OPTIMIZER["es"]["diagnosed2"] = [("AdamW de 8 bits", "adamw-8bit"), ("optimizador AdamW", "adamw"),
                             ("AdamW paginado de 8 bits", "paged-adamw-8bit")]
PRECISION["en"]["diagnosed2"] = [("bf16 mixed", "bf16-mixed"), ("mixed precision fp16", "fp16-mixed"), ("full fp32", "fp32"),
                             ("bf16 only", "bf16")]
PRECISION["es"]["diagnosed2"] = [("bf16 puro", "bf16"), ("fp16 mixta", "fp16-mixed"), ("precisión fp32", "fp32")]
REGION["en"]["diagnosed2"] = [("in eu-west", "eu-west"), ("in the Frankfurt region", "eu-central"), ("EU Central", "eu-central"),
                          ("Paris region", "eu-west")]
REGION["es"]["diagnosed2"] = [("en la región de París", "eu-west"), ("en la región EU Central", "eu-central"),
                          ("en Alemania (Fráncfort)", "eu-central")]
FAILED["en"]["diagnosed2"] = ["plan for {p}% failed runs", "{p}% of runs fail"]
FAILED["es"]["diagnosed2"] = ["un {p}% de ejecuciones fallidas", "el {p}% de los entrenamientos fallan"]
UNREADABLE["en"]["diagnosed2"] = [("seq len: as long as possible", "seq_len"), ("context: ???", "seq_len"),
                              ("micro batch: auto", "micro_batch"), ("rank: whatever", "lora_rank"), ("epochs: tbd", "epochs")]
UNREADABLE["es"]["diagnosed2"] = [("longitud de secuencia: la máxima", "seq_len"), ("lote: lo que quepa", "micro_batch"),
                              ("épocas: por definir", "epochs")]
FAMILY_SIZES["diagnosed2"] = [("qwen 32b", "qwen3-32b"), ("gemma 12b", "gemma-3-12b"), ("llama 13b", "llama-2-13b"),
                          ("falcon 40b", "falcon-40b"), ("yi 34b", "yi-34b"), ("deepseek 67b", "deepseek-llm-67b"),
                          ("olmo 7b", "olmo-2-7b"), ("qwen 1.5b", "qwen2.5-1.5b")]
SIZES_R4A = (1.1, 2, 6, 8, 14, 34, 65, 110)
SIZE_FORMS["en"]["diagnosed2"] = ["{s}B-sized model", "a model with {s}B parameters", "{s} billion params", "a dense {s}B model",
                              "our {s}B base model"]
SIZE_FORMS["es"]["diagnosed2"] = ["{s}B de parámetros", "un modelo de {s}B parámetros", "un modelo base de {s}B",
                              "modelo denso de {s} mil millones"]
TEMPLATES["en"]["diagnosed2"] = ["hey team, {core} — {rest}. doable?", "Requesting an estimate: {core}; {rest}", "{core}?? {rest}",
                             "would {core} with {rest} fit, and what would it cost?", "> {core}\n> {rest}",
                             "for context: {core}; {rest}", "thinking of {core}, {rest} — which GPU is cheapest?",
                             "{rest} → {core}", "TL;DR {core}, {rest}", "• {core}\n• {rest}", "ballpark for {core} ({rest})?",
                             "help me size {core} w/ {rest}"]
TEMPLATES["es"]["diagnosed2"] = ["hola equipo, {core} — {rest}. ¿es viable?", "solicito una estimación: {core}; {rest}",
                             "¿cabría {core} con {rest}? ¿y cuánto costaría?", "> {core}\n> {rest}", "• {core}\n• {rest}",
                             "pensando en {core}, {rest} — ¿qué GPU sale más barata?", "{rest} → {core}",
                             "para dar contexto: {core}; {rest}", "ayuda para dimensionar {core} con {rest}"]
CORES["en"]["diagnosed2"] = ["{method} run on {model}", "{model}: {method}", "{method} against {model}", "{method} — {model}",
                         "{method}, model: {model}"]
CORES["es"]["diagnosed2"] = ["{method} en {model}", "{model}: {method}", "{method} del modelo {model}", "{method} — {model}"]
FOLLOWUPS["en"]["diagnosed2"] = ["and with {slot} instead?", "same thing, {slot}", "could you redo it for {slot}?",
                             "swap to {slot}", "one more: {slot}", "hmm, {slot}?"]
FOLLOWUPS["es"]["diagnosed2"] = ["¿y cambiando a {slot}?", "lo mismo pero {slot}", "otra: {slot}",
                             "¿me lo recalculas con {slot}?", "vale, {slot}"]
SWITCH_METHOD["en"]["diagnosed2"] = ["let's go {m} instead", "could we do {m}?"]
SWITCH_METHOD["es"]["diagnosed2"] = ["¿y haciendo {m}?", "pasemos a {m}"]
CONFIG_FORMATS["diagnosed2"] = ["torchtune_yaml", "hf_python", "unsloth_python", "deepspeed_json"]
CONFIG_QUESTION["en"]["diagnosed2"] = ["would this fit on {c} {g}s?", "how much would this cost on {a} {g}?", "ok to run this?"]
CONFIG_QUESTION["es"]["diagnosed2"] = ["¿entra esto en {c} {g}?", "¿cuánto saldría en una {g}?"]
# Noise of the round-4 splits (``_Gen._noise_r4``).
GROUP_MENTIONS = ("<!subteam^S0123ABC|@ml-infra>", "<#C024BE91L|ml-infra>", "<!here>")
THANKS = {"en": (" thx!", " ty", " thanks in advance"), "es": (" gracias!", " ¡gracias!", " mil gracias")}
CASINGS = {"lora": ("LoRa", "Lora"), "qlora": ("QLoRa", "QLora"), "llama": ("LLaMA", "LLaMa"), "qwen": ("QWen", "QWEN"),
           "mistral": ("MisTral",), "gemma": ("GEMMA",)}
CUE_WORDS = ("context", "sequence", "epochs", "contexto", "secuencia", "batch")

# --- the second round-4 held-out vocabulary ("diagnosed3") ----------------------------------------
#
# Written in one go after "diagnosed2" was read, committed (7e626c0, as "unseen") before the parser ran on
# any of it, measured once there (83.4% fully right, 183 answers with an unsaid value), then diagnosed.

METHODS["en"]["qlora"]["diagnosed3"] = ["4-bit quantized LoRA", "LoRA on 4bit weights", "QLoRA finetuning", "qLoRa adapters",
                                    "bnb-4bit LoRA"]
METHODS["en"]["lora"]["diagnosed3"] = ["LoRA-only training", "a low rank adaptation", "adapter-based LoRA fine-tuning",
                                   "PEFT (LoRA)", "LoRA (not full FT)"]
METHODS["en"]["full"]["diagnosed3"] = ["full-parameter SFT", "full weights training", "a full FT", "full fine tune (no adapters)",
                                   "all-weights fine-tuning"]
METHODS["es"]["qlora"]["diagnosed3"] = ["QLoRA con cuantización de 4 bits", "LoRA cuantizado en 4 bits", "LoRA sobre pesos de 4 bits"]
METHODS["es"]["lora"]["diagnosed3"] = ["LoRA (sin cuantizar)", "ajuste fino con adaptadores LoRA", "entrenamiento de adaptadores LoRA"]
METHODS["es"]["full"]["diagnosed3"] = ["ajuste completo de pesos", "fine-tuning completo sin adaptadores", "entrenamiento total del modelo"]
WRAPS["en"]["full"]["diagnosed3"] = ["retrain all layers of {model}", "unfreeze all of {model} and fine-tune it"]
WRAPS["en"]["lora"]["diagnosed3"] = ["fine-tune {model} with LoRA adapters"]
WRAPS["en"]["qlora"]["diagnosed3"] = ["fine-tune a 4-bit {model} with LoRA"]
WRAPS["es"]["full"]["diagnosed3"] = ["afinar todas las capas de {model}"]
WRAPS["es"]["lora"]["diagnosed3"] = ["afinar {model} usando LoRA"]
WRAPS["es"]["qlora"]["diagnosed3"] = ["afinar {model} en 4 bits con LoRA"]

SEQ["en"]["diagnosed3"] = ["{n} tokens of context", "max_length={n}", "seq length {n}", "context size {k}k", "{k}K-token context",
                       "max seq {n}", "sequence_len {n}", "{n}-token seqs", "block_size={n}", "with {n}-token sequences"]
SEQ["es"]["diagnosed3"] = ["contexto máximo {n}", "secuencias de {n} tokens de largo", "longitud {k}K", "ventana de contexto {n}",
                       "hasta {k}k tokens de contexto"]
for _ident, _forms in {"rtx-4090": ["4090 24GB", "RTX 4090 (24GB)"], "l40s": ["l40s 48gb"], "a100-80gb": ["A100 80G", "A100-80GB SXM"],
                       "h100-sxm": ["H100 SXM5"], "h200": ["H200 141GB"], "a100-40gb": ["A100-40GB"], "l4": ["NVIDIA L4 24GB"],
                       "b200": ["B200-180GB"], "mi300x": ["MI300X 192GB"]}.items():
    GPU_FORMS[_ident]["diagnosed3"] = _forms
GPU_FORMS_R4["h100-pcie"]["diagnosed3"] = ["H100 PCIE 80GB"]
GPU_FORMS_R4["rtx-6000-ada"]["diagnosed3"] = ["RTX6000 Ada"]
GPU_FORMS_R4["a10g"]["diagnosed3"] = ["A10G 24GB"]
GPU_SLOT["en"]["diagnosed3"] = [("with {c} x {g}", 1, 1), ("on {c} {g} GPUs", 1, 1), ("on a {g} box with {c} cards", 1, 1),
                            ("{c} GPUs, {g}", 1, 1), ("across {cw} {g}s", "word", 1), ("using {c}x {g}s", 1, 1),
                            ("--nproc_per_node {c}", 1, 0), ("on one {g} only", "one", 1), ("on a {g}", 0, 1),
                            ("NUM_GPUS={c}", 1, 0)]
GPU_SLOT["es"]["diagnosed3"] = [("con {c} x {g}", 1, 1), ("en {c} GPUs {g}", 1, 1), ("usando {cw} GPUs", "word", 0),
                            ("en una {g} nada más", "one", 1), ("sobre {g}", 0, 1), ("en un servidor con {c} {g}", 1, 1)]
BATCH["en"]["diagnosed3"] = ["micro batch={b}", "batch {b} per device", "a per-GPU batch of {b}", "micro_batch_size={b}",
                         "{b} sequences per device", "--per_device_train_batch_size {b}"]
BATCH["es"]["diagnosed3"] = ["lote {b} por GPU", "micro-lote={b}", "{b} ejemplos por dispositivo"]
GLOBAL_NOTE["en"]["diagnosed3"] = [", accumulating {ga} steps", " (grad_accum={ga})"]
GLOBAL_NOTE["es"]["diagnosed3"] = [" con {ga} pasos de acumulación"]
RANK["en"]["diagnosed3"] = ["rank={r}", "lora r {r}", "adapter rank of {r}", "LoRA rank: {r}", "rank-{r} LoRA"]
RANK["es"]["diagnosed3"] = ["rango={r}", "LoRA de rango {r}", "rango LoRA: {r}"]
EPOCHS["en"]["diagnosed3"] = ["{e} full passes", "over {e} epochs", "--num_train_epochs {e}", "{ew} training epochs"]
EPOCHS["es"]["diagnosed3"] = ["{e} épocas completas", "durante {ew} épocas", "epochs: {e}"]
ONE_EPOCH["en"]["diagnosed3"] = ["a single epoch only", "1 pass"]
ONE_EPOCH["es"]["diagnosed3"] = ["una época nada más", "1 pasada"]
DATASET["en"]["diagnosed3"] = ["{D} tokens of training text", "a {D} token dataset", "dataset ~{D} tokens", "{Dwords} training tokens",
                           "roughly {D} tokens"]
DATASET["es"]["diagnosed3"] = ["{D} tokens de datos de entrenamiento", "un conjunto de datos de {D} tokens", "aprox. {D} tokens"]
EXAMPLES["en"]["diagnosed3"] = ["{X} examples at ~{L} tokens each", "{X} chats averaging {L} tokens"]
EXAMPLES["es"]["diagnosed3"] = ["{X} ejemplos de unos {L} tokens cada uno", "{X} conversaciones de ~{L} tokens"]
GC["en"]["diagnosed3"] = [("activation checkpointing on", True), ("without activation checkpointing", False),
                      ("grad ckpt: off", False)]
GC["es"]["diagnosed3"] = [("sin recomputar activaciones", False), ("gradient checkpointing: sí", True)]
OPTIMIZER["en"]["diagnosed3"] = [("AdamW 8-bit", "adamw-8bit"), ("paged_adamw_8bit optimizer", "paged-adamw-8bit"),
                             ("vanilla AdamW", "adamw"), ("plain SGD", "sgd")]
OPTIMIZER["es"]["diagnosed3"] = [("AdamW de 8-bit", "adamw-8bit"), ("SGD simple", "sgd"), ("optimizador adamw_torch", "adamw")]
PRECISION["en"]["diagnosed3"] = [("bf16 AMP", "bf16-mixed"), ("fp16 AMP", "fp16-mixed"), ("in full fp32", "fp32"),
                             ("pure bfloat16", "bf16")]
PRECISION["es"]["diagnosed3"] = [("bf16 (mixta)", "bf16-mixed"), ("precisión completa fp32", "fp32"), ("solo bf16", "bf16")]
REGION["en"]["diagnosed3"] = [("hosted in Frankfurt", "eu-central"), ("EU-West", "eu-west"), ("in France", "eu-west")]
REGION["es"]["diagnosed3"] = [("en la región de Fráncfort", "eu-central"), ("en EU-West", "eu-west")]
FAILED["en"]["diagnosed3"] = ["with {p}% of runs failing", "failure rate of {p}%"]
FAILED["es"]["diagnosed3"] = ["con un {p}% de fallos", "tasa de fallo {p}%"]
UNREADABLE["en"]["diagnosed3"] = [("seq: not decided", "seq_len"), ("batch size: max that fits", "micro_batch"),
                              ("rank: dunno", "lora_rank"), ("ctx length ???", "seq_len")]
UNREADABLE["es"]["diagnosed3"] = [("contexto: aún no sé", "seq_len"), ("rango: ni idea", "lora_rank")]
FAMILY_SIZES["diagnosed3"] = [("mistral 12b", "mistral-nemo-12b"), ("qwen 72b", "qwen2.5-72b"), ("gemma 4b", "gemma-3-4b"),
                          ("llama 405b", "llama-3.1-405b"), ("smollm 1.7b", "smollm2-1.7b"), ("deepseek 7b", "deepseek-llm-7b"),
                          ("llama 1b", "llama-3.2-1b")]
SIZES_R4B = (0.36, 1.8, 3.8, 9, 12, 24, 40, 180)
SIZE_FORMS["en"]["diagnosed3"] = ["{s}B-parameter LLM", "an LLM of {s}B params", "{s}B (dense)", "a {s} billion parameter model"]
SIZE_FORMS["es"]["diagnosed3"] = ["un modelo de {s} mil millones de parámetros", "LLM de {s}B", "{s}B parámetros"]
TEMPLATES["en"]["diagnosed3"] = ["{core}. {rest}. how many GPUs?", "question re sizing: {core} | {rest}",
                             "{core} ({rest}) — cost estimate please", "advisor: {core}, {rest}", "Our plan: {core}. Details: {rest}.",
                             "{core}\n\nsettings: {rest}", "could you estimate {core}, with {rest}?", "[{core}] {rest}",
                             "{rest}; {core} — feasible?", "Sizing: {core} / {rest}"]
TEMPLATES["es"]["diagnosed3"] = ["{core}. {rest}. ¿cuántas GPUs?", "consulta: {core} | {rest}", "{core} ({rest}) — ¿me das una estimación?",
                             "Nuestro plan: {core}. Detalles: {rest}.", "{core}\n\najustes: {rest}", "¿podrías estimar {core}, con {rest}?",
                             "{rest}; {core} — ¿es factible?"]
CORES["en"]["diagnosed3"] = ["{method} job for {model}", "{model} + {method}", "{method} using {model}", "{model} via {method}"]
CORES["es"]["diagnosed3"] = ["{method} usando {model}", "{model} + {method}", "{method} a {model}"]
FOLLOWUPS["en"]["diagnosed3"] = ["ok and with {slot}?", "change it to {slot}", "rerun with {slot}", "what if {slot} instead", "{slot} please"]
FOLLOWUPS["es"]["diagnosed3"] = ["¿y si ponemos {slot}?", "repítelo con {slot}", "cámbialo a {slot}", "{slot}, por favor"]
SWITCH_METHOD["en"]["diagnosed3"] = ["make it {m}", "rather {m}"]
SWITCH_METHOD["es"]["diagnosed3"] = ["que sea {m}", "mejor con {m}"]
CONFIG_FORMATS["diagnosed3"] = ["llamafactory_json", "accelerate_yaml", "train_py_cli", "axolotl_v2"]
CONFIG_QUESTION["en"]["diagnosed3"] = ["enough for {c} {g}s?", "what would {a} {g} cost for this?", "thoughts on this config?"]
CONFIG_QUESTION["es"]["diagnosed3"] = ["¿alcanzan {c} {g}?", "¿qué me recomiendas para esto?"]
# Noise of the unseen split (``_Gen._noise_r4b``): references whose digits are no setting, hashtags.
REFERENCES = {"en": ("(ticket ML-{n})", "for the Q{q} roadmap", "see https://wiki.example.com/ml/runs/{n}", "re: PR #{n}"),
              "es": ("(ticket ML-{n})", "para el Q{q}", "ver https://wiki.example.com/ml/runs/{n}")}
HASHTAGS = ("#finetuning", "#ml-infra", "#gpu")
CUE_WORDS_R4B = ("tokens", "context", "epochs", "batch", "ventana", "contexto", "épocas")

# --- the third round-4 held-out vocabulary ("diagnosed4") -----------------------------------------
#
# Written in one go after "diagnosed3" was read, committed (4b61305, as "unseen") before the parser ran on
# any of it, measured once there (64.9% fully right, 317 answers with an unsaid value), then diagnosed.

METHODS["en"]["qlora"]["diagnosed4"] = ["QLoRA-tune", "LoRA with a 4-bit frozen base", "4bit-quantized LoRA adapters", "qlora peft"]
METHODS["en"]["lora"]["diagnosed4"] = ["a LoRA run", "LoRA-style PEFT", "LoRA finetuning (16-bit base)", "adapters (LoRA)",
                                   "PEFT/LoRA training"]
METHODS["en"]["full"]["diagnosed4"] = ["full SFT run", "full-model training", "complete parameter fine-tuning", "FT of all weights",
                                   "a full-weights run"]
METHODS["es"]["qlora"]["diagnosed4"] = ["QLoRA (base de 4 bits)", "LoRA en cuatro bits", "ajuste QLoRA"]
METHODS["es"]["lora"]["diagnosed4"] = ["LoRA estándar", "un ajuste LoRA", "adaptadores de LoRA"]
METHODS["es"]["full"]["diagnosed4"] = ["ajuste fino de todo el modelo", "entrenamiento completo (sin LoRA)", "fine-tuning de todo el modelo"]
WRAPS["en"]["full"]["diagnosed4"] = ["train every parameter of {model}"]
WRAPS["en"]["lora"]["diagnosed4"] = ["add LoRA adapters to {model}"]
WRAPS["en"]["qlora"]["diagnosed4"] = ["quantize {model} to 4 bits and LoRA-tune it"]
WRAPS["es"]["full"]["diagnosed4"] = ["entrenar todo {model}"]
WRAPS["es"]["lora"]["diagnosed4"] = ["añadir adaptadores LoRA a {model}"]
WRAPS["es"]["qlora"]["diagnosed4"] = ["cuantizar {model} a 4 bits y ajustarlo con LoRA"]

SEQ["en"]["diagnosed4"] = ["sequence length = {n}", "context len: {n}", "{k}k token context window", "truncate to {n} tokens",
                       "{n} tokens per sample", "{k}k-ctx", "seq_length={n}", "contexts of {n} tokens", "at {n} tokens"]
SEQ["es"]["diagnosed4"] = ["longitud de secuencia = {n}", "truncar a {n} tokens", "contextos de {n} tokens", "{k}k de ventana",
                       "max_seq_len={n}"]
for _ident, _forms in {"rtx-4090": ["Nvidia GeForce RTX 4090"], "l40s": ["NVIDIA L40S 48 GB"],
                       "a100-80gb": ["A100 80 GB", "A100 SXM4 80GB"], "h100-sxm": ["H100 (SXM)", "H100 SXM 80GB"],
                       "h200": ["NVIDIA H200 SXM"], "a100-40gb": ["A100 (40GB)"], "l4": ["L4-24GB"], "b200": ["NVIDIA B200"],
                       "mi300x": ["AMD MI300"]}.items():
    GPU_FORMS[_ident]["diagnosed4"] = _forms
GPU_FORMS_R4["h100-pcie"]["diagnosed4"] = ["H100 PCIe (80GB)"]
GPU_FORMS_R4["rtx-6000-ada"]["diagnosed4"] = ["RTX 6000 Ada 48GB"]
GPU_FORMS_R4["a10g"]["diagnosed4"] = ["NVIDIA A10G"]
GPU_SLOT["en"]["diagnosed4"] = [("with {c} {g}'s", 1, 1), ("{g} × {c}", 1, 1), ("a {c}x{g} node", 1, 1), ("{c} {g} in one node", 1, 1),
                            ("only one {g}", "one", 1), ("our {g}", 0, 1), ("world size {c}", 1, 0), ("--num-gpus {c}", 1, 0)]
GPU_SLOT["es"]["diagnosed4"] = [("{c} x {g} en un nodo", 1, 1), ("únicamente una {g}", "one", 1), ("nuestra {g}", 0, 1),
                            ("{cw} {g}s", "word", 1), ("world size {c}", 1, 0)]
BATCH["en"]["diagnosed4"] = ["{b} samples/GPU", "micro-batch: {b}", "batch_size per gpu {b}", "per-device bs {b}", "local batch {b}"]
BATCH["es"]["diagnosed4"] = ["lote local {b}", "{b} muestras/GPU", "micro-lote: {b}"]
GLOBAL_NOTE["en"]["diagnosed4"] = [", global batch size of {gb}", " + grad accumulation x{ga}"]
GLOBAL_NOTE["es"]["diagnosed4"] = [", lote total {gb}"]
RANK["en"]["diagnosed4"] = ["LoRA r: {r}", "adapters of rank {r}", "a rank {r} LoRA", "rank r={r}"]
RANK["es"]["diagnosed4"] = ["rango r={r}", "adaptadores de rango {r}", "rango {r} para LoRA"]
EPOCHS["en"]["diagnosed4"] = ["{e} epochs of training", "a {e}-epoch run", "n_epochs={e}"]
EPOCHS["es"]["diagnosed4"] = ["{e} épocas en total", "n_epochs={e}", "{ew} épocas en total"]
ONE_EPOCH["en"]["diagnosed4"] = ["one epoch only", "a 1-epoch run"]
ONE_EPOCH["es"]["diagnosed4"] = ["1 época en total", "una sola época de entrenamiento"]
DATASET["en"]["diagnosed4"] = ["{D} tokens (dataset)", "a dataset with {D} tokens", "total of {D} tokens", "{Dwords} tokens total"]
DATASET["es"]["diagnosed4"] = ["dataset con {D} tokens", "un total de {D} tokens", "{Dwords} tokens en total"]
EXAMPLES["en"]["diagnosed4"] = ["{X} prompts of ~{L} tokens", "{X} samples x {L} tokens", "{X} docs averaging {L} tokens"]
EXAMPLES["es"]["diagnosed4"] = ["{X} documentos de {L} tokens de media", "{X} prompts de ~{L} tokens"]
GC["en"]["diagnosed4"] = [("gradient checkpointing enabled", True), ("gc: on", True), ("no grad checkpointing", False)]
GC["es"]["diagnosed4"] = [("con checkpointing", True), ("checkpointing de gradiente desactivado", False)]
OPTIMIZER["en"]["diagnosed4"] = [("adamw8bit", "adamw-8bit"), ("torch AdamW", "adamw"), ("paged 8-bit AdamW", "paged-adamw-8bit")]
OPTIMIZER["es"]["diagnosed4"] = [("AdamW 8 bits", "adamw-8bit"), ("AdamW paginado 8-bit", "paged-adamw-8bit")]
PRECISION["en"]["diagnosed4"] = [("bf16-mixed", "bf16-mixed"), ("AMP fp16", "fp16-mixed"), ("fp32 everywhere", "fp32"),
                             ("bf16 weights only", "bf16")]
PRECISION["es"]["diagnosed4"] = [("bf16 mixto", "bf16-mixed"), ("todo en fp32", "fp32")]
REGION["en"]["diagnosed4"] = [("Frankfurt region", "eu-central"), ("in Paris (EU West)", "eu-west")]
REGION["es"]["diagnosed4"] = [("región Fráncfort", "eu-central"), ("en París (EU West)", "eu-west")]
FAILED["en"]["diagnosed4"] = ["expect {p}% failures", "{p}% failure rate"]
FAILED["es"]["diagnosed4"] = ["esperamos un {p}% de fallos", "{p}% de tasa de fallo"]
UNREADABLE["en"]["diagnosed4"] = [("seq len = ?", "seq_len"), ("micro batch: as big as possible", "micro_batch"),
                              ("lora rank: tbc", "lora_rank")]
UNREADABLE["es"]["diagnosed4"] = [("longitud: por ver", "seq_len"), ("lote: el máximo posible", "micro_batch")]
FAMILY_SIZES["diagnosed4"] = [("qwen 0.6b", "qwen3-0.6b"), ("gemma 1b", "gemma-3-1b"), ("llama 3b", "llama-3.2-3b"),
                          ("falcon 7b", "falcon-7b"), ("yi 6b", "yi-6b"), ("smollm 360m", "smollm2-360m"), ("qwen 4b", "qwen3-4b")]
SIZES_R4C = (0.27, 2.7, 4.5, 10, 15, 27, 46, 130)
SIZE_FORMS["en"]["diagnosed4"] = ["{s}B params model", "an unnamed {s}B model", "{s}-billion model", "custom {s}B LLM"]
SIZE_FORMS["es"]["diagnosed4"] = ["modelo propio de {s}B", "un LLM de {s} mil millones", "modelo de {s}B (propio)"]
TEMPLATES["en"]["diagnosed4"] = ["hi all — {core}, {rest}. what do we need?", "{core}\n{rest}\ncheapest option?", "cost for {core}? {rest}",
                             "sanity check: {core} ({rest})", "{core} — {rest} — ETA?", "pls estimate: {core}; {rest}",
                             "need numbers for {core} w/ {rest}", ">>> {core}, {rest}"]
TEMPLATES["es"]["diagnosed4"] = ["hola a todos — {core}, {rest}. ¿qué necesitamos?", "{core}\n{rest}\n¿opción más barata?",
                             "¿coste de {core}? {rest}", "revisión rápida: {core} ({rest})", "porfa estima: {core}; {rest}",
                             "necesito números para {core} con {rest}"]
CORES["en"]["diagnosed4"] = ["{method} for the {model} model", "{model}, using {method}", "{method}@{model}"]
CORES["es"]["diagnosed4"] = ["{method} sobre el modelo {model}", "{model}, usando {method}", "{method} para el modelo {model}"]
FOLLOWUPS["en"]["diagnosed4"] = ["now try {slot}", "alright, {slot}", "{slot} then?"]
FOLLOWUPS["es"]["diagnosed4"] = ["vale, ¿y {slot}?", "entonces {slot}", "{slot} entonces"]
SWITCH_METHOD["en"]["diagnosed4"] = ["go with {m}", "try {m} instead"]
SWITCH_METHOD["es"]["diagnosed4"] = ["prueba {m} mejor", "vamos con {m}"]
CONFIG_FORMATS["diagnosed4"] = ["trl_yaml", "peft_json", "litgpt_cli"]
CONFIG_QUESTION["en"]["diagnosed4"] = ["which gpu for this?", "does this fit in {c} {g}s?"]
CONFIG_QUESTION["es"]["diagnosed4"] = ["¿qué GPU para esto?", "¿cabe en {c} {g}?"]
# Noise of this split (``_Gen._noise_r4c``): library versions, dates and times, a plain-text @name, smart
# quotes, "EDIT:", markdown headers, a word of the other language.
ASIDES = {"en": ("(we're on transformers 4.46 / peft 0.13)", "by 5pm tomorrow", "(deadline 2025-03-01)", "cc @maria",
                 "EDIT:", "## request"),
          "es": ("(usamos transformers 4.46 y peft 0.13)", "para mañana a las 17h", "(fecha límite 2025-03-01)", "cc @maria",
                 "EDIT:", "## petición")}
OTHER_LANGUAGE = {"en": (" gracias", " porfa"), "es": (" thanks", " pls")}

# --- the fifth round-4 vocabulary ("diagnosed5") --------------------------------------------------
#
# Written in one go after "diagnosed4" was read, committed (1d19e12, as "unseen") before the parser ran
# on any of it; measured once at aed0e24 (67.8% fully right, 342 answers with an unsaid value), then
# diagnosed (tests/test_parse_diagnosed5.py). Nothing below repeats a form of the earlier vocabularies.

METHODS["en"]["qlora"]["diagnosed5"] = ["Quantized LoRA", "QLoRA (bitsandbytes 4-bit)", "LoRA over 4-bit weights", "4 bit QLoRA run"]
METHODS["en"]["lora"]["diagnosed5"] = ["plain LoRA", "LoRA w/o quantization", "standard LoRA", "LoRA adapter training"]
METHODS["en"]["full"]["diagnosed5"] = ["full fine-tuning run", "full training of all params", "non-PEFT full fine-tune",
                                   "full finetune, no LoRA"]
METHODS["es"]["qlora"]["diagnosed5"] = ["LoRA cuantizada", "QLoRA con bitsandbytes", "QLoRA a 4 bits"]
METHODS["es"]["lora"]["diagnosed5"] = ["LoRA normal", "LoRA sin cuantización", "solo adaptadores LoRA"]
METHODS["es"]["full"]["diagnosed5"] = ["fine-tuning completo de parámetros", "ajuste total de pesos", "entrenamiento full"]
WRAPS["en"]["full"]["diagnosed5"] = ["full fine-tune {model} (every layer)"]
WRAPS["en"]["lora"]["diagnosed5"] = ["put a LoRA on {model}"]
WRAPS["en"]["qlora"]["diagnosed5"] = ["run QLoRA over {model}"]
WRAPS["es"]["full"]["diagnosed5"] = ["reentrenar {model} por completo"]
WRAPS["es"]["lora"]["diagnosed5"] = ["entrenar {model} con adaptadores LoRA"]
WRAPS["es"]["qlora"]["diagnosed5"] = ["hacer QLoRA sobre {model}"]

SEQ["en"]["diagnosed5"] = ["seq={n}", "ctx_len={n}", "{k}k tok context", "a max length of {n}", "{n} tok/sample", "cut at {n} tokens",
                       "{k}k context len"]
SEQ["es"]["diagnosed5"] = ["longitud máx. {n}", "corte a {n} tokens", "{k}k tokens por muestra", "contexto de hasta {n}"]
for _ident, _forms in {"rtx-4090": ["NV RTX 4090", "4090 GPU"], "l40s": ["L40-S"], "a100-80gb": ["a100-80", "A100/80GB"],
                       "h100-sxm": ["H100-SXM5-80GB", "SXM H100"], "h200": ["H200 GPU"], "a100-40gb": ["40GB A100"],
                       "l4": ["Nvidia-L4"], "b200": ["B200 GPU"], "mi300x": ["MI-300X"]}.items():
    GPU_FORMS[_ident]["diagnosed5"] = _forms
GPU_FORMS_R4["h100-pcie"]["diagnosed5"] = ["PCIe H100"]
GPU_FORMS_R4["rtx-6000-ada"]["diagnosed5"] = ["RTX 6000 Ada Generation"]
GPU_FORMS_R4["a10g"]["diagnosed5"] = ["A10G GPU"]
GPU_SLOT["en"]["diagnosed5"] = [("on {c} of the {g}s", 1, 1), ("{g} ×{c}", 1, 1), ("{c}-way {g}", 1, 1),
                            ("using {cw} {g} GPUs", "word", 1), ("{g}, qty {c}", 1, 1), ("NPROC={c}", 1, 0),
                            ("on a lone {g}", "one", 1), ("any {g}", 0, 1)]
GPU_SLOT["es"]["diagnosed5"] = [("en {c} de las {g}", 1, 1), ("{c} unidades de {g}", 1, 1), ("con una única {g}", "one", 1),
                            ("en alguna {g}", 0, 1)]
BATCH["en"]["diagnosed5"] = ["micro_bsz {b}", "{b} examples per GPU", "per-GPU micro batch {b}", "train_batch_size_per_device={b}"]
BATCH["es"]["diagnosed5"] = ["micro-batch {b}", "{b} secuencias/GPU", "tamaño de micro-lote de {b}"]
GLOBAL_NOTE["en"]["diagnosed5"] = [" (eff. batch {gb})", ", gradient_accumulation_steps={ga}"]
GLOBAL_NOTE["es"]["diagnosed5"] = [" (acumulación {ga})"]
RANK["en"]["diagnosed5"] = ["lora rank={r}", "r{r} adapters", "LoRA with r={r}", "rank {r} (LoRA)"]
RANK["es"]["diagnosed5"] = ["rango {r} (LoRA)", "LoRA con r={r}", "rango de adaptador {r}"]
EPOCHS["en"]["diagnosed5"] = ["{e} ep", "{e} passes", "{ew} epochs over the data", "train_epochs={e}"]
EPOCHS["es"]["diagnosed5"] = ["{e} épocas de datos", "{ew} pasadas completas", "épocas={e}"]
ONE_EPOCH["en"]["diagnosed5"] = ["1 ep", "a single training epoch"]
ONE_EPOCH["es"]["diagnosed5"] = ["1 sola época", "una pasada completa"]
DATASET["en"]["diagnosed5"] = ["corpus: {D} tokens", "{D} tokens in the dataset", "{Dwords} tokens of data", "~{D} tok"]
DATASET["es"]["diagnosed5"] = ["corpus: {D} tokens", "{D} tokens en el dataset", "{Dwords} tokens de datos"]
EXAMPLES["en"]["diagnosed5"] = ["{X} rows, ~{L} tok each", "{X} instructions of {L} tokens", "{X} QA pairs averaging {L} tokens"]
EXAMPLES["es"]["diagnosed5"] = ["{X} filas, ~{L} tokens cada una", "{X} pares pregunta-respuesta de {L} tokens"]
GC["en"]["diagnosed5"] = [("with grad checkpointing", True), ("activation checkpointing: disabled", False),
                      ("gradient_checkpointing=False", False)]
GC["es"]["diagnosed5"] = [("sin checkpointing de gradientes", False), ("activando gradient checkpointing", True)]
OPTIMIZER["en"]["diagnosed5"] = [("bnb AdamW8bit", "adamw-8bit"), ("AdamW (torch)", "adamw"), ("paged_adamw_8bit", "paged-adamw-8bit")]
OPTIMIZER["es"]["diagnosed5"] = [("AdamW 8-bit", "adamw-8bit"), ("AdamW normal", "adamw")]
PRECISION["en"]["diagnosed5"] = [("mixed bf16", "bf16-mixed"), ("fp16 mixed", "fp16-mixed"), ("float32 training", "fp32"),
                             ("bf16 (no AMP)", "bf16")]
PRECISION["es"]["diagnosed5"] = [("precisión mixta fp16", "fp16-mixed"), ("bf16 sin AMP", "bf16")]
REGION["en"]["diagnosed5"] = [("in EU Central", "eu-central"), ("Paris DC", "eu-west")]
REGION["es"]["diagnosed5"] = [("en el DC de Fráncfort", "eu-central"), ("en EU Central", "eu-central")]
FAILED["en"]["diagnosed5"] = ["about {p}% of runs will fail", "{p}% retries"]
FAILED["es"]["diagnosed5"] = ["un {p}% de reintentos"]
UNREADABLE["en"]["diagnosed5"] = [("seq len: TBD", "seq_len"), ("rank = ?", "lora_rank"), ("batch: depends", "micro_batch")]
UNREADABLE["es"]["diagnosed5"] = [("longitud: depende", "seq_len"), ("rango: ?", "lora_rank")]
FAMILY_SIZES["diagnosed5"] = [("gemma 2b", "gemma-2-2b"), ("qwen 3b", "qwen2.5-3b"), ("llama 7b", "llama-2-7b"),
                          ("qwen 1.7b", "qwen3-1.7b"), ("smollm 135m", "smollm2-135m")]
SIZES_R4D = (0.5, 1.3, 5, 11, 16, 22, 50, 90)
SIZE_FORMS["en"]["diagnosed5"] = ["{s}B model (ours)", "a {s}b-param dense LLM", "{s}-billion-parameter LLM", "a model of {s}B"]
SIZE_FORMS["es"]["diagnosed5"] = ["un LLM propio de {s}B", "modelo de {s} mil millones", "{s}B de parámetros (denso)"]
TEMPLATES["en"]["diagnosed5"] = ["{core}\n\n{rest}\n\nthanks!", "Ask: {core}. Constraints: {rest}.", "{core}, and {rest} — numbers?",
                             "quick estimate? {core} / {rest}", "{rest} :: {core}", "gpu advice for {core} ({rest})",
                             "{core}!! {rest}"]
TEMPLATES["es"]["diagnosed5"] = ["{core}\n\n{rest}\n\n¡gracias!", "Petición: {core}. Restricciones: {rest}.",
                             "{core}, y {rest} — ¿números?", "¿estimación rápida? {core} / {rest}",
                             "consejo de GPU para {core} ({rest})"]
CORES["en"]["diagnosed5"] = ["{method} — target model {model}", "{method} (model: {model})", "{model} => {method}"]
CORES["es"]["diagnosed5"] = ["{method} (modelo: {model})", "{model} => {method}", "{method}, modelo {model}"]
FOLLOWUPS["en"]["diagnosed5"] = ["how about {slot} then", "switch to {slot}", "and {slot} too?"]
FOLLOWUPS["es"]["diagnosed5"] = ["¿y con {slot} entonces?", "pasa a {slot}", "rehazlo con {slot}"]
SWITCH_METHOD["en"]["diagnosed5"] = ["let's do {m}", "switch it to {m}"]
SWITCH_METHOD["es"]["diagnosed5"] = ["hagamos {m}", "pásalo a {m}"]
CONFIG_FORMATS["diagnosed5"] = ["axolotl_minimal", "hf_trainer_json", "swift_cli"]
CONFIG_QUESTION["en"]["diagnosed5"] = ["what's the cheapest gpu for this?", "would {c} {g}s be enough?"]
CONFIG_QUESTION["es"]["diagnosed5"] = ["¿cuál es la GPU más barata para esto?", "¿bastan {c} {g}?"]
# Noise of this split (``_Gen._noise_r4d``).
TAGS = ("[FYI]", "[question]", "(urgent)")
TRAILERS = {"en": (" any thoughts?", " ideas?"), "es": (" ¿ideas?", " ¿qué pensáis?")}

# --- the round-5 vocabulary ("diagnosed6") -----------------------------------------------------------
#
# Written in one go after "diagnosed5" was read, committed (6f61962, as "unseen") before the parser ran on
# any of it; measured once there (61.0% fully right, 448 answers with an unsaid value), then diagnosed
# (tests/test_parse_diagnosed5.py, its second part). Nothing below repeats a form of the earlier vocabularies.

METHODS["en"]["qlora"]["diagnosed6"] = ["QLoRA (NF4)", "LoRA + 4-bit NF4 base", "bnb-4bit LoRA"]
METHODS["en"]["lora"]["diagnosed6"] = ["unquantized LoRA", "vanilla LoRA", "a PEFT LoRA run"]
METHODS["en"]["full"]["diagnosed6"] = ["full-parameter run", "dense full fine-tune", "fine-tune of every weight"]
METHODS["es"]["qlora"]["diagnosed6"] = ["QLoRA en NF4", "LoRA sobre base NF4"]
METHODS["es"]["lora"]["diagnosed6"] = ["LoRA clásico", "LoRA con PEFT"]
METHODS["es"]["full"]["diagnosed6"] = ["ajuste de parámetros completo", "entrenamiento de todos los parámetros"]
WRAPS["en"]["full"]["diagnosed6"] = ["train {model} fully"]
WRAPS["en"]["lora"]["diagnosed6"] = ["attach LoRA to {model}"]
WRAPS["en"]["qlora"]["diagnosed6"] = ["QLoRA-train {model}"]
WRAPS["es"]["full"]["diagnosed6"] = ["afinar {model} al completo"]
WRAPS["es"]["lora"]["diagnosed6"] = ["meterle LoRA a {model}"]
WRAPS["es"]["qlora"]["diagnosed6"] = ["pasar {model} por QLoRA"]

SEQ["en"]["diagnosed6"] = ["max_seq_length {n}", "{n}-token sequences", "ctx window {k}K", "sequences capped at {n}"]
SEQ["es"]["diagnosed6"] = ["secuencias de {n} tokens como máximo", "ventana de {k}K", "max_seq_length {n}"]
for _ident, _forms in {"rtx-4090": ["GeForce RTX 4090 (24 GB)", "RTX4090"], "l40s": ["NVIDIA L40S 48G"],
                       "a100-80gb": ["A100-SXM4-80GB", "A100 80G"], "h100-sxm": ["H100 80GB HBM3"], "h200": ["H200 141GB"],
                       "a100-40gb": ["A100-SXM4-40GB"], "l4": ["L4 24GB"], "b200": ["NVIDIA B200"],
                       "mi300x": ["AMD Instinct MI300X"]}.items():
    GPU_FORMS[_ident]["diagnosed6"] = _forms
GPU_FORMS_R4["h100-pcie"]["diagnosed6"] = ["H100-PCIe"]
GPU_FORMS_R4["rtx-6000-ada"]["diagnosed6"] = ["RTX 6000 Ada 48G"]
GPU_FORMS_R4["a10g"]["diagnosed6"] = ["A10G (24GB)"]
GPU_SLOT["en"]["diagnosed6"] = [("across {c} {g} cards", 1, 1), ("a box with {c}× {g}", 1, 1), ("{g} — {c} of them", 1, 1),
                            ("just one {g}", "one", 1), ("on whatever {g} is free", 0, 1)]
GPU_SLOT["es"]["diagnosed6"] = [("repartido en {c} {g}", 1, 1), ("una máquina con {c}× {g}", 1, 1), ("{g} — {c} en total", 1, 1),
                            ("solo una {g}", "one", 1)]
BATCH["en"]["diagnosed6"] = ["batch of {b} per card", "micro-batch={b}", "{b} seqs per device step"]
BATCH["es"]["diagnosed6"] = ["lote por tarjeta de {b}", "{b} ejemplos por GPU y paso"]
GLOBAL_NOTE["en"]["diagnosed6"] = [", accumulating {ga} steps", " (global {gb})"]
GLOBAL_NOTE["es"]["diagnosed6"] = [", acumulando {ga} pasos"]
RANK["en"]["diagnosed6"] = ["LoRA dim {r}", "r = {r} adapters", "adapter rank of {r}"]
RANK["es"]["diagnosed6"] = ["dimensión LoRA {r}", "adaptadores r = {r}"]
EPOCHS["en"]["diagnosed6"] = ["{e} full epochs", "for {e} epochs", "epochs: {e}"]
EPOCHS["es"]["diagnosed6"] = ["durante {ew} épocas", "épocas: {e}"]
ONE_EPOCH["en"]["diagnosed6"] = ["just one epoch", "one pass through the data"]
ONE_EPOCH["es"]["diagnosed6"] = ["una única época", "un solo pase por los datos"]
DATASET["en"]["diagnosed6"] = ["dataset ≈ {D} tokens", "a {D} tok corpus", "~{Dwords} tokens worth of data"]
DATASET["es"]["diagnosed6"] = ["{Dwords} tokens para entrenar", "datos: {D} tokens"]
EXAMPLES["en"]["diagnosed6"] = ["{X} samples @ {L} tokens", "{X} convos, {L} tokens on average"]
EXAMPLES["es"]["diagnosed6"] = ["{X} conversaciones de unos {L} tokens", "{X} ejemplos (≈{L} tokens)"]
GC["en"]["diagnosed6"] = [("grad ckpt: yes", True), ("no activation checkpointing", False)]
GC["es"]["diagnosed6"] = [("gradient checkpointing: sí", True), ("checkpointing: no", False)]
OPTIMIZER["en"]["diagnosed6"] = [("AdamW, 8-bit states", "adamw-8bit"), ("vanilla AdamW", "adamw"), ("paged AdamW 8bit", "paged-adamw-8bit")]
OPTIMIZER["es"]["diagnosed6"] = [("AdamW estándar", "adamw"), ("AdamW con estados de 8 bits", "adamw-8bit")]
PRECISION["en"]["diagnosed6"] = [("bf16 autocast", "bf16-mixed"), ("fp16 AMP", "fp16-mixed"), ("full fp32", "fp32")]
PRECISION["es"]["diagnosed6"] = [("bf16 con autocast", "bf16-mixed"), ("fp32 puro", "fp32")]
REGION["en"]["diagnosed6"] = [("Frankfurt (eu-central)", "eu-central"), ("our Paris region", "eu-west")]
REGION["es"]["diagnosed6"] = [("zona de París", "eu-west"), ("en Frankfurt", "eu-central")]
FAILED["en"]["diagnosed6"] = ["plan for {p}% failed attempts", "assume {p}% of jobs crash"]
FAILED["es"]["diagnosed6"] = ["contando un {p}% de intentos fallidos"]
UNREADABLE["en"]["diagnosed6"] = [("seq: not sure yet", "seq_len"), ("batch size = ??", "micro_batch")]
UNREADABLE["es"]["diagnosed6"] = [("lote: ni idea", "micro_batch")]
FAMILY_SIZES["diagnosed6"] = [("llama 13b", "llama-2-13b"), ("qwen 0.6b", "qwen3-0.6b"), ("smollm 360m", "smollm2-360m"),
                          ("tinyllama 1.1b", "tinyllama-1.1b")]
SIZES_R5 = (0.8, 2.5, 6, 13.5, 27, 34, 65, 120)
SIZE_FORMS["en"]["diagnosed6"] = ["a {s}B-sized model", "an in-house {s}B", "some {s}B LLM"]
SIZE_FORMS["es"]["diagnosed6"] = ["nuestro checkpoint de {s}B", "un modelo interno de {s}B"]
TEMPLATES["en"]["diagnosed6"] = ["re: sizing — {core}; {rest}", "{core}\n• {rest}", "Q for the advisor: {core}, {rest}?",
                             "{rest}. Setup: {core}"]
TEMPLATES["es"]["diagnosed6"] = ["pregunta para el bot: {core}, {rest}", "{core}\n• {rest}", "{rest}. Configuración: {core}"]
CORES["en"]["diagnosed6"] = ["{method} for {model}", "{method} — base: {model}"]
CORES["es"]["diagnosed6"] = ["{method} para {model}", "{method} — base: {model}"]
FOLLOWUPS["en"]["diagnosed6"] = ["what if {slot}?", "redo it with {slot}", "ok, now {slot}"]
FOLLOWUPS["es"]["diagnosed6"] = ["¿y si {slot}?", "vuelve a calcular con {slot}", "vale, ahora {slot}"]
SWITCH_METHOD["en"]["diagnosed6"] = ["try {m} instead", "what about {m}"]
SWITCH_METHOD["es"]["diagnosed6"] = ["prueba con {m}", "¿y con {m}?"]
CONFIG_FORMATS["diagnosed6"] = ["md_table", "env_script"]
CONFIG_QUESTION["en"]["diagnosed6"] = ["cost to a checkpoint on {c} {g}s?", "fits on {c} {g}s?"]
CONFIG_QUESTION["es"]["diagnosed6"] = ["¿cabe en {c} {g}?", "¿cuánto cuesta en {c} {g}?"]
# Noise of this split (``_Gen._noise_r5``).
SIGNATURES = ("\n-- sent from mobile", "\n(typed on my phone, sorry)")
INTERJECTIONS = {"en": ("btw ", "fwiw "), "es": ("por cierto, ", "ojo: ")}

# --- the round-6 vocabulary ("diagnosed7") -----------------------------------------------------------
#
# Written in one go after "diagnosed6" was read, committed (885447e, as "unseen") before the parser ran on
# any of it; measured once at fcadba0 (83.0% fully right, 116 answers with an unsaid value), then diagnosed
# (tests/test_parse_diagnosed7.py).
# Nothing below repeats a form of the earlier vocabularies.

METHODS["en"]["qlora"]["diagnosed7"] = ["Q-LoRA-style tuning", "LoRA atop a 4-bit-quantized model", "QLoRA SFT"]
METHODS["en"]["lora"]["diagnosed7"] = ["LoRA-only SFT", "low-rank adaptation (LoRA)", "LoRA, no quantization"]
METHODS["en"]["full"]["diagnosed7"] = ["FT of the whole network", "full SFT of all layers", "end-to-end full fine-tuning"]
METHODS["es"]["qlora"]["diagnosed7"] = ["QLoRA (modelo base en 4 bits)", "LoRA con el modelo cuantizado a 4 bits"]
METHODS["es"]["lora"]["diagnosed7"] = ["adaptación de bajo rango (LoRA)", "LoRA sin cuantizar"]
METHODS["es"]["full"]["diagnosed7"] = ["ajuste completo de la red", "entrenamiento completo de todas las capas"]
WRAPS["en"]["full"]["diagnosed7"] = ["update all weights of {model}"]
WRAPS["en"]["lora"]["diagnosed7"] = ["train LoRA adapters on {model}"]
WRAPS["en"]["qlora"]["diagnosed7"] = ["quantize {model} and train QLoRA adapters"]
WRAPS["es"]["full"]["diagnosed7"] = ["actualizar todos los pesos de {model}"]
WRAPS["es"]["lora"]["diagnosed7"] = ["entrenar adaptadores LoRA sobre {model}"]
WRAPS["es"]["qlora"]["diagnosed7"] = ["usar QLoRA con {model}"]

SEQ["en"]["diagnosed7"] = ["context of {n} tokens", "sequence length {k}K", "{n} tokens max per sequence"]
SEQ["es"]["diagnosed7"] = ["contexto de {n} tokens", "secuencias de {k}K", "máximo {n} tokens por secuencia"]
for _ident, _forms in {"rtx-4090": ["RTX 4090 24G"], "l40s": ["L40S card"], "a100-80gb": ["A100 (80 GB)", "A100 80-GB"],
                       "h100-sxm": ["H100 SXM5"], "h200": ["H200 SXM"], "a100-40gb": ["A100 (40 GB)"],
                       "l4": ["NVIDIA L4 GPU"], "b200": ["Blackwell B200"], "mi300x": ["Instinct MI300X"]}.items():
    GPU_FORMS[_ident]["diagnosed7"] = _forms
GPU_FORMS_R4["h100-pcie"]["diagnosed7"] = ["H100 PCIe card"]
GPU_FORMS_R4["rtx-6000-ada"]["diagnosed7"] = ["RTX 6000 Ada (48GB)"]
GPU_FORMS_R4["a10g"]["diagnosed7"] = ["A10G 24GB"]
GPU_SLOT["en"]["diagnosed7"] = [("over {c}x {g}", 1, 1), ("{c} {g} GPUs in total", 1, 1), ("a pool of {c} {g}", 1, 1),
                            ("a single {g} only", "one", 1), ("some {g}", 0, 1)]
GPU_SLOT["es"]["diagnosed7"] = [("{c} {g} en total", 1, 1), ("un pool de {c} {g}", 1, 1), ("una sola {g}", "one", 1)]
BATCH["en"]["diagnosed7"] = ["{b} samples per step per GPU", "device batch {b}", "batch/GPU: {b}"]
BATCH["es"]["diagnosed7"] = ["{b} muestras por paso y GPU", "lote por dispositivo: {b}"]
GLOBAL_NOTE["en"]["diagnosed7"] = [" with {ga}x grad accumulation", "; total batch {gb}"]
GLOBAL_NOTE["es"]["diagnosed7"] = [" con acumulación x{ga}"]
RANK["en"]["diagnosed7"] = ["rank-{r} LoRA", "LoRA(r={r})", "adapters at rank {r}"]
RANK["es"]["diagnosed7"] = ["LoRA de rango {r}", "adaptadores con rango {r}"]
EPOCHS["en"]["diagnosed7"] = ["{e} training epochs", "epoch count {e}", "run {e} epochs"]
EPOCHS["es"]["diagnosed7"] = ["{e} épocas de entrenamiento", "número de épocas {e}"]
ONE_EPOCH["en"]["diagnosed7"] = ["1 epoch only", "exactly one epoch"]
ONE_EPOCH["es"]["diagnosed7"] = ["exactamente una época", "solo 1 época"]
DATASET["en"]["diagnosed7"] = ["{D} tokens to train on", "corpus size {D} tokens"]
DATASET["es"]["diagnosed7"] = ["tamaño del corpus {D} tokens", "{D} tokens de entrenamiento"]
EXAMPLES["en"]["diagnosed7"] = ["{X} examples at ~{L} tokens apiece", "{X} records, {L} tokens each"]
EXAMPLES["es"]["diagnosed7"] = ["{X} registros de {L} tokens cada uno", "{X} ejemplos, unos {L} tokens por ejemplo"]
GC["en"]["diagnosed7"] = [("checkpointing on", True), ("w/o gradient checkpointing", False)]
GC["es"]["diagnosed7"] = [("gradient checkpointing apagado", False), ("con recomputación (gradient checkpointing)", True)]
OPTIMIZER["en"]["diagnosed7"] = [("Adam-W", "adamw"), ("8bit AdamW", "adamw-8bit")]
OPTIMIZER["es"]["diagnosed7"] = [("AdamW de 8 bits", "adamw-8bit"), ("el AdamW de siempre", "adamw")]
PRECISION["en"]["diagnosed7"] = [("mixed precision (bf16)", "bf16-mixed"), ("fp16 w/ AMP", "fp16-mixed"), ("pure fp32", "fp32")]
PRECISION["es"]["diagnosed7"] = [("precisión mixta en bf16", "bf16-mixed"), ("fp32 completo", "fp32")]
REGION["en"]["diagnosed7"] = [("EU-West / Paris", "eu-west"), ("in Frankfurt, Germany", "eu-central")]
REGION["es"]["diagnosed7"] = [("en Francia (París)", "eu-west"), ("en la región de Frankfurt", "eu-central")]
FAILED["en"]["diagnosed7"] = ["{p}% of runs failing", "a {p}% failure budget"]
FAILED["es"]["diagnosed7"] = ["con un {p}% de ejecuciones fallidas"]
UNREADABLE["en"]["diagnosed7"] = [("rank: whatever works", "lora_rank"), ("seq length: TBD later", "seq_len")]
UNREADABLE["es"]["diagnosed7"] = [("épocas: ya veremos", "epochs")]
FAMILY_SIZES["diagnosed7"] = [("gemma 9b", "gemma-2-9b"), ("smollm 1.7b", "smollm2-1.7b"), ("qwen 72b", "qwen2.5-72b"),
                          ("yi 34b", "yi-34b")]
SIZES_R6 = (1.1, 3.5, 9, 18, 40, 72, 140)
SIZE_FORMS["en"]["diagnosed7"] = ["a custom {s}B", "a {s}-billion param model"]
SIZE_FORMS["es"]["diagnosed7"] = ["nuestro modelo de {s}B", "un modelo a medida de {s}B"]
TEMPLATES["en"]["diagnosed7"] = ["{core}. {rest}. Thoughts?", "hi! {core} — {rest}", "{core}\n\nDetails: {rest}"]
TEMPLATES["es"]["diagnosed7"] = ["{core}. {rest}. ¿Opiniones?", "¡hola! {core} — {rest}", "{core}\n\nDetalles: {rest}"]
CORES["en"]["diagnosed7"] = ["{model} with {method}", "{method} targeting {model}"]
CORES["es"]["diagnosed7"] = ["{model} con {method}", "{method} apuntando a {model}"]
FOLLOWUPS["en"]["diagnosed7"] = ["same but {slot}", "now try {slot}"]
FOLLOWUPS["es"]["diagnosed7"] = ["lo mismo pero {slot}", "ahora prueba {slot}"]
SWITCH_METHOD["en"]["diagnosed7"] = ["make it {m}", "go with {m}"]
SWITCH_METHOD["es"]["diagnosed7"] = ["cámbialo a {m}", "mejor {m}"]
CONFIG_FORMATS["diagnosed7"] = ["toml_config", "python_dict"]
CONFIG_QUESTION["en"]["diagnosed7"] = ["is {c}x {g} enough for this?", "price on {c} {g}s?"]
CONFIG_QUESTION["es"]["diagnosed7"] = ["¿alcanza con {c} {g}?", "¿precio en {c} {g}?"]
# Noise of this split (``_Gen._noise_r6``).
DASHBOARDS = ("https://grafana.example.com/d/a1b2c3/gpu-util?from=now-6h&orgId=2",
              "https://wandb.ai/team/ft-runs/runs/3k9x2p7q")

# --- the round-7 vocabulary ("diagnosed8") --------------------------------------------------------------
#
# Written in one go after "diagnosed7" was read, committed (f9054fb, as "unseen") before the parser ran on
# any of it; measured once at df197b6 (95.0% fully right, 68 answers with an unsaid value), then diagnosed
# (tests/test_parse_diagnosed8.py). Nothing below repeats a form of the earlier vocabularies.

METHODS["en"]["qlora"]["diagnosed8"] = ["QLoRA w/ a 4-bit base", "4-bit LoRA (bitsandbytes)", "LoRA over an NF4-quantized base"]
METHODS["en"]["lora"]["diagnosed8"] = ["plain LoRA, base not quantized", "a LoRA finetune", "PEFT-LoRA"]
METHODS["en"]["full"]["diagnosed8"] = ["full-weight finetune", "all-parameter SFT", "a full finetune (no adapters)"]
METHODS["es"]["qlora"]["diagnosed8"] = ["QLoRA sobre base de 4 bits", "LoRA en 4 bits"]
METHODS["es"]["lora"]["diagnosed8"] = ["LoRA normal, sin cuantizar", "un finetune con LoRA"]
METHODS["es"]["full"]["diagnosed8"] = ["afinado de todos los pesos", "fine-tuning completo sin adaptadores"]
WRAPS["en"]["full"]["diagnosed8"] = ["retrain every parameter of {model}"]
WRAPS["en"]["lora"]["diagnosed8"] = ["bolt LoRA adapters onto {model}"]
WRAPS["en"]["qlora"]["diagnosed8"] = ["load {model} in 4-bit and LoRA it"]
WRAPS["es"]["full"]["diagnosed8"] = ["reentrenar todos los parámetros de {model}"]
WRAPS["es"]["lora"]["diagnosed8"] = ["ponerle adaptadores LoRA a {model}"]
WRAPS["es"]["qlora"]["diagnosed8"] = ["cargar {model} en 4 bits y entrenarle LoRA"]

SEQ["en"]["diagnosed8"] = ["seqlen={n}", "up to {n} tokens of context", "{k}k-token windows"]
SEQ["es"]["diagnosed8"] = ["longitud máx. {n} tokens", "contextos de {k}k"]
for _ident, _forms in {"rtx-4090": ["GeForce RTX 4090 (24 GB)"], "l40s": ["NVIDIA L40S 48GB"], "a100-80gb": ["A100-80GB-SXM"],
                       "h100-sxm": ["H100 (SXM)"], "h200": ["H200 141G"], "a100-40gb": ["A100 40G"],
                       "l4": ["L4 (24GB)"], "b200": ["NVIDIA B200"], "mi300x": ["MI300X OAM"]}.items():
    GPU_FORMS[_ident]["diagnosed8"] = _forms
GPU_FORMS_R4["h100-pcie"]["diagnosed8"] = ["H100-PCIE-80GB"]
GPU_FORMS_R4["rtx-6000-ada"]["diagnosed8"] = ["RTX6000 Ada"]
GPU_FORMS_R4["a10g"]["diagnosed8"] = ["NVIDIA A10G"]
GPU_SLOT["en"]["diagnosed8"] = [("{g} ×{c}", 1, 1), ("a node of {c} {g}", 1, 1), ("just one {g}", "one", 1),
                            ("whatever {g} is free", 0, 1)]
GPU_SLOT["es"]["diagnosed8"] = [("{g} ×{c}", 1, 1), ("un nodo de {c} {g}", 1, 1), ("solo una {g}", "one", 1)]
BATCH["en"]["diagnosed8"] = ["mbs={b}", "{b} seqs/GPU", "per-GPU batch of {b}"]
BATCH["es"]["diagnosed8"] = ["{b} secuencias por GPU", "lote de {b} por GPU"]
GLOBAL_NOTE["en"]["diagnosed8"] = [" (grad accum {ga})", ", {gb} sequences per optimizer step"]
GLOBAL_NOTE["es"]["diagnosed8"] = [" (acumulando {ga} pasos)"]
RANK["en"]["diagnosed8"] = ["LoRA rank={r}", "adapter r of {r}", "rank {r} for the adapters"]
RANK["es"]["diagnosed8"] = ["rango={r}", "r de {r} en los adaptadores"]
EPOCHS["en"]["diagnosed8"] = ["{e} passes over the dataset", "epochs: {e}", "for {e} epochs"]
EPOCHS["es"]["diagnosed8"] = ["durante {e} épocas", "épocas: {e}"]
ONE_EPOCH["en"]["diagnosed8"] = ["a single epoch", "one pass over the data"]
ONE_EPOCH["es"]["diagnosed8"] = ["una única época", "una sola pasada por los datos"]
DATASET["en"]["diagnosed8"] = ["~{D} tokens of training data", "a corpus of {D} tokens"]
DATASET["es"]["diagnosed8"] = ["un corpus de {D} tokens", "unos {D} tokens de datos"]
EXAMPLES["en"]["diagnosed8"] = ["{X} chats of about {L} tokens", "{X} rows × {L} tokens"]
EXAMPLES["es"]["diagnosed8"] = ["{X} conversaciones de unos {L} tokens", "{X} filas × {L} tokens"]
GC["en"]["diagnosed8"] = [("grad checkpointing enabled", True), ("no activation recompute", False)]
GC["es"]["diagnosed8"] = [("con checkpointing de gradientes", True), ("sin recomputar activaciones", False)]
OPTIMIZER["en"]["diagnosed8"] = [("AdamW (torch)", "adamw"), ("bnb 8-bit AdamW", "adamw-8bit")]
OPTIMIZER["es"]["diagnosed8"] = [("AdamW estándar", "adamw"), ("AdamW en 8 bits", "adamw-8bit")]
PRECISION["en"]["diagnosed8"] = [("bf16 AMP", "bf16-mixed"), ("full fp32", "fp32")]
PRECISION["es"]["diagnosed8"] = [("bf16 mixto", "bf16-mixed"), ("todo en fp32", "fp32")]
REGION["en"]["diagnosed8"] = [("Paris DC", "eu-west"), ("Frankfurt region", "eu-central")]
REGION["es"]["diagnosed8"] = [("en el centro de datos de París", "eu-west"), ("zona Frankfurt", "eu-central")]
FAILED["en"]["diagnosed8"] = ["expect {p}% failed runs", "{p}% of jobs crash"]
FAILED["es"]["diagnosed8"] = ["un {p}% de trabajos fallan"]
UNREADABLE["en"]["diagnosed8"] = [("rank = your call", "lora_rank"), ("batch size: not sure", "micro_batch")]
UNREADABLE["es"]["diagnosed8"] = [("secuencia: ni idea", "seq_len")]
FAMILY_SIZES["diagnosed8"] = [("deepseek 67b", "deepseek-llm-67b"), ("falcon 40b", "falcon-40b"), ("olmo 7b", "olmo-2-7b"),
                          ("yi 6b", "yi-6b")]
SIZES_R7 = (0.8, 2.7, 6, 11, 22, 65, 180)
SIZE_FORMS["en"]["diagnosed8"] = ["an in-house {s}B model", "our {s}B-parameter LLM"]
SIZE_FORMS["es"]["diagnosed8"] = ["un LLM propio de {s}B", "un modelo interno de {s}B"]
TEMPLATES["en"]["diagnosed8"] = ["quick q: {core}, {rest}", "{core} ({rest}) — what would you pick?", "Background: {rest}. Ask: {core}"]
TEMPLATES["es"]["diagnosed8"] = ["pregunta rápida: {core}, {rest}", "{core} ({rest}) — ¿qué elegiríais?", "Antecedentes: {rest}. Pregunta: {core}"]
CORES["en"]["diagnosed8"] = ["{method} of {model}", "{model} via {method}"]
CORES["es"]["diagnosed8"] = ["{method} de {model}", "{model} vía {method}"]
FOLLOWUPS["en"]["diagnosed8"] = ["ok and {slot}?", "what about {slot} instead"]
FOLLOWUPS["es"]["diagnosed8"] = ["vale, ¿y {slot}?", "cambia a {slot}"]
SWITCH_METHOD["en"]["diagnosed8"] = ["switch the method to {m}", "let's do {m}"]
SWITCH_METHOD["es"]["diagnosed8"] = ["pasa a {m}", "hagámoslo con {m}"]
CONFIG_FORMATS["diagnosed8"] = ["llamafactory_cli", "hydra_overrides"]
CONFIG_QUESTION["en"]["diagnosed8"] = ["would {c} {g}s handle this?", "cheapest way to run this on {g}?"]
CONFIG_QUESTION["es"]["diagnosed8"] = ["¿lo aguantan {c} {g}?", "¿cuánto saldría en {g}?"]
# Noise of this split (``_Gen._noise_r7``).
QUOTES = {"en": ("> lgtm, ask the bot\n", "> from the planning doc\n"), "es": ("> ok, pregúntale al bot\n", "> del doc de planificación\n")}
TRAILERS_R7 = {"en": (" lmk", " ty!"), "es": (" avisad", " ¡gracias!")}

# --- the round-8 vocabulary ("diagnosed9") --------------------------------------------------------------
#
# Written in one go after "diagnosed8" was read, committed (bb98599, as "unseen") before the parser ran on
# any of it; measured once (74.8% fully right, 3 answers with an unsaid value), then diagnosed
# (tests/test_parse_diagnosed9.py). Nothing below repeats a form of the earlier vocabularies.

METHODS["en"]["qlora"]["diagnosed9"] = ["QLoRA (4-bit NF4 base)", "a QLoRA run", "LoRA adapters over a 4-bit base model"]
METHODS["en"]["lora"]["diagnosed9"] = ["LoRA, unquantized base", "standard LoRA", "a LoRA run"]
METHODS["en"]["full"]["diagnosed9"] = ["full-parameter finetune", "a full fine-tune of every layer", "full-rank training, no adapters"]
METHODS["es"]["qlora"]["diagnosed9"] = ["QLoRA (base NF4)", "un QLoRA"]
METHODS["es"]["lora"]["diagnosed9"] = ["LoRA estándar", "un LoRA sin cuantización"]
METHODS["es"]["full"]["diagnosed9"] = ["ajuste completo de parámetros", "un fine-tuning de todos los parámetros"]
WRAPS["en"]["full"]["diagnosed9"] = ["fine-tune all the weights of {model}"]
WRAPS["en"]["lora"]["diagnosed9"] = ["train a LoRA on top of {model}"]
WRAPS["en"]["qlora"]["diagnosed9"] = ["QLoRA-tune {model}"]
WRAPS["es"]["full"]["diagnosed9"] = ["afinar todos los pesos de {model}"]
WRAPS["es"]["lora"]["diagnosed9"] = ["entrenar un LoRA encima de {model}"]
WRAPS["es"]["qlora"]["diagnosed9"] = ["hacer QLoRA sobre {model}"]

SEQ["en"]["diagnosed9"] = ["max_len {n}", "sequences up to {n} tokens", "{k}K context window"]
SEQ["es"]["diagnosed9"] = ["secuencias de hasta {n} tokens", "ventana de contexto de {k}K"]
for _ident, _forms in {"rtx-4090": ["RTX-4090"], "l40s": ["L40S-48GB"], "a100-80gb": ["Nvidia A100 80G"],
                       "h100-sxm": ["Nvidia H100 80G SXM5"], "h200": ["H200 SXM 141GB"], "a100-40gb": ["Nvidia A100 40G"],
                       "l4": ["Nvidia L4"], "b200": ["B200 (HGX)"], "mi300x": ["AMD MI300X 192GB"]}.items():
    GPU_FORMS[_ident]["diagnosed9"] = _forms
GPU_FORMS_R4["h100-pcie"]["diagnosed9"] = ["H100 PCIe 80G"]
GPU_FORMS_R4["rtx-6000-ada"]["diagnosed9"] = ["RTX 6000 Ada 48GB"]
GPU_FORMS_R4["a10g"]["diagnosed9"] = ["A10G (24 GB)"]
GPU_SLOT["en"]["diagnosed9"] = [("a {c}-GPU {g} box", 1, 1), ("{g}, {c} units", 1, 1), ("{c} of the {g} cards", 1, 1),
                            ("one {g} only", "one", 1)]
GPU_SLOT["es"]["diagnosed9"] = [("una máquina de {c} {g}", 1, 1), ("{g}, {c} unidades", 1, 1), ("una única {g}", "one", 1)]
BATCH["en"]["diagnosed9"] = ["per-device batch size {b}", "a batch of {b} per GPU", "micro-batch size={b}"]
BATCH["es"]["diagnosed9"] = ["tamaño de lote por dispositivo {b}", "micro-lote={b}"]
GLOBAL_NOTE["en"]["diagnosed9"] = [" and gradient accumulation of {ga}", " (global batch {gb})"]
GLOBAL_NOTE["es"]["diagnosed9"] = [" y acumulación de gradientes de {ga}"]
RANK["en"]["diagnosed9"] = ["LoRA r={r}", "rank-{r} adapters", "an adapter rank of {r}"]
RANK["es"]["diagnosed9"] = ["rango LoRA = {r}", "adaptadores de rango {r}"]
EPOCHS["en"]["diagnosed9"] = ["{e} epochs over the data", "train for {e} epochs", "num_epochs {e}"]
EPOCHS["es"]["diagnosed9"] = ["entrenar {e} épocas", "{e} épocas sobre los datos"]
ONE_EPOCH["en"]["diagnosed9"] = ["just one epoch", "a one-epoch run"]
ONE_EPOCH["es"]["diagnosed9"] = ["solo una época", "una época nada más"]
DATASET["en"]["diagnosed9"] = ["{D} training tokens in total", "a {D}-token training set"]
DATASET["es"]["diagnosed9"] = ["{D} tokens de entrenamiento en total", "un set de entrenamiento de {D} tokens"]
EXAMPLES["en"]["diagnosed9"] = ["{X} samples averaging {L} tokens", "{X} docs, ~{L} tokens each"]
EXAMPLES["es"]["diagnosed9"] = ["{X} muestras de {L} tokens de media", "{X} documentos de ~{L} tokens"]
GC["en"]["diagnosed9"] = [("with gradient checkpointing", True), ("gradient checkpointing disabled", False)]
GC["es"]["diagnosed9"] = [("gradient checkpointing activado", True), ("gradient checkpointing desactivado", False)]
OPTIMIZER["en"]["diagnosed9"] = [("plain AdamW", "adamw"), ("8-bit AdamW from bitsandbytes", "adamw-8bit")]
OPTIMIZER["es"]["diagnosed9"] = [("AdamW normal", "adamw"), ("AdamW de 8 bits de bitsandbytes", "adamw-8bit")]
PRECISION["en"]["diagnosed9"] = [("bf16 mixed precision", "bf16-mixed"), ("fp32 everywhere", "fp32")]
PRECISION["es"]["diagnosed9"] = [("precisión mixta bf16", "bf16-mixed"), ("fp32 en todo", "fp32")]
REGION["en"]["diagnosed9"] = [("in the Paris region", "eu-west"), ("Frankfurt DC", "eu-central")]
REGION["es"]["diagnosed9"] = [("en la región de París", "eu-west"), ("centro de datos de Frankfurt", "eu-central")]
FAILED["en"]["diagnosed9"] = ["budget {p}% of runs failing", "about {p}% of runs fail"]
FAILED["es"]["diagnosed9"] = ["calcula un {p}% de ejecuciones que fallan"]
UNREADABLE["en"]["diagnosed9"] = [("seq len: whatever fits", "seq_len"), ("epochs: not decided", "epochs")]
UNREADABLE["es"]["diagnosed9"] = [("rango: lo decidimos luego", "lora_rank")]
FAMILY_SIZES["diagnosed9"] = [("mistral 12b", "mistral-nemo-12b"), ("gemma 1b", "gemma-3-1b"), ("smollm 360m", "smollm2-360m"),
                          ("gemma 12b", "gemma-3-12b")]
SIZES_R8 = (0.4, 1.3, 5, 9, 16, 30, 110)
SIZE_FORMS["en"]["diagnosed9"] = ["a proprietary {s}B model", "our own {s}B LLM"]
SIZE_FORMS["es"]["diagnosed9"] = ["un modelo propietario de {s}B", "nuestro propio LLM de {s}B"]
TEMPLATES["en"]["diagnosed9"] = ["Context: {rest}. Question: {core}?", "1) {core}\n2) {rest}", "{core}; constraints: {rest}"]
TEMPLATES["es"]["diagnosed9"] = ["Contexto: {rest}. Pregunta: {core}?", "1) {core}\n2) {rest}", "{core}; restricciones: {rest}"]
CORES["en"]["diagnosed9"] = ["{method} for {model}", "sizing {method} on {model}"]
CORES["es"]["diagnosed9"] = ["{method} para {model}", "dimensionar {method} con {model}"]
FOLLOWUPS["en"]["diagnosed9"] = ["and with {slot}?", "now try {slot}"]
FOLLOWUPS["es"]["diagnosed9"] = ["¿y con {slot}?", "ahora prueba con {slot}"]
SWITCH_METHOD["en"]["diagnosed9"] = ["go with {m} instead", "change it to {m}"]
SWITCH_METHOD["es"]["diagnosed9"] = ["mejor con {m}", "cámbialo a {m}"]
CONFIG_FORMATS["diagnosed9"] = ["nested_yaml", "slurm_script"]
CONFIG_QUESTION["en"]["diagnosed9"] = ["does this fit on {c} {g}s?", "what would this cost on {g}?"]
CONFIG_QUESTION["es"]["diagnosed9"] = ["¿cabe esto en {c} {g}?", "¿qué costaría esto en {g}?"]
# Noise of this split (``_Gen._noise_r8``).
SUBJECTS_R8 = {"en": ("Re: finetune sizing", "Re: GPU budget"), "es": ("Re: dimensionado del finetune", "Re: presupuesto de GPUs")}
ASIDES_R8 = {"en": ("FWIW,", "For the record:"), "es": ("Para que conste:", "Por si acaso,")}
MOBILE_R8 = {"en": (" (sent from mobile)",), "es": (" (enviado desde el móvil)",)}

# Words a typo must not turn into (another real word of the vocabulary is not a typo we can see).
_PROTECTED = {"lora", "qlora", "full", "llama", "mistral", "mixtral", "qwen", "gemma", "falcon", "deepseek", "phi",
              "smollm", "tinyllama", "olmo", "yi", "nemo", "tune", "fine", "adapters", "context", "seq", "rank", "batch"}
_KEYBOARD = "qwertyuiop asdfghjkl zxcvbnm"


def _rows() -> list[str]:
    return _KEYBOARD.split()


def _neighbors(ch: str) -> str:
    for row in _rows():
        i = row.find(ch)
        if i >= 0:
            return row[max(0, i - 1):i] + row[i + 1:i + 2]
    return ""


def damerau(a: str, b: str) -> int:
    """Optimal string alignment distance (insertions, deletions, substitutions, transpositions)."""
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[-1][-1]


def _typo(rng: random.Random, word: str) -> str:
    """One human edit inside the word (never the first letter): drop, double, swap, or a neighbour key."""
    for _ in range(20):
        i = rng.randrange(1, len(word))
        op = rng.choice(("drop", "swap", "key", "double"))
        if op == "drop":
            out = word[:i] + word[i + 1:]
        elif op == "swap" and i < len(word) - 1:
            out = word[:i] + word[i + 1] + word[i] + word[i + 2:]
        elif op == "key" and _neighbors(word[i].lower()):
            out = word[:i] + rng.choice(_neighbors(word[i].lower())) + word[i + 1:]
        elif op == "double":
            out = word[:i] + word[i] + word[i:]
        else:
            continue
        low = out.lower()
        if low != word.lower() and all(damerau(low, p) > 1 for p in _PROTECTED if p != word.lower()):
            return out
    return word


# --- numbers as people type them ----------------------------------------------------------------

def _thousands(n: int, lang: str) -> str:
    text = f"{n:,}"
    return text.replace(",", ".") if lang == "es" else text


def _num(rng: random.Random, n: int, lang: str, noise: list[str]) -> str:
    if n >= 1000 and rng.random() < 0.2:
        noise.append("thousands")
        return _thousands(n, lang)
    return str(n)


def _dataset_short(n: int, lang: str) -> str:
    if n >= 1_000_000_000:
        text = f"{n / 1e9:g}B"
    else:
        text = f"{n // 1_000_000}M"
    return text.replace(".", ",") if lang == "es" else text


def _dataset_words(n: int, lang: str) -> str:
    if lang == "en":
        return f"{n / 1e9:g} billion" if n >= 1e9 else f"{n // 1_000_000} million"
    return f"{n / 1e9:g} mil millones".replace(".", ",") if n >= 1e9 else f"{n // 1_000_000} millones"


# --- the generator -----------------------------------------------------------------------------

class _Gen:
    def __init__(self, rng: random.Random, split: str, catalog: Catalog):
        self.rng, self.split = rng, split
        self.models = [m for m in catalog.models() if m.id != "tiny-test"]

    def pick(self, table: dict[str, list]) -> Any:
        """A form of this split (falling back to "tune" where a slot has none of its own); a quarter of
        diagnosed and unseen messages still use familiar forms."""
        forms = table.get(self.split) or table["tune"]
        if self.split == "diagnosed" and table.get("diagnosed") and self.rng.random() < 0.25:
            forms = table["tune"]
        elif self.split in ROUND4 and table.get(self.split) and table.get("tune") and self.rng.random() < 0.25:
            forms = [f for old in _FAMILIAR[self.split] for f in table.get(old, [])]
        return self.rng.choice(forms)

    # --- slots: (phrase, fields) ---

    def model(self, lang: str, noise: list[str]) -> tuple[str, dict[str, Any], str | None]:
        """A model phrase, its fields, and the word a typo may hit."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.18:
            s = rng.choice({"diagnosed2": SIZES_R4A, "diagnosed3": SIZES_R4B, "diagnosed4": SIZES_R4C,
                            "diagnosed5": SIZES_R4D, "diagnosed6": SIZES_R5, "diagnosed7": SIZES_R6, "diagnosed8": SIZES_R7,
                            "diagnosed9": SIZES_R8}.get(self.split, SIZES))
            shown = f"{s:g}".replace(".", ",") if lang == "es" and rng.random() < 0.5 else f"{s:g}"
            return self.pick(SIZE_FORMS[lang]).format(s=shown), {"params_b": float(s)}, None
        if roll < 0.26:
            form, ident = self.pick(FAMILY_SIZES)
            return form, {"model": ident}, form.split()[0]
        m = rng.choice(self.models)
        forms = self._model_forms(m)
        text = self.pick(forms)
        if text.startswith("<http"):
            noise.append("link")
        # a typo inside a hub id names another repository (the Hub would say it does not exist): none there
        family = re.match(r"[A-Za-z]+", text.split("|")[-1]) if "/" not in text else None
        return text, {"model": m.id}, family.group(0) if family else None

    def _model_forms(self, m) -> dict[str, list[str]]:
        display = re.sub(r"\s*\(.*?\)", "", m.display_name)
        spaced = m.id.replace("-", " ")
        tune = [m.id, display, m.hub_id, spaced]
        hub_aliases = [a for a in m.aliases if "/" in a]
        held = [f"<https://huggingface.co/{m.hub_id}|{m.hub_id.split('/')[-1]}>", display.lower(),
                *(hub_aliases[:1] or [m.hub_id])]
        size = re.search(r"(\d+(?:\.\d+)?[bm])$", m.id)
        if size and m.family in ("llama", "qwen", "gemma", "mistral", "yi", "falcon"):
            held.append(f"{size.group(1)} {m.id[: -len(size.group(1)) - 1].replace('-', ' ')}")  # "70b llama 3.1"
        return {"tune": tune, "diagnosed": held, "diagnosed2": _r4a_model_forms(m, display),
                "diagnosed3": _r4b_model_forms(m, display), "diagnosed4": _r4c_model_forms(m, display),
                "diagnosed5": _r4d_model_forms(m, display), "diagnosed6": _r5_model_forms(m, display),
                "diagnosed7": _r6_model_forms(m, display), "diagnosed8": _r7_model_forms(m, display),
                "diagnosed9": _r8_model_forms(m, display)}

    def method_phrase(self, lang: str, method: str) -> str:
        return self.pick(METHODS[lang][method])

    def seq(self, lang: str, noise: list[str]) -> tuple[str, dict[str, Any]]:
        n = self.rng.choice(SEQ_VALUES)
        form = self.pick(SEQ[lang])
        if "{k}" in form and n < 1024:
            n = 1024 * self.rng.choice((1, 2, 4, 8))
        if self.split == "diagnosed2" and n >= 1000 and "{n}" in form and self.rng.random() < 0.12:
            noise.append("thin-space thousands")  # "16 384": the SI and RAE grouping, with a (narrow) no-break space
            shown = f"{n:,}".replace(",", self.rng.choice(("\u202f", "\u00a0")))
        else:
            shown = _num(self.rng, n, lang, noise)
        return form.format(n=shown, k=n // 1024), {"seq_len": n}

    def gpu(self, lang: str) -> tuple[str, dict[str, Any]]:
        rng = self.rng
        form, says_count, says_gpu = self.pick(GPU_SLOT[lang])
        gpus = {**GPU_FORMS, **GPU_FORMS_R4} if self.split in ROUND4 else GPU_FORMS
        ident = rng.choice(list(gpus))
        g = self.pick(gpus[ident])
        if "{g}s" in form and not g[-1].isdigit() and not re.search(r"\d[A-Z]$", g):
            form = form.replace("{g}s", "{g}")  # "on 2 A100 80GB", not "80GBs"
        if form.startswith("on an ") and not re.match(r"[aeiouAEIOU]|[LlHhMm]\d|RTX", g):
            form = "on a " + form[len("on an "):]
        c = rng.choice((2, 4, 8)) if says_count != "one" else 1
        fields: dict[str, Any] = {}
        if says_count:
            fields["num_gpus"] = c
        if says_gpu:
            fields["gpu"] = ident
        return form.format(c=c, cw=COUNT_WORDS[lang].get(c, str(c)), g=g), fields

    def batch(self, lang: str) -> tuple[str, dict[str, Any]]:
        b = self.rng.choice((1, 2, 4, 8, 16))
        text = self.pick(BATCH[lang]).format(b=b)
        fields: dict[str, Any] = {"micro_batch": b}
        if self.rng.random() < 0.3:
            ga = self.rng.choice((4, 8, 16))
            note = self.pick(GLOBAL_NOTE[lang])
            text += note.format(gb=b * ga * 8, ga=ga)
            if "{ga}" in note and _spec_accepts("gradient_accumulation_steps", ga):
                fields["gradient_accumulation_steps"] = ga
        return text, fields

    def rank(self, lang: str) -> tuple[str, dict[str, Any]]:
        r = self.rng.choice((4, 8, 16, 32, 64, 128))
        return self.pick(RANK[lang]).format(r=r), {"lora_rank": r}

    def epochs(self, lang: str) -> tuple[str, dict[str, Any]]:
        e = self.rng.choice((1, 2, 3, 4, 5))
        if e == 1:
            return self.pick(ONE_EPOCH[lang]), {"epochs": 1.0}
        return self.pick(EPOCHS[lang]).format(e=e, ew=EPOCH_WORDS[lang][e]), {"epochs": float(e)}

    def dataset(self, lang: str) -> tuple[str, dict[str, Any]]:
        rng = self.rng
        if rng.random() < 0.35:
            x = rng.choice((10_000, 50_000, 100_000, 200_000))
            length = rng.choice((300, 512, 700, 2000))
            shown_x = f"{x // 1000}k" if rng.random() < 0.6 else _thousands(x, lang)
            return self.pick(EXAMPLES[lang]).format(X=shown_x, L=length), {"dataset_tokens": x * length}
        n = rng.choice(DATASET_VALUES)
        return (self.pick(DATASET[lang]).format(D=_dataset_short(n, lang), Dfull=_thousands(n, lang),
                                                Dwords=_dataset_words(n, lang)), {"dataset_tokens": n})

    def choice_slot(self, table: dict, field: str, lang: str) -> tuple[str, dict[str, Any]]:
        text, value = self.pick(table[lang])
        return text, {field: value}

    def failed(self, lang: str) -> tuple[str, dict[str, Any]]:
        p = self.rng.choice((10, 20, 25, 30, 50))
        return self.pick(FAILED[lang]).format(p=p), {"costs": {"failed_run_fraction": p / 100}}

    # --- messages ---

    def rest_slots(self, lang: str, method: str, noise: list[str], *, at_least: int = 0) -> list[tuple[str, dict]]:
        rng = self.rng
        slots = []
        if rng.random() < 0.6:
            slots.append(self.seq(lang, noise))
        if rng.random() < 0.5:
            slots.append(self.gpu(lang))
        if rng.random() < 0.25:
            slots.append(self.batch(lang))
        if method != "full" and rng.random() < 0.2:
            slots.append(self.rank(lang))
        if rng.random() < 0.2:
            slots.append(self.epochs(lang))
        if rng.random() < 0.2:
            slots.append(self.dataset(lang))
        if rng.random() < 0.1:
            slots.append(self.choice_slot(GC, "gradient_checkpointing", lang))
        if rng.random() < 0.08:
            slots.append(self.choice_slot(OPTIMIZER, "optimizer", lang))
        if rng.random() < 0.08:
            slots.append(self.choice_slot(PRECISION, "precision", lang))
        if rng.random() < 0.05:
            slots.append(self.choice_slot(REGION, "region", lang))
        if rng.random() < 0.05:
            slots.append(self.failed(lang))
        while len(slots) < at_least:
            slots.append(self.seq(lang, noise))
        rng.shuffle(slots)
        return _one_per_field(slots)

    def estimate(self, lang: str) -> dict[str, Any]:
        rng = self.rng
        noise: list[str] = []
        method = rng.choice(("lora", "qlora", "full"))
        model_text, fields, typo_word = self.model(lang, noise)
        method_text = self.method_phrase(lang, method)
        expected: dict[str, Any] = {"method": method, **fields}
        if rng.random() < 0.12:
            core = self.pick(WRAPS[lang][method]).format(model=model_text)
        else:
            core = self.pick(CORES[lang]).format(method=method_text, model=model_text)
        template = self.pick(TEMPLATES[lang])
        slots = self.rest_slots(lang, method, noise) if "{rest}" in template else []
        if not slots:
            template = "{core}"
        for _, f in slots:
            _add(expected, f)
        rest = _join(rng, [self._mark(t, noise) for t, _ in slots], lang)
        if core != core.lstrip("¿") or "hacer {core}" in template and not core.startswith(method_text):
            template = template.replace("hacer {core}", "{core}")  # "¿podemos entrenar X completo?"
        text = template.format(core=core, rest=rest).strip()
        text, expected = self._typos(text, method_text, typo_word, expected, noise)
        return self._finish(text, lang, expected, noise)

    def _mark(self, text: str, noise: list[str]) -> str:
        roll = self.rng.random()
        if roll < 0.05:
            noise.append("bold")
            return f"*{text}*"
        if roll < 0.09:
            noise.append("code")
            return f"`{text}`"
        return text

    def _typos(self, text: str, method_text: str, model_word: str | None, expected: dict, noise: list[str]):
        rng = self.rng
        roll = rng.random()
        if roll < 0.10:  # one edit in the method word: still that method
            words = [w for w in re.findall(r"[A-Za-z]{5,}", method_text) if w.lower() in ("qlora", "finetune", "tuning")
                     or w.lower().startswith(("fine", "complet", "ajuste", "entrenamiento", "afinamiento"))]
            if words:
                w = rng.choice(words)
                typo = _typo(rng, w)
                if typo != w and re.search(rf"\b{re.escape(w)}\b", text):
                    noise.append(f"typo:{w}->{typo}")
                    text = re.sub(rf"\b{re.escape(w)}\b", typo, text, count=1)
        elif roll < 0.20 and model_word and len(model_word) >= 5:  # one edit in the model's family word
            typo = _typo(rng, model_word)
            if typo != model_word and re.search(rf"\b{re.escape(model_word)}", text):
                noise.append(f"typo:{model_word}->{typo}")
                text = re.sub(rf"\b{re.escape(model_word)}", typo, text, count=1)
        elif roll < 0.24 and model_word and len(model_word) >= 6 and "<http" not in text:  # two edits: ask
            typo = _typo(rng, _typo(rng, model_word))
            if damerau(typo.lower(), model_word.lower()) == 2 and re.search(rf"\b{re.escape(model_word)}", text):
                noise.append(f"typo2:{model_word}->{typo}")
                text = re.sub(rf"\b{re.escape(model_word)}", typo, text, count=1)
                expected = {"intent": "clarify", "clarify_code": "did_you_mean",
                            **{k: v for k, v in expected.items() if k != "model"}}
        return text, expected

    def _finish(self, text: str, lang: str, expected: dict, noise: list[str], previous: dict | None = None,
                *, prose: bool = True) -> dict:
        rng = self.rng
        roll = rng.random() if prose else 1.0
        if roll < 0.06:
            text, _ = text.lower(), noise.append("lower")
        elif roll < 0.09:
            text, _ = text.upper(), noise.append("upper")
        if rng.random() < 0.08:
            text = rng.choice(MENTIONS) + " " + text
            noise.append("mention")
        if rng.random() < 0.08:
            text += rng.choice(EMOJI)
            noise.append("emoji")
        if rng.random() < 0.06:
            text = re.sub(r", ", "\n", text, count=1) if ", " in text else text.replace(" ", "  ", 2)
            noise.append("spacing")
        if self.split == "diagnosed2":
            text = self._noise_r4(text, lang, noise, prose)
        elif self.split == "diagnosed3":
            text = self._noise_r4b(text, lang, noise, prose)
        elif self.split == "diagnosed4":
            text = self._noise_r4c(text, lang, noise, prose)
        elif self.split == "diagnosed5":
            text = self._noise_r4d(text, lang, noise, prose)
        elif self.split == "diagnosed6":
            text = self._noise_r5(text, lang, noise, prose)
        elif self.split == "diagnosed7":
            text = self._noise_r6(text, lang, noise, prose)
        elif self.split == "diagnosed8":
            text = self._noise_r7(text, lang, noise, prose)
        elif self.split == "diagnosed9":
            text = self._noise_r8(text, lang, noise, prose)
        if re.search(r"(?i)\bnf4\b", text) and expected.get("method", "qlora") == "qlora":
            expected.setdefault("quant", "nf4")  # "QLoRA (NF4)" states the 4-bit type too (a label, not noise)
        entry = {"text": text, "lang": lang, "split": self.split, "expected": expected, "noise": noise}
        if previous is not None:
            entry["previous"] = previous
        return entry

    def config(self, lang: str) -> dict[str, Any]:
        rng = self.rng
        fmt = rng.choice(CONFIG_FORMATS[self.split])
        if fmt in _R4_WRITERS:
            return self._r4_config(fmt, lang)
        m = rng.choice(self.models)
        method = rng.choice(("lora", "qlora", "full") if fmt not in ("trl_python", "trl_cli") else ("lora", "qlora"))
        seq = rng.choice(SEQ_VALUES)
        b = rng.choice((1, 2, 4, 8))
        e = rng.choice((1, 2, 3))
        r = rng.choice((8, 16, 32, 64))
        expected: dict[str, Any] = {"model": m.id, "method": method, "seq_len": seq, "micro_batch": b, "epochs": float(e)}
        if method != "full":
            expected["lora_rank"] = r
        text = _CONFIG_WRITERS[fmt](m.hub_id, method, seq, b, e, r, expected, rng)
        return self._config_question(text, lang, expected, [f"config:{fmt}"])

    def _config_question(self, text: str, lang: str, expected: dict[str, Any], noise: list[str]) -> dict[str, Any]:
        rng = self.rng
        if rng.random() < 0.6:
            text = "```\n" + text + "\n```"
        if rng.random() < 0.7:
            question = self.pick(CONFIG_QUESTION[lang])
            ident = rng.choice(list(GPU_FORMS)[:4])
            g = self.pick(GPU_FORMS[ident])
            c = rng.choice((2, 4, 8))
            a = "an" if re.match(r"[aeiouAEIOU]|[LlHhMm]\d|RTX", g) else "a"
            before = rng.random() < 0.5
            if "{c}" in question and "num_gpus" in expected:
                pass  # the config fixes the count (a single-device recipe): a question with another count would contradict it
            else:
                if "{g}" in question:
                    expected["gpu"] = ident
                if "{c}" in question:
                    expected["num_gpus"] = c
                question = question.format(g=g, c=c, a=a)
                text = (question + "\n" + text) if before else (text + "\n" + question)
        return self._finish(text, lang, expected, noise, prose=False)

    def _noise_r4(self, text: str, lang: str, noise: list[str], prose: bool) -> str:
        """The diagnosed2 split's own noise: nothing here changes what a careful reader takes."""
        rng = self.rng
        if prose and rng.random() < 0.08 and "/" not in text:  # "LLaMA", "QLoRa": names in their owners' (or nobody's) casing
            for word, shapes in CASINGS.items():
                if re.search(rf"\b{word}\b", text, re.IGNORECASE):
                    text = re.sub(rf"\b{word}\b", rng.choice(shapes), text, count=1, flags=re.IGNORECASE)
                    noise.append("casing")
                    break
        if prose and rng.random() < 0.08:  # a one-edit typo in a setting's word ("contxet 4096"): still that setting
            words = [w for w in CUE_WORDS if re.search(rf"\b{w}\b", text)]
            if words:
                w = rng.choice(words)
                typo = _typo(rng, w)
                if typo != w:
                    text = re.sub(rf"\b{w}\b", typo, text, count=1)
                    noise.append(f"typo:{w}->{typo}")
        if prose and rng.random() < 0.05:  # Slack quote
            text = "\n".join("> " + line for line in text.split("\n"))
            noise.append("quote")
        if rng.random() < 0.06:
            text = rng.choice(GROUP_MENTIONS) + " " + text
            noise.append("group mention")
        if prose and rng.random() < 0.05 and text.count(" ") >= 3:  # a zero-width space pasted between two words
            spaces = [i for i, c in enumerate(text) if c == " "]
            i = rng.choice(spaces)
            text = text[:i] + " \u200b" + text[i + 1:]
            noise.append("zero-width space")
        if prose and rng.random() < 0.04 and ", " in text:
            text = text.replace(", ", "\n\n", 1)
            noise.append("blank line")
        if rng.random() < 0.08:
            text += rng.choice(THANKS[lang])
            noise.append("thanks")
        return text

    def _noise_r4b(self, text: str, lang: str, noise: list[str], prose: bool) -> str:
        """The diagnosed3 split's own noise: nothing here changes what a careful reader takes."""
        rng = self.rng
        if prose and rng.random() < 0.05:  # Title Case, as a subject line
            text = re.sub(r"(?<![\w/.-])([a-z])", lambda m: m.group(1).upper(), text)
            noise.append("title case")
        if prose and rng.random() < 0.06 and ", " in text:  # no space after a comma
            text = text.replace(", ", ",", 1)
            noise.append("comma without space")
        if prose and rng.random() < 0.05 and ", " in text:
            text = text.replace(", ", "... ", 1)
            noise.append("ellipsis")
        if rng.random() < 0.07:  # a reference with digits that are no setting
            ref = rng.choice(REFERENCES[lang]).format(n=rng.randrange(100, 9999), q=rng.randrange(1, 5))
            text = text + " " + ref if rng.random() < 0.7 else ref + " " + text
            noise.append("reference")
        if rng.random() < 0.05:
            text += " " + rng.choice(HASHTAGS)
            noise.append("hashtag")
        if rng.random() < 0.05:
            text += rng.choice((" 👩‍💻", " 🙏🏽", " 🤞"))
            noise.append("zwj emoji")
        if prose and rng.random() < 0.06:  # a one-edit typo in a setting's word
            words = [w for w in CUE_WORDS_R4B if re.search(rf"\b{w}\b", text)]
            if words:
                w = rng.choice(words)
                typo = _typo(rng, w)
                if typo != w:
                    text = re.sub(rf"\b{w}\b", typo, text, count=1)
                    noise.append(f"typo:{w}->{typo}")
        return text

    def _noise_r4c(self, text: str, lang: str, noise: list[str], prose: bool) -> str:
        """The diagnosed4 split's own noise: nothing here changes what a careful reader takes."""
        rng = self.rng
        if rng.random() < 0.08:
            aside = rng.choice(ASIDES[lang])
            text = aside + " " + text if aside.endswith(":") or aside.startswith("#") else text + " " + aside
            noise.append("aside")
        if prose and rng.random() < 0.06 and ", " in text:  # smart quotes around one part
            parts = text.split(", ")
            i = rng.randrange(len(parts))
            parts[i] = "\u201c" + parts[i] + "\u201d"
            text = ", ".join(parts)
            noise.append("smart quotes")
        if prose and rng.random() < 0.05:  # markdown bold around the first line
            first, _, rest = text.partition("\n")
            text = f"**{first}**" + ("\n" + rest if rest else "")
            noise.append("markdown bold")
        if rng.random() < 0.05:
            text += rng.choice(OTHER_LANGUAGE[lang])
            noise.append("other language")
        return text

    def _noise_r4d(self, text: str, lang: str, noise: list[str], prose: bool) -> str:
        """The unseen split's own noise (new kinds): nothing here changes what a careful reader takes."""
        rng = self.rng
        if prose and rng.random() < 0.05 and ", " in text:  # Slack italics around one part
            parts = text.split(", ")
            i = rng.randrange(len(parts))
            parts[i] = "_" + parts[i] + "_"
            text = ", ".join(parts)
            noise.append("italics")
        if rng.random() < 0.05:
            text = rng.choice(TAGS) + " " + text
            noise.append("tag")
        if prose and rng.random() < 0.04:  # a word typed twice
            words = text.split(" ")
            if len(words) > 3:
                i = rng.randrange(len(words))
                if re.fullmatch(r"[a-z]{3,}", words[i]):
                    words.insert(i, words[i])
                    text = " ".join(words)
                    noise.append("repeated word")
        if prose and "~" in text and rng.random() < 0.5:
            text = text.replace("~", "≈", 1)
            noise.append("approx sign")
        if rng.random() < 0.06:
            text += rng.choice(TRAILERS[lang])
            noise.append("trailer")
        return text

    def _noise_r5(self, text: str, lang: str, noise: list[str], prose: bool) -> str:
        """Round 5's unseen noise: a part counter, an interjection, a signature, bullets for commas."""
        rng = self.rng
        if rng.random() < 0.04:
            text = "(1/2) " + text
            noise.append("part counter")
        if prose and rng.random() < 0.05:
            text = rng.choice(INTERJECTIONS[lang]) + text
            noise.append("interjection")
        if prose and rng.random() < 0.04 and ", " in text:
            text = text.replace(", ", "\n• ", 1)
            noise.append("bullet")
        if rng.random() < 0.04:
            text += rng.choice(SIGNATURES)
            noise.append("signature")
        return text

    def _noise_r8(self, text: str, lang: str, noise: list[str], prose: bool) -> str:
        """Round 8's unseen noise: a "Re:" subject line, "FWIW"/"para que conste", a tab between two items,
        a "(sent from mobile)" trailer: nothing here changes what a careful reader takes."""
        rng = self.rng
        if prose and rng.random() < 0.05:
            text = rng.choice(SUBJECTS_R8[lang]) + "\n" + text
            noise.append("subject line")
        if prose and rng.random() < 0.05:
            text = rng.choice(ASIDES_R8[lang]) + " " + text
            noise.append("aside")
        if prose and ", " in text and rng.random() < 0.05:
            text = text.replace(", ", ",\t", 1)
            noise.append("tab")
        if rng.random() < 0.04:
            text += rng.choice(MOBILE_R8[lang])
            noise.append("mobile trailer")
        return text

    def _noise_r7(self, text: str, lang: str, noise: list[str], prose: bool) -> str:
        """Round 7's unseen noise: a quoted line above the request, a chat timestamp, an ellipsis for a
        comma, a short trailer ("lmk", "avisad")."""
        rng = self.rng
        if prose and rng.random() < 0.05:
            text = rng.choice(QUOTES[lang]) + text
            noise.append("quoted line")
        if rng.random() < 0.04:
            text = f"[{rng.randint(8, 18)}:{rng.randint(10, 59)}] " + text
            noise.append("timestamp")
        if prose and ", " in text and rng.random() < 0.05:
            text = text.replace(", ", "... ", 1)
            noise.append("ellipsis")
        if prose and rng.random() < 0.05:
            text += rng.choice(TRAILERS_R7[lang])
            noise.append("trailer")
        return text

    def _noise_r6(self, text: str, lang: str, noise: list[str], prose: bool) -> str:
        """Round 6's unseen noise: Slack's "(edited)", a "+1", a dashboard link, doubled question marks."""
        rng = self.rng
        if rng.random() < 0.05:
            text += " (edited)"
            noise.append("edited")
        if rng.random() < 0.04:
            text = "+1 " + text
            noise.append("plus one")
        if prose and rng.random() < 0.05:
            text += ("\nsee " if lang == "en" else "\nver ") + rng.choice(DASHBOARDS)
            noise.append("dashboard link")
        if text.endswith("?") and rng.random() < 0.3:
            text += "??"
            noise.append("question marks")
        return text

    def _r4_config(self, fmt: str, lang: str) -> dict[str, Any]:
        rng = self.rng
        models = [m for m in self.models if _R4_MODELS[fmt](m) is not None]
        m = rng.choice(models)
        methods = ("lora", "qlora") if fmt in ("torchtune_yaml", "unsloth_python", "train_py_cli") else ("lora",) if \
            fmt == "peft_json" else ("lora", "full") if fmt == "swift_cli" else ("lora", "qlora", "full")
        method = rng.choice(methods)
        if fmt == "torchtune_yaml" and method == "qlora" and not _R4_MODELS[fmt](m)[2]:
            method = "lora"  # torchtune 0.6.1 has no QLoRA builder for this model
        seq = rng.choice(SEQ_VALUES)
        b = rng.choice((1, 2, 4, 8))
        e = rng.choice((1, 2, 3))
        r = rng.choice((8, 16, 32, 64))
        expected: dict[str, Any] = {"model": m.id, "method": method, "seq_len": seq, "micro_batch": b}
        if method != "full":
            expected["lora_rank"] = r
        text = _R4_WRITERS[fmt](m, method, seq, b, e, r, expected, rng, lang)
        return self._config_question(text, lang, expected, [f"config:{fmt}"])

    def unreadable(self, lang: str) -> dict[str, Any]:
        noise: list[str] = []
        method = self.rng.choice(("lora", "qlora"))
        model_text, fields, _ = self.model(lang, noise)
        text_slot, field = self.pick(UNREADABLE[lang])
        core = self.pick(CORES[lang]).format(method=self.method_phrase(lang, method), model=model_text)
        text = f"{core}, {text_slot}"
        expected = {"intent": "clarify", "clarify_code": "unreadable", "method": method, **fields}
        return self._finish(text, lang, expected, noise)

    def no_model(self, lang: str) -> dict[str, Any]:
        noise: list[str] = []
        method = self.rng.choice(("lora", "qlora", "full"))
        slots = self.rest_slots(lang, method, noise, at_least=1)
        expected: dict[str, Any] = {"intent": "clarify", "clarify_code": "model", "method": method}
        for _, f in slots:
            _add(expected, f)
        text = f"{self.method_phrase(lang, method)} {_join(self.rng, [t for t, _ in slots], lang)}"
        return self._finish(text, lang, expected, noise)

    def followup(self, lang: str) -> dict[str, Any]:
        rng = self.rng
        noise: list[str] = []
        prev_model = rng.choice(self.models)
        previous = {"method": rng.choice(("lora", "qlora")), "model": prev_model.id, "seq_len": rng.choice((2048, 4096, 8192))}
        roll = rng.random()
        if roll < 0.15:
            new = "full" if previous["method"] != "full" else "lora"
            m = self.method_phrase(lang, new)
            text, fields = self.pick(SWITCH_METHOD[lang]).format(m=m), {"method": new}
        else:
            maker = rng.choice((lambda: self.seq(lang, noise), lambda: self.gpu(lang), lambda: self.batch(lang),
                                lambda: self.rank(lang), lambda: self.epochs(lang), lambda: self.dataset(lang)))
            slot, fields = maker()
            text = self.pick(FOLLOWUPS[lang]).format(slot=slot)
        expected = {"intent": "followup", **fields}
        return self._finish(text, lang, expected, noise, previous=previous)


def _one_per_field(slots: list[tuple[str, dict]]) -> list[tuple[str, dict]]:
    seen: set[str] = set()
    out = []
    for text, fields in slots:
        if seen & set(fields):
            continue
        seen |= set(fields)
        out.append((text, fields))
    return out


def _add(expected: dict, fields: dict) -> None:
    for k, v in fields.items():
        if k == "costs":
            expected.setdefault("costs", {}).update(v)
        else:
            expected[k] = v


def _join(rng: random.Random, parts: list[str], lang: str) -> str:
    if len(parts) < 2:
        return "".join(parts)
    sep = rng.choice((", ", " ", "; ", ", "))
    if rng.random() < 0.3:
        last = " and " if lang == "en" else " y "
        return sep.join(parts[:-1]) + last + parts[-1]
    return sep.join(parts)


# --- pasted configs -------------------------------------------------------------------------------

def _axolotl(hub, method, seq, b, e, r, expected, rng) -> str:
    expected["stack"] = "hf"  # the tool trains with the Hugging Face Trainer (advisor/parse/rules.py, _trainer_config_stack)
    lines = [f"base_model: {hub}"]
    if method != "full":
        lines.append(f"adapter: {method}")
    if method == "qlora" and rng.random() < 0.6:
        lines.append("load_in_4bit: true")
    ga = rng.choice((1, 4, 8))
    _label_accum(expected, ga)
    lines += ["datasets:", "  - path: tatsu-lab/alpaca", "    type: alpaca", f"sequence_len: {seq}",
              f"micro_batch_size: {b}", f"gradient_accumulation_steps: {ga}", f"num_epochs: {e}",
              "learning_rate: 0.0002", "optimizer: adamw_torch"]
    expected["optimizer"] = "adamw"
    if method != "full":
        lines.append(f"lora_r: {r}")
        if rng.random() < 0.5:
            lines.append(f"lora_alpha: {2 * r}")
            expected["lora_alpha"] = float(2 * r)
        if rng.random() < 0.5:
            lines.append("lora_target_linear: true")
            expected["lora_targets"] = "all-linear"
    if rng.random() < 0.5:
        lines.append("gradient_checkpointing: true")
        expected["gradient_checkpointing"] = True
    if rng.random() < 0.5:
        lines.append("flash_attention: true")
        expected["attention"] = "flash"
    lines.append("output_dir: ./outputs/run1")
    return "\n".join(lines)


def _axolotl_json(hub, method, seq, b, e, r, expected, rng) -> str:
    expected["stack"] = "hf"  # the tool trains with the Hugging Face Trainer (advisor/parse/rules.py, _trainer_config_stack)
    import json

    obj: dict[str, Any] = {"base_model": hub}
    if method != "full":
        obj["adapter"] = method
    obj.update({"sequence_len": seq, "micro_batch_size": b, "num_epochs": e, "learning_rate": 2e-4,
                "warmup_steps": 10})
    if method != "full":
        obj["lora_r"] = r
    if rng.random() < 0.5:
        obj["bf16"] = "auto"
        expected["precision"] = "bf16-mixed"
    return json.dumps(obj)


def _llamafactory(hub, method, seq, b, e, r, expected, rng) -> str:
    expected["stack"] = "hf"  # the tool trains with the Hugging Face Trainer (advisor/parse/rules.py, _trainer_config_stack)
    lines = [f"model_name_or_path: {hub}", "stage: sft", "do_train: true",
             f"finetuning_type: {'full' if method == 'full' else 'lora'}"]
    if method == "qlora":
        lines.append("quantization_bit: 4")
    if method != "full":
        lines += [f"lora_rank: {r}", "lora_target: all"]
        expected["lora_targets"] = "all-linear"
    _label_accum(expected, 8)
    lines += ["dataset: alpaca_en_demo", "template: llama3", f"cutoff_len: {seq}", "max_samples: 1000",
              f"per_device_train_batch_size: {b}", "gradient_accumulation_steps: 8", "learning_rate: 1.0e-4",
              f"num_train_epochs: {e}.0", "lr_scheduler_type: cosine", "warmup_ratio: 0.1", "bf16: true"]
    expected["precision"] = "bf16-mixed"
    return "\n".join(lines)


def _llamafactory_cli(hub, method, seq, b, e, r, expected, rng) -> str:
    expected["stack"] = "hf"  # the tool trains with the Hugging Face Trainer (advisor/parse/rules.py, _trainer_config_stack)
    args = ["llamafactory-cli train", f"--model_name_or_path {hub}", "--stage sft",
            f"--finetuning_type {'full' if method == 'full' else 'lora'}"]
    if method == "qlora":
        args.append("--quantization_bit 4")
    if method != "full":
        args.append(f"--lora_rank {r}")
    args += [f"--cutoff_len {seq}", f"--per_device_train_batch_size {b}", f"--num_train_epochs {e}.0",
             "--learning_rate 5e-5", "--output_dir saves/run"]
    return " \\\n  ".join(args)


def _trl_python(hub, method, seq, b, e, r, expected, rng) -> str:
    expected["stack"] = "hf"  # the tool trains with the Hugging Face Trainer (advisor/parse/rules.py, _trainer_config_stack)
    key = rng.choice(("max_length", "max_seq_length"))
    parts = [f'model = AutoModelForCausalLM.from_pretrained("{hub}"' +
             (', quantization_config=BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4"))' if method == "qlora" else ")")]
    if method == "qlora":
        expected["quant"] = "nf4"
    parts.append(f"peft_config = LoraConfig(r={r}, lora_alpha={2 * r}, target_modules=\"all-linear\")")
    expected["lora_alpha"] = float(2 * r)
    expected["lora_targets"] = "all-linear"
    parts.append(f"args = SFTConfig({key}={seq}, per_device_train_batch_size={b}, num_train_epochs={e}, "
                 f"gradient_checkpointing=True, learning_rate=2e-4)")
    expected["gradient_checkpointing"] = True
    return "\n".join(parts)


def _trl_cli(hub, method, seq, b, e, r, expected, rng) -> str:
    expected["stack"] = "hf"  # "trl sft" names TRL, which trains through the Hugging Face Trainer
    args = ["trl sft", f"--model_name_or_path {hub}", "--dataset_name trl-lib/Capybara", "--use_peft", f"--lora_r {r}"]
    if method == "qlora":
        args.append("--load_in_4bit")
    args += [f"--max_length {seq}", f"--per_device_train_batch_size {b}", f"--num_train_epochs {e}",
             "--learning_rate 2.0e-4", "--output_dir out"]
    return " ".join(args)


def _spec_accepts(field_name: str, value: Any) -> bool:
    """``advisor.spec.SpecRequest`` has this field and accepts this value (fields other parts add)."""
    if field_name not in SpecRequest.model_fields:
        return False
    try:
        SpecRequest(**{field_name: value})
    except ValueError:
        return False
    return True


def _label_accum(expected: dict[str, Any], steps: int) -> None:
    if _spec_accepts("gradient_accumulation_steps", steps):
        expected["gradient_accumulation_steps"] = steps


# --- the round-4 splits' model spellings and config shapes ---------------------------------------

def _r4a_model_forms(m, display: str) -> list[str]:
    """New spellings of a catalog model: its display name in capitals, a plain Hub URL, its id in
    snake_case, an Ollama tag ("llama3.1:8b", "qwen2.5:7b", "gemma2:9b"), the instruction-tuned repo
    name of families that publish one ("Qwen2.5-7B-Instruct") and "the 8B Llama 3.1"."""
    forms = [display.upper(), f"https://huggingface.co/{m.hub_id}", m.id.replace("-", "_")]
    tag = re.fullmatch(r"(llama|qwen|gemma)-?(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?b)", m.id)
    if tag:
        forms.append(f"{tag.group(1)}{tag.group(2)}:{tag.group(3)}")
        forms.append(f"the {tag.group(3).upper()} {display[: display.rfind(' ')]}")  # "the 8B Llama 3.1"
    name = m.hub_id.split("/")[-1]
    if m.family in ("llama", "qwen", "mistral", "smollm", "olmo", "falcon") and "instruct" not in name.lower() \
            and not m.id.startswith(("llama-2", "qwen3")) and "-v0." not in name:
        forms.append(f"{name}-Instruct")
    return forms


def _r4b_model_forms(m, display: str) -> list[str]:
    """The unseen split's spellings: the display name hyphenated ("Llama-3.1-8B"), a Hub URL without
    its scheme, "Llama 3.1 (8B)", the last plain alias the catalog lists, "<display> base"."""
    forms = [display.replace(" ", "-"), f"huggingface.co/{m.hub_id}", f"{display} base"]
    sized = re.fullmatch(r"(.+) (\d+(?:\.\d+)?[BM])", display)
    if sized and re.search(r"\d", sized.group(1)):
        forms.append(f"{sized.group(1)} ({sized.group(2)})")
    plain = [a for a in m.aliases if "/" not in a and a != m.id]
    if plain:
        forms.append(plain[-1])
    return forms


def _r4c_model_forms(m, display: str) -> list[str]:
    """The unseen split's spellings: the Hub name without its organisation ("Meta-Llama-3-8B"), "<display>
    model", the id with its first hyphen a space ("llama 3.1-8b"), "8B-param Llama 3.1"."""
    forms = [m.hub_id.split("/")[-1], f"{display} model", m.id.replace("-", " ", 1)]
    sized = re.fullmatch(r"(.+) (\d+(?:\.\d+)?[BM])", display)
    if sized and re.search(r"\d", sized.group(1)):
        forms.append(f"{sized.group(2)}-param {sized.group(1)}")
    return forms


def _r5_model_forms(m, display: str) -> list[str]:
    """Round 5's unseen spellings: an en dash before the size ("Llama 3.1–8B"), "the <display> checkpoint",
    the Hub id in backticks."""
    forms = [f"the {display} checkpoint", f"`{m.hub_id}`"]
    sized = re.fullmatch(r"(.+) (\d+(?:\.\d+)?[BM])", display)
    if sized:
        forms.append(f"{sized.group(1)}–{sized.group(2)}")
    return forms


def _md_table(m, method, seq, b, e, r, expected, rng, lang) -> str:
    """A Markdown table of the run's settings, as pasted from a wiki page or a PR description."""
    names = {"en": {"lora": "LoRA", "qlora": "QLoRA", "full": "full fine-tune"},
             "es": {"lora": "LoRA", "qlora": "QLoRA", "full": "ajuste completo"}}[lang]
    keys = {"en": ("setting", "value", "model", "method", "max seq len", "micro batch", "epochs", "lora r"),
            "es": ("ajuste", "valor", "modelo", "método", "longitud máx.", "micro-lote", "épocas", "rango lora")}[lang]
    rows = [(keys[2], m.hub_id), (keys[3], names[method]), (keys[4], seq), (keys[5], b), (keys[6], e)]
    if method != "full":
        rows.append((keys[7], r))
    expected["epochs"] = float(e)
    return "\n".join([f"| {keys[0]} | {keys[1]} |", "|---|---|", *(f"| {k} | {v} |" for k, v in rows)])


def _env_script(m, method, seq, b, e, r, expected, rng, lang) -> str:
    """A launch through environment variables and a wrapper script (a common team convention)."""
    env = [f"MODEL={m.hub_id}", f"METHOD={method}", f"MAX_SEQ_LEN={seq}", f"PER_DEVICE_BATCH={b}", f"EPOCHS={e}"]
    if method != "full":
        env.append(f"LORA_R={r}")
    expected["epochs"] = float(e)
    return "```\n" + " ".join(env) + " bash scripts/train.sh\n```"


def _r6_model_forms(m, display: str) -> list[str]:
    """Round 6's unseen spellings: the Hub id pinned to a revision ("<id>@main"), the display name with
    underscores ("Llama_3.1_8B"), "<display> (base)"."""
    return [f"{m.hub_id}@main", display.replace(" ", "_"), f"{display} (base)"]


def _r7_model_forms(m, display: str) -> list[str]:
    """Round 7's unseen spellings: the Hub id behind "hf.co/", the display name in double quotes, "<display>
    base model"."""
    return [f"hf.co/{m.hub_id}", f'"{display}"', f"{display} base model"]


def _r8_model_forms(m, display: str) -> list[str]:
    """Round 8's unseen spellings: the Hub id with a trailing "(HF)", "<display>, the base one", "<display>
    weights"."""
    return [f"{m.hub_id} (HF)", f"{display}, the base one,", f"{display} weights"]


def _nested_yaml(m, method, seq, b, e, r, expected, rng, lang) -> str:
    """A nested YAML training config (OmegaConf / Hydra config file: model, train and lora sections)."""
    lines = ["model:", f"  pretrained: {m.hub_id}", "train:", f"  strategy: {method}", f"  max_length: {seq}",
             f"  per_device_batch: {b}", f"  num_epochs: {e}"]
    if method != "full":
        lines += ["lora:", f"  r: {r}"]
    expected["epochs"] = float(e)
    return "\n".join(lines)


def _slurm_script(m, method, seq, b, e, r, expected, rng, lang) -> str:
    """A SLURM batch script: one node, its GPUs in --gres, srun torchrun with one process per GPU."""
    n = rng.choice((1, 2, 4, 8))
    flags = f"--model {m.hub_id} --method {method} --max_seq_len {seq} --batch_size {b} --epochs {e}"
    if method != "full":
        flags += f" --lora_rank {r}"
    lines = ["#!/bin/bash", "#SBATCH --job-name=ft", "#SBATCH --nodes=1", f"#SBATCH --gres=gpu:{n}",
             f"srun torchrun --nproc_per_node {n} finetune.py {flags}"]
    expected["epochs"] = float(e)
    expected["num_gpus"] = n
    return "\n".join(lines)


def _llamafactory_cli(m, method, seq, b, e, r, expected, rng, lang) -> str:
    """LLaMA-Factory's command line (llamafactory-cli train with its hparams as flags: model_name_or_path,
    finetuning_type lora|full, quantization_bit 4 for QLoRA, cutoff_len, per_device_train_batch_size,
    num_train_epochs, lora_rank; src/llamafactory/hparams/finetuning_args.py, model_args.py)."""
    expected["stack"] = "hf"  # the tool trains with the Hugging Face Trainer (advisor/parse/rules.py, _trainer_config_stack)
    parts = ["llamafactory-cli train --stage sft", f"--model_name_or_path {m.hub_id}",
             f"--finetuning_type {'full' if method == 'full' else 'lora'}"]
    if method == "qlora":
        parts.append("--quantization_bit 4")
    parts += [f"--cutoff_len {seq}", f"--per_device_train_batch_size {b}", f"--num_train_epochs {e}"]
    if method != "full":
        parts.append(f"--lora_rank {r}")
    expected["epochs"] = float(e)
    return " \\\n  ".join(parts)


def _hydra_overrides(m, method, seq, b, e, r, expected, rng, lang) -> str:
    """Hydra-style overrides on one command line (dotted keys, key=value)."""
    parts = ["python train.py", f"model.name={m.hub_id}", f"train.method={method}", f"data.max_seq_len={seq}",
             f"train.micro_batch_size={b}", f"train.epochs={e}"]
    if method != "full":
        parts.append(f"lora.r={r}")
    expected["epochs"] = float(e)
    return " ".join(parts)


def _toml_config(m, method, seq, b, e, r, expected, rng, lang) -> str:
    """A TOML training config (as torchtitan's train_configs/*.toml lay theirs out: [model], [training])."""
    lines = ["[model]", f'hf_repo = "{m.hub_id}"', "", "[training]", f'method = "{method}"', f"seq_len = {seq}",
             f"local_batch_size = {b}", f"epochs = {e}"]
    if method != "full":
        lines += ["", "[lora]", f"rank = {r}"]
    expected["epochs"] = float(e)
    return "\n".join(lines)


def _python_dict(m, method, seq, b, e, r, expected, rng, lang) -> str:
    """A Python dict of settings pasted from a notebook cell."""
    cfg = {"model_name": m.hub_id, "finetune": method, "max_len": seq, "batch_size": b, "epochs": e}
    if method != "full":
        cfg["lora_rank"] = r
    expected["epochs"] = float(e)
    return "cfg = {" + ", ".join(f"{k!r}: {v!r}" for k, v in cfg.items()) + "}"


def _r4d_model_forms(m, display: str) -> list[str]:
    """The unseen split's spellings: the id in capitals ("LLAMA-3.1-8B"), the Hub id lower-cased, the
    display name without spaces before its size ("Llama 3.1-8B")."""
    forms = [m.id.upper(), m.hub_id.lower()]
    sized = re.fullmatch(r"(.+) (\d+(?:\.\d+)?[BM])", display)
    if sized:
        forms.append(f"{sized.group(1)}-{sized.group(2)}")
    return forms


# torchtune 0.6.1 LoRA builders (torchtune/models/<family>/_model_builders.py; the list in
# tests/data/launch_schemas/torchtune-0.6.1.json): catalog id -> (module, builder name after "lora_",
# whether a "qlora_" builder exists too).
_TORCHTUNE = {
    "llama-2-7b": ("llama2", "llama2_7b", True), "llama-2-13b": ("llama2", "llama2_13b", True),
    "llama-2-70b": ("llama2", "llama2_70b", True), "llama-3-70b": ("llama3", "llama3_70b", True),
    "llama-3.1-8b": ("llama3_1", "llama3_1_8b", True), "llama-3.1-70b": ("llama3_1", "llama3_1_70b", True),
    "llama-3.1-405b": ("llama3_1", "llama3_1_405b", True), "llama-3.2-1b": ("llama3_2", "llama3_2_1b", True),
    "llama-3.2-3b": ("llama3_2", "llama3_2_3b", True), "llama-3.3-70b": ("llama3_3", "llama3_3_70b", True),
    "gemma-2-2b": ("gemma2", "gemma2_2b", True), "gemma-2-9b": ("gemma2", "gemma2_9b", True),
    "gemma-2-27b": ("gemma2", "gemma2_27b", True), "mistral-7b-v0.1": ("mistral", "mistral_7b", True),
    "qwen2.5-0.5b": ("qwen2_5", "qwen2_5_0_5b", False), "qwen2.5-3b": ("qwen2_5", "qwen2_5_3b", False),
    "qwen2.5-7b": ("qwen2_5", "qwen2_5_7b_base", False), "qwen2.5-14b": ("qwen2_5", "qwen2_5_14b_base", False),
}


def _torchtune_yaml(m, method, seq, b, e, r, expected, rng, lang) -> str:
    module, builder, _ = _TORCHTUNE[m.id]
    name = m.hub_id.split("/")[-1]
    lines = []
    if rng.random() < 0.5:  # the "tune run" line torchtune's own configs start with
        device = rng.choice(("single_device", "distributed"))
        lines.append(f"# tune run lora_finetune_{device} --config {module}/custom_{method}_{device}")
        if device == "single_device":
            expected["num_gpus"] = 1
    every = rng.random() < 0.5
    modules = "['q_proj', 'k_proj', 'v_proj', 'output_proj']" if every else "['q_proj', 'v_proj']"
    expected["lora_targets"] = "all-linear" if every else "attention"
    lines += ["model:", f"  _component_: torchtune.models.{module}.{'q' if method == 'qlora' else ''}lora_{builder}",
              f"  lora_attn_modules: {modules}", f"  apply_lora_to_mlp: {every}", f"  lora_rank: {r}",
              f"  lora_alpha: {2 * r}", "tokenizer:", f"  path: /tmp/{name}/original/tokenizer.model",
              f"  max_seq_len: {seq}", f"batch_size: {b}", f"epochs: {e}", "optimizer:",
              "  _component_: torch.optim.AdamW", "  lr: 3e-4"]
    expected.update(lora_alpha=float(2 * r), epochs=float(e), optimizer="adamw", stack="torchtune", precision="bf16")
    ac = rng.random() < 0.7
    lines.append(f"enable_activation_checkpointing: {ac}")
    expected["gradient_checkpointing"] = ac
    lines.append("dtype: bf16")  # torchtune trains in bf16 with no fp32 master copy: pure bf16
    return "\n".join(lines)


def _hf_python(m, method, seq, b, e, r, expected, rng, lang) -> str:
    expected["stack"] = "hf"  # the tool trains with the Hugging Face Trainer (advisor/parse/rules.py, _trainer_config_stack)
    quant = ", load_in_4bit=True" if method == "qlora" else ""
    lines = [f'model = AutoModelForCausalLM.from_pretrained("{m.hub_id}"{quant}, torch_dtype=torch.bfloat16)',
             f'tok = AutoTokenizer.from_pretrained("{m.hub_id}")',
             f'ds = ds.map(lambda x: tok(x["text"], truncation=True, max_length={seq}))']
    if method != "full":
        targets = rng.choice(('["q_proj", "v_proj"]', '"all-linear"'))
        expected["lora_targets"] = "attention" if "q_proj" in targets else "all-linear"
        lines += [f"lora = LoraConfig(r={r}, lora_alpha={2 * r}, lora_dropout=0.05, target_modules={targets}, "
                  'task_type="CAUSAL_LM")', "model = get_peft_model(model, lora)"]
        expected.update(lora_alpha=float(2 * r), lora_dropout=0.05)
    ga = rng.choice((2, 4, 8))
    _label_accum(expected, ga)
    optim = rng.choice((("paged_adamw_8bit", "paged-adamw-8bit"), ("adamw_torch", "adamw")))
    lines.append(f'args = TrainingArguments(output_dir="out", per_device_train_batch_size={b}, '
                 f'gradient_accumulation_steps={ga}, num_train_epochs={e}, bf16=True, optim="{optim[0]}", '
                 "gradient_checkpointing=True)")
    expected.update(epochs=float(e), precision="bf16-mixed", optimizer=optim[1], gradient_checkpointing=True)
    return "\n".join(lines)


def _unsloth_name(m) -> str | None:
    if m.family not in ("llama", "qwen", "gemma", "mistral", "phi"):
        return None
    return m.hub_id.split("/")[-1]


def _unsloth_python(m, method, seq, b, e, r, expected, rng, lang) -> str:
    name = _unsloth_name(m) + ("-bnb-4bit" if method == "qlora" else "")
    if _spec_accepts("stack", "unsloth"):
        expected["stack"] = "unsloth"
    ga = rng.choice((2, 4))
    _label_accum(expected, ga)
    expected.update(lora_alpha=float(r), lora_targets="all-linear", gradient_checkpointing=True,
                    epochs=float(e), optimizer="adamw-8bit")
    return "\n".join([
        "from unsloth import FastLanguageModel",
        f'model, tokenizer = FastLanguageModel.from_pretrained(model_name="unsloth/{name}", max_seq_length={seq}, '
        f"load_in_4bit={method == 'qlora'})",
        f"model = FastLanguageModel.get_peft_model(model, r={r}, lora_alpha={r}, target_modules=[\"q_proj\", "
        '"k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"], use_gradient_checkpointing="unsloth")',
        f"trainer = SFTTrainer(model=model, args=SFTConfig(per_device_train_batch_size={b}, "
        f'gradient_accumulation_steps={ga}, num_train_epochs={e}, optim="adamw_8bit"))'])


_DS_PROSE = {"en": "{method} of {model} with this DeepSpeed config:", "es": "{method} de {model} con esta config de DeepSpeed:"}
_DS_METHOD = {"en": {"lora": "LoRA", "qlora": "QLoRA", "full": "full fine-tune"},
              "es": {"lora": "LoRA", "qlora": "QLoRA", "full": "ajuste fino completo"}}


def _deepspeed_json(m, method, seq, b, e, r, expected, rng, lang) -> str:
    import json

    stage = rng.choice((2, 3))
    if stage == 3:
        expected["sharding"] = "zero3" if _spec_accepts("sharding", "zero3") else "fsdp"  # ZeRO-3 shards like FSDP
    elif _spec_accepts("sharding", "zero2"):
        expected["sharding"] = "zero2"
    ga = rng.choice((4, 8))
    _label_accum(expected, ga)
    config = {"train_micro_batch_size_per_gpu": b, "gradient_accumulation_steps": ga, "bf16": {"enabled": True},
              "zero_optimization": {"stage": stage, "overlap_comm": True}, "gradient_clipping": 1.0}
    expected["precision"] = "bf16-mixed"
    lines = [_DS_PROSE[lang].format(method=_DS_METHOD[lang][method], model=m.hub_id), json.dumps(config, indent=2),
             f"(seq {seq}, rank {r})" if method != "full" else f"(seq {seq})"]
    return "\n".join(lines)


def _llamafactory_json(m, method, seq, b, e, r, expected, rng, lang) -> str:
    expected["stack"] = "hf"  # the tool trains with the Hugging Face Trainer (advisor/parse/rules.py, _trainer_config_stack)
    import json

    obj: dict[str, Any] = {"model_name_or_path": m.hub_id, "stage": "sft", "do_train": True,
                           "finetuning_type": "full" if method == "full" else "lora"}
    if method == "qlora":
        obj["quantization_bit"] = 4
    if method != "full":
        obj.update(lora_rank=r, lora_target="all")
        expected["lora_targets"] = "all-linear"
    obj.update(cutoff_len=seq, per_device_train_batch_size=b, num_train_epochs=float(e), bf16=True,
               output_dir="saves/run")
    expected.update(epochs=float(e), precision="bf16-mixed")
    return json.dumps(obj, indent=rng.choice((None, 2)))


def _accelerate_yaml(m, method, seq, b, e, r, expected, rng, lang) -> str:
    """An accelerate config (``accelerate config`` output) under a line that names the run."""
    c = rng.choice((2, 4, 8))
    fsdp = rng.random() < 0.5
    expected.update(num_gpus=c, precision="bf16-mixed", sharding="fsdp" if fsdp else "ddp")
    word = {"en": {"lora": "LoRA", "qlora": "QLoRA", "full": "full fine-tune"},
            "es": {"lora": "LoRA", "qlora": "QLoRA", "full": "ajuste fino completo"}}[lang][method]
    head = f"{word} {m.hub_id}, seq {seq}, batch {b}" + (f", rank {r}" if method != "full" else "")
    lines = [head, "compute_environment: LOCAL_MACHINE", f"distributed_type: {'FSDP' if fsdp else 'MULTI_GPU'}",
             "mixed_precision: bf16", "num_machines: 1", f"num_processes: {c}"]
    if fsdp:
        lines += ["fsdp_config:", "  fsdp_sharding_strategy: FULL_SHARD", "  fsdp_state_dict_type: SHARDED_STATE_DICT"]
    return "\n".join(lines)


def _train_py_cli(m, method, seq, b, e, r, expected, rng, lang) -> str:
    ga = rng.choice((2, 4, 8))
    _label_accum(expected, ga)
    args = ["python train.py", f"--model_name_or_path {m.hub_id}", "--use_peft", f"--lora_r {r}"]
    if method == "qlora":
        args.append("--load_in_4bit")
    args += [f"--per_device_train_batch_size {b}", f"--gradient_accumulation_steps {ga}", f"--num_train_epochs {e}",
             f"--max_seq_length {seq}", "--bf16", "--gradient_checkpointing"]
    expected.update(epochs=float(e), precision="bf16-mixed", gradient_checkpointing=True)
    return " ".join(args)


def _axolotl_v2(m, method, seq, b, e, r, expected, rng, lang) -> str:
    expected["stack"] = "hf"  # the tool trains with the Hugging Face Trainer (advisor/parse/rules.py, _trainer_config_stack)
    lines = [f"base_model: {m.hub_id}", "model_type: AutoModelForCausalLM", "tokenizer_type: AutoTokenizer"]
    if method == "qlora":
        lines += ["load_in_4bit: true", "adapter: qlora"]
    elif method == "lora":
        lines.append("adapter: lora")
    if method != "full":
        lines += [f"lora_r: {r}", f"lora_alpha: {r}", "lora_target_modules:", "  - q_proj", "  - v_proj"]
        expected.update(lora_alpha=float(r), lora_targets="attention")
    packing = rng.random() < 0.5
    lines += [f"sequence_len: {seq}", f"sample_packing: {str(packing).lower()}", f"micro_batch_size: {b}",
              f"num_epochs: {e}", "bf16: auto", "flash_attention: true", "gradient_checkpointing: true"]
    if _spec_accepts("packing", packing):
        expected["packing"] = packing
    expected.update(epochs=float(e), precision="bf16-mixed", attention="flash", gradient_checkpointing=True)
    return "\n".join(lines)


def _trl_yaml(m, method, seq, b, e, r, expected, rng, lang) -> str:
    """TRL's ``trl sft --config`` YAML (trl/scripts/sft.py reads ScriptArguments, SFTConfig and ModelConfig
    keys from one file)."""
    expected["stack"] = "hf"
    lines = ["# trl sft --config sft.yaml", f"model_name_or_path: {m.hub_id}", "dataset_name: trl-lib/Capybara"]
    if method != "full":
        lines += ["use_peft: true", f"lora_r: {r}", "lora_target_modules: all-linear"]
        expected["lora_targets"] = "all-linear"
    if method == "qlora":
        lines.append("load_in_4bit: true")
    lines += [f"max_length: {seq}", f"per_device_train_batch_size: {b}", f"num_train_epochs: {e}", "bf16: true",
              "gradient_checkpointing: true", "output_dir: out"]
    expected.update(epochs=float(e), precision="bf16-mixed", gradient_checkpointing=True)
    return "\n".join(lines)


def _peft_json(m, method, seq, b, e, r, expected, rng, lang) -> str:
    """A PEFT adapter_config.json (peft/tuners/lora/config.py: LoraConfig fields) with a line for the rest."""
    import json

    every = rng.random() < 0.5
    modules = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"] if every else ["q_proj", "v_proj"]
    config = {"base_model_name_or_path": m.hub_id, "peft_type": "LORA", "task_type": "CAUSAL_LM", "r": r,
              "lora_alpha": 2 * r, "lora_dropout": 0.1, "target_modules": modules, "bias": "none"}
    expected.update(lora_alpha=float(2 * r), lora_dropout=0.1, lora_targets="all-linear" if every else "attention")
    head = {"en": f"our adapter_config.json (seq {seq}, batch {b}):", "es": f"nuestro adapter_config.json (seq {seq}, batch {b}):"}
    return head[lang] + "\n" + json.dumps(config)


def _litgpt_cli(m, method, seq, b, e, r, expected, rng, lang) -> str:
    """LitGPT's CLI (litgpt/finetune/lora.py, full.py: --train.*, --precision, --quantize, --devices)."""
    expected["stack"] = "litgpt"
    c = rng.choice((1, 2, 4))
    pure = rng.random() < 0.5
    args = [f"litgpt finetune_{'full' if method == 'full' else 'lora'} {m.hub_id}", f"--devices {c}",
            f"--precision {'bf16-true' if pure else 'bf16-mixed'}", f"--train.micro_batch_size {b}",
            f"--train.epochs {e}", f"--train.max_seq_length {seq}"]
    expected.update(num_gpus=c, precision="bf16" if pure else "bf16-mixed", epochs=float(e))
    if method != "full":
        args += [f"--lora_r {r}", f"--lora_alpha {2 * r}"]
        expected["lora_alpha"] = float(2 * r)
    if method == "qlora":
        args.append("--quantize bnb.nf4")
        expected["quant"] = "nf4"
    return " ".join(args)


def _axolotl_minimal(m, method, seq, b, e, r, expected, rng, lang) -> str:
    """A short axolotl config; the QLoRA here is LoRA on an 8-bit base (load_in_8bit: the advisor's qlora
    with quant int8, as LLaMA-Factory's quantization_bit: 8)."""
    expected["stack"] = "hf"  # the tool trains with the Hugging Face Trainer (advisor/parse/rules.py, _trainer_config_stack)
    lines = [f"base_model: {m.hub_id}"]
    if method == "qlora":
        lines += ["load_in_8bit: true", "adapter: lora"]
        expected["quant"] = "int8"
    elif method == "lora":
        lines.append("adapter: lora")
    if method != "full":
        lines.append(f"lora_r: {r}")
    lines += [f"sequence_len: {seq}", f"micro_batch_size: {b}", f"num_epochs: {e}"]
    expected["epochs"] = float(e)
    return "\n".join(lines)


def _hf_trainer_json(m, method, seq, b, e, r, expected, rng, lang) -> str:
    """TrainingArguments.to_json_string() output under a line naming the run (transformers
    training_args.py: per_device_train_batch_size, num_train_epochs, bf16, gradient_checkpointing, optim)."""
    import json

    word = {"en": {"lora": "LoRA", "qlora": "QLoRA", "full": "full fine-tune"},
            "es": {"lora": "LoRA", "qlora": "QLoRA", "full": "ajuste fino completo"}}[lang][method]
    head = f"{word} of {m.hub_id} at seq {seq}" + (f", r={r}" if method != "full" else "") + ", training args:"
    args = {"output_dir": "out", "per_device_train_batch_size": b, "gradient_accumulation_steps": 4,
            "num_train_epochs": float(e), "learning_rate": 2e-05, "bf16": True, "gradient_checkpointing": True,
            "optim": "adamw_torch", "logging_steps": 10, "save_steps": 500}
    _label_accum(expected, 4)
    expected.update(epochs=float(e), precision="bf16-mixed", gradient_checkpointing=True, optimizer="adamw")
    return head + "\n" + json.dumps(args, indent=2)


def _swift_cli(m, method, seq, b, e, r, expected, rng, lang) -> str:
    """ms-swift's ``swift sft`` command line (swift/llm/argument: --train_type lora|full, --lora_rank,
    --max_length, --per_device_train_batch_size, --num_train_epochs)."""
    args = ["swift sft", f"--model {m.hub_id}", f"--train_type {method}"]
    if method != "full":
        args.append(f"--lora_rank {r}")
    args += [f"--max_length {seq}", f"--per_device_train_batch_size {b}", f"--num_train_epochs {e}",
             "--dataset AI-ModelScope/alpaca-gpt4-data-en"]
    expected["epochs"] = float(e)
    expected["stack"] = "hf"  # ms-swift trains with transformers' Trainer (swift/trainers/trainers.py: Trainer(..., HfTrainer))
    return " ".join(args)


_R4_MODELS = {"torchtune_yaml": lambda m: _TORCHTUNE.get(m.id), "hf_python": lambda m: m.hub_id,
                  "unsloth_python": _unsloth_name, "deepspeed_json": lambda m: m.hub_id,
                  "llamafactory_json": lambda m: m.hub_id, "accelerate_yaml": lambda m: m.hub_id,
                  "train_py_cli": lambda m: m.hub_id, "axolotl_v2": lambda m: m.hub_id,
                  "trl_yaml": lambda m: m.hub_id, "peft_json": lambda m: m.hub_id, "litgpt_cli": lambda m: m.hub_id,
                  "axolotl_minimal": lambda m: m.hub_id, "hf_trainer_json": lambda m: m.hub_id,
                  "swift_cli": lambda m: m.hub_id, "md_table": lambda m: m.hub_id, "env_script": lambda m: m.hub_id,
                  "toml_config": lambda m: m.hub_id, "python_dict": lambda m: m.hub_id,
                  "llamafactory_cli": lambda m: m.hub_id, "hydra_overrides": lambda m: m.hub_id,
                  "nested_yaml": lambda m: m.hub_id, "slurm_script": lambda m: m.hub_id}
_R4_WRITERS = {"torchtune_yaml": _torchtune_yaml, "hf_python": _hf_python, "unsloth_python": _unsloth_python,
               "deepspeed_json": _deepspeed_json, "llamafactory_json": _llamafactory_json,
               "accelerate_yaml": _accelerate_yaml, "train_py_cli": _train_py_cli, "axolotl_v2": _axolotl_v2,
               "trl_yaml": _trl_yaml, "peft_json": _peft_json, "litgpt_cli": _litgpt_cli,
               "axolotl_minimal": _axolotl_minimal, "hf_trainer_json": _hf_trainer_json, "swift_cli": _swift_cli,
               "md_table": _md_table, "env_script": _env_script, "toml_config": _toml_config,
               "python_dict": _python_dict, "llamafactory_cli": _llamafactory_cli,
               "hydra_overrides": _hydra_overrides, "nested_yaml": _nested_yaml, "slurm_script": _slurm_script}

_CONFIG_WRITERS = {"axolotl": _axolotl, "axolotl_json": _axolotl_json, "llamafactory": _llamafactory,
                   "llamafactory_cli": _llamafactory_cli, "trl_python": _trl_python, "trl_cli": _trl_cli}


def generate(n: int, *, split: str = "tune", catalog: Catalog, seed: int = 13) -> list[dict[str, Any]]:
    """``n`` labelled messages of ``split`` (``SPLITS``), the same for the same seed."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}")
    rng = random.Random(f"{seed}:{_STREAM.get(split, split)}")
    gen = _Gen(rng, split, catalog)
    out = []
    for _ in range(n):
        lang = "en" if rng.random() < 0.6 else "es"
        roll = rng.random()
        if roll < 0.62:
            out.append(gen.estimate(lang))
        elif roll < 0.74:
            out.append(gen.config(lang))
        elif roll < 0.89:
            out.append(gen.followup(lang))
        elif roll < 0.95:
            out.append(gen.no_model(lang))
        else:
            out.append(gen.unreadable(lang))
    return out


# --- judging one result -----------------------------------------------------------------------------

ANSWERING = ("estimate", "followup", "compare", "faq")


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        try:
            return abs(float(a) - float(b)) <= 1e-9 * max(1.0, abs(float(b)))
        except (TypeError, ValueError):
            return False
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


RESULT_KEYS = ("faq", "params", "gpus", "gpu_counts")


def judge(entry: dict[str, Any], result: Any) -> dict[str, Any]:
    """How one parse compares with its labels.

    ``ok``: the intent (and clarify code where labelled) is right and the message's own fields
    (``result.delta``) are exactly the labelled ones. ``unsaid``: the parser answered (an
    estimate, follow-up, comparison or FAQ) with a value the message did not state: a field it
    did not say (``invented``), a field read as another value (``misread``), or a default used
    where the message stated a value that cannot be read (``assumed_over_stated``). Defaults for
    what a message does not mention are not counted: the answer lists them as assumed.

    Rows of the hand-written table (no ``noise`` key) label the request to compute: for a
    follow-up, the thread's request merged with the message (``None`` where a field must be
    cleared), plus ``faq``, ``params``, ``gpus``, ``gpu_counts`` and ``warning_codes`` where
    given; their ``invented`` fields are those the message's delta sets and the row does not name (in its
    fields or, with the same value, in its ``params``).
    """
    expected = entry["expected"]
    table = "noise" not in entry
    want_intent = expected.get("intent", "estimate")
    labelled = {k: v for k, v in expected.items() if k in SpecRequest.model_fields and k != "costs"}
    labelled_costs = expected.get("costs") or {}
    delta = {k: v for k, v in result.delta.model_dump(exclude_none=True).items() if k != "costs"}
    delta_costs = result.delta.costs or {}
    if table:
        source = result.request.model_dump()
        got = {k: source[k] for k in labelled}
        got_costs = result.request.costs or {}
    else:
        got, got_costs = delta, delta_costs
    # A row's ``params`` name values the message states ("can I fine-tune on an L4?": ``{"gpu": "l4"}``, the convention
    # of tables 6 and 7, where tables 2-5 also label the request's ``gpu``): a request field set to that same value is
    # said, not invented.
    said_params = {k: v for k, v in (expected.get("params") or {}).items() if k in SpecRequest.model_fields}
    invented = sorted(k for k in set(delta) - set(labelled) if not (k in said_params and _same(delta[k], said_params[k])))
    invented += sorted(f"costs.{k}" for k in set(delta_costs) - set(labelled_costs))
    misread = sorted(k for k in labelled if got.get(k) is not None and not _same(got[k], labelled[k]))
    misread += sorted(f"costs.{k}" for k in labelled_costs if k in got_costs and not _same(got_costs[k], labelled_costs[k]))
    missing = sorted(k for k in labelled if got.get(k) is None and labelled[k] is not None)
    missing += sorted(f"costs.{k}" for k in labelled_costs if k not in got_costs)
    intent_ok = result.intent == want_intent and (
        "clarify_code" not in expected or result.clarify_code == expected["clarify_code"])
    if table:
        intent_ok = intent_ok and all(getattr(result, k) == expected[k] for k in RESULT_KEYS if k in expected)
        intent_ok = intent_ok and set(expected.get("warning_codes", ())) <= set(result.warning_codes)
    answered = result.intent in ANSWERING
    assumed_over_stated = answered and want_intent == "clarify" and expected.get("clarify_code") in (
        "unreadable", "did_you_mean", "number")
    unsaid = answered and bool(invented or misread or assumed_over_stated)
    return {"ok": intent_ok and not invented and not misread and not missing, "intent_ok": intent_ok,
            "invented": invented, "misread": misread, "missing": missing, "answered": answered,
            "assumed_over_stated": assumed_over_stated, "unsaid": unsaid}
