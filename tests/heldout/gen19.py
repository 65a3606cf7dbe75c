"""Round 19's generated blind split: an independent generator of labelled chat messages (issue #13).

    from tests.heldout import gen19
    entries = gen19.generate(3000, catalog=catalog, seed=19)
    verdict = tests.phrasegen.judge(entry, parse_message(entry["text"], catalog, previous=...))

WHO AND HOW. Written for issue #13's held-out measurement of round 19 by a helper session that did not read the
parser and did not run it, nor any benchmark, ``advisor ask`` / ``advisor parse`` or any test that parses a
message, while writing. What it read: /work/notes/s28/blind_common.md (the rules); ``advisor/spec.py`` (fields,
accepted values, MAX_* bounds); ``advisor/parse/result.py`` (``ParseResult`` field names, intents, documented
clarify codes) and nothing else under ``advisor/parse/``; the clarify message keys of ``advisor/i18n/parse.py``
(grep of the ``parse.clarify.*`` key lines only); the catalog (``advisor catalog list --all --models`` and
``advisor catalog list --all``: model, GPU and region ids); tests/heldout/table6.py's docstring (the labelling
conventions, followed here); ``tests/phrasegen.py``'s ``judge``; tests/heldout/gen17.py in full (the structure
and API copied here; its vocabularies and frames avoided); tests/test_parse_blind17g_counts.py (the structure
checks, copied and adapted into tests/test_parse_blind19g_counts.py, which imports the label helpers of
tests/test_parse_blind_counts.py and tests/test_parse_blind13_counts.py as gen17's does, without this session
reading those two files). phrasegen.py, gen9.py, gen11.py, gen13.py and gen15.py were only grepped for their
``def generate`` lines (the signature) and, through the structure test's absence check, for the forms below;
nothing of their vocabularies was read. One slip: a failing run of the structure test's FOREIGN-overlap assert
printed part of the earlier generators' FOREIGN Hub ids (e.g. ai21labs/AI21-Jamba-Mini-1.5, allenai/OLMo-7B-0724-hf,
argilla/notus-7b-v1, baichuan-inc/Baichuan2-13B-Base, bigcode/starcoder2-15b, bigscience/bloom-7b1); the
overlapping candidates were then dropped (checked by a script that printed only the overlaps), and the absence
check's hits (the candidate strings themselves, listed under CONFIG SHAPES for the markers) were the only
other thing seen of those files. It was committed ("freeze round-19 blind set gen19
(written blind, before any parser run)") before any parser run on it; nobody tunes the parser on it.

Entries are shaped like gen17's: ``text``, ``lang``, ``expected`` (the ``SpecRequest`` fields the message itself
states, ``intent`` when it is not "estimate", ``clarify_code`` where the right answer is a question back),
``previous`` for a thread follow-up (its ``expected`` is only what the message changes, plus ``intent``
"followup"), ``noise`` (what was done to the text; its presence makes ``judge`` compare the parse's delta),
``split`` ("gen19") and ``kind`` (``KINDS``). A question back labels what the message states besides the value
it asks about.

PEOPLE AND FRAMES (``TEMPLATES``, both languages): an on-call SRE in an incident channel (":rotating_light:
INC-4821 (sev2) ..."), a PM relaying a request second-hand ("Ana wants ...", "Según Marta, quiere ..."), a
procurement reviewer checking a purchase order ("PO-88123" / "OC-88123"), a PhD student quoting their advisor
in quotes, a phone writer (all lowercase, no question marks, "w/", "b/c", "pls", "u", "tmrw"; "xq", "porfa",
"tb", "q"), meeting minutes with action items, a forwarded email ("Fwd:" / "---------- Forwarded message
---------" / "From:" / "Subject:"; "RV:" / "Mensaje reenviado" / "De:" / "Asunto:"), a GitHub PR description
("## What" / "## Config" / "## Question"); Spanish openers from several countries ("che," Argentina, "oigan,"
Mexico, "parce," Colombia, "tío," Spain, "wena," Chile, "mae," Costa Rica). Questions (``QUESTIONS``) include
messages that ask two things at once ("two q's: what GPU ... and how many hours?"), both about the same job:
an estimate. ``form``: a Slack Workflow form submission ("*Method:* ...\\n*Base model:* ..."). ``sheet_row``:
a header and one row pasted from a Google Sheet (tab-separated) or a CSV (commas in English; semicolons and
decimal commas in Spanish, as a Spanish-locale spreadsheet exports them).

KINDS kept from gen17 with new words: ``command`` (terse slots in any order, joined by " ; ", " -- ", " + " or
" >> "), ``adjacent`` (a size right before or after a sequence word or a ``ctx=`` / ``L=`` key: "13b ctx=4096",
"7B L=2048", "qlora 70b 8k-token ctx"), ``typo`` (one edit: a letter dropped, added, swapped or replaced, in a
method, family or setting word), ``correction`` ("scratch that, context is N (not M)", "-- edit: N tokens, I
typed M by mistake", "olvida eso, el contexto es N (no M)", "-- corrijo: N tokens, puse M por error"),
``conflict`` (two sources, two values: "context A in Ana's doc but B in the PR", "A epochs per my advisor, B per
the README"), ``unreadable`` ("context: whatever Ana used last time", "rank: advisor hasn't decided", "epochs:
until the loss flattens", "batch: as much as the card takes", "GPUs: however many procurement approves",
"data: the Q2 export, no idea how big" and Spanish), ``limit`` (``ctx=2097152``, "5000×H100", 2500 epochs,
``mbs=6144``, a 1500B model), ``family_size`` (Llama 3.1 13B, Gemma 2 7B, Qwen2.5 20B, Yi 13B, Falcon 13B,
Gemma 3 2B), ``number`` (a bare number at the end, "..., and 40 too"), ``followup`` ("ok Ana says make it ...",
"incident update: we can get ... now", "PR feedback: switch to ...", "what about w/ ... instead" and Spanish).

VOCABULARIES (each distinctive form absent from phrasegen.py, gen9.py, gen11.py, gen13.py, gen15.py and gen17.py,
as tests/test_parse_blind19g_counts.py checks it; candidates the check found there were replaced): methods "QLoRA,
base loaded in 4-bit", "a quick QLoRA pass", "a LoRA pass", "just LoRA adapters", "all weights unfrozen (full
FT)", "a full-parameter run" and Spanish ("QLoRA, base cargada en 4 bits", "una pasada de QLoRA", "una pasada de
LoRA", "LoRA y nada más", "todos los pesos entrenables (FT completo)", "un entrenamiento de todos los
parámetros") besides the plain "QLoRA", "LoRA", "full fine-tune", "ajuste completo", also in mixed case
("qLoRA", "QLORA", "Lora", "LoRa"); models as the display name, the catalog id, the bare Hub id, "<hub> @ main",
"<display> (Hub weights)" / "<display> (pesos del Hub)", Hub models the catalog does not know (Skywork, Aya 23,
Granite 3.0, EXAONE 3.0, Aquila2, XVERSE, Pythia, H2O-Danube3, Salamandra, FLOR; labelled by Hub id), sizes alone
("a {s}B in-house model", "our homegrown {s}B", "un {s}B hecho en casa", "nuestro {s}B de cosecha propia");
sequence lengths "{n}-token context per sample" ("8k-token context per sample"), "ctx={n}", "L={n}", "len cap
{n}", "ventana por muestra de {n}", "largo máx. de {n} tokens" with the value plain, as "{k}k", with a comma/dot
thousands separator or with THIN SPACES (U+2009, "16 384"; ``ctx=`` / ``L=`` only plain or "{k}k");
micro-batches "mbs={b}", "{b} seqs per card", "lote por GPU = {b}", "{b} seqs por tarjeta"; ranks "rank {r} on
the adapters", "rank {r} / alpha {a}", "los adaptadores con rango {r}", "r de {r} y alpha de {a}"; epochs "{E}
across the corpus", "{E} max, then we stop", "{E} pasando por los datos", "{E} de entrenamiento, punto" ({E} "a
single epoch", "two epochs", "2.5 epochs", "una sola época", "2,5 épocas"); datasets "training set is {D}",
"~{D} in the train split", "el set de entrenamiento es de {D}", "unos {D} en el split de train" (45M, 0.6B, 1.2B,
6.4B tokens, "40k rows of ~1,000 tokens" = 40M and "250k samples × 512 tokens" = 128M, N x L); GPUs "{c}×{g}" (no
space), "x{c} {g}", "({c}) {g}s", "{c} x {g}s", "one {g}, that's all" / "una {g} y basta" (one), "on {g}s" /
"en {g}" (no count), the GPU as "H100", "A100", "A100 40GB", "L40S", "4090", "H200", "B200", "L4", "A10G", "MI300X",
"H100 PCIe", "RTX 6000 Ada"; regions "must stay in Frankfurt", "EU West (Paris) only", "alojado en Fráncfort",
"solo en París"; settings "grad-ckpt: enabled", "activation recompute off", "torch.amp in bf16", "weights kept in
bf16 (no fp32 master)", "torch.amp in fp16", "fp32 end to end", "AdamW8bit from bitsandbytes", "paged 8-bit AdamW
(bnb)", "torch AdamW, out of the box", "SGD, nothing fancy", "ZeRO stage-2/3 (DeepSpeed)", "FSDP-sharded", "DDP
only, no sharding", "flash-attn v2 kernels", "eager attention (no flash)", "LoRA on q,k,v,o only", "every linear
layer adapted", "compiled w/ torch.compile", "samples packed into full rows", "one sample per row, unpacked" and
Spanish ("recompute de activaciones activado/apagado", "AMP en bf16", "todo en bf16, sin copia fp32", "todo en
fp32, sin mezcla", "AdamW de 8 bits (bitsandbytes)", "el AdamW de torch tal cual", "SGD y ya", "ZeRO etapa 2/3
(DeepSpeed)", "sharding con FSDP", "solo DDP, sin sharding", "atención eager, sin flash", "LoRA solo en q,k,v,o",
"todas las capas lineales adaptadas", "muestras empaquetadas en filas llenas", ...). The Slack form's bold labels
("*Method:*", "*Base model:*", "*Context length:*", "*Per-GPU batch:*", "*Lote por GPU:*", ...) are checked
absent as written. The sequence words of ``adjacent`` ("seq", "ctx", "context", "secuencia", "contexto") are the
issue's own plain words, shared.

NOISE (``noise`` names each): ``distractor`` (numbers that are no spec values: a p99 latency, an incident id, a
PO number, a quarter, a budget line, a meeting time, a cost cap); ``smart_quotes`` (’ “ ” for ' and " in prose);
``nbsp`` (U+00A0 between a number and the next capitalised word); ``zwsp`` (a U+200B zero-width space after a
comma, as pasted from a web page); ``emoji`` (trailing " 🔥", " 🙏", " :pray:", " 🚀", " 🫠"); ``double_space``;
``mixed_case`` (the plain method word in odd case); ``wrap40`` (hard line breaks at 40 columns); ``html`` (the
message as Slack's API sends it: a quote line starting "&gt; ", a shell "&amp;&amp;"); ``thinsp`` (the sequence
length with U+2009 thousands separators); ``mention`` ("<!channel>", "<#C07INC|inc-gpu-capacity>", "<@U02ANA>");
``mobile`` (the phone writer's lowercasing); ``typo:*``, ``correction``, ``followup``, ``adjacent``, ``form``,
``sheet_row`` mark the kind.

CONFIG SHAPES (``CONFIG_SHAPES``; no ``SHAPE_MARKERS`` string occurs in phrasegen.py, gen9-gen17). The absence
check found that the earlier generators already paste several of these tools: "accelerators:", "num_nodes:",
"ScalingConfig", "peft_scheme", "swift sft", "--train_type", "openrlhf.cli", "--pretrain", "--zero_stage",
"--micro_train_batch_size", "--load_in_4bit", "deepspeed --num_gpus", "@app.function", "nvidia.com/gpu",
"nvidia.com/gpu.product" and "wandb_version" occur there (only those strings were seen, as hits of the check),
so this set's markers are keys of its own versions of them (``disk_size``, ``resources_per_worker``,
``val_check_interval``, ``--quant_bits``, ``Open-Orca/OpenOrca``, ``restartPolicy``, ``framework: huggingface``)
and the Modal, env-var and ``CUDA_VISIBLE_DEVICES`` shapes' own. The shapes: SkyPilot task
YAML, a Modal function, Ray Train ``TorchTrainer`` + ``ScalingConfig``, a NVIDIA NeMo fine-tuning YAML, an
ms-swift ``swift sft`` command, an OpenRLHF ``openrlhf.cli.train_sft`` launch, an env-var launch line of a
team's own script, a ``CUDA_VISIBLE_DEVICES=...`` launch, a Kubernetes Job with ``nvidia.com/gpu`` limits, a
W&B ``config.yaml`` dump. Each config message's head line names the method (and the model where the config
does not), as a person pasting it does.

LABELLING CONVENTIONS are table6's (tests/heldout/table6.py's docstring, which carries table5's): k = 1024 in a
sequence length, thousands separators of either convention (and thin spaces) are the number, token counts
decimal, "N examples of ~L tokens" N x L, "H100" the SXM part, "A100" the 80 GB one, a catalog model by its catalog
id (its Hub id or URL is that model, in any letter case) and never with a size, a Hub id the catalog does not know
by the id, a size alone by ``params_b``; a corrected value is replaced by the correction; Trainer / accelerate /
DeepSpeed ``bf16`` flags are mixed precision; ``load_in_4bit`` with LoRA is QLoRA and names no quantization type
(an explicit nf4 does); two values for one field without a correction a "conflict", a value nobody can read
"unreadable", a bare number of no telling field "number", a value beyond the MAX_* bounds "limit", a family
with a size it does not have "family_size"; a follow-up labels only what it changes. CONVENTIONS THIS SET ADDS
(tool facts as the writer knows them from the tools' own documentation, not looked up while writing):

- Odd unit forms: "8k-token context", "ctx=8192", "L=4096" (L, the sequence length, as papers write it), "max len
  N" are the sequence length; "2×H100" is 2 GPUs, "x4 A100", "(4) A100s", "4 x H100s" 4 of that type; "mbs=N"
  (Megatron's micro-batch size), "N seqs per card" and "lote por GPU = N" the micro-batch; "one H100, that's all"
  one GPU; "on L40Ss" / "en L40S" the GPU and no count.
- SkyPilot ``resources.accelerators: NAME:M`` with ``num_nodes: N`` is N x M GPUs (the count is per node, and
  ``num_nodes`` defaults to 1); SkyPilot's names: ``A100`` the 40 GB part, ``A100-80GB`` the 80 GB one, ``H100``
  the H100 SXM 80 GB, ``H200``, ``L4``, ``L40S``, ``A10G`` as named.
- Modal ``@app.function(gpu="NAME:M")`` is M GPUs of NAME (``A100-80GB``, ``A100-40GB``, ``H100``, ``H200``,
  ``B200``, ``L40S``, ``L4``, ``A10G``); always written here with the count.
- Ray Train ``ScalingConfig(num_workers=N, use_gpu=True, resources_per_worker={"GPU": 1})`` is N GPUs;
  ``accelerator_type`` names the GPU (Ray's constants: ``A100-80G``, ``A100-40G``, ``H100``, ``L4``, ``A10G``,
  ``L40S``); the training loop config's ``batch_size_per_worker`` (one GPU per worker) is the micro-batch.
- NeMo: ``trainer.devices`` x ``trainer.num_nodes`` are the GPUs, ``trainer.precision: bf16-mixed`` mixed bf16,
  ``trainer.max_epochs`` the epochs, ``model.micro_batch_size`` the micro-batch,
  ``model.data.train_ds.max_seq_length`` the sequence length, ``model.peft.peft_scheme: lora`` LoRA with
  ``lora_tuning.adapter_dim`` its rank, ``peft_scheme: none`` full SFT; NeMo is no ``Stack`` value: no stack.
- ms-swift ``swift sft``: ``--train_type lora`` / ``full``, ``--quant_bits 4`` with LoRA QLoRA (no quantization
  type named), ``--lora_rank`` / ``--lora_alpha``, ``--max_length`` the sequence length,
  ``--per_device_train_batch_size`` the micro-batch, ``--num_train_epochs``, ``--gradient_accumulation_steps``,
  ``--deepspeed zero2`` / ``zero3`` the ZeRO stage; ``NPROC_PER_NODE=M`` is M GPUs (``CUDA_VISIBLE_DEVICES=0``
  alone one). ms-swift trains with transformers' Trainer and PEFT, like LLaMA-Factory: the ``hf`` stack.
- OpenRLHF (``deepspeed --num_gpus M --module openrlhf.cli.train_sft``): M GPUs; ``--pretrain`` the model,
  ``--max_len`` the sequence length, ``--micro_train_batch_size`` the micro-batch, ``--max_epochs``,
  ``--zero_stage 2|3`` ZeRO-2/3, ``--bf16`` DeepSpeed bf16 (fp32 master weights: ``bf16-mixed``), ``--flash_attn``
  flash attention, ``--gradient_checkpointing`` on, ``--lora_rank`` / ``--lora_alpha`` LoRA (with
  ``--load_in_4bit`` QLoRA), ``--target_modules all-linear`` every linear layer, no ``--lora_rank`` a full
  fine-tune; OpenRLHF is no ``Stack`` value: no stack.
- An env-var launch of a team's script (``NUM_GPUS=4 SEQ_LEN=4096 MBS=2 EPOCHS=2 MODEL=... ./train.sh``) states
  those plain values (GPUS / NGPUS, MAX_LEN / CTX, BATCH_PER_GPU alike) and no stack.
- ``CUDA_VISIBLE_DEVICES=0,2,5,7 accelerate launch --multi_gpu ...`` runs on the 4 listed GPUs (the count of ids,
  whatever they are); a single id is one GPU; the server's GPU type named in the head line is the GPU.
- Kubernetes ``resources.limits."nvidia.com/gpu": M`` is M GPUs (one pod); the GPU feature discovery node label
  ``nvidia.com/gpu.product`` names the GPU: ``NVIDIA-H100-80GB-HBM3`` the H100 SXM (HBM3), ``NVIDIA-H100-PCIe``
  the PCIe part, ``NVIDIA-A100-SXM4-80GB`` / ``-40GB`` the A100s, ``NVIDIA-L40S``, ``NVIDIA-L4``, ``NVIDIA-A10G``.
- A W&B ``config.yaml`` (``wandb_version: 1``, each key a ``desc`` / ``value`` pair) of a Hugging Face Trainer
  run (``_wandb.value.framework: huggingface``) states the ``hf`` stack and the logged values:
  ``per_device_train_batch_size``, ``gradient_accumulation_steps``, ``num_train_epochs``, ``bf16: true``
  (mixed), ``gradient_checkpointing``, ``max_seq_length``; a logged ``peft_config`` names LoRA with its ``r`` and
  ``lora_alpha``, a ``quantization_config`` with ``load_in_4bit`` QLoRA, ``bnb_4bit_quant_type: nf4`` ``quant``
  nf4 and ``bnb_4bit_use_double_quant`` ``double_quant``.
- A Slack Workflow form's fields and a sheet row's columns state their values; a form's "*Notes:*" numbers
  are no spec values; a Spanish CSV's "1,5" is 1.5.
- A second-hand request ("Ana wants", "según Marta"), an advisor's quoted words, a PR's config section and an
  email's forwarded body state this job; an incident id, a PO number, a sev level, a quarter ("Q3" / "T3") and
  a meeting date are no spec values.
- "per my advisor ... per the README", "in Ana's doc but ... in the PR" (two sources, two values, no correction)
  is a conflict.
"""

