"""Round 17's generated blind split: an independent generator of labelled chat messages (issue #13).

    from tests.heldout import gen17
    entries = gen17.generate(3000, catalog=catalog, seed=17)
    verdict = tests.phrasegen.judge(entry, parse_message(entry["text"], catalog, previous=...))

Written for issue #13's held-out measurement of round 17 by a helper session that did not read the parser and
did not run it, nor any benchmark, ``advisor ask`` / ``advisor parse`` or any test that parses a message, while
writing. What it read: ``advisor/spec.py`` (fields, accepted values, MAX_* bounds), ``advisor/parse/result.py``
(``ParseResult`` field names, intents, documented clarify codes) and nothing else under ``advisor/parse/``; the
clarify message keys of ``advisor/i18n/parse.py``; the catalog (``advisor catalog list --all --models``: model,
GPU and region ids); tests/heldout/table5.py's docstring (the labelling conventions, followed here);
``tests/phrasegen.py``'s ``judge``; tests/heldout/gen15.py (the structure and API copied here; its vocabularies
and frames avoided); tests/test_parse_blind15g_counts.py (the structure checks, copied into
tests/test_parse_blind17g_counts.py). phrasegen.py, gen9.py, gen11.py and gen13.py were only searched (grep,
with a few matching lines and their FOREIGN lists seen) for the forms and config markers below, to keep them
out. It was committed ("freeze round-17 blind set gen17 (written blind, before any parser run)") before any
parser run on it; nobody tunes the parser on it.

Entries are shaped like gen15's: ``text``, ``lang``, ``expected`` (the ``SpecRequest`` fields the message itself
states, ``intent`` when it is not "estimate", ``clarify_code`` where the right answer is a question back),
``previous`` for a thread follow-up (its ``expected`` is only what the message changes), ``noise`` (what was done
to the text; its presence makes ``judge`` compare the parse's delta), ``split`` ("gen17") and ``kind``
(``KINDS``). A question back labels what the message states besides the value it asks about.

People and frames (``TEMPLATES``, both languages): a consultant's recommendation for a client, a budget ceiling
("$4,500" / "4.500 €", a number that is no spec value), a hackathon team renting for a weekend, a vendor quote
being checked, a course lab sheet ("Lab 4" / "Práctica 4"), a Kaggle notebook moving to a rented box, a JIRA
ticket with an acceptance line, release notes naming the next build; estimates asked as questions ("what's the
cheapest way to run ...", "roughly how many GPU-hours for ..."); a paper's hyperparameter table pasted as a
Markdown table (``paper_table``: rows "base checkpoint", "fine-tuning method", "max seq. length (tokens)",
"batch size / GPU", "epochs trained", "LoRA rank r", "accelerators used" and Spanish, in any order, plus
learning rate, warm-up and weight decay rows that are no spec values); terse ``command``
messages whose slots come in any order, joined by " / ", " · ", ", " or " | "; ``adjacent`` messages with a size
right before (or after) a sequence word ("qlora 13b seq 2048", "seq 2048 13b qlora", "13B model, 2k context",
"lora 1.5b seq 1024 rank 16", "qwen2.5 7b ctx 8k"), the size labelled ``params_b`` (or the catalog model) and
the number after the word the sequence length; ``typo`` (one edit in a method word, a model family word or a
setting word: "qlroa", "Mistrl 7B", "sequnce length", "épcoas"), labelled as the word (table5's convention);
``correction`` ("erratum: the sequence length should read N, not M", "ugh, misread the ticket: N tokens, not M",
"fe de erratas: ...", "perdón, leí mal el ticket: ..."), labelled with the new value; ``conflict`` (two values
from two sources, neither a correction: "context 4096 per the ticket, 8192 per the notebook"); ``unreadable``
("context: same as prod (ask Raj)", "rank: TBD by the consultant", "GPUs: as many as the budget allows",
"epochs: whatever the lab sheet says", "batch: largest that doesn't OOM", "corpus: the usual dump, size
unknown" and Spanish); ``limit`` (a stated value beyond advisor/spec.py's MAX_* bounds: a 3,000,000-token
context, "6000× H100s", 1500 epochs, a micro-batch of 8192, a 2000B model); ``family_size`` (a catalog family
with a size it does not have: "Qwen3 3B", "Gemma 3 8B", "Llama 3.2 7B", "Qwen2.5 10B", "Gemma 2 4B");
``number`` (a bare number at the end whose field nobody can tell); ``followup`` (a thread reply: "per the
consultant, bump it to ...", "what if the vendor gives us ... instead?", "ticket updated: ...", "según el
consultor, cámbialo a ...", "¿y si el proveedor nos da ...?", "ticket actualizado: ...").

Vocabularies (each distinctive form absent from phrasegen.py, gen9.py, gen11.py, gen13.py and gen15.py, as
tests/test_parse_blind17g_counts.py checks it): method words "QLoRA over a 4-bit base", "a QLoRA adapter",
"LoRA (adapters, frozen base)", "no-frills LoRA", "a full-weight SFT", "full-weight training" and Spanish
("QLoRA (base cuantizada a 4 bits)", "un adaptador QLoRA", "adaptadores LoRA nada más", "LoRA a secas", "SFT de
pesos completos", "reentrenamiento de todos los pesos"), besides the plain "QLoRA", "LoRA", "full fine-tune",
"ajuste completo"; models as the display name, the catalog id, a code span of the Hub id, an ``https://hf.co/``
short link, "the <display> weights we mirrored" / "<display> (nuestro mirror)", Hub models the catalog does not
know (MiniCPM3, Mamba 2.8B, Jamba Mini, XGLM, GPT-J, Cerebras-GPT, OpenLLaMA, Nous Hermes 2 Yi; labelled by Hub
id), sizes alone "a {s}B base we trained ourselves", "our {s}B checkpoint", "un {s}B que entrenamos nosotros",
"un checkpoint casero de {s}B"; sequence lengths "truncated at {n} tokens", "context capped at {n}", "truncado a
{n} tokens", "contexto tope de {n}" with the value plain, as "{k}k" (k = 1024), with a comma/dot thousands
separator, with a narrow no-break space ("4 096", the SI separator) or in full-width digits ("４０９６", an
IME); micro-batches "{b} sequences per GPU step", "per-device mb {b}", "{b} secuencias por paso y GPU", "{b}
ejemplos por tarjeta"; ranks "r={r}", "r={r} α={a}", "rango de LoRA a {r}", "rango {r} con alfa {a}"; epochs
"{E} across the whole set", "{E} start to finish", "{E} sobre el set", "{E} y listo", with {E} "2 epochs", "two
epochs", "una época", "dos épocas", "1,5 épocas"; datasets "corpus weighs in at {D}", "{D} of SFT data", "el
corpus mide {D}", "{D} de datos SFT", including "60k examples of ~500 tokens" (N x L); GPUs "{c}× {g}", "{c}-GPU
{g} box", "exactly one {g}, no more" (one), "{g} cards from the vendor" (no count), "una caja {g} de {c} GPUs",
"una {g} única y ya", "{g} del proveedor", the GPU as "H100 SXM5 80 GB", "A100 SXM4 80 GB", "L40S (48 GB
GDDR6)", "RTX 4090 (24 GB GDDR6X)", "H200 SXM 141 GB", "B200 SXM 180 GB", "H100 PCIe 80 GB", "L4 (g6)", "MI300X
192 GB", "A10G (g5)", "RTX 6000 Ada 48 GB", "A100 (40 GB HBM2)"; regions "the Paris datacenter", "the Frankfurt
datacenter", "el datacenter de París", "el datacenter en Fráncfort"; settings "checkpointed activations:
yes/no", "autocast to bf16", "pure bf16 weights", "fp16 + loss scaling", "fp32 all the way", "AdamW (8-bit,
bnb)", "paged AdamW 8-bit", "AdamW from torch, defaults", "SGD, no momentum tricks", "ZeRO-2/3 via DeepSpeed",
"FSDP full shard", "plain DDP", "attn_implementation=eager", "FlashAttention 2 kernels", "LoRA on attention
projections only", "target_modules=all-linear", "torch.compile on", "sequence packing: yes/no" and Spanish.
The sequence words of ``adjacent`` ("seq", "seq_len", "seq.", "sequence", "context", "ctx", "secuencia",
"contexto"), "13B model, 2k context" and the Spanish epoch words are the issue's own plain words, shared.

Noise (``noise`` names each): a distractor clause of numbers that are no spec values (a learning rate, a
warm-up share, a seed, a due date, a quote id, a version, a GSM8K problem count, a weight decay); a ``wrap``
(email-style hard line breaks at ~48 characters); a ``udash`` (the ASCII hyphens of the prose replaced by
U+2011 non-breaking hyphens, as pasted from a document); ``nbsp`` (a no-break space between a count and its
GPU); ``fullwidth`` / ``thinsp`` digits in the sequence length (above); a trailing ``emoji`` ("🙇", "💸💸",
"✨", ":sweat_smile:"); a ``quoted`` reply ("> maria wrote: can we get a number by EOD?"); a ``channel``
mention ("<!here>" or "<#C04ML9|ml-infra>"); ``double_space``.

Config shapes (``CONFIG_SHAPES``; no ``SHAPE_MARKERS`` string occurs in phrasegen.py, gen9.py, gen11.py,
gen13.py or gen15.py): a LitGPT ``--config`` YAML (litgpt/config_hub/finetune/*/lora.yaml, qlora.yaml:
``checkpoint_dir``, ``precision: bf16-true``, ``quantize: bnb.nf4-dq``, ``train.micro_batch_size``,
``train.max_seq_length``, ``train.epochs``, ``devices``), an Unsloth ``FastModel.from_pretrained`` /
``FastModel.get_peft_model`` cell (unsloth's README: ``load_in_4bit``, ``full_finetuning=True``), an accelerate
FSDP2 config (accelerate's docs "FSDP1 vs FSDP2": ``fsdp_version: 2``; ``num_processes`` is the total over
``num_machines``), an axolotl YAML with ``deepspeed: deepspeed_configs/zero2.json|zero3.json`` (axolotl's
deepspeed_configs/ folder), a LLaMA-Factory YAML with ``deepspeed: examples/deepspeed/ds_z2_config.json|
ds_z3_config.json`` (LLaMA-Factory's examples/deepspeed/), a Run:ai ``runai submit ... --gpu N`` line, an Azure
ML ``command(... instance_count=N, distribution=PyTorchDistribution(process_count_per_instance=M))`` job on a
named VM size (learn.microsoft.com GPU VM sizes: Standard_ND96isr_H100_v5 8x H100, Standard_ND96amsr_A100_v4
8x A100 80GB, Standard_ND96asr_v4 8x A100 40GB, Standard_NC24ads_A100_v4 1x A100 80GB), a Vertex AI
``CustomJob`` ``worker_pool_specs`` (cloud.google.com MachineSpec: ``accelerator_type`` NVIDIA_H100_80GB,
NVIDIA_A100_80GB, NVIDIA_TESLA_A100 (40 GB), NVIDIA_L4, NVIDIA_H200_141GB, ``accelerator_count``), a ``gcloud
compute instances create --accelerator=type=...,count=N`` line, a SageMaker Hugging Face estimator
(``sagemaker.huggingface.HuggingFace``; aws.amazon.com/sagemaker/pricing and the EC2 instance pages:
ml.p5e.48xlarge 8x H200, ml.p6-b200.48xlarge 8x B200, ml.g6e.xlarge 1x L40S, ml.g6e.48xlarge 8x L40S,
ml.g5.2xlarge 1x A10G, ml.g5.48xlarge 8x A10G, ml.g6.48xlarge 8x L4) and a ``python -m torch.distributed.run
--nnodes=N --nproc-per-node=M --rdzv-backend=c10d`` launch.

Labelling conventions are table5's (tests/heldout/table5.py's docstring): k = 1024 in a sequence length,
thousands separators of either convention are the number, token counts decimal, "N examples of ~L tokens" N x L
tokens, "H100" the SXM part, "A100" the 80 GB one, a catalog model by its catalog id (its Hub id or Hub URL is
that model) and never with a size, a Hub id the catalog does not know by the id, a size alone by ``params_b``;
a corrected value is replaced by the correction; Trainer / accelerate ``bf16`` flags are mixed precision;
``quantization_bit: 4`` / ``load_in_4bit`` with LoRA is QLoRA and names no quantization type; ``lora_target:
all`` is every linear layer; axolotl and LLaMA-Factory state the ``hf`` stack, Unsloth ``unsloth``; the other
tools here state no stack; two values for one field without a correction are a "conflict", a value nobody can
read "unreadable", a bare number of no telling field "number", a value beyond the MAX_* bounds "limit", a
family without the size "family_size". Conventions this set adds:

- LitGPT's config states the ``litgpt`` stack; its ``precision: bf16-true`` is pure bf16 (``bf16``) and
  ``quantize: bnb.nf4-dq`` QLoRA with ``quant`` nf4 and ``double_quant`` (the quantization type is named);
  ``devices`` x ``num_nodes`` are the GPUs.
- Unsloth's ``full_finetuning=True`` is a full fine-tune, ``get_peft_model`` with ``load_in_4bit=True`` QLoRA,
  without it LoRA.
- accelerate's ``num_processes`` is the job's GPU count (already the total over machines),
  ``fsdp_activation_checkpointing`` gradient checkpointing, ``distributed_type: FSDP`` FSDP.
- ``deepspeed: .../zero2.json`` / ``ds_z2_config.json`` (and 3) state ZeRO stage 2 (3); ``sample_packing:
  true`` is packing.
- Run:ai ``--gpu N`` states N GPUs and no GPU type; Azure ML's instance_count x process_count_per_instance,
  Vertex's ``accelerator_count`` (one replica), gcloud's ``count=N``, SageMaker's instance_count x the instance
  type's GPUs and torch.distributed.run's nnodes x nproc-per-node are the GPUs; the VM size, accelerator type or
  instance type names the GPU.
- A paper table's "batch size / GPU" is the micro-batch, its learning rate, warm-up and weight decay no spec
  value; "| accelerators used | 8× A100 SXM4 80 GB |" is the GPU and count.
- "{c}-GPU {g} box" is c GPUs; "{g} cards from the vendor" names the GPU without a count; "exactly one {g}, no more"
  one.
- "per the ticket / per the notebook" (two sources, two values, no correction) is a conflict.
- A bare size right before a sequence word ("13b seq 2048") is the model size, the number after the word the
  length; "1.5b seq 1024 rank 16" is a rank of 16.
"""

