"""A generator of labelled chat messages: templates x vocabularies x both languages x slot orders
x noise, with a fixed seed, so the parser is measured on thousands of messages nobody tuned it on.

    from tests.phrasegen import generate, judge
    entries = generate(3000, split="heldout", catalog=catalog, seed=13)
    verdict = judge(entry, parse_message(entry["text"], catalog, previous=...))

Each entry is shaped like a row of tests/data/phrasings.json: ``text``, ``lang``, ``expected``
(the SpecRequest fields the message states, ``intent`` when it is not "estimate", and
``clarify_code`` where the right answer is a question back), ``previous`` for thread follow-ups,
and ``noise`` (what was done to the text).

Two vocabularies. Every list below has a ``tune`` part and a ``heldout`` part, written together
before the round-3 parser's rules: the ``tune`` split draws only ``tune`` forms and templates; the
``heldout`` split draws ``heldout`` forms where a slot has them (tune forms only where it has
none) and only ``heldout`` templates and config formats. The parser is tuned on ``tune`` only.

Labels are what a careful reader takes from the text, by construction (the slot that wrote the
phrase knows its value). Conventions follow ``advisor.parse``: k = 1024 in a sequence length and
1000 in token counts; "on an H100" names a GPU and no count, "on a single H100" a count of 1; a
family with a size ("llama 70b") is that family's newest model of that size; an axolotl config
without ``adapter`` is a full fine-tune (axolotl's docs: leave ``adapter`` blank to train all
parameters); LLaMA-Factory's ``quantization_bit: 4`` with ``finetuning_type: lora`` is QLoRA and
``lora_target: all`` every linear layer; TRL's ``--use_peft --load_in_4bit`` is QLoRA.

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

SPLITS = ("tune", "heldout")

# --- vocabularies: slot -> lang -> split -> [(form, value)] ------------------------------------

METHODS = {
    "en": {
        "qlora": {"tune": ["qlora", "QLoRA", "q-lora", "QLORA", "4-bit LoRA", "LoRA in 4 bits", "4bit qlora",
                           "QLoRA fine-tune", "qlora finetuning", "4-bit qlora",
                           "qlora-style", "Q LoRA"],
                  "heldout": ["Q-LoRA", "qLoRA", "LoRA on a 4-bit base", "quantized LoRA (4-bit)", "4-bit QLoRA",
                              "LoRA w/ 4-bit quantization"]},
        "lora": {"tune": ["lora", "LoRA", "LoRA adapters", "peft lora", "PEFT", "LoRA fine-tuning", "LoRA finetune",
                          "LoRA SFT", "peft/lora", "LoRA-based fine-tuning", "a lora", "LORA"],
                 "heldout": ["low-rank adapters", "LoRA (PEFT)", "a LoRA adapter", "Lora", "LoRA-tune"]},
        "full": {"tune": ["full fine-tune", "full fine-tuning", "full FT", "full-parameter fine-tuning", "full finetune",
                          "full parameter training", "FFT", "SFT (full)", "full finetuning", "full-FT",
                          "full model fine-tuning", "all-parameter fine-tuning", "full SFT",
                          "full-weights FT", "whole-model fine-tuning"],
                 "heldout": ["full-weight fine-tuning", "full fine tuning", "full-param FT", "complete fine-tune",
                             "fine-tuning of all parameters", "full-parameter SFT"]},
    },
    "es": {
        "qlora": {"tune": ["QLoRA", "qlora", "LoRA en 4 bits", "LoRA cuantizado a 4 bits", "QLoRA de 4 bits", "QLoRA 4 bits"],
                  "heldout": ["Q-LoRA", "LoRA con base en 4 bits", "LoRA sobre un modelo cuantizado en 4 bits"]},
        "lora": {"tune": ["LoRA", "lora", "adaptadores LoRA", "ajuste fino con LoRA", "adaptadores PEFT",
                          "LoRA (adaptadores)"],
                 "heldout": ["adaptadores de bajo rango", "un adaptador LoRA", "PEFT con LoRA"]},
        "full": {"tune": ["ajuste fino completo", "ajuste completo", "entrenamiento completo", "fine-tuning completo",
                          "afinamiento completo", "ajuste fino total", "ajuste completo de parámetros",
                          "ajuste fino de todos los pesos", "full fine-tuning", "ajuste completo del modelo",
                          "afinamiento total", "fine-tuning de todos los parámetros"],
                 "heldout": ["afinado completo", "ajuste de todos los parámetros", "fine-tune completo",
                             "reentrenamiento completo", "entrenamiento de todos los pesos"]},
    },
}
# Method words that wrap the model ("entrenar X completo").
WRAPS = {
    "en": {"full": {"tune": ["fully fine-tune {model}", "full fine-tune of {model}"],
                    "heldout": ["fine-tune {model} end to end (all weights)", "train all of {model}'s weights"]},
           "lora": {"tune": ["LoRA-finetune {model}"], "heldout": ["put LoRA adapters on {model}"]},
           "qlora": {"tune": ["QLoRA-finetune {model}"], "heldout": ["4-bit LoRA on top of {model}"]}},
    "es": {"full": {"tune": ["entrenar {model} completo", "afinar {model} completo"],
                    "heldout": ["ajustar {model} entero", "entrenar todos los pesos de {model}"]},
           "lora": {"tune": ["afinar {model} con LoRA"], "heldout": ["ponerle adaptadores LoRA a {model}"]},
           "qlora": {"tune": ["afinar {model} con QLoRA"], "heldout": ["entrenar {model} con QLoRA"]}},
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
           "heldout": ["seq. {n}", "sequence {n}", "{n}-token context", "context window {k}k", "a {k}k context window",
                       "max length {n}", "{k}K context", "@ {k}k", "seqlen {n}", "cutoff_len {n}", "sequences of {n}"]},
    "es": {"tune": ["secuencia de {n}", "contexto de {k}k", "contexto {n}", "longitud de secuencia {n}",
                    "con {k}k de contexto", "secuencias de {n}", "seq {n}", "{k}k de contexto", "ctx {k}k",
                    "contexto de {n} tokens", "secuencias de {k}k", "con contexto {k}k", "largo de contexto {n}",
                    "longitud {n}", "contexto máximo de {n}", "secuencias de {n} tokens", "{k}k tokens de contexto"],
           "heldout": ["longitud de contexto de {n}", "ventana de contexto de {k}k", "secuencia {n}",
                       "{n} tokens de contexto", "con un contexto de {k}k", "largo de secuencia {n}"]},
}

GPU_FORMS = {
    "rtx-4090": {"tune": ["4090", "RTX 4090", "rtx4090"], "heldout": ["GeForce RTX 4090", "RTX-4090"]},
    "l40s": {"tune": ["L40S", "l40s"], "heldout": ["L40S 48GB"]},
    "a100-80gb": {"tune": ["A100", "A100 80GB", "a100"], "heldout": ["A100-80G", "A100 SXM"]},
    "h100-sxm": {"tune": ["H100", "H100 SXM", "h100"], "heldout": ["H100 80GB", "H100-SXM5"]},
    "h200": {"tune": ["H200"], "heldout": ["H200 SXM"]},
    "a100-40gb": {"tune": ["A100 40GB"], "heldout": ["A100-40G"]},
    "l4": {"tune": ["L4"], "heldout": ["NVIDIA L4"]},
    "b200": {"tune": ["B200"], "heldout": ["HGX B200"]},
    "mi300x": {"tune": ["MI300X"], "heldout": ["Instinct MI300X"]},
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
           "heldout": [("across {c} {g}s", 1, 1), ("using {c}× {g}", 1, 1), ("on {cw} {g}s", "word", 1),
                       ("{c} {g} GPUs", 1, 1), ("on {c} cards", 1, 0), ("on 1 x {g}", "one", 1),
                       ("torchrun --nproc-per-node={c} train.py", 1, 0),
                       ("accelerate launch --multi_gpu --num_processes={c}", 1, 0), ("with a {g}", 0, 1)]},
    "es": {"tune": [("en {c} {g}", 1, 1), ("en {cw} {g}", "word", 1), ("en una {g}", 0, 1), ("en {g}", 0, 1),
                    ("con {c} GPUs", 1, 0), ("en una sola {g}", "one", 1), ("{c}x {g}", 1, 1),
                    ("con {c} {g}", 1, 1), ("en {c}x {g}", 1, 1), ("en un nodo de {c} {g}", 1, 1),
                    ("{cw} {g}", "word", 1), ("{c} tarjetas {g}", 1, 1), ("una {g}", 0, 1)],
           "heldout": [("usando {c} {g}", 1, 1), ("sobre {c} tarjetas {g}", 1, 1), ("con {c} GPUs {g}", 1, 1),
                       ("en {c} x {g}", 1, 1), ("con {cw} GPUs", "word", 0), ("torchrun --nproc_per_node {c}", 1, 0)]},
}

BATCH = {
    "en": {"tune": ["batch {b}", "bs {b}", "bs={b}", "micro-batch {b}", "micro batch size {b}",
                    "per_device_train_batch_size {b}", "batch size {b}", "micro batch {b}",
                    "mbs={b}", "batch size of {b}", "bsz {b}", "per-device batch size {b}", "{b} per device",
                    "batch={b}", "micro-batch size {b}", "{b} samples per device"],
           "heldout": ["mbs {b}", "{b} sequences per GPU", "per-device batch of {b}", "micro_batch_size: {b}",
                       "batch_size={b}", "a micro batch of {b}"]},
    "es": {"tune": ["lote {b}", "micro-lote de {b}", "tamaño de lote {b}", "batch {b}", "lote de {b}",
                    "tamaño del lote {b}", "micro-lote {b}", "batch de {b}", "tamaño de micro-lote {b}",
                    "lote por dispositivo {b}"],
           "heldout": ["lote por GPU de {b}", "micro lote {b}", "{b} secuencias por GPU"]},
}
GLOBAL_NOTE = {
    "en": {"tune": [" (global batch {gb})", ", grad accum {ga}"], "heldout": [" with gradient accumulation of {ga}",
                                                                            " (effective batch {gb})"]},
    "es": {"tune": [" (lote global {gb})", ", acumulación de gradientes {ga}"], "heldout": [" y lote efectivo de {gb}"]},
}
RANK = {
    "en": {"tune": ["rank {r}", "r={r}", "lora_r {r}", "lora rank {r}", "r {r}", "rank={r}", "lora_r={r}",
                    "LoRA rank of {r}", "r: {r}", "rank: {r}", "r of {r}", "LoRA rank={r}"],
           "heldout": ["rank-{r} adapters", "adapter rank {r}", "r{r}", "lora_r: {r}", "LoRA r = {r}"]},
    "es": {"tune": ["rango {r}", "rango de {r}", "r={r}", "r {r}", "con rango de {r}", "rango: {r}"], "heldout": ["rango LoRA de {r}", "con rango {r}", "rank {r}"]},
}
EPOCHS = {
    "en": {"tune": ["{e} epochs", "epochs={e}", "for {e} epochs", "{ew} epochs", "epochs: {e}", "num_epochs {e}",
                    "train for {e} epochs", "epochs {e}", "{e} full epochs", "train {e} epochs"],
           "heldout": ["{ew} epochs", "num_train_epochs {e}", "{e} passes over the data"]},
    "es": {"tune": ["{e} épocas", "{ew} épocas", "épocas: {e}", "por {e} épocas", "épocas {e}"], "heldout": ["durante {e} épocas", "{e} pasadas"]},
}
ONE_EPOCH = {"en": {"tune": ["1 epoch", "one epoch"], "heldout": ["a single epoch", "one pass over the data"]},
             "es": {"tune": ["una época", "1 época"], "heldout": ["una sola época", "una pasada"]}}
EPOCH_WORDS = {"en": {2: "two", 3: "three", 4: "four", 5: "five"}, "es": {2: "dos", 3: "tres", 4: "cuatro", 5: "cinco"}}

DATASET_VALUES = (5_000_000, 20_000_000, 50_000_000, 100_000_000, 200_000_000, 500_000_000, 1_200_000_000)
DATASET = {
    "en": {"tune": ["{D} tokens", "a dataset of {D} tokens", "{Dfull} tokens", "over {D} tokens",
                    "{D} training tokens", "{D} tokens total", "{D} tokens of data", "dataset: {D} tokens",
                    "{D} tokens of text", "dataset size {D} tokens", "~{D} tokens", "{D} toks"],
           "heldout": ["{Dwords} tokens", "a corpus of {D} tokens", "{D}-token dataset", "training on {D} tokens"]},
    "es": {"tune": ["{D} tokens", "datos de {D} tokens", "{Dfull} tokens", "{D} tokens de datos",
                    "dataset de {D} tokens", "{D} tokens en total", "unos {D} tokens", "{D} tokens de texto"],
           "heldout": ["un corpus de {D} tokens", "{Dwords} de tokens", "un dataset de {D} tokens"]},
}
EXAMPLES = {  # {X} examples of {L} tokens each -> X * L
    "en": {"tune": ["{X} examples of {L} tokens", "{X} samples of {L} tokens", "{X} training examples of {L} tokens"],
           "heldout": ["{X} samples averaging {L} tokens", "{X} rows x {L} tokens", "{X} conversations of ~{L} tokens"]},
    "es": {"tune": ["{X} ejemplos de {L} tokens", "{X} filas de {L} tokens"], "heldout": ["{X} muestras de unos {L} tokens",
                                                               "{X} conversaciones de {L} tokens"]},
}
GC = {
    "en": {"tune": [("with gradient checkpointing", True), ("without gradient checkpointing", False),
                    ("no gradient checkpointing", False), ("grad ckpt on", True)],
           "heldout": [("activation checkpointing enabled", True), ("gradient_checkpointing: false", False),
                       ("gc off", False), ("turn off gradient checkpointing", False)]},
    "es": {"tune": [("con gradient checkpointing", True), ("sin gradient checkpointing", False)],
           "heldout": [("sin checkpointing de activaciones", False), ("con checkpointing de gradientes", True)]},
}
OPTIMIZER = {
    "en": {"tune": [("8-bit adam", "adamw-8bit"), ("paged adamw 8bit", "paged-adamw-8bit"), ("adamw", "adamw"),
                    ("sgd", "sgd")],
           "heldout": [("adamw_bnb_8bit", "adamw-8bit"), ("optim=paged_adamw_8bit", "paged-adamw-8bit"),
                       ("bnb 8-bit AdamW", "adamw-8bit"), ("plain AdamW", "adamw")]},
    "es": {"tune": [("adam de 8 bits", "adamw-8bit"), ("adamw", "adamw")],
           "heldout": [("AdamW en 8 bits", "adamw-8bit"), ("paged_adamw_8bit", "paged-adamw-8bit")]},
}
PRECISION = {
    "en": {"tune": [("bf16", "bf16-mixed"), ("fp16", "fp16-mixed"), ("pure bf16", "bf16"), ("fp32", "fp32")],
           "heldout": [("bfloat16 mixed precision", "bf16-mixed"), ("fp16 mixed precision", "fp16-mixed"),
                       ("float32", "fp32"), ("bf16 everywhere", "bf16")]},
    "es": {"tune": [("bf16 mixta", "bf16-mixed"), ("fp32", "fp32")],
           "heldout": [("precisión mixta bf16", "bf16-mixed"), ("float32", "fp32")]},
}
REGION = {
    "en": {"tune": [("in Paris", "eu-west"), ("in Frankfurt", "eu-central")],
           "heldout": [("in EU West", "eu-west"), ("in Germany", "eu-central")]},
    "es": {"tune": [("en París", "eu-west"), ("en Fráncfort", "eu-central")],
           "heldout": [("en Francia", "eu-west"), ("en Alemania", "eu-central")]},
}
FAILED = {
    "en": {"tune": ["{p}% failed runs", "assume {p}% failed runs"], "heldout": ["failure rate {p}%"]},
    "es": {"tune": ["{p}% de ejecuciones fallidas"], "heldout": ["tasa de fallos del {p}%"]},
}
UNREADABLE = {  # a slot word with a value nobody can read: the answer is a question about that field
    "en": {"tune": [("seq len: max", "seq_len"), ("context: full", "seq_len"), ("rank: ?", "lora_rank"),
                    ("batch: tbd", "micro_batch")],
           "heldout": [("seq ??", "seq_len"), ("context length: big", "seq_len"), ("batch size: whatever fits", "micro_batch"),
                       ("lora rank: tbd", "lora_rank")]},
    "es": {"tune": [("secuencia: larga", "seq_len"), ("lote: ?", "micro_batch")],
           "heldout": [("contexto: el máximo", "seq_len"), ("rango: por decidir", "lora_rank")]},
}
# Family + size forms a person types, with the model they mean (the family's newest of that size).
FAMILY_SIZES = {"tune": [("llama 70b", "llama-3.3-70b"), ("qwen 7b", "qwen2.5-7b"), ("mistral 7b", "mistral-7b-v0.3"),
                         ("gemma 27b", "gemma-3-27b")],
                "heldout": [("qwen 14b", "qwen3-14b"), ("llama 8b", "llama-3.1-8b"), ("gemma 9b", "gemma-2-9b")]}
SIZES = (0.5, 1.5, 3, 7, 13, 20, 33, 70)
SIZE_FORMS = {
    "en": {"tune": ["{s}b", "{s}B", "a {s}B model", "{s}B model", "{s}B params"],
           "heldout": ["a {s}-billion-parameter model", "a {s}B-param LLM", "{s}B-parameter model"]},
    "es": {"tune": ["{s}B", "un modelo de {s}B", "{s} mil millones de parámetros"],
           "heldout": ["un modelo de {s} mil millones", "un LLM de {s}B", "modelo {s}B"]},
}

TEMPLATES = {
    "en": {"tune": ["{core} {rest}", "{core}, {rest}", "can we {core} {rest}?", "{rest} {core}", "need {core}: {rest}",
                    "how much to {core} with {rest}?", "{core}",
                    "can I {core} {rest}?", "what does it cost to {core} with {rest}", "{core} -- {rest}",
                    "how long to {core}, {rest}?", "we want to {core} with {rest}",
                    "- {core}\n- {rest}", "Q: {core}? {rest}", "{core}\n{rest}", "team wants {core} ({rest}), thoughts",
                    "sizing request: {core}, {rest}", "{core} {rest} pls", "{rest}. {core}.",
                    "do we have enough GPU for {core} {rest}?", "Estimate {core} w/ {rest}"],
           "heldout": ["what gpu should i rent to {core} {rest}?", "quick q: {core} - {rest}",
                       "is it feasible to {core} ({rest})?", "{core} | {rest}", "planning to {core} with {rest}, which card?",
                       "hi! {core}; {rest}. thoughts?"]},
    "es": {"tune": ["{core} {rest}", "{core}, {rest}", "¿podemos hacer {core} {rest}?", "quiero {core} con {rest}",
                    "{core}", "¿cuánto cuesta {core} con {rest}?", "¿se puede {core} {rest}?", "queremos {core}, {rest}",
                    "- {core}\n- {rest}", "pregunta: {core}, {rest}", "{core}\n{rest}", "¿nos alcanza para {core} con {rest}?",
                    "estimación para {core}: {rest}", "{rest}. {core}."],
           "heldout": ["¿qué GPU alquilo para {core} {rest}?", "necesitamos {core}: {rest}",
                       "¿cuánto costaría {core} con {rest}?", "{core} - {rest}", "hola, {core}; {rest}. ¿qué opinas?"]},
}
CORES = {
    "en": {"tune": ["{method} {model}", "{method} on {model}", "{method} of {model}", "{model} {method}",
                    "{method} with {model}", "{method}: {model}", "{model}, {method}"],
           "heldout": ["{method} for {model}", "{model} with {method}", "{model} ({method})"]},
    "es": {"tune": ["{method} de {model}", "{method} para {model}", "{model} con {method}", "{method} con {model}",
                    "{model}, {method}"],
           "heldout": ["{method} sobre {model}", "{model} en {method}"]},
}
FOLLOWUPS = {
    "en": {"tune": ["what about {slot}?", "and {slot}?", "same but {slot}", "try {slot}", "{slot} instead", "with {slot}",
                    "ok, {slot}", "what if {slot}?", "now with {slot}"],
           "heldout": ["ok now {slot}", "how about {slot}?", "and if we use {slot}?", "let's try {slot}", "redo it with {slot}"]},
    "es": {"tune": ["¿y con {slot}?", "¿y {slot}?", "mejor {slot}", "prueba con {slot}", "¿y si {slot}?",
                    "ahora con {slot}", "¿con {slot}?"],
           "heldout": ["¿qué tal con {slot}?", "ahora {slot}", "¿y si usamos {slot}?", "cambia a {slot}"]},
}
SWITCH_METHOD = {"en": {"tune": ["switch to {m}", "and with {m}?"], "heldout": ["what if we do {m} instead?"]},
                 "es": {"tune": ["¿y con {m}?", "cambia a {m}"], "heldout": ["¿y si hacemos {m}?"]}}
CONFIG_FORMATS = {"tune": ["axolotl", "llamafactory", "trl_python"], "heldout": ["axolotl_json", "trl_cli", "llamafactory_cli"]}
CONFIG_QUESTION = {
    "en": {"tune": ["will this fit on {a} {g}?", "can you check this config?", "cost of this on {c} {g}s?"],
           "heldout": ["does this run on {a} {g}?", "sanity check pls"]},
    "es": {"tune": ["¿esto cabe en una {g}?", "¿puedes revisar esta config?"], "heldout": ["¿cuánto cuesta esto en {c} {g}?"]},
}
MENTIONS = ("<@U04ABCDEF>", "<@U01ZZZ9|advisor>")
EMOJI = (" :rocket:", " 🙏", " :pray:", " :thinking_face:", " 🚀")

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
        """A form of this split ("heldout" falls back to "tune" where a slot has no held-out forms)."""
        forms = table.get(self.split) or table["tune"]
        if self.split == "heldout" and table.get("heldout") and self.rng.random() < 0.25:
            forms = table["tune"]  # held-out messages still mix in familiar forms
        return self.rng.choice(forms)

    # --- slots: (phrase, fields) ---

    def model(self, lang: str, noise: list[str]) -> tuple[str, dict[str, Any], str | None]:
        """A model phrase, its fields, and the word a typo may hit."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.18:
            s = rng.choice(SIZES)
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
        return {"tune": tune, "heldout": held}

    def method_phrase(self, lang: str, method: str) -> str:
        return self.pick(METHODS[lang][method])

    def seq(self, lang: str, noise: list[str]) -> tuple[str, dict[str, Any]]:
        n = self.rng.choice(SEQ_VALUES)
        form = self.pick(SEQ[lang])
        if "{k}" in form and n < 1024:
            n = 1024 * self.rng.choice((1, 2, 4, 8))
        return form.format(n=_num(self.rng, n, lang, noise), k=n // 1024), {"seq_len": n}

    def gpu(self, lang: str) -> tuple[str, dict[str, Any]]:
        rng = self.rng
        form, says_count, says_gpu = self.pick(GPU_SLOT[lang])
        ident = rng.choice(list(GPU_FORMS))
        g = self.pick(GPU_FORMS[ident])
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
        if self.rng.random() < 0.3:
            ga = self.rng.choice((4, 8, 16))
            text += self.pick(GLOBAL_NOTE[lang]).format(gb=b * ga * 8, ga=ga)
        return text, {"micro_batch": b}

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
        entry = {"text": text, "lang": lang, "split": self.split, "expected": expected, "noise": noise}
        if previous is not None:
            entry["previous"] = previous
        return entry

    def config(self, lang: str) -> dict[str, Any]:
        rng = self.rng
        fmt = rng.choice(CONFIG_FORMATS[self.split])
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
        noise = [f"config:{fmt}"]
        if rng.random() < 0.6:
            text = "```\n" + text + "\n```"
        if rng.random() < 0.7:
            question = self.pick(CONFIG_QUESTION[lang])
            ident = rng.choice(list(GPU_FORMS)[:4])
            g = self.pick(GPU_FORMS[ident])
            c = rng.choice((2, 4, 8))
            a = "an" if re.match(r"[aeiouAEIOU]|[LlHhMm]\d|RTX", g) else "a"
            if "{g}" in question:
                expected["gpu"] = ident
            if "{c}" in question:
                expected["num_gpus"] = c
            question = question.format(g=g, c=c, a=a)
            text = (question + "\n" + text) if rng.random() < 0.5 else (text + "\n" + question)
        return self._finish(text, lang, expected, noise, prose=False)

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
    lines = [f"base_model: {hub}"]
    if method != "full":
        lines.append(f"adapter: {method}")
    if method == "qlora" and rng.random() < 0.6:
        lines.append("load_in_4bit: true")
    lines += ["datasets:", "  - path: tatsu-lab/alpaca", "    type: alpaca", f"sequence_len: {seq}",
              f"micro_batch_size: {b}", f"gradient_accumulation_steps: {rng.choice((1, 4, 8))}", f"num_epochs: {e}",
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
    lines = [f"model_name_or_path: {hub}", "stage: sft", "do_train: true",
             f"finetuning_type: {'full' if method == 'full' else 'lora'}"]
    if method == "qlora":
        lines.append("quantization_bit: 4")
    if method != "full":
        lines += [f"lora_rank: {r}", "lora_target: all"]
        expected["lora_targets"] = "all-linear"
    lines += ["dataset: alpaca_en_demo", "template: llama3", f"cutoff_len: {seq}", "max_samples: 1000",
              f"per_device_train_batch_size: {b}", "gradient_accumulation_steps: 8", "learning_rate: 1.0e-4",
              f"num_train_epochs: {e}.0", "lr_scheduler_type: cosine", "warmup_ratio: 0.1", "bf16: true"]
    expected["precision"] = "bf16-mixed"
    return "\n".join(lines)


def _llamafactory_cli(hub, method, seq, b, e, r, expected, rng) -> str:
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


_CONFIG_WRITERS = {"axolotl": _axolotl, "axolotl_json": _axolotl_json, "llamafactory": _llamafactory,
                   "llamafactory_cli": _llamafactory_cli, "trl_python": _trl_python, "trl_cli": _trl_cli}


def generate(n: int, *, split: str = "tune", catalog: Catalog, seed: int = 13) -> list[dict[str, Any]]:
    """``n`` labelled messages of ``split`` ("tune" or "heldout"), the same for the same seed."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}")
    rng = random.Random(f"{seed}:{split}")
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
    given; their ``invented`` fields are those the message's delta sets and the row does not name.
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
    invented = sorted(set(delta) - set(labelled)) + sorted(f"costs.{k}" for k in set(delta_costs) - set(labelled_costs))
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