from __future__ import annotations

import random
import re
from typing import Any

from advisor.catalog import Catalog

SPLIT = "gen19"
N_DEFAULT = 3000
KINDS = ("estimate", "question", "form", "sheet_row", "command", "adjacent", "config", "typo", "correction",
         "conflict", "unreadable", "limit", "family_size", "number", "followup")

# --- vocabularies -------------------------------------------------------------------------------------------

METHOD = {
    "en": {"qlora": ["QLoRA, base loaded in 4-bit", "a quick QLoRA pass", "QLoRA"],
           "lora": ["a LoRA pass", "just LoRA adapters", "LoRA"],
           "full": ["all weights unfrozen (full FT)", "a full-parameter run", "full fine-tune"]},
    "es": {"qlora": ["QLoRA, base cargada en 4 bits", "una pasada de QLoRA", "QLoRA"],
           "lora": ["una pasada de LoRA", "LoRA y nada más", "LoRA"],
           "full": ["todos los pesos entrenables (FT completo)", "un entrenamiento de todos los parámetros",
                    "ajuste completo"]},
}
PLAIN_METHODS = ("QLoRA", "LoRA", "full fine-tune", "ajuste completo")
MIXED_CASE = {"QLoRA": ("qLoRA", "QLORA", "Qlora", "qlora"), "LoRA": ("LORA", "Lora", "lora", "LoRa")}
# Hub models the catalog does not know (checked with Catalog.find_model in tests/test_parse_blind19g_counts.py).
FOREIGN = ("Skywork/Skywork-13B-base", "CohereForAI/aya-23-8B", "ibm-granite/granite-3.0-8b-base",
           "LGAI-EXAONE/EXAONE-3.0-7.8B-Instruct", "BAAI/Aquila2-7B", "xverse/XVERSE-13B", "EleutherAI/pythia-12b",
           "h2oai/h2o-danube3-4b-base", "BSC-LT/salamandra-7b", "projecte-aina/FLOR-6.3B")