from __future__ import annotations

import random
import re
from typing import Any

from advisor.catalog import Catalog

SPLIT = "gen17"
N_DEFAULT = 3000
KINDS = ("estimate", "question", "paper_table", "command", "adjacent", "config", "typo", "correction", "conflict",
         "unreadable", "limit", "family_size", "number", "followup")

# --- vocabularies -------------------------------------------------------------------------------------------

METHOD = {
    "en": {"qlora": ["QLoRA over a 4-bit base", "a QLoRA adapter", "QLoRA"],
           "lora": ["LoRA (adapters, frozen base)", "no-frills LoRA", "LoRA"],
           "full": ["a full-weight SFT", "full-weight training", "full fine-tune"]},
    "es": {"qlora": ["QLoRA (base cuantizada a 4 bits)", "un adaptador QLoRA", "QLoRA"],
           "lora": ["adaptadores LoRA nada más", "LoRA a secas", "LoRA"],
           "full": ["SFT de pesos completos", "reentrenamiento de todos los pesos", "ajuste completo"]},
}
PLAIN_METHODS = ("QLoRA", "LoRA", "full fine-tune", "ajuste completo")
# Hub models the catalog does not know (checked with Catalog.find_model in tests/test_parse_blind17g_counts.py).
FOREIGN = ("openbmb/MiniCPM3-4B", "state-spaces/mamba-2.8b-hf", "ai21labs/AI21-Jamba-Mini-1.5",
           "facebook/xglm-7.5B", "EleutherAI/gpt-j-6b", "cerebras/Cerebras-GPT-13B", "openlm-research/open_llama_13b",
           "NousResearch/Nous-Hermes-2-Yi-34B")
SIZES = (3, 6, 11, 13, 20, 30, 65, 120)
SIZE_FORMS = {"en": ["a {s}B base we trained ourselves", "our {s}B checkpoint"],
              "es": ["un {s}B que entrenamos nosotros", "un checkpoint casero de {s}B"]}
MODEL_FORMS = {"en": ["{display}", "{id}", "`{hub}`", "https://hf.co/{hub}", "the {display} weights we mirrored"],
               "es": ["{display}", "{id}", "`{hub}`", "https://hf.co/{hub}", "{display} (nuestro mirror)"]}
SEQ_VALUES = (1024, 2048, 3072, 4096, 6144, 8192, 16384, 32768)
SEQ = {"en": ["truncated at {n} tokens", "context capped at {n}"],
       "es": ["truncado a {n} tokens", "contexto tope de {n}"]}
BATCH = {"en": ["{b} sequences per GPU step", "per-device mb {b}"],
         "es": ["{b} secuencias por paso y GPU", "{b} ejemplos por tarjeta"]}
RANK = {"en": ["r={r}", "r={r} α={a}"], "es": ["rango de LoRA a {r}", "rango {r} con alfa {a}"]}
EPOCHS = {"en": ["{E} across the whole set", "{E} start to finish"], "es": ["{E} sobre el set", "{E} y listo"]}
EPOCH_WORDS = {"en": {1: "one epoch", 2: "two epochs", 3: "three epochs"},
               "es": {1: "una época", 2: "dos épocas", 3: "tres épocas"}}