SIZES = (2, 4, 9, 15, 22, 40, 72, 180)
SIZE_FORMS = {"en": ["a {s}B in-house model", "our homegrown {s}B"],
              "es": ["un {s}B hecho en casa", "nuestro {s}B de cosecha propia"]}
MODEL_FORMS = {"en": ["{display}", "{id}", "{hub}", "{hub} @ main", "{display} (Hub weights)"],
               "es": ["{display}", "{id}", "{hub}", "{hub} @ main", "{display} (pesos del Hub)"]}
SEQ_VALUES = (1024, 2048, 4096, 5120, 8192, 12288, 16384, 32768)
SEQ = {"en": ["{n}-token context per sample", "ctx={n}", "L={n}", "len cap {n}"],
       "es": ["ventana por muestra de {n}", "ctx={n}", "L={n}", "largo máx. de {n} tokens"]}
BATCH = {"en": ["mbs={b}", "{b} seqs per card"], "es": ["lote por GPU = {b}", "{b} seqs por tarjeta"]}
RANK = {"en": ["rank {r} on the adapters", "rank {r} / alpha {a}"],
        "es": ["los adaptadores con rango {r}", "r de {r} y alpha de {a}"]}
EPOCHS = {"en": ["{E} across the corpus", "{E} max, then we stop"],
          "es": ["{E} pasando por los datos", "{E} de entrenamiento, punto"]}
EPOCH_WORDS = {"en": {1: "a single epoch", 2: "two epochs", 4: "four epochs"},
               "es": {1: "una sola época", 2: "dos épocas", 4: "cuatro épocas"}}
DATASET = {"en": ["training set is {D}", "~{D} in the train split"],
           "es": ["el set de entrenamiento es de {D}", "unos {D} en el split de train"]}
# (tokens, English forms, Spanish forms); decimal counts, "N rows of ~L tokens" is N x L
DATASET_VALUES = ((45_000_000, ("45M tokens", "45 million tokens"), ("45 millones de tokens", "45M tokens")),
                  (600_000_000, ("0.6B tokens", "600M tokens"), ("600 millones de tokens",)),
                  (1_200_000_000, ("1.2B tokens", "1.2 billion tokens"),
                   ("1.200 millones de tokens", "1,2 mil millones de tokens")),
                  (6_400_000_000, ("6.4B tokens", "6.4 billion tokens"), ("6.400 millones de tokens",)),
                  (40_000_000, ("40k rows of ~1,000 tokens",), ("40 mil filas de ~1.000 tokens",)),
                  (128_000_000, ("250k samples × 512 tokens",), ("250 mil muestras × 512 tokens",)))
# (singular, plural or None)
GPU_NAMES = {"h100-sxm": ("H100", "H100s"), "a100-80gb": ("A100", "A100s"), "a100-40gb": ("A100 40GB", None),
             "l40s": ("L40S", "L40Ss"), "rtx-4090": ("4090", "4090s"), "h200": ("H200", "H200s"),
             "b200": ("B200", "B200s"), "l4": ("L4", "L4s"), "a10g": ("A10G", "A10Gs"), "mi300x": ("MI300X", "MI300Xs"),
             "h100-pcie": ("H100 PCIe", None), "rtx-6000-ada": ("RTX 6000 Ada", None)}
# (form, count): "c" the drawn count, 1 a single GPU, 0 no count; {p} needs a plural name
GPU_SLOT = {"en": [("{c}×{g}", "c"), ("x{c} {g}", "c"), ("({c}) {p}", "c"), ("{c} x {p}", "c"),
                   ("one {g}, that's all", 1), ("on {p}", 0)],
            "es": [("{c}×{g}", "c"), ("x{c} {g}", "c"), ("{c} x {g}", "c"), ("({c}) {g}", "c"),
                   ("una {g} y basta", 1), ("en {g}", 0)]}
GPU_COUNTS = (2, 3, 4, 8, 16, 24, 64)
GC = {"en": [("grad-ckpt: enabled", True), ("activation recompute off", False)],
      "es": [("recompute de activaciones activado", True), ("recompute de activaciones apagado", False)]}
PRECISION = {"en": [("torch.amp in bf16", "bf16-mixed"), ("weights kept in bf16 (no fp32 master)", "bf16"),
                    ("torch.amp in fp16", "fp16-mixed"), ("fp32 end to end", "fp32")],
             "es": [("AMP en bf16", "bf16-mixed"), ("todo en bf16, sin copia fp32", "bf16"),
                    ("AMP en fp16", "fp16-mixed"), ("todo en fp32, sin mezcla", "fp32")]}
OPTIMIZER = {"en": [("AdamW8bit from bitsandbytes", "adamw-8bit"), ("paged 8-bit AdamW (bnb)", "paged-adamw-8bit"),
                    ("torch AdamW, out of the box", "adamw"), ("SGD, nothing fancy", "sgd")],
             "es": [("AdamW de 8 bits (bitsandbytes)", "adamw-8bit"),
                    ("AdamW paginado 8-bit (bnb)", "paged-adamw-8bit"),
                    ("el AdamW de torch tal cual", "adamw"), ("SGD y ya", "sgd")]}
REGION = {"en": [("must stay in Frankfurt", "eu-central"), ("EU West (Paris) only", "eu-west")],
          "es": [("alojado en Fráncfort", "eu-central"), ("solo en París", "eu-west")]}
SHARDING = {"en": [("ZeRO stage-2 (DeepSpeed)", "zero2"), ("ZeRO stage-3 (DeepSpeed)", "zero3"),
                   ("FSDP-sharded", "fsdp"),
                   ("DDP only, no sharding", "ddp")],
            "es": [("ZeRO etapa 2 (DeepSpeed)", "zero2"), ("ZeRO etapa 3 (DeepSpeed)", "zero3"),
                   ("sharding con FSDP", "fsdp"),
                   ("solo DDP, sin sharding", "ddp")]}
ATTENTION = {"en": [("flash-attn v2 kernels", "flash"), ("eager attention (no flash)", "eager")],
             "es": [("kernels de flash-attn", "flash"), ("atención eager, sin flash", "eager")]}
TARGETS = {"en": [("LoRA on q,k,v,o only", "attention"), ("every linear layer adapted", "all-linear")],
           "es": [("LoRA solo en q,k,v,o", "attention"), ("todas las capas lineales adaptadas", "all-linear")]}
COMPILE = {"en": [("compiled w/ torch.compile", True)], "es": [("compilado con torch.compile", True)]}
PACKING = {"en": [("samples packed into full rows", True), ("one sample per row, unpacked", False)],
           "es": [("muestras empaquetadas en filas llenas", True), ("una muestra por fila, sin empaquetar", False)]}
DISTRACTORS = {"en": ["p99 latency is 340 ms", "ref INC-4471", "PO line 41-009", "target Q3", "cap is $9,800",
                      "sync moved to Thu 15:30", "we're on driver 550.54"],
               "es": ["la latencia p99 es de 340 ms", "ref. INC-4471", "partida 41-009", "objetivo T3",
                      "el tope es de 9.800 €", "la reunión pasó al jueves 15:30", "vamos con el driver 550.54"]}
OPENERS_ES = ("che, ", "oigan, ", "parce, ", "tío, ", "wena, ", "mae, ")
TEMPLATES = {
    "en": [":rotating_light: INC-{inc} (sev2): the rollback needs a retrain, {core}, {rest}. what do we rent right "
           "now?",
           "Ana wants {core} with {rest}; she asked me to check which GPU we should rent.",
           "Procurement review of PO-{po}: the team asks for {core}, {rest}. Is the GPU line justified, and what's "
           "the right pick?",
           "my advisor's exact words: \"just do {core}, {rest}\". what would that need on rented GPUs?",
           "MOBILE:hey can u size {core} w/ {rest} pls b/c i need it tmrw",
           "Action items from the ML sync ({day}):\n- @ana: {core}\n- settings agreed: {rest}\n- @bot: which GPU + "
           "cost?",
           "Fwd: GPU sizing for the Q{q} retrain\n\n---------- Forwarded message ---------\nFrom: Ana Ruiz "
           "<ana.ruiz@acme.io>\nSubject: GPU sizing\n\nHi, we'd like {core}, {rest}. Could you size the GPUs?",
           "## What\nMoves the nightly finetune to {core}.\n\n## Config\n{rest}\n\n## Question\nWhich GPU should the "
           "runner rent?"],
    "es": [":rotating_light: INC-{inc} (sev2): el rollback exige reentrenar, {core}, {rest}. ¿qué alquilamos ya?",
           "Según Marta, quiere {core} con {rest}; me pidió que averigüe qué GPU alquilar.",
           "Revisión de compras de la OC-{po}: el equipo pide {core}, {rest}. ¿Se justifica la línea de GPU y cuál "
           "conviene?",
           "mi directora de tesis lo dijo así: \"haz {core}, {rest}\". ¿qué haría falta en GPUs alquiladas?",
           "MOBILE:oye me dices q gpu para {core} con {rest} porfa xq lo necesito tb para mañana",
           "Acta de la reunión de ML ({day}):\n- @marta: {core}\n- parámetros acordados: {rest}\n- @bot: ¿qué GPU "
           "y "
           "cuánto cuesta?",
           "RV: dimensionar GPU para el reentreno del T{q}\n\n---------- Mensaje reenviado ---------\nDe: Marta Gil "
           "<marta.gil@acme.es>\nAsunto: dimensionar GPU\n\nHola, queremos {core}, {rest}. ¿Nos dimensionas las GPUs?",
           "## Qué\nPasa el finetune nocturno a {core}.\n\n## Config\n{rest}\n\n## Pregunta\n¿Qué GPU debería "
           "alquilar el runner?"]}
DAYS = {"en": ("May 14", "Oct 2", "Jan 27"), "es": ("14/05", "2 de octubre", "27 de enero")}
QUESTIONS = {"en": ["which GPU would you pick for {core} w/ {rest}, and what would it cost?",
                    "two q's: what GPU for {core} ({rest}) and how many hours?",
                    "ballpark wall-clock for {core} with {rest}?"],
             "es": ["¿qué GPU elegirías para {core} con {rest}, y cuánto costaría?",
                    "dos preguntas: ¿qué GPU para {core} ({rest}) y cuántas horas?",
                    "a ojo, ¿cuántas horas de reloj para {core} con {rest}?"]}
CORES = {"en": ["{method} on {model}", "{model} w/ {method}"], "es": ["{method} sobre {model}", "{model} con {method}"]}
CMD_JOINS = (" ; ", " -- ", " + ", " >> ")
CORRECTION = {"en": ["{text}\nscratch that, context is {new} (not {old})",
                     "{text} -- edit: {new} tokens, I typed {old} by mistake"],
              "es": ["{text}\nolvida eso, el contexto es {new} (no {old})",
                     "{text} -- corrijo: {new} tokens, puse {old} por error"]}
CONFLICT = {"en": [("context {a} in Ana's doc but {b} in the PR", "seq_len"),
                   ("{a} epochs per my advisor, {b} per the README", "epochs")],
            "es": [("contexto {a} según el doc de Marta y {b} según el PR", "seq_len"),
                   ("{a} épocas según mi directora, {b} según el README", "epochs")]}
UNREADABLE = {"en": [("context: whatever Ana used last time", "seq_len"), ("rank: advisor hasn't decided", "lora_rank"),
                     ("epochs: until the loss flattens", "epochs"),
                     ("batch: as much as the card takes", "micro_batch"),
                     ("GPUs: however many procurement approves", "num_gpus"),
                     ("data: the Q2 export, no idea how big", "dataset_tokens")],
              "es": [("contexto: el que usó Marta la otra vez", "seq_len"),
                     ("rango: mi directora aún no lo decide", "lora_rank"),
                     ("épocas: hasta que la loss se aplane", "epochs"),
                     ("lote: lo que aguante la tarjeta", "micro_batch"),
                     ("GPUs: las que apruebe compras", "num_gpus"),
                     ("datos: el export del T2, ni idea del tamaño", "dataset_tokens")]}
# (form, field): each value is beyond advisor/spec.py's MAX_* bounds
LIMIT = {"en": [("ctx=2097152", "seq_len"), ("5000×H100", "num_gpus"), ("2500 epochs over the data", "epochs"),
                ("mbs=6144", "micro_batch")],
         "es": [("una ventana de 2097152 tokens", "seq_len"), ("5000×H100", "num_gpus"),
                ("2500 épocas en total", "epochs"), ("mbs=6144", "micro_batch")]}
LIMIT_SIZE = {"en": "a 1500B in-house model", "es": "un 1500B propio"}
FAMILY_SIZE = ("Llama 3.1 13B", "Gemma 2 7B", "Qwen2.5 20B", "Yi 13B", "Falcon 13B", "Gemma 3 2B")
NUMBER = {"en": "{core}, {rest}, and {x} too", "es": "{core}, {rest}, y {x} también"}
FOLLOWUP = {"en": ["ok Ana says make it {slot}", "incident update: we can get {slot} now",
                   "PR feedback: switch to {slot}", "what about w/ {slot} instead"],
            "es": ["dice Marta que mejor {slot}", "actualización del incidente: ya hay {slot}",
                   "comentario en el PR: pasa a {slot}", "y con {slot} q tal"]}
# seq words a size may sit right before (the plain words, and this set's key forms)
SEQ_WORDS = {"en": ("seq", "ctx", "context", "ctx=", "L="), "es": ("secuencia", "contexto", "ctx", "ctx=", "L=")}
# one-edit typos: of a method word, of a family word (display names), of a setting word
METHOD_TYPOS = {"qlora": ("qloora", "qlra", "qlira"), "lora": ("loar", "loora", "lpra"),
                "full": ("full fine-tume", "full fien-tune", "ful fine-tune")}
METHOD_TYPOS_ES = {"qlora": ("qloora", "qlra"), "lora": ("loar", "loora"),
                   "full": ("ajuste comlpeto", "ajuste completp", "ajuste cmopleto")}
FAMILY_TYPOS = {"Mistral": ("Mistrall", "Mistal"), "Llama": ("Llaam", "Lllama"), "Qwen2.5": ("Qewn2.5",),
                "Qwen3": ("Qwn3",), "Gemma": ("Gmema", "Gemmaa"), "Mixtral": ("Mixtarl",), "DeepSeek": ("DepSeek",),
                "Falcon": ("Falcom",), "TinyLlama": ("TinyLlamma",), "SmolLM2": ("SmolML2",)}
SETTING_TYPOS = {"en": [("contxt {n}", "seq_len"), ("{e} epoches", "epochs"), ("mirco-batch {b}", "micro_batch")],
                 "es": [("contexot de {n}", "seq_len"), ("{e} éopcas", "epochs"),
                        ("mirco-lote de {b}", "micro_batch")]}