DATASET = {"en": ["corpus weighs in at {D}", "{D} of SFT data"], "es": ["el corpus mide {D}", "{D} de datos SFT"]}
# (tokens, English forms, Spanish forms); decimal counts, "N examples of ~L tokens" is N x L
DATASET_VALUES = ((120_000_000, ("120M tokens", "120 million tokens"), ("120 millones de tokens", "120M tokens")),
                  (800_000_000, ("0.8B tokens", "800 million tokens"), ("800 millones de tokens",)),
                  (2_300_000_000, ("2.3B tokens", "2.3 billion tokens"),
                   ("2.300 millones de tokens", "2,3 mil millones de tokens")),
                  (12_000_000_000, ("12B tokens", "12 billion tokens"), ("12.000 millones de tokens",)),
                  (30_000_000, ("60k examples of ~500 tokens",), ("60 mil ejemplos de unos 500 tokens",)),
                  (7_500_000, ("7.5M tokens",), ("7,5 millones de tokens",)))
GPU_FORMS = {"h100-sxm": "H100 SXM5 80 GB", "a100-80gb": "A100 SXM4 80 GB", "l40s": "L40S (48 GB GDDR6)",
             "rtx-4090": "RTX 4090 (24 GB GDDR6X)", "h200": "H200 SXM 141 GB", "b200": "B200 SXM 180 GB",
             "h100-pcie": "H100 PCIe 80 GB", "l4": "L4 (g6)", "mi300x": "MI300X 192 GB", "a10g": "A10G (g5)",
             "rtx-6000-ada": "RTX 6000 Ada 48 GB", "a100-40gb": "A100 (40 GB HBM2)"}
# (form, count): "c" the drawn count, 1 a single GPU, 0 no count
GPU_SLOT = {"en": [("{c}× {g}", "c"), ("{c}-GPU {g} box", "c"), ("exactly one {g}, no more", 1),
                   ("{g} cards from the vendor", 0)],
            "es": [("{c}× {g}", "c"), ("una caja {g} de {c} GPUs", "c"), ("una {g} única y ya", 1),
                   ("{g} del proveedor", 0)]}
GPU_COUNTS = (2, 4, 6, 8, 12, 16, 32)
GC = {"en": [("checkpointed activations: yes", True), ("checkpointed activations: no", False)],
      "es": [("activaciones con checkpoint: sí", True), ("activaciones con checkpoint: no", False)]}
PRECISION = {"en": [("autocast to bf16", "bf16-mixed"), ("pure bf16 weights", "bf16"),
                    ("fp16 + loss scaling", "fp16-mixed"), ("fp32 all the way", "fp32")],
             "es": [("autocast en bf16", "bf16-mixed"), ("pesos en bf16 puro", "bf16"), ("fp16 mixto", "fp16-mixed"),
                    ("fp32 de cabo a rabo", "fp32")]}
OPTIMIZER = {"en": [("AdamW (8-bit, bnb)", "adamw-8bit"), ("paged AdamW 8-bit", "paged-adamw-8bit"),
                    ("AdamW from torch, defaults", "adamw"), ("SGD, no momentum tricks", "sgd")],
             "es": [("AdamW (8 bits, bnb)", "adamw-8bit"), ("AdamW paginado en 8 bits", "paged-adamw-8bit"),
                    ("AdamW normalito", "adamw"), ("SGD sin más", "sgd")]}
REGION = {"en": [("the Paris datacenter", "eu-west"), ("the Frankfurt datacenter", "eu-central")],
          "es": [("el datacenter de París", "eu-west"), ("el datacenter en Fráncfort", "eu-central")]}
SHARDING = {"en": [("ZeRO-2 via DeepSpeed", "zero2"), ("ZeRO-3 via DeepSpeed", "zero3"), ("FSDP full shard", "fsdp"),
                   ("plain DDP", "ddp")],
            "es": [("ZeRO-2 de DeepSpeed", "zero2"), ("ZeRO-3 de DeepSpeed", "zero3"), ("FSDP en full shard", "fsdp"),
                   ("DDP pelado", "ddp")]}
ATTENTION = {"en": [("FlashAttention 2 kernels", "flash"), ("attn_implementation=eager", "eager")],
             "es": [("kernels de FlashAttention 2", "flash"), ("attn_implementation=eager", "eager")]}
TARGETS = {"en": [("LoRA on attention projections only", "attention"), ("target_modules=all-linear", "all-linear")],
           "es": [("LoRA solo en proyecciones de atención", "attention"), ("target_modules=all-linear", "all-linear")]}
COMPILE = {"en": [("torch.compile on", True)], "es": [("torch.compile activado", True)]}
PACKING = {"en": [("sequence packing: yes", True), ("sequence packing: no", False)],
           "es": [("empaquetado de secuencias: sí", True), ("empaquetado de secuencias: no", False)]}
DISTRACTORS = {"en": ["lr 2e-4 with 3% warm-up", "seed 1337", "due 12/09", "quote Q-20931 valid 14 days",
                      "we ship v2.3.1 first", "eval on 1,319 GSM8K problems", "weight decay 0.01"],
               "es": ["lr 2e-4 con 3 % de warm-up", "semilla 1337", "entrega el 09/12",
                      "cotización Q-20931 válida 14 días",
                      "antes sale la v2.3.1", "eval sobre 1.319 problemas de GSM8K", "weight decay de 0,01"]}
MONEY = {"en": ["$4,500", "€2.8k", "USD 12,000"], "es": ["4.500 €", "2,8 mil €", "12.000 USD"]}
TEMPLATES = {
    "en": ["Consultant's recommendation for the client: {core}, {rest}. Which GPU should we rent?",
           "Budget ceiling is {money} for this one. Plan: {core}; {rest}. Doable?",
           "hackathon team here 🏁 {core}, {rest}. what do we rent for the weekend?",
           "Vendor quote came back for {core} ({rest}); is their GPU pick sane?",
           "Lab 4 of the NLP course: {core} with {rest}. What GPU do the students need?",
           "kaggle notebook, moving it to a rented box: {core}, {rest}",
           "[ML-{jira}] Size the GPUs for {core}\nAcceptance: {rest}",
           "Release notes v{ver}: the next build is {core}, {rest}. GPU?"],
    "es": ["Recomendación del consultor para el cliente: {core}, {rest}. ¿Qué GPU alquilamos?",
           "El techo de presupuesto es {money}. Plan: {core}; {rest}. ¿Se puede?",
           "somos un equipo de la hackatón 🏁 {core}, {rest}. ¿qué alquilamos para el finde?",
           "Llegó la cotización del proveedor para {core} ({rest}); ¿tiene sentido su GPU?",
           "Práctica 4 del curso de PLN: {core} con {rest}. ¿Qué GPU necesitan los alumnos?",
           "notebook de kaggle, lo pasamos a una máquina alquilada: {core}, {rest}",
           "[ML-{jira}] Dimensionar las GPUs para {core}\nCriterio de aceptación: {rest}",
           "Notas de versión v{ver}: la próxima build es {core}, {rest}. ¿GPU?"]}
QUESTIONS = {"en": ["what's the cheapest way to run {core} with {rest}?",
                    "roughly how many GPU-hours for {core}, {rest}?"],
             "es": ["¿cuál es la forma más barata de correr {core} con {rest}?",
                    "¿cuántas horas de GPU, más o menos, para {core}, {rest}?"]}
CORES = {"en": ["{method} of {model}", "{model} via {method}"], "es": ["{method} de {model}", "{model} vía {method}"]}
CMD_JOINS = (" / ", " · ", ", ", " | ")
CORRECTION = {"en": ["{text}\nerratum: the sequence length should read {new}, not {old}",
                     "{text} ... ugh, misread the ticket: {new} tokens, not {old}"],
              "es": ["{text}\nfe de erratas: la longitud de secuencia es {new}, no {old}",
                     "{text} ... perdón, leí mal el ticket: {new} tokens, no {old}"]}
CONFLICT = {"en": [("context {a} per the ticket, {b} per the notebook", "seq_len"),
                   ("{a} epochs in the quote, {b} in the lab sheet", "epochs")],
            "es": [("contexto {a} según el ticket, {b} según el notebook", "seq_len"),
                   ("{a} épocas en la cotización, {b} en la guía de la práctica", "epochs")]}