FORM = {"en": {"head": "*Request:* GPU sizing", "method": "*Method:*", "model": "*Base model:*",
               "seq": "*Context length:*", "batch": "*Per-GPU batch:*", "epochs": "*Epochs:*", "gpu": "*GPUs:*",
               "region": "*Region:*", "notes": "*Notes:*", "none": "n/a",
               "intro": "New submission from the GPU request workflow :inbox_tray:"},
        "es": {"head": "*Solicitud:* dimensionar GPU", "method": "*Método:*", "model": "*Modelo base:*",
               "seq": "*Longitud de contexto:*", "batch": "*Lote por GPU:*", "epochs": "*Épocas:*", "gpu": "*GPUs:*",
               "region": "*Región:*", "notes": "*Notas:*", "none": "nada",
               "intro": "Nueva respuesta del formulario de pedidos de GPU :inbox_tray:"}}
FORM_METHOD = {"en": {"full": "Full fine-tune", "lora": "LoRA", "qlora": "QLoRA"},
               "es": {"full": "Ajuste completo", "lora": "LoRA", "qlora": "QLoRA"}}
FORM_REGION = {"eu-central": "eu-central (Frankfurt)", "eu-west": "eu-west (Paris)"}
SHEET = {"en": {"intro": ["row from the capacity sheet (header + our line):", "planning.csv, our row:"],
                "cols": {"method": "method", "model": "base_model", "seq": "context_len", "batch": "batch_per_gpu",
                         "epochs": "epochs", "gpu": "gpu_type", "count": "gpu_count"}},
         "es": {"intro": ["fila de la planilla de capacidad (encabezado + nuestra fila):",
                          "planificacion.csv, nuestra fila:"],
                "cols": {"method": "método", "model": "modelo", "seq": "contexto", "batch": "lote_por_gpu",
                         "epochs": "épocas", "gpu": "tipo_gpu", "count": "n_gpus"}}}
QUOTE_HTML = {"en": "&gt; ana: need this before the standup\n", "es": "&gt; marta: ¿lo tenemos antes de la daily?\n"}
MENTIONS = ("<!channel> ", "<#C07INC|inc-gpu-capacity> ", "<@U02ANA> ")
EMOJI = (" 🔥", " 🙏", " :pray:", " 🚀", " 🫠")
THINSP = "\u2009"
NBSP = "\u00a0"
ZWSP = "\u200b"

# --- config shapes: GPU names as each tool spells them ------------------------------------------------------
SKY_ACC = {"A100": "a100-40gb", "A100-80GB": "a100-80gb", "H100": "h100-sxm", "H200": "h200", "L4": "l4",
           "L40S": "l40s", "A10G": "a10g"}
MODAL_GPU = {"H100": "h100-sxm", "A100-80GB": "a100-80gb", "A100-40GB": "a100-40gb", "L40S": "l40s", "L4": "l4",
             "A10G": "a10g", "H200": "h200", "B200": "b200"}
RAY_ACC = {"H100": "h100-sxm", "A100-80G": "a100-80gb", "A100-40G": "a100-40gb", "L4": "l4", "A10G": "a10g",
           "L40S": "l40s"}
K8S_PRODUCT = {"NVIDIA-H100-80GB-HBM3": "h100-sxm", "NVIDIA-H100-PCIe": "h100-pcie",
               "NVIDIA-A100-SXM4-80GB": "a100-80gb", "NVIDIA-A100-SXM4-40GB": "a100-40gb", "NVIDIA-L40S": "l40s",
               "NVIDIA-L4": "l4", "NVIDIA-A10G": "a10g"}
CONFIG_SHAPES = ("skypilot", "modal", "ray_train", "nemo_yaml", "swift_cli", "openrlhf", "env_launch", "cuda_visible",
                 "k8s_job", "wandb_dump")
# What marks each shape in a message; none of them is in phrasegen.py or gen9-gen17.
SHAPE_MARKERS = ("disk_size", "modal.App", "resources_per_worker", "val_check_interval", "--quant_bits",
                 "Open-Orca/OpenOrca", "./train.sh", "CUDA_VISIBLE_DEVICES=", "restartPolicy", "framework: huggingface")
HEAD = {"en": ["{method} on {model}, here's the launch config, what should we rent?",
               "re-running {model} ({method}) from this:"],
        "es": ["{method} sobre {model}, va la config de lanzamiento, ¿qué alquilamos?",
               "relanzamos {model} ({method}) con esto:"]}
HEAD_METHOD = {"en": {"full": "full fine-tune", "lora": "LoRA", "qlora": "QLoRA"},
               "es": {"full": "ajuste completo", "lora": "LoRA", "qlora": "QLoRA"}}
ON_GPU = {"en": " (on {g} nodes)", "es": " (en nodos {g})"}


class _Gen:
    def __init__(self, rng: random.Random, catalog: Catalog):
        self.rng = rng
        self.models = [m for m in catalog.models() if m.id != "tiny-test"]
        self.sized = [m for m in self.models if re.fullmatch(r"[A-Za-z][\w. ]* [\d.]+B", m.display_name)]

    def pick(self, seq):
        return self.rng.choice(list(seq))

    # --- slots: each returns (text, fields) ---------------------------------------------------------------

    def method(self, lang: str, method: str | None = None, noise: list[str] | None = None) -> tuple[str, dict]:
        method = method or self.pick(("full", "lora", "qlora"))
        text = self.pick(METHOD[lang][method])
        if noise is not None and text in MIXED_CASE and self.rng.random() < 0.15:
            text = self.pick(MIXED_CASE[text])
            noise.append("mixed_case")
        return text, {"method": method}

    def model(self, lang: str) -> tuple[str, dict]:
        roll = self.rng.random()
        if roll < 0.12:
            hub = self.pick(FOREIGN)
            return self.pick(["{hub}", "{hub} @ main"]).format(hub=hub), {"model": hub}
        if roll < 0.25:
            s = self.pick(SIZES)
            return self.pick(SIZE_FORMS[lang]).format(s=s), {"params_b": float(s)}
        m = self.pick(self.models)
        return self.pick(MODEL_FORMS[lang]).format(hub=m.hub_id, display=m.display_name, id=m.id), {"model": m.id}

    def seq_value(self, lang: str, n: int, noise: list[str] | None = None, keyed: bool = False) -> str:
        style = self.rng.random()
        if style < 0.4 or (keyed and style < 0.7):
            return str(n)
        if style < 0.7 or keyed:
            return f"{n // 1024}k"
        if style < 0.85 or n < 10000:
            return f"{n:,}" if lang == "en" else f"{n:,}".replace(",", ".")
        if noise is not None:
            noise.append("thinsp")
        return f"{n:,}".replace(",", THINSP)

    def seq(self, lang: str, n: int | None = None, noise: list[str] | None = None) -> tuple[str, dict]:
        n = n or self.pick(SEQ_VALUES)
        form = self.pick(SEQ[lang])
        return form.format(n=self.seq_value(lang, n, noise, keyed="=" in form)), {"seq_len": n}

    def batch(self, lang: str) -> tuple[str, dict]:
        form = self.pick(BATCH[lang])
        b = self.pick((2, 4, 8, 16) if form.startswith("{b}") else (1, 2, 4, 8, 16))
        return form.format(b=b), {"micro_batch": b}

    def rank(self, lang: str) -> tuple[str, dict]:
        r = self.pick((4, 8, 16, 32, 64, 128))
        form = self.pick(RANK[lang])
        if "{a}" in form:
            a = r * self.pick((1, 2, 4))
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
        e = e or self.pick((1, 2, 3, 4, 6, 2.5))
        return self.pick(EPOCHS[lang]).format(E=self.epochs_phrase(lang, e)), {"epochs": float(e)}

    def dataset(self, lang: str) -> tuple[str, dict]:
        tokens, en, es = self.pick(DATASET_VALUES)
        return self.pick(DATASET[lang]).format(D=self.pick(en if lang == "en" else es)), {"dataset_tokens": tokens}

    def gpu(self, lang: str, gid: str | None = None, count: int | None = None) -> tuple[str, dict]:
        gid = gid or self.pick(sorted(GPU_NAMES))
        single, plural = GPU_NAMES[gid]
        forms = [f for f in GPU_SLOT[lang] if plural or "{p}" not in f[0]]
        if count is not None:
            forms = [f for f in forms if f[1] == "c"]
        form, kind = self.pick(forms)
        fields: dict[str, Any] = {"gpu": gid}
        c = count or self.pick(GPU_COUNTS)
        if kind == "c":
            fields["num_gpus"] = c
        elif kind == 1:
            fields["num_gpus"] = 1
        return form.format(c=c, g=single, p=plural), fields

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
            text = d + ". " + text if text.endswith("?") or "```" in text or "\n" in text else text + " (" + d + ")"
            noise.append("distractor")
        if prose and rng.random() < 0.35 and ("'" in text or '"' in text):
            text = text.replace("'", "\u2019")
            parts = text.split('"')
            text = "".join(p + ("\u201c" if i % 2 == 0 else "\u201d") for i, p in enumerate(parts[:-1])) + parts[-1]
            noise.append("smart_quotes")
        if prose and rng.random() < 0.08:
            new = re.sub(r"(\d) ([A-Z])", lambda m: m.group(1) + NBSP + m.group(2), text, count=1)
            if new != text:
                text = new
                noise.append("nbsp")
        if prose and rng.random() < 0.06 and ", " in text:
            text = text.replace(", ", "," + ZWSP + " ", 1)
            noise.append("zwsp")
        if prose and rng.random() < 0.06 and len(text) > 50 and "\n" not in text:
            text = self._wrap(text)
            noise.append("wrap40")
        if prose and rng.random() < 0.05:
            spaces = [m.start() for m in re.finditer(r"(?<=[a-z]) (?=[a-z])", text)]
            if spaces:
                i = self.pick(spaces)
                text = text[:i] + "  " + text[i + 1:]
                noise.append("double_space")
        if rng.random() < 0.08:
            text += self.pick(EMOJI)
            noise.append("emoji")
        if rng.random() < 0.06:
            text = self.pick(MENTIONS) + text
            noise.append("mention")
        if rng.random() < 0.05:
            text = QUOTE_HTML[lang] + text
            noise.append("html")
        return text

    @staticmethod
    def _wrap(text: str, width: int = 40) -> str:
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

    def _core(self, lang: str, noise: list[str] | None = None) -> tuple[str, dict, str]:
        mtext, mf = self.method(lang, noise=noise)
        model_text, model_f = self.model(lang)
        core = self.pick(CORES[lang]).format(method=mtext, model=model_text)
        return core, {**mf, **model_f}, mf["method"]

    def _frame(self, lang: str, core: str, rest: str, noise: list[str] | None = None,
               fields: dict | None = None) -> str:
        template = self.pick(TEMPLATES[lang])
        mobile = template.startswith("MOBILE:")
        if mobile:
            template = template[len("MOBILE:"):]
            if (fields or {}).get("model") not in FOREIGN:  # a Hub id keeps its letter case
                core, rest = core.lower(), rest.lower()
                if noise is not None:
                    noise.append("mobile")
        text = template.format(core=core, rest=rest, inc=self.rng.randint(1000, 9999),
                               po=self.rng.randint(10000, 99999), day=self.pick(DAYS[lang]),
                               q=self.rng.randint(1, 4))
        if mobile:
            text = text.replace("?", "").replace("¿", "")
        elif lang == "es" and "\n" not in text and not text.startswith(":") and self.rng.random() < 0.3:
            text = self.pick(OPENERS_ES) + text[0].lower() + text[1:]
        return text

    @staticmethod
    def _fields(items: list[tuple[str, dict]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for _, f in items:
            out.update(f)
        return out

    def estimate(self, lang: str) -> dict[str, Any]:
        noise: list[str] = []
        core, fields, method = self._core(lang, noise)
        items = self.extras(lang, method, self.pick((1, 2, 3, 4)), noise)
        self.rng.shuffle(items)
        text = self._frame(lang, core, ", ".join(t for t, _ in items), noise, fields)
        return self.entry(text, lang, {**fields, **self._fields(items)}, "estimate", noise)

    def question(self, lang: str) -> dict[str, Any]:
        noise: list[str] = []
        core, fields, method = self._core(lang, noise)
        items = self.extras(lang, method, self.pick((1, 2, 3)), noise)
        text = self.pick(QUESTIONS[lang]).format(core=core, rest=", ".join(t for t, _ in items))
        return self.entry(text, lang, {**fields, **self._fields(items)}, "question", noise)

    def command(self, lang: str) -> dict[str, Any]:
        """Terse slots in any order: method, model and settings shuffled together."""
        noise: list[str] = []
        mtext, mf = self.method(lang, noise=noise)
        model_text, model_f = self.model(lang)
        items = [(mtext, mf), (model_text, model_f)] + self.extras(lang, mf["method"], self.pick((1, 2, 3)), noise)
        self.rng.shuffle(items)
        text = self.pick(CMD_JOINS).join(t for t, _ in items)
        return self.entry(text, lang, self._fields(items), "command", noise)

    def form(self, lang: str) -> dict[str, Any]:
        """A Slack Workflow form submission: bold labels, one value a line."""
        f = FORM[lang]
        noise: list[str] = ["form"]
        method = self.pick(("full", "lora", "qlora"))
        model_text, model_f = self.model(lang)
        expected: dict[str, Any] = {"method": method, **model_f}
        rows = [f"{f['method']} {FORM_METHOD[lang][method]}", f"{f['model']} {model_text}"]
        optional = []
        n = self.pick(SEQ_VALUES)
        optional.append((f"{f['seq']} {self.seq_value(lang, n, noise)}", {"seq_len": n}))
        b = self.pick((1, 2, 4, 8))
        optional.append((f"{f['batch']} {b}", {"micro_batch": b}))
        e = self.pick((1, 2, 3, 1.5))
        optional.append((f"{f['epochs']} {f'{e:g}' if lang == 'en' else f'{e:g}'.replace('.', ',')}",
                         {"epochs": float(e)}))
        gtext, gf = self.gpu(lang)
        optional.append((f"{f['gpu']} {gtext}", gf))
        region = self.pick(sorted(FORM_REGION))
        optional.append((f"{f['region']} {FORM_REGION[region]}", {"region": region}))
        chosen = self.rng.sample(optional, self.pick((1, 2, 3, 4)))
        for text, fields in chosen:
            rows.append(text)
            expected.update(fields)
        notes = self.pick(DISTRACTORS[lang]) if self.rng.random() < 0.5 else f["none"]
        rows.append(f"{f['notes']} {notes}")
        text = f["intro"] + "\n" + f["head"] + "\n" + "\n".join(rows)
        return self.entry(text, lang, expected, "form", noise, prose=False)

    def sheet_row(self, lang: str) -> dict[str, Any]:
        """A header and one row from a spreadsheet: TSV (Sheets), CSV (commas) or a Spanish-locale CSV (;)."""
        s = SHEET[lang]
        cols = s["cols"]
        method = self.pick(("full", "lora", "qlora"))
        m = self.pick(self.models)
        header = [cols["method"], cols["model"]]
        row = [method, self.pick((m.hub_id, m.id))]
        expected: dict[str, Any] = {"method": method, "model": m.id}
        sep = self.pick(("\t", ",")) if lang == "en" else self.pick(("\t", ";"))
        optional = ["seq", "batch", "epochs", "gpu"]
        for key in self.rng.sample(optional, self.pick((1, 2, 3, 4))):
            if key == "seq":
                n = self.pick(SEQ_VALUES)
                header.append(cols["seq"])
                row.append(str(n))
                expected["seq_len"] = n
            elif key == "batch":
                b = self.pick((1, 2, 4, 8))
                header.append(cols["batch"])
                row.append(str(b))
                expected["micro_batch"] = b
            elif key == "epochs":
                e = self.pick((1, 2, 3, 1.5)) if sep != "," else self.pick((1, 2, 3))
                header.append(cols["epochs"])
                row.append(f"{e:g}" if lang == "en" else f"{e:g}".replace(".", ","))
                expected["epochs"] = float(e)
            else:
                gid = self.pick(("h100-sxm", "a100-80gb", "a100-40gb", "l40s", "h200", "rtx-4090", "l4"))
                c = self.pick((1, 2, 4, 8))
                header += [cols["gpu"], cols["count"]]
                row += [GPU_NAMES[gid][0], str(c)]
                expected.update(gpu=gid, num_gpus=c)
        body = sep.join(header) + "\n" + sep.join(row)
        text = self.pick(s["intro"]) + ("\n" + body if sep == "\t" else "\n```\n" + body + "\n```")
        return self.entry(text, lang, expected, "sheet_row", ["sheet_row"], prose=False)

    def adjacent(self, lang: str) -> dict[str, Any]:
        """A size or a sized model right next to a sequence word or key, in any order."""
        noise: list[str] = []
        method = self.pick(("full", "lora", "qlora"))
        mword = self.pick({"full": ("full", "full ft", "ajuste completo" if lang == "es" else "full fine-tune"),
                           "lora": ("lora", "LoRA"), "qlora": ("qlora", "QLoRA")}[method])
        n = self.pick(SEQ_VALUES)
        expected: dict[str, Any] = {"method": method, "seq_len": n}
        if self.rng.random() < 0.6:
            s = self.pick((1, 2, 3, 7, 9, 13, 20, 34, 72))
            size = self.pick((f"{s:g}b", f"{s:g}B"))
            expected["params_b"] = float(s)
        else:
            m = self.pick(self.sized)
            size = m.display_name.lower()
            expected["model"] = m.id
        word = self.pick(SEQ_WORDS[lang])
        if word.endswith("="):
            seqchunk = word + self.seq_value(lang, n, None, keyed=True)
        elif self.rng.random() < 0.2 and lang == "en":
            seqchunk = f"{n // 1024}k-token ctx"
        else:
            value = self.seq_value(lang, n, noise) if self.rng.random() < 0.5 else str(n)
            seqchunk = f"{word} {value}"
        parts = [f"{size} {seqchunk}"] if self.rng.random() < 0.7 else [seqchunk, size]
        parts.append(mword)
        if method != "full" and self.rng.random() < 0.4:
            r = self.pick((4, 8, 16, 32, 64))
            parts.append(self.pick((f"r{r}", f"rank {r}", f"lora_r={r}")))
            expected["lora_rank"] = r
        if self.rng.random() < 0.3:
            gid = self.pick(("h100-sxm", "a100-80gb", "l40s", "rtx-4090", "h200"))
            c = self.pick((2, 4, 8))
            g = GPU_NAMES[gid][0]
            parts.append(self.pick((f"{c}×{g}", f"x{c} {g}", f"{c} x {g}")))
            expected.update(gpu=gid, num_gpus=c)
        head, tail = parts[:1], parts[1:]
        self.rng.shuffle(tail)
        order = tail[:1] + head + tail[1:] if self.rng.random() < 0.4 else head + tail
        text = self.pick((" ", ", ", " | ")).join(order)
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
            value = {"seq_len": self.pick(SEQ_VALUES), "epochs": self.pick((2, 3, 5)),
                     "micro_batch": self.pick((2, 4, 8))}[field]
            label = float(value) if field == "epochs" else value
            items.append((form.format(n=value, e=value, b=value), {field: label}))
            fields = {"method": method, **model_f, **self._fields(items)}
            noise.append("typo:setting")
        core = self.pick(CORES[lang]).format(method=mtext, model=model_text)
        text = self._frame(lang, core, ", ".join(t for t, _ in items), noise, fields)
        return self.entry(text, lang, fields, "typo", noise)

    # --- config shapes --------------------------------------------------------------------------------------

    def config(self, lang: str) -> dict[str, Any]:
        shape = self.pick(CONFIG_SHAPES)
        return getattr(self, "_cfg_" + shape)(lang)

    def _head(self, lang: str, method: str, model_text: str) -> str:
        return self.pick(HEAD[lang]).format(method=HEAD_METHOD[lang][method], model=model_text)

    def _code(self, head: str, body: str, fence: str = "") -> str:
        return head + f"\n```{fence}\n" + body + "\n```"

    def _cfg_skypilot(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora", "qlora"))
        m = self.pick(self.models)
        acc = self.pick(sorted(SKY_ACC))
        per, nodes = self.pick((1, 2, 4, 8)), self.pick((1, 1, 2, 4))
        seq, e = self.pick(SEQ_VALUES), self.pick((1, 2, 3))
        lines = [f"name: sft-{m.id}", "", "resources:", f"  accelerators: {acc}:{per}", "  disk_size: 512",
                 "  use_spot: false", ""]
        if nodes > 1 or self.rng.random() < 0.5:
            lines.append(f"num_nodes: {nodes}")
        lines += ["", "setup: |", "  pip install -r requirements.txt", "", "run: |",
                  f"  python train.py --model {m.hub_id} --max_seq_len {seq} --epochs {e}"]
        text = self._code(self._head(lang, method, m.display_name), "\n".join(lines), "yaml")
        expected = {"method": method, "model": m.id, "gpu": SKY_ACC[acc], "num_gpus": per * nodes, "seq_len": seq,
                    "epochs": float(e)}
        return self.entry(text, lang, expected, "config", ["config:skypilot"], prose=False)

    def _cfg_modal(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora", "qlora"))
        m = self.pick(self.models)
        acc = self.pick(sorted(MODAL_GPU))
        c, seq = self.pick((1, 2, 4, 8)), self.pick(SEQ_VALUES)
        args = f'model_id="{m.hub_id}", max_seq_len={seq}'
        expected: dict[str, Any] = {"method": method, "model": m.id, "gpu": MODAL_GPU[acc], "num_gpus": c,
                                    "seq_len": seq}
        if method != "full":
            r = self.pick((8, 16, 32, 64))
            args += f", lora_r={r}"
            expected["lora_rank"] = r
        code = ["import modal", "", 'app = modal.App("sft")',
                'image = modal.Image.debian_slim().pip_install("torch", "transformers", "peft")', "",
                f'@app.function(gpu="{acc}:{c}", timeout=6 * 60 * 60, image=image)', "def train():",
                f"    run_sft({args})"]
        text = self._code(self._head(lang, method, m.display_name), "\n".join(code), "python")
        return self.entry(text, lang, expected, "config", ["config:modal"], prose=False)

    def _cfg_ray_train(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora", "qlora"))
        m = self.pick(self.models)
        w, seq, b, e = self.pick((2, 4, 8, 16)), self.pick(SEQ_VALUES), self.pick((1, 2, 4)), self.pick((1, 2, 3))
        expected: dict[str, Any] = {"method": method, "model": m.id, "num_gpus": w, "seq_len": seq, "micro_batch": b,
                                    "epochs": float(e)}
        acc_arg = ""
        if self.rng.random() < 0.7:
            acc = self.pick(sorted(RAY_ACC))
            acc_arg = f', accelerator_type="{acc}"'
            expected["gpu"] = RAY_ACC[acc]
        code = ["from ray.train import ScalingConfig", "from ray.train.torch import TorchTrainer", "",
                "trainer = TorchTrainer(", "    train_loop_per_worker=train_func,",
                f'    train_loop_config={{"model_id": "{m.hub_id}", "seq_len": {seq}, "batch_size_per_worker": {b}, '
                f'"epochs": {e}}},',
                f'    scaling_config=ScalingConfig(num_workers={w}, use_gpu=True, resources_per_worker={{"GPU": 1}}'
                f"{acc_arg}),", ")", "result = trainer.fit()"]
        text = self._code(self._head(lang, method, m.display_name), "\n".join(code), "python")
        return self.entry(text, lang, expected, "config", ["config:ray_train"], prose=False)

    def _cfg_nemo_yaml(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora"))
        m = self.pick(self.models)
        d, n = self.pick((1, 2, 4, 8)), self.pick((1, 1, 2))
        seq, b, e = self.pick(SEQ_VALUES), self.pick((1, 2, 4)), self.pick((1, 2, 3))
        lines = ["trainer:", f"  devices: {d}", f"  num_nodes: {n}", "  precision: bf16-mixed", f"  max_epochs: {e}",
                 "  val_check_interval: 200", "model:", f"  restore_from_path: /workspace/models/{m.id}.nemo",
                 f"  micro_batch_size: {b}", "  data:", "    train_ds:", "      file_names: [/data/train.jsonl]",
                 f"      max_seq_length: {seq}", "  peft:"]
        expected: dict[str, Any] = {"method": method, "model": m.id, "num_gpus": d * n, "precision": "bf16-mixed",
                                    "epochs": float(e), "micro_batch": b, "seq_len": seq}
        if method == "lora":
            r = self.pick((8, 16, 32))
            lines += ["    peft_scheme: lora", "    lora_tuning:", f"      adapter_dim: {r}"]
            expected["lora_rank"] = r
        else:
            lines += ["    peft_scheme: none"]
        head = self._head(lang, method, m.display_name)
        if self.rng.random() < 0.5:
            gid = self.pick(("h100-sxm", "a100-80gb", "h200", "l40s"))
            head += ON_GPU[lang].format(g=GPU_NAMES[gid][0])
            expected["gpu"] = gid
        text = self._code(head, "\n".join(lines), "yaml")
        return self.entry(text, lang, expected, "config", ["config:nemo_yaml"], prose=False)

    def _cfg_swift_cli(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora", "qlora"))
        m = self.pick(self.models)
        c = self.pick((1, 2, 4, 8))
        seq, b, e, ga = self.pick(SEQ_VALUES), self.pick((1, 2, 4)), self.pick((1, 2, 3)), self.pick((4, 8, 16))
        devices = ",".join(map(str, range(c)))
        env = "CUDA_VISIBLE_DEVICES=0" if c == 1 else f"NPROC_PER_NODE={c} CUDA_VISIBLE_DEVICES={devices}"
        lines = [f"{env} swift sft \\", f"    --model {m.hub_id} \\",
                 f"    --train_type {'full' if method == 'full' else 'lora'} \\"]
        expected: dict[str, Any] = {"stack": "hf", "method": method, "model": m.id, "num_gpus": c, "seq_len": seq,
                                    "micro_batch": b, "epochs": float(e), "gradient_accumulation_steps": ga}
        if method == "qlora":
            lines.append("    --quant_method bnb --quant_bits 4 \\")
        if method != "full":
            r = self.pick((8, 16, 32, 64))
            lines.append(f"    --lora_rank {r} --lora_alpha {2 * r} \\")
            expected.update(lora_rank=r, lora_alpha=float(2 * r))
        lines += [f"    --max_length {seq} \\", f"    --per_device_train_batch_size {b} \\",
                  f"    --num_train_epochs {e} \\", f"    --gradient_accumulation_steps {ga} \\"]
        if c > 1 and self.rng.random() < 0.6:
            stage = self.pick((2, 3))
            lines.append(f"    --deepspeed zero{stage} \\")
            expected["sharding"] = f"zero{stage}"
        lines.append("    --dataset AI-ModelScope/alpaca-gpt4-data-en")
        intro = {"en": "our ms-swift command, what GPUs does this need?",
                 "es": "nuestro comando de ms-swift, ¿qué GPUs necesita?"}[lang]
        if method == "qlora" and self.rng.random() < 0.5:
            intro = self._head(lang, method, m.display_name)
        text = self._code(intro, "\n".join(lines), "bash")
        return self.entry(text, lang, expected, "config", ["config:swift_cli"], prose=False)

    def _cfg_openrlhf(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora", "qlora"))
        m = self.pick(self.models)
        c, seq, b, e, stage = (self.pick((1, 2, 4, 8)), self.pick(SEQ_VALUES), self.pick((1, 2, 4)),
                               self.pick((1, 2, 3)), self.pick((2, 3)))
        lines = [f"deepspeed --num_gpus {c} --module openrlhf.cli.train_sft \\", f"   --pretrain {m.hub_id} \\",
                 "   --dataset Open-Orca/OpenOrca \\", f"   --max_len {seq} \\", f"   --micro_train_batch_size {b} \\",
                 f"   --max_epochs {e} \\", f"   --zero_stage {stage} \\", "   --bf16 \\", "   --flash_attn \\",
                 "   --gradient_checkpointing \\"]
        expected: dict[str, Any] = {"method": method, "model": m.id, "num_gpus": c, "seq_len": seq, "micro_batch": b,
                                    "epochs": float(e), "sharding": f"zero{stage}", "precision": "bf16-mixed",
                                    "attention": "flash", "gradient_checkpointing": True}
        if method != "full":
            r = self.pick((16, 32, 64))
            lines.append(f"   --lora_rank {r} --lora_alpha {r} --target_modules all-linear \\")
            expected.update(lora_rank=r, lora_alpha=float(r), lora_targets="all-linear")
        if method == "qlora":
            lines.append("   --load_in_4bit \\")
        lines.append("   --learning_rate 5e-6")
        text = self._code(self._head(lang, method, m.display_name), "\n".join(lines), "bash")
        return self.entry(text, lang, expected, "config", ["config:openrlhf"], prose=False)

    def _cfg_env_launch(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora", "qlora"))
        m = self.pick(self.models)
        c, seq, b, e = self.pick((1, 2, 4, 8)), self.pick(SEQ_VALUES), self.pick((1, 2, 4, 8)), self.pick((1, 2, 3))
        gv, sv, bv = self.pick(("NUM_GPUS", "NGPUS", "GPUS")), self.pick(("SEQ_LEN", "MAX_LEN", "CTX")), \
            self.pick(("MBS", "MICRO_BS", "BATCH_PER_GPU"))
        env = [f"{gv}={c}", f"{sv}={seq}", f"{bv}={b}", f"EPOCHS={e}", f"MODEL={m.hub_id}"]
        self.rng.shuffle(env)
        line = " ".join(env) + " ./train.sh"
        noise = ["config:env_launch"]
        if self.rng.random() < 0.35:
            line = "cd ~/sft &amp;&amp; " + line
            noise.append("html")
        expected = {"method": method, "model": m.id, "num_gpus": c, "seq_len": seq, "micro_batch": b,
                    "epochs": float(e)}
        text = self._code(self._head(lang, method, m.display_name), line)
        return self.entry(text, lang, expected, "config", noise, prose=False)

    def _cfg_cuda_visible(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora", "qlora"))
        m = self.pick(self.models)
        c = self.pick((1, 2, 3, 4, 6))
        ids = sorted(self.rng.sample(range(8), c))
        seq = self.pick(SEQ_VALUES)
        vis = "CUDA_VISIBLE_DEVICES=" + ",".join(map(str, ids))
        if c == 1:
            line = f"{vis} python train_sft.py --model {m.hub_id} --seq_len {seq}"
        else:
            line = f"{vis} accelerate launch --multi_gpu train_sft.py --model {m.hub_id} --seq_len {seq}"
        gid = self.pick(("h100-sxm", "a100-80gb", "l40s", "rtx-4090", "a100-40gb", "rtx-6000-ada"))
        head = self._head(lang, method, m.display_name) + {"en": f" (the {GPU_NAMES[gid][0]} server)",
                                                           "es": f" (el servidor de {GPU_NAMES[gid][0]})"}[lang]
        expected = {"method": method, "model": m.id, "num_gpus": c, "seq_len": seq, "gpu": gid}
        text = self._code(head, line)
        return self.entry(text, lang, expected, "config", ["config:cuda_visible"], prose=False)

    def _cfg_k8s_job(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora", "qlora"))
        m = self.pick(self.models)
        prod = self.pick(sorted(K8S_PRODUCT))
        c, seq = self.pick((1, 2, 4, 8)), self.pick(SEQ_VALUES)
        lines = ["apiVersion: batch/v1", "kind: Job", "metadata:", f"  name: sft-{m.id}", "spec:", "  template:",
                 "    spec:", "      nodeSelector:", f"        nvidia.com/gpu.product: {prod}", "      containers:",
                 "      - name: trainer", "        image: ghcr.io/acme/sft:0.4",
                 f'        args: ["--model", "{m.hub_id}", "--max-seq-len", "{seq}"]', "        resources:",
                 "          limits:", f"            nvidia.com/gpu: {c}", "      restartPolicy: Never"]
        text = self._code(self._head(lang, method, m.display_name), "\n".join(lines), "yaml")
        expected = {"method": method, "model": m.id, "gpu": K8S_PRODUCT[prod], "num_gpus": c, "seq_len": seq}
        return self.entry(text, lang, expected, "config", ["config:k8s_job"], prose=False)

    def _cfg_wandb_dump(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora", "qlora"))
        m = self.pick(self.models)
        b, ga, e, seq = self.pick((1, 2, 4, 8)), self.pick((1, 4, 8)), self.pick((1, 2, 3)), self.pick(SEQ_VALUES)
        gc = self.rng.random() < 0.6

        def kv(key: str, value: Any) -> list[str]:
            return [f"{key}:", "  desc: null", f"  value: {value}"]

        lines = ["wandb_version: 1", "", "_wandb:", "  desc: null", "  value:", "    framework: huggingface",
                 "    huggingface_version: 4.44.2", "    python_version: 3.10.14"]
        lines += kv("_name_or_path", m.hub_id) + kv("per_device_train_batch_size", b)
        lines += kv("gradient_accumulation_steps", ga) + kv("num_train_epochs", e) + kv("bf16", "true")
        lines += kv("gradient_checkpointing", "true" if gc else "false") + kv("max_seq_length", seq)
        lines += kv("learning_rate", "0.0002")
        expected: dict[str, Any] = {"stack": "hf", "method": method, "model": m.id, "micro_batch": b,
                                    "gradient_accumulation_steps": ga, "epochs": float(e), "precision": "bf16-mixed",
                                    "gradient_checkpointing": gc, "seq_len": seq}
        if method != "full":
            r = self.pick((8, 16, 32, 64))
            lines += ["peft_config:", "  desc: null", "  value:", "    default:", f"      r: {r}",
                      f"      lora_alpha: {2 * r}", "      peft_type: LORA"]
            expected.update(lora_rank=r, lora_alpha=float(2 * r))
        if method == "qlora":
            lines += ["quantization_config:", "  desc: null", "  value:", "    load_in_4bit: true",
                      "    bnb_4bit_quant_type: nf4", "    bnb_4bit_use_double_quant: true"]
            expected.update(quant="nf4", double_quant=True)
        intro = {"en": "W&B config.yaml of the run we want to redo on rented GPUs ({method}):",
                 "es": "el config.yaml de W&B de la corrida que queremos repetir en GPUs alquiladas ({method}):"}[lang]
        text = self._code(intro.format(method=HEAD_METHOD[lang][method]), "\n".join(lines), "yaml")
        return self.entry(text, lang, expected, "config", ["config:wandb_dump"], prose=False)

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
        base = self._frame(lang, core, ", ".join([seq_text] + [t for t, _ in items]), None, fields)
        text = self.pick(CORRECTION[lang]).format(text=base, old=old, new=new)
        return self.entry(text, lang, {**fields, **self._fields(items), "seq_len": new}, "correction", ["correction"])

    def _clarify(self, lang: str, kind: str, code: str, slot: str, avoid: tuple[str, ...],
                 core: tuple[str, dict, str] | None = None) -> dict[str, Any]:
        core_text, fields, method = core or self._core(lang)
        items = self.extras(lang, method, self.pick((0, 1, 2)), avoid=avoid)
        parts = [t for t, _ in items]
        parts.insert(self.rng.randint(0, len(parts)), slot)
        text = self._frame(lang, core_text, ", ".join(parts), None, fields)
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
        x = self.pick((10, 20, 40, 100))
        text = NUMBER[lang].format(core=core, rest=", ".join(t for t, _ in items), x=x)
        return self.entry(text, lang, {**fields, **self._fields(items), "intent": "clarify", "clarify_code": "number"},
                          "number", [])


def generate(n: int = N_DEFAULT, *, catalog: Catalog, seed: int = 19) -> list[dict[str, Any]]:
    """``n`` labelled messages, the same for the same seed (about half English, half Spanish)."""
    rng = random.Random(f"{seed}:gen19")
    gen = _Gen(rng, catalog)
    plan = ((0.17, gen.estimate), (0.24, gen.question), (0.29, gen.form), (0.34, gen.sheet_row),
            (0.41, gen.command), (0.49, gen.adjacent), (0.62, gen.config), (0.69, gen.typo), (0.74, gen.correction),
            (0.78, gen.conflict), (0.83, gen.unreadable), (0.87, gen.limit), (0.90, gen.family_size),
            (0.93, gen.number), (1.01, gen.followup))
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