UNREADABLE = {"en": [("context: same as prod (ask Raj)", "seq_len"), ("rank: TBD by the consultant", "lora_rank"),
                     ("epochs: whatever the lab sheet says", "epochs"),
                     ("batch: largest that doesn't OOM", "micro_batch"),
                     ("GPUs: as many as the budget allows", "num_gpus"),
                     ("corpus: the usual dump, size unknown", "dataset_tokens")],
              "es": [("contexto: el mismo que en prod (pregúntale a Raj)", "seq_len"),
                     ("rango: lo decide el consultor", "lora_rank"), ("épocas: las que diga la guía", "epochs"),
                     ("lote: el mayor que no reviente", "micro_batch"),
                     ("GPUs: las que alcance el presupuesto", "num_gpus"),
                     ("corpus: el volcado de siempre, tamaño desconocido", "dataset_tokens")]}
# (form, field): each value is beyond advisor/spec.py's MAX_* bounds
LIMIT = {"en": [("a 3000000-token context", "seq_len"), ("6000× H100s", "num_gpus"), ("1500 epochs", "epochs"),
                ("8192 sequences per GPU step", "micro_batch")],
         "es": [("un contexto de 3000000 tokens", "seq_len"), ("6000× H100", "num_gpus"), ("1500 épocas", "epochs"),
                ("8192 secuencias por paso y GPU", "micro_batch")]}
LIMIT_SIZE = {"en": "a 2000B base we trained ourselves", "es": "un 2000B que entrenamos nosotros"}
FAMILY_SIZE = ("Qwen3 3B", "Gemma 3 8B", "Llama 3.2 7B", "Qwen2.5 10B", "Gemma 2 4B")
NUMBER = {"en": "{core}, {rest}, and {x}", "es": "{core}, {rest}, y {x}"}
FOLLOWUP = {"en": ["per the consultant, bump it to {slot}", "what if the vendor gives us {slot} instead?",
                   "ticket updated: {slot}"],
            "es": ["según el consultor, cámbialo a {slot}", "¿y si el proveedor nos da {slot}?",
                   "ticket actualizado: {slot}"]}
# seq words a size may sit right before (plain words the issue lists; not checked against earlier generators)
SEQ_WORDS = {"en": ("seq", "seq_len", "seq.", "sequence", "context", "ctx"),
             "es": ("secuencia", "contexto", "seq", "ctx")}
ADJ_LONG = {"en": "{s}B model, {k}k context", "es": "modelo de {s}B, contexto de {k}k"}
# one-edit typos: of a method word, of a family word (display names), of a setting word
METHOD_TYPOS = {"qlora": ("qlroa", "qlorra", "qloar"), "lora": ("lroa", "lorq", "loraa"),
                "full": ("full fine-tnue", "full fnie-tune", "full fintune")}
METHOD_TYPOS_ES = {"qlora": ("qlroa", "qlorra"), "lora": ("lroa", "loraa"),
                   "full": ("ajuste compelto", "ajsute completo", "ajuste complteo")}
FAMILY_TYPOS = {"Mistral": ("Mistrl", "Mistarl"), "Llama": ("Lama", "Llamma"), "Qwen2.5": ("Qwne2.5",),
                "Qwen3": ("Qwne3",), "Gemma": ("Gemam", "Gemmma"), "Mixtral": ("Mixtrl",), "DeepSeek": ("DeepSeeek",),
                "Falcon": ("Falcn", "Flacon"), "TinyLlama": ("TinyLlma",)}
SETTING_TYPOS = {"en": [("sequnce length {n}", "seq_len"), ("{e} epcohs", "epochs"),
                        ("micro-bacth {b}", "micro_batch")],
                 "es": [("longitud de secuenica {n}", "seq_len"), ("{e} épcoas", "epochs"),
                        ("micro-lotte de {b}", "micro_batch")]}
PAPER = {"en": {"intro": "Reproducing Table {t} of the paper (appendix B). What do we rent?",
                "head": "| hyperparameter | value |", "model": "base checkpoint", "method": "fine-tuning method",
                "seq": "max seq. length (tokens)", "batch": "batch size / GPU", "epochs": "epochs trained",
                "rank": "LoRA rank r", "hw": "accelerators used", "lr": "| learning rate | 2e-4 |",
                "wu": "| warmup ratio | 0.03 |",
                "wd": "| weight decay | 0.0 |"},
         "es": {"intro": "Reproducimos la tabla {t} del paper (apéndice B). ¿Qué alquilamos?",
                "head": "| hiperparámetro | valor |", "model": "checkpoint base", "method": "método de ajuste",
                "seq": "long. máx. de secuencia (tokens)", "batch": "lote / GPU", "epochs": "épocas entrenadas",
                "rank": "rango r de LoRA", "hw": "aceleradores usados", "lr": "| tasa de aprendizaje | 2e-4 |",
                "wu": "| proporción de warmup | 0,03 |", "wd": "| decaimiento de pesos | 0,0 |"}}
QUOTED = {"en": "> maria wrote: can we get a number by EOD?\n", "es": "> maria escribió: ¿tenemos un número hoy?\n"}
CHANNEL = ("<!here> ", "<#C04ML9|ml-infra> ")
EMOJI = (" 🙇", " 💸💸", " ✨", " :sweat_smile:")
FULLWIDTH = str.maketrans("0123456789", "０１２３４５６７８９")
NNBSP = "\u202f"
NBSP = "\u00a0"
NBHY = "\u2011"

# --- config shapes: GPU names as each tool spells them ------------------------------------------------------
AZURE_VM = {"Standard_ND96isr_H100_v5": ("h100-sxm", 8), "Standard_ND96amsr_A100_v4": ("a100-80gb", 8),
            "Standard_ND96asr_v4": ("a100-40gb", 8), "Standard_NC24ads_A100_v4": ("a100-80gb", 1)}
VERTEX = {"NVIDIA_H100_80GB": ("h100-sxm", "a3-highgpu-{c}g", (1, 2, 4, 8)),
          "NVIDIA_A100_80GB": ("a100-80gb", "a2-ultragpu-{c}g", (1, 2, 4, 8)),
          "NVIDIA_TESLA_A100": ("a100-40gb", "a2-highgpu-{c}g", (1, 2, 4, 8)),
          "NVIDIA_L4": ("l4", "g2-standard-{m}", (1, 2, 4, 8)), "NVIDIA_H200_141GB": ("h200", "a3-ultragpu-8g", (8,))}
G2_MACHINE = {1: 8, 2: 24, 4: 48, 8: 96}
GCLOUD = {"nvidia-h100-80gb": ("h100-sxm", "a3-highgpu-8g", 8), "nvidia-a100-80gb": ("a100-80gb", "a2-ultragpu-4g", 4),
          "nvidia-tesla-a100": ("a100-40gb", "a2-highgpu-2g", 2), "nvidia-l4": ("l4", "g2-standard-48", 4)}
SAGEMAKER_HF = {"ml.p5e.48xlarge": ("h200", 8), "ml.p6-b200.48xlarge": ("b200", 8), "ml.g6e.xlarge": ("l40s", 1),
                "ml.g6e.48xlarge": ("l40s", 8), "ml.g5.2xlarge": ("a10g", 1), "ml.g5.48xlarge": ("a10g", 8),
                "ml.g6.48xlarge": ("l4", 8)}
CONFIG_SHAPES = ("litgpt_yaml", "unsloth_fastmodel", "accelerate_fsdp2", "axolotl_ds", "llamafactory_ds", "runai",
                 "azureml", "vertex", "gcloud", "sagemaker_hf", "torchrun_nnodes")
# What marks each shape in a message; none of them is in phrasegen.py, gen9.py, gen11.py, gen13.py or gen15.py.
SHAPE_MARKERS = ("checkpoint_dir", "FastModel", "fsdp_version", "deepspeed_configs/", "examples/deepspeed/",
                 "runai submit", "PyTorchDistribution", "worker_pool_specs", "gcloud compute", "sagemaker.huggingface",
                 "--nnodes")
HEAD = {"en": ["{method} of {model}: job spec below, which GPU and how long?",
               "handing over {method} on {model} from the consultant:"],
        "es": ["{method} de {model}: va el job spec, ¿qué GPU y cuánto tarda?",
               "os paso el {method} de {model} que dejó el consultor:"]}
HEAD_METHOD = {"en": {"full": "full fine-tune", "lora": "LoRA", "qlora": "QLoRA"},
               "es": {"full": "ajuste completo", "lora": "LoRA", "qlora": "QLoRA"}}


class _Gen:
    def __init__(self, rng: random.Random, catalog: Catalog):
        self.rng = rng
        self.models = [m for m in catalog.models() if m.id != "tiny-test"]
        self.sized = [m for m in self.models if re.fullmatch(r"[A-Za-z][\w. ]* [\d.]+B", m.display_name)]

    def pick(self, seq):
        return self.rng.choice(list(seq))

    # --- slots: each returns (text, fields) ---------------------------------------------------------------

    def method(self, lang: str, method: str | None = None) -> tuple[str, dict]:
        method = method or self.pick(("full", "lora", "qlora"))
        return self.pick(METHOD[lang][method]), {"method": method}

    def model(self, lang: str) -> tuple[str, dict]:
        roll = self.rng.random()
        if roll < 0.12:
            hub = self.pick(FOREIGN)
            return self.pick(["`{hub}`", "https://hf.co/{hub}", "{hub}"]).format(hub=hub), {"model": hub}
        if roll < 0.25:
            s = self.pick(SIZES)
            return self.pick(SIZE_FORMS[lang]).format(s=s), {"params_b": float(s)}
        m = self.pick(self.models)
        return self.pick(MODEL_FORMS[lang]).format(hub=m.hub_id, display=m.display_name, id=m.id), {"model": m.id}

    def seq_value(self, lang: str, n: int, noise: list[str] | None = None) -> str:
        style = self.rng.random()
        if style < 0.35:
            return str(n)
        if style < 0.65:
            return f"{n // 1024}k"
        if style < 0.82:
            return f"{n:,}" if lang == "en" else f"{n:,}".replace(",", ".")
        if style < 0.91:
            if noise is not None:
                noise.append("thinsp")
            return f"{n:,}".replace(",", NNBSP)
        if noise is not None:
            noise.append("fullwidth")
        return str(n).translate(FULLWIDTH)

    def seq(self, lang: str, n: int | None = None, noise: list[str] | None = None) -> tuple[str, dict]:
        n = n or self.pick(SEQ_VALUES)
        return self.pick(SEQ[lang]).format(n=self.seq_value(lang, n, noise)), {"seq_len": n}

    def batch(self, lang: str) -> tuple[str, dict]:
        form = self.pick(BATCH[lang])
        b = self.pick((2, 4, 8, 16) if form.startswith("{b}") else (1, 2, 4, 8, 16))  # no "1 sequences"
        return form.format(b=b), {"micro_batch": b}

    def rank(self, lang: str) -> tuple[str, dict]:
        r = self.pick((8, 16, 32, 64, 128))
        form = self.pick(RANK[lang])
        if "{a}" in form:
            a = r * self.pick((1, 2))
            return form.format(r=r, a=a), {"lora_rank": r, "lora_alpha": float(a)}
        return form.format(r=r), {"lora_rank": r}

    def epochs_phrase(self, lang: str, e: float) -> str:
        if e in EPOCH_WORDS[lang] and self.rng.random() < 0.5:
            return EPOCH_WORDS[lang][int(e)]
        shown = f"{e:g}" if lang == "en" else f"{e:g}".replace(".", ",")
        if lang == "en":
            return f"{shown} epoch" + ("" if e == 1 else "s")
        return f"{shown} época" + ("" if e == 1 else "s")

    def epochs(self, lang: str, e: float | None = None) -> tuple[str, dict]:
        e = e or self.pick((1, 2, 3, 4, 5, 1.5))
        return self.pick(EPOCHS[lang]).format(E=self.epochs_phrase(lang, e)), {"epochs": float(e)}

    def dataset(self, lang: str) -> tuple[str, dict]:
        tokens, en, es = self.pick(DATASET_VALUES)
        return self.pick(DATASET[lang]).format(D=self.pick(en if lang == "en" else es)), {"dataset_tokens": tokens}

    def gpu(self, lang: str, gid: str | None = None, count: int | None = None) -> tuple[str, dict]:
        gid = gid or self.pick(sorted(GPU_FORMS))
        form, kind = self.pick(GPU_SLOT[lang])
        if count is not None:
            form, kind = self.pick([f for f in GPU_SLOT[lang] if f[1] == "c"])
        fields: dict[str, Any] = {"gpu": gid}
        c = count or self.pick(GPU_COUNTS)
        if kind == "c":
            fields["num_gpus"] = c
        elif kind == 1:
            fields["num_gpus"] = 1
        return form.format(c=c, g=GPU_FORMS[gid]), fields

    def _pair(self, table: dict, lang: str, field: str) -> tuple[str, dict]:
        text, value = self.pick(table[lang])
        return text, {field: value}

    def extras(self, lang: str, method: str, k: int, noise: list[str] | None = None,
               avoid: tuple[str, ...] = ()) -> list[tuple[str, dict]]:
        """``k`` settings for distinct fields, beyond method and model."""
        makers = [lambda: self.seq(lang, noise=noise), lambda: self.batch(lang), lambda: self.epochs(lang),
                  lambda: self.dataset(lang), lambda: self.gpu(lang),
                  lambda: self._pair(GC, lang, "gradient_checkpointing"),
                  lambda: self._pair(PRECISION, lang, "precision"), lambda: self._pair(OPTIMIZER, lang, "optimizer"),
                  lambda: self._pair(REGION, lang, "region"), lambda: self._pair(SHARDING, lang, "sharding"),
                  lambda: self._pair(ATTENTION, lang, "attention"), lambda: self._pair(COMPILE, lang, "compile"),
                  lambda: self._pair(PACKING, lang, "packing")]
        weights = [4, 2, 2, 1, 4, 1, 1, 1, 1, 1, 1, 1, 1]
        if method in ("lora", "qlora"):
            makers += [lambda: self.rank(lang), lambda: self._pair(TARGETS, lang, "lora_targets")]
            weights += [2, 1]
        out: list[tuple[str, dict]] = []
        seen: set[str] = set(avoid)
        tries = 0
        while len(out) < k and tries < 200:
            tries += 1
            maker = self.rng.choices(makers, weights=weights)[0]
            text, fields = maker()
            if seen & set(fields):
                continue
            seen |= set(fields)
            out.append((text, fields))
        return out

    # --- noise --------------------------------------------------------------------------------------------

    def noisy(self, text: str, lang: str, noise: list[str], *, prose: bool) -> str:
        rng = self.rng
        if rng.random() < 0.15:
            d = self.pick(DISTRACTORS[lang])
            text = d + ". " + text if text.endswith("?") or "```" in text else text + " (" + d + ")"
            noise.append("distractor")
        if prose and rng.random() < 0.07 and "-" in text and "/" not in text and "=" not in text:
            text = text.replace("-", NBHY)
            noise.append("udash")
        if prose and rng.random() < 0.08:
            new = re.sub(r"(\d) ([A-Z])", lambda m: m.group(1) + NBSP + m.group(2), text, count=1)
            if new != text:
                text = new
                noise.append("nbsp")
        if prose and rng.random() < 0.06 and len(text) > 60 and "\n" not in text:
            text = self._wrap(text)
            noise.append("wrap")
        if prose and rng.random() < 0.05 and ", " in text:
            text = text.replace(", ", ",  ", 1)
            noise.append("double_space")
        if rng.random() < 0.08:
            text += self.pick(EMOJI)
            noise.append("emoji")
        if rng.random() < 0.06:
            text = self.pick(CHANNEL) + text
            noise.append("channel")
        if rng.random() < 0.06:
            text = QUOTED[lang] + text
            noise.append("quoted")
        return text

    @staticmethod
    def _wrap(text: str, width: int = 48) -> str:
        lines, line = [], ""
        for word in text.split(" "):
            if line and len(line) + 1 + len(word) > width:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        lines.append(line)
        return "\n".join(lines)

    def entry(self, text: str, lang: str, expected: dict, kind: str, noise: list[str],
              previous: dict | None = None, prose: bool = True) -> dict[str, Any]:
        text = self.noisy(text, lang, noise, prose=prose)
        out = {"text": text, "lang": lang, "expected": {**expected}, "noise": noise, "split": SPLIT, "kind": kind}
        if previous is not None:
            out["previous"] = previous
        return out

    # --- message kinds ------------------------------------------------------------------------------------

    def _core(self, lang: str) -> tuple[str, dict, str]:
        mtext, mf = self.method(lang)
        model_text, model_f = self.model(lang)
        core = self.pick(CORES[lang]).format(method=mtext, model=model_text)
        return core, {**mf, **model_f}, mf["method"]

    def _frame(self, lang: str, core: str, rest: str) -> str:
        return self.pick(TEMPLATES[lang]).format(core=core, rest=rest, money=self.pick(MONEY[lang]),
                                                 jira=self.rng.randint(1000, 9999),
                                                 ver=f"{self.rng.randint(1, 4)}.{self.rng.randint(0, 12)}")

    @staticmethod
    def _fields(items: list[tuple[str, dict]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for _, f in items:
            out.update(f)
        return out

    def estimate(self, lang: str) -> dict[str, Any]:
        noise: list[str] = []
        core, fields, method = self._core(lang)
        items = self.extras(lang, method, self.pick((1, 2, 3, 4)), noise)
        self.rng.shuffle(items)
        text = self._frame(lang, core, ", ".join(t for t, _ in items))
        return self.entry(text, lang, {**fields, **self._fields(items)}, "estimate", noise)

    def question(self, lang: str) -> dict[str, Any]:
        noise: list[str] = []
        core, fields, method = self._core(lang)
        items = self.extras(lang, method, self.pick((1, 2, 3)), noise)
        text = self.pick(QUESTIONS[lang]).format(core=core, rest=", ".join(t for t, _ in items))
        return self.entry(text, lang, {**fields, **self._fields(items)}, "question", noise)

    def command(self, lang: str) -> dict[str, Any]:
        """Terse slots in any order: method, model and settings shuffled together."""
        noise: list[str] = []
        mtext, mf = self.method(lang)
        model_text, model_f = self.model(lang)
        items = [(mtext, mf), (model_text, model_f)] + self.extras(lang, mf["method"], self.pick((1, 2, 3)), noise)
        self.rng.shuffle(items)
        text = self.pick(CMD_JOINS).join(t for t, _ in items)
        return self.entry(text, lang, self._fields(items), "command", noise)

    def paper_table(self, lang: str) -> dict[str, Any]:
        p = PAPER[lang]
        method = self.pick(("full", "lora", "qlora"))
        m = self.pick(self.models)
        seq, b, e = self.pick(SEQ_VALUES), self.pick((1, 2, 4, 8, 16)), self.pick((1, 2, 3, 5))
        gid = self.pick(sorted(GPU_FORMS))
        c = self.pick((1, 2, 4, 8))
        rows = [f"| {p['model']} | {self.pick([m.display_name, m.hub_id])} |",
                f"| {p['method']} | {HEAD_METHOD[lang][method]} |", f"| {p['seq']} | {seq} |",
                f"| {p['batch']} | {b} |", f"| {p['epochs']} | {e} |", p["lr"], p["wu"]]
        expected: dict[str, Any] = {"method": method, "model": m.id, "seq_len": seq, "micro_batch": b,
                                    "epochs": float(e), "gpu": gid, "num_gpus": c}
        if method != "full":
            r = self.pick((8, 16, 32, 64))
            rows.append(f"| {p['rank']} | {r} |")
            expected["lora_rank"] = r
        rows += [p["wd"], f"| {p['hw']} | {c}× {GPU_FORMS[gid]} |"]
        body = [rows[0], rows[1]] + self.rng.sample(rows[2:], len(rows) - 2)
        text = (p["intro"].format(t=self.pick((2, 3, 7, 9))) + "\n" + p["head"] + "\n|---|---|\n" + "\n".join(body))
        return self.entry(text, lang, expected, "paper_table", ["paper_table"], prose=False)

    def adjacent(self, lang: str) -> dict[str, Any]:
        """A size or a sized model right next to a sequence word, in any order."""
        noise: list[str] = []
        method = self.pick(("full", "lora", "qlora"))
        mword = self.pick({"full": ("full", "full ft", "ajuste completo" if lang == "es" else "full fine-tune"),
                           "lora": ("lora", "LoRA"), "qlora": ("qlora", "QLoRA")}[method])
        n = self.pick(SEQ_VALUES)
        expected: dict[str, Any] = {"method": method, "seq_len": n}
        if self.rng.random() < 0.6:
            s = self.pick((0.5, 1.5, 3, 7, 8, 13, 14, 34, 70))
            size = self.pick((f"{s:g}b", f"{s:g}B"))
            expected["params_b"] = float(s)
        else:
            m = self.pick(self.sized)
            size = m.display_name.lower()
            expected["model"] = m.id
        if "params_b" in expected and self.rng.random() < 0.2:
            body = ADJ_LONG[lang].format(s=f"{expected['params_b']:g}", k=n // 1024)
            parts = [body, mword]
        else:
            word = self.pick(SEQ_WORDS[lang])
            value = self.seq_value(lang, n, noise) if self.rng.random() < 0.5 else str(n)
            seqchunk = f"{word} {value}"
            parts = [f"{size} {seqchunk}"] if self.rng.random() < 0.7 else [seqchunk, size]
            parts.append(mword)
        if method != "full" and self.rng.random() < 0.4:
            r = self.pick((4, 8, 16, 32, 64))
            parts.append(f"rank {r}")
            expected["lora_rank"] = r
        if self.rng.random() < 0.3:
            gid = self.pick(("h100-sxm", "a100-80gb", "l40s", "rtx-4090"))
            c = self.pick((2, 4, 8))
            parts.append(f"{c}x {({'h100-sxm': 'H100', 'a100-80gb': 'A100', 'l40s': 'L40S', 'rtx-4090': '4090'})[gid]}")
            expected.update(gpu=gid, num_gpus=c)
        head, tail = parts[:1], parts[1:]
        self.rng.shuffle(tail)
        order = tail[:1] + head + tail[1:] if self.rng.random() < 0.4 else head + tail
        text = self.pick((" ", ", ")).join(order)
        return self.entry(text, lang, expected, "adjacent", noise + ["adjacent"], prose=False)

    def typo(self, lang: str) -> dict[str, Any]:
        noise: list[str] = []
        which = self.pick(("method", "family", "setting"))
        method = self.pick(("full", "lora", "qlora"))
        mtext = self.pick(METHOD[lang][method])
        model_text, model_f = self.model(lang)
        items = self.extras(lang, method, self.pick((1, 2)), noise)
        fields = {"method": method, **model_f, **self._fields(items)}
        if which == "method":
            mtext = self.pick((METHOD_TYPOS if lang == "en" else METHOD_TYPOS_ES)[method])
            noise.append("typo:method")
        elif which == "family":
            fam = self.pick(sorted(FAMILY_TYPOS))
            m = self.pick([m for m in self.models if m.display_name.split()[0] == fam])
            model_text = self.pick(FAMILY_TYPOS[fam]) + m.display_name[len(fam):]
            fields = {k: v for k, v in fields.items() if k not in ("model", "params_b")}
            fields["model"] = m.id
            noise.append("typo:model")
        else:
            form, field = self.pick(SETTING_TYPOS[lang])
            items = [(t, f) for t, f in items if field not in f]
            value = {"seq_len": self.pick(SEQ_VALUES), "epochs": self.pick((2, 3, 4)),
                     "micro_batch": self.pick((2, 4, 8))}[field]
            label = float(value) if field == "epochs" else value
            items.append((form.format(n=value, e=value, b=value), {field: label}))
            fields = {"method": method, **model_f, **self._fields(items)}
            noise.append("typo:setting")
        core = self.pick(CORES[lang]).format(method=mtext, model=model_text)
        text = self._frame(lang, core, ", ".join(t for t, _ in items))
        return self.entry(text, lang, fields, "typo", noise)

    def config(self, lang: str) -> dict[str, Any]:
        shape = self.pick(CONFIG_SHAPES)
        return getattr(self, "_cfg_" + shape)(lang)

    def _head(self, lang: str, method: str, model_text: str) -> str:
        return self.pick(HEAD[lang]).format(method=HEAD_METHOD[lang][method], model=model_text)

    def _code(self, head: str, body: str, fence: str = "") -> str:
        return head + f"\n```{fence}\n" + body + "\n```"

    def _cfg_litgpt_yaml(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora", "qlora"))
        m = self.pick(self.models)
        c, seq, b, e = self.pick((1, 2, 4, 8)), self.pick(SEQ_VALUES), self.pick((1, 2, 4)), self.pick((1, 2, 3, 4))
        lines = [f"checkpoint_dir: checkpoints/{m.hub_id}", f"out_dir: out/finetune/{method}-run",
                 "precision: bf16-true"]
        expected: dict[str, Any] = {"stack": "litgpt", "method": method, "model": m.id, "precision": "bf16",
                                    "num_gpus": c, "micro_batch": b, "epochs": float(e), "seq_len": seq}
        if method == "qlora":
            lines.append("quantize: bnb.nf4-dq")
            expected.update(quant="nf4", double_quant=True)
        lines += [f"devices: {c}", "num_nodes: 1"]
        if method != "full":
            r = self.pick((8, 16, 32))
            lines += [f"lora_r: {r}", f"lora_alpha: {2 * r}"]
            expected.update(lora_rank=r, lora_alpha=float(2 * r))
        lines += ["train:", "  save_interval: 200", "  log_interval: 1", f"  micro_batch_size: {b}",
                  "  lr_warmup_steps: 100", f"  epochs: {e}", f"  max_seq_length: {seq}", "eval:", "  interval: 100"]
        text = self._code(self._head(lang, method, m.display_name), "\n".join(lines), "yaml")
        return self.entry(text, lang, expected, "config", ["config:litgpt_yaml"], prose=False)

    def _cfg_unsloth_fastmodel(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora", "qlora"))
        m = self.pick(self.models)
        seq = self.pick(SEQ_VALUES)
        four = method == "qlora"
        code = ["from unsloth import FastModel", "", "model, tokenizer = FastModel.from_pretrained(",
                f'    model_name = "{m.hub_id}",', f"    max_seq_length = {seq},",
                f"    load_in_4bit = {four},", f"    full_finetuning = {method == 'full'},", ")"]
        expected: dict[str, Any] = {"stack": "unsloth", "method": method, "model": m.id, "seq_len": seq}
        if method != "full":
            r = self.pick((8, 16, 32, 64))
            code += ["model = FastModel.get_peft_model(", f"    model, r = {r}, lora_alpha = {r},",
                     "    lora_dropout = 0, random_state = 3407,", ")"]
            expected.update(lora_rank=r, lora_alpha=float(r), lora_dropout=0.0)
        intro = {"en": "kaggle notebook cell, we want the same on a rented GPU:",
                 "es": "celda del notebook de kaggle, queremos lo mismo en una GPU alquilada:"}[lang]
        text = self._code(intro, "\n".join(code), "python")
        return self.entry(text, lang, expected, "config", ["config:unsloth_fastmodel"], prose=False)

    def _cfg_accelerate_fsdp2(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora"))
        m = self.pick(self.models)
        nodes, per = self.pick((1, 2, 4)), self.pick((4, 8))
        ckpt = self.rng.random() < 0.5
        lines = ["compute_environment: LOCAL_MACHINE", "distributed_type: FSDP", "fsdp_config:", "  fsdp_version: 2",
                 "  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP",
                 f"  fsdp_activation_checkpointing: {'true' if ckpt else 'false'}",
                 "  fsdp_reshard_after_forward: true",
                 "  fsdp_state_dict_type: SHARDED_STATE_DICT", "machine_rank: 0", "mixed_precision: bf16",
                 f"num_machines: {nodes}", f"num_processes: {nodes * per}", "rdzv_backend: static"]
        expected = {"method": method, "model": m.id, "sharding": "fsdp", "gradient_checkpointing": ckpt,
                    "precision": "bf16-mixed", "num_gpus": nodes * per}
        text = self._code(self._head(lang, method, m.id), "\n".join(lines), "yaml")
        return self.entry(text, lang, expected, "config", ["config:accelerate_fsdp2"], prose=False)

    def _cfg_axolotl_ds(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora", "qlora"))
        m = self.pick(self.models)
        seq, b, e, stage = self.pick(SEQ_VALUES), self.pick((1, 2, 4, 8)), self.pick((1, 2, 3)), self.pick((2, 3))
        lines = [f"base_model: {m.hub_id}"]
        expected: dict[str, Any] = {"stack": "hf", "method": method, "model": m.id, "seq_len": seq, "micro_batch": b,
                                    "epochs": float(e), "sharding": f"zero{stage}", "packing": True}
        if method == "qlora":
            lines += ["load_in_4bit: true", "adapter: qlora"]
        elif method == "lora":
            lines += ["adapter: lora"]
        if method != "full":
            r = self.pick((8, 16, 32, 64))
            lines += [f"lora_r: {r}", "lora_alpha: 16"]
            expected.update(lora_rank=r, lora_alpha=16.0)
        lines += [f"sequence_len: {seq}", "sample_packing: true", f"micro_batch_size: {b}", f"num_epochs: {e}",
                  "learning_rate: 0.0002", f"deepspeed: deepspeed_configs/zero{stage}.json",
                  "output_dir: ./outputs/run"]
        text = self._code(self._head(lang, method, m.display_name), "\n".join(lines), "yaml")
        return self.entry(text, lang, expected, "config", ["config:axolotl_ds"], prose=False)

    def _cfg_llamafactory_ds(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora", "qlora"))
        m = self.pick(self.models)
        seq, b, ga, e, stage = (self.pick(SEQ_VALUES), self.pick((1, 2, 4)), self.pick((2, 4, 8)), self.pick((1, 2, 3)),
                                self.pick((2, 3)))
        lines = ["### model", f"model_name_or_path: {m.hub_id}"]
        if method == "qlora":
            lines.append("quantization_bit: 4")
        lines += ["", "### method", "stage: sft", "do_train: true",
                  f"finetuning_type: {'full' if method == 'full' else 'lora'}"]
        expected: dict[str, Any] = {"stack": "hf", "method": method, "model": m.id, "seq_len": seq, "micro_batch": b,
                                    "gradient_accumulation_steps": ga, "epochs": float(e), "precision": "bf16-mixed",
                                    "sharding": f"zero{stage}"}
        if method != "full":
            r = self.pick((8, 16, 32))
            lines += [f"lora_rank: {r}", "lora_target: all"]
            expected.update(lora_rank=r, lora_targets="all-linear")
        lines += [f"deepspeed: examples/deepspeed/ds_z{stage}_config.json", "", "### dataset",
                  "dataset: identity,alpaca_en_demo",
                  f"cutoff_len: {seq}", "", "### train", f"per_device_train_batch_size: {b}",
                  f"gradient_accumulation_steps: {ga}", "learning_rate: 1.0e-4", f"num_train_epochs: {e}.0",
                  "bf16: true"]
        intro = {"en": "LLaMA-Factory yaml from the vendor quote, sanity check the GPUs?",
                 "es": "el yaml de LLaMA-Factory de la cotización, ¿nos revisas las GPUs?"}[lang]
        text = self._code(intro, "\n".join(lines), "yaml")
        return self.entry(text, lang, expected, "config", ["config:llamafactory_ds"], prose=False)

    def _cfg_runai(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora", "qlora"))
        m = self.pick(self.models)
        c, seq = self.pick((1, 2, 4, 8)), self.pick(SEQ_VALUES)
        line = (f"runai submit sft-{self.pick(('a', 'b', 'q'))} -i nvcr.io/nvidia/pytorch:24.05-py3 --gpu {c} "
                f"--project nlp -- python sft.py --model {m.hub_id} --max-len {seq}")
        text = self._code(self._head(lang, method, m.display_name), line)
        expected = {"method": method, "model": m.id, "num_gpus": c, "seq_len": seq}
        return self.entry(text, lang, expected, "config", ["config:runai"], prose=False)

    def _cfg_azureml(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora", "qlora"))
        m = self.pick(self.models)
        vm = self.pick(sorted(AZURE_VM))
        gid, per = AZURE_VM[vm]
        n, seq = self.pick((1, 2)), self.pick(SEQ_VALUES)
        code = ("from azure.ai.ml import command\nfrom azure.ai.ml.entities import PyTorchDistribution\n\n"
                f'job = command(code="./src", command="python sft.py --model {m.hub_id} --max_len {seq}",\n'
                f'              compute="gpu-cluster", instance_count={n},\n'
                f"              distribution=PyTorchDistribution(process_count_per_instance={per}))\n"
                f"# gpu-cluster VM size: {vm}")
        text = self._code(self._head(lang, method, m.display_name), code, "python")
        expected = {"method": method, "model": m.id, "gpu": gid, "num_gpus": n * per, "seq_len": seq}
        return self.entry(text, lang, expected, "config", ["config:azureml"], prose=False)

    def _cfg_vertex(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora", "qlora"))
        m = self.pick(self.models)
        acc = self.pick(sorted(VERTEX))
        gid, machine, counts = VERTEX[acc]
        c = self.pick(counts)
        machine = machine.format(c=c, m=G2_MACHINE.get(c, 96))
        seq, e = self.pick(SEQ_VALUES), self.pick((1, 2, 3))
        code = ("from google.cloud import aiplatform\n\n"
                'job = aiplatform.CustomJob(display_name="sft", worker_pool_specs=[{\n'
                f'    "machine_spec": {{"machine_type": "{machine}", "accelerator_type": "{acc}", '
                f'"accelerator_count": {c}}},\n'
                '    "replica_count": 1,\n'
                f'    "container_spec": {{"image_uri": "us-docker.pkg.dev/acme/sft:latest", '
                f'"args": ["--model", "{m.hub_id}", "--seq_len", "{seq}", "--epochs", "{e}"]}}}}])')
        text = self._code(self._head(lang, method, m.display_name), code, "python")
        expected = {"method": method, "model": m.id, "gpu": gid, "num_gpus": c, "seq_len": seq, "epochs": float(e)}
        return self.entry(text, lang, expected, "config", ["config:vertex"], prose=False)

    def _cfg_gcloud(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora", "qlora"))
        m = self.pick(self.models)
        acc = self.pick(sorted(GCLOUD))
        gid, machine, c = GCLOUD[acc]
        line = (f"gcloud compute instances create sft-box --zone=europe-west4-a --machine-type={machine} "
                f"--accelerator=type={acc},count={c} --boot-disk-size=500GB --maintenance-policy=TERMINATE")
        text = self._code(self._head(lang, method, m.display_name), line)
        expected = {"method": method, "model": m.id, "gpu": gid, "num_gpus": c}
        return self.entry(text, lang, expected, "config", ["config:gcloud"], prose=False)

    def _cfg_sagemaker_hf(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora", "qlora"))
        m = self.pick(self.models)
        itype = self.pick(sorted(SAGEMAKER_HF))
        gid, per = SAGEMAKER_HF[itype]
        count, seq, e = self.pick((1, 1, 2)), self.pick(SEQ_VALUES), self.pick((1, 2, 3))
        code = ("from sagemaker.huggingface import HuggingFace\n\n"
                f'est = HuggingFace(entry_point="run_sft.py", instance_type="{itype}", instance_count={count},\n'
                '                  transformers_version="4.36", pytorch_version="2.1", py_version="py310",\n'
                '                  distribution={"torch_distributed": {"enabled": True}},\n'
                f'                  hyperparameters={{"model_id": "{m.hub_id}", "max_seq_len": {seq}, "epochs": {e}}})')
        text = self._code(self._head(lang, method, m.display_name), code, "python")
        expected = {"method": method, "model": m.id, "gpu": gid, "num_gpus": per * count, "seq_len": seq,
                    "epochs": float(e)}
        return self.entry(text, lang, expected, "config", ["config:sagemaker_hf"], prose=False)

    def _cfg_torchrun_nnodes(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora", "qlora"))
        m = self.pick(self.models)
        nodes, per = self.pick((1, 2, 4)), self.pick((2, 4, 8))
        gid = self.pick(("h100-sxm", "a100-80gb", "h200", "l40s"))
        seq, b = self.pick(SEQ_VALUES), self.pick((1, 2, 4))
        line = (f"python -m torch.distributed.run --nnodes={nodes} --nproc-per-node={per} --rdzv-backend=c10d "
                f"--rdzv-endpoint=$MASTER_ADDR:29500 sft.py --model {m.hub_id} --max-seq-len {seq} --micro-batch {b}")
        head = self._head(lang, method, m.display_name) + {"en": f" (nodes of {GPU_FORMS[gid]})",
                                                           "es": f" (nodos de {GPU_FORMS[gid]})"}[lang]
        text = self._code(head, line)
        expected = {"method": method, "model": m.id, "gpu": gid, "num_gpus": nodes * per, "seq_len": seq,
                    "micro_batch": b}
        return self.entry(text, lang, expected, "config", ["config:torchrun_nnodes"], prose=False)

    # --- threads, corrections and questions back ---------------------------------------------------------

    def _thread(self) -> dict[str, Any]:
        m = self.pick(self.models)
        prev = {"method": self.pick(("full", "lora", "qlora")), "model": m.id, "seq_len": self.pick((2048, 4096)),
                "gpu": self.pick(("h100-sxm", "a100-80gb", "l40s")), "num_gpus": self.pick((2, 4))}
        if self.rng.random() < 0.5:
            prev["epochs"] = float(self.pick((1, 2, 3)))
        return prev

    def followup(self, lang: str) -> dict[str, Any]:
        prev = self._thread()
        noise: list[str] = ["followup"]
        while True:
            which = self.pick(("seq", "gpu", "method", "batch", "epochs", "precision", "region", "sharding"))
            if which == "seq":
                text, f = self.seq(lang)
            elif which == "gpu":
                text, f = self.gpu(lang, count=self.pick((3, 6, 8, 16)) if self.rng.random() < 0.6 else None)
            elif which == "method":
                text, f = self.method(lang)
            elif which == "batch":
                text, f = self.batch(lang)
            elif which == "epochs":
                text, f = self.epochs(lang)
            elif which == "precision":
                text, f = self._pair(PRECISION, lang, "precision")
            elif which == "region":
                text, f = self._pair(REGION, lang, "region")
            else:
                text, f = self._pair(SHARDING, lang, "sharding")
            if all(prev.get(k) != v for k, v in f.items()):
                break
        msg = self.pick(FOLLOWUP[lang]).format(slot=text)
        return self.entry(msg, lang, {**f, "intent": "followup"}, "followup", noise, previous=prev)

    def correction(self, lang: str) -> dict[str, Any]:
        core, fields, method = self._core(lang)
        old, new = self.rng.sample(SEQ_VALUES, 2)
        seq_text, _ = self.seq(lang, old)
        items = self.extras(lang, method, self.pick((0, 1, 2)), avoid=("seq_len",))
        base = self._frame(lang, core, ", ".join([seq_text] + [t for t, _ in items]))
        text = self.pick(CORRECTION[lang]).format(text=base, old=old, new=new)
        return self.entry(text, lang, {**fields, **self._fields(items), "seq_len": new}, "correction", ["correction"])

    def _clarify(self, lang: str, kind: str, code: str, slot: str, avoid: tuple[str, ...],
                 core: tuple[str, dict, str] | None = None) -> dict[str, Any]:
        core_text, fields, method = core or self._core(lang)
        items = self.extras(lang, method, self.pick((0, 1, 2)), avoid=avoid)
        parts = [t for t, _ in items]
        parts.insert(self.rng.randint(0, len(parts)), slot)
        text = self._frame(lang, core_text, ", ".join(parts))
        return self.entry(text, lang, {**fields, **self._fields(items), "intent": "clarify", "clarify_code": code},
                          kind, [])

    def unreadable(self, lang: str) -> dict[str, Any]:
        core = self._core(lang)
        vague, field = self.pick([u for u in UNREADABLE[lang] if core[2] != "full" or u[1] != "lora_rank"])
        avoid = (field, "gpu") if field == "num_gpus" else (field,)
        return self._clarify(lang, "unreadable", "unreadable", vague, avoid, core)

    def conflict(self, lang: str) -> dict[str, Any]:
        form, field = self.pick(CONFLICT[lang])
        a, b = self.rng.sample(SEQ_VALUES if field == "seq_len" else (1, 2, 3, 4), 2)
        return self._clarify(lang, "conflict", "conflict", form.format(a=a, b=b), (field,))

    def limit(self, lang: str) -> dict[str, Any]:
        if self.rng.random() < 0.2:
            mtext, mf = self.method(lang)
            core = (self.pick(CORES[lang]).format(method=mtext, model=LIMIT_SIZE[lang]), mf, mf["method"])
            seq_text, seq_f = self.seq(lang)
            entry = self._clarify(lang, "limit", "limit", seq_text, ("seq_len",), core)
            entry["expected"].update(seq_f)
            return entry
        form, field = self.pick(LIMIT[lang])
        entry = self._clarify(lang, "limit", "limit", form, (field, "gpu") if field == "num_gpus" else (field,))
        if field == "num_gpus":
            entry["expected"]["gpu"] = "h100-sxm"
        return entry

    def family_size(self, lang: str) -> dict[str, Any]:
        mtext, mf = self.method(lang)
        core = (self.pick(CORES[lang]).format(method=mtext, model=self.pick(FAMILY_SIZE)), mf, mf["method"])
        items = self.extras(lang, mf["method"], self.pick((1, 2)))
        text = self._frame(lang, core[0], ", ".join(t for t, _ in items))
        return self.entry(text, lang, {**mf, **self._fields(items), "intent": "clarify", "clarify_code": "family_size"},
                          "family_size", [])

    def number(self, lang: str) -> dict[str, Any]:
        core, fields, method = self._core(lang)
        items = self.extras(lang, method, 1, avoid=("num_gpus", "micro_batch", "lora_rank", "lora_alpha", "epochs",
                                                    "gpu", "seq_len", "dataset_tokens"))
        x = self.pick((12, 24, 48, 96))
        text = NUMBER[lang].format(core=core, rest=", ".join(t for t, _ in items), x=x)
        return self.entry(text, lang, {**fields, **self._fields(items), "intent": "clarify", "clarify_code": "number"},
                          "number", [])


def generate(n: int = N_DEFAULT, *, catalog: Catalog, seed: int = 17) -> list[dict[str, Any]]:
    """``n`` labelled messages, the same for the same seed (about half English, half Spanish)."""
    rng = random.Random(f"{seed}:gen17")
    gen = _Gen(rng, catalog)
    plan = ((0.20, gen.estimate), (0.28, gen.question), (0.33, gen.paper_table), (0.41, gen.command),
            (0.51, gen.adjacent), (0.63, gen.config), (0.70, gen.typo), (0.75, gen.correction), (0.79, gen.conflict),
            (0.84, gen.unreadable), (0.88, gen.limit), (0.91, gen.family_size), (0.94, gen.number),
            (1.01, gen.followup))
    out = []
    seen: set[tuple[str, str]] = set()
    while len(out) < n:
        lang = "en" if rng.random() < 0.5 else "es"
        roll = rng.random()
        make = next(f for edge, f in plan if roll < edge)
        entry = make(lang)
        key = (entry["text"].strip().lower(), repr(entry.get("previous")))
        if key in seen:  # a repeated message would be counted twice
            continue
        seen.add(key)
        out.append(entry)
    return out
