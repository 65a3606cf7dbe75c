"""Round 15's generated blind split: an independent generator of labelled chat messages (issue #13).

    from tests.heldout import gen15
    entries = gen15.generate(3000, catalog=catalog, seed=15)
    verdict = tests.phrasegen.judge(entry, parse_message(entry["text"], catalog, previous=...))

Written for issue #13's held-out measurement of round 15 by someone who did not read the parser
(``advisor/parse/`` beyond ``result.py``'s field names and intents, ``advisor/i18n/parse.py``'s clarify
codes) and did not run it, nor any benchmark or CLI command that runs it, while writing. It shares only
its label format and ``judge`` with ``tests/phrasegen.py``, ``tests/heldout/gen9.py``, ``gen11.py`` and
``gen13.py``: every vocabulary form, frame, noise and config shape below was checked absent from all four
files (each form's text between its slots, pieces of 5+ characters, as tests/test_parse_blind15g_counts.py
checks it again) before it was frozen; the plain method words ("QLoRA", "LoRA", "full fine-tune", "ajuste
completo"), a catalog model's display name or catalog id and a Hub id are the only shared forms, as in real
traffic. It was committed ("freeze round-15 blind set gen15 (written blind, before any parser run)") before
any parser run on it; nobody tunes the parser on it.

Entries are shaped like gen13's: ``text``, ``lang``, ``expected`` (the ``SpecRequest`` fields the message
itself states, ``intent`` when it is not "estimate", ``clarify_code`` where the right answer is a question
back), ``previous`` for a thread follow-up (its ``expected`` is only what the message changes), ``noise``
(what was done to the text; its presence makes ``judge`` compare the parse's delta), ``split`` ("gen15")
and ``kind`` (``KINDS``). A question back labels what the message states besides the value it asks about.

What is new here:

- kinds: besides gen13's, ``question`` (the estimate asked as a question: "how long would ... take with
  ...?", "¿cuánto tardaría ... con ...?"), ``voice`` (voice-to-text: no punctuation, lower case, fillers,
  numbers in words: "four thousand ninety six", "cuatro mil noventa y seis", "on eight h one hundreds",
  "dando tres épocas"; "cue lora" / "cu lora" for QLoRA) and ``codeswitch`` (a Spanish frame with English
  slot phrases and the other way round, as bilingual teams write);
- models: "hf://<hub id>", "<hub id> (rev main)", "<display> off the shelf" / "<display> tal cual viene",
  "<display> (base weights)" / "<display> (pesos base)", the catalog id, the display name (lower-cased,
  dashes spoken as spaces, in voice messages); Hub models the catalog does not know (StableLM 2,
  StarCoder2, Minitron, GLM-4, OLMo 0724, Baichuan2, DeciLM, Orca 2), labelled by Hub id; sizes as "a
  {s}B-param base model", "a homegrown {s}B net", "una red propia de {s}B parámetros", "un {s}B propio";
- method words: "quantized LoRA (QLoRA)", "QLoRA w/ a 4-bit bnb base", "low-rank adapters (LoRA)",
  "PEFT-style LoRA", "fine-tuning every weight", "all-parameter FT" and their Spanish;
- lengths as "sample windows of {n}", "context window pinned at {n}", "ventanas de {n} tokens", "ventana
  de contexto fijada en {n}", the value plain, as "{k}k" (k = 1024), with the language's thousands
  separator ("4,096" / "4.096") or in words (voice); micro-batches "device batch = {b}", "{b} samples per
  forward pass", "lote por dispositivo de {b}", "{b} muestras por pasada"; ranks "LoRA r of {r}", "r
  pinned at {r}", "r/alpha = {r}/{a}" (rank and alpha) and Spanish; epochs "{e} sweeps of the corpus",
  "{e} full passes over the data", "{e} barridos del corpus", "{e} vueltas completas a los datos" (1.5 as
  "1,5" in Spanish); token counts "{D} in the mix", "the mix is {D}", "{D} en la mezcla de datos", "la
  mezcla suma {D}" with "40M tokens", "4.5 billion tokens", "a quarter of a billion tokens", "4.500
  millones de tokens", "4,5 mil millones de tokens", "cuatro mil millones de tokens"; activation
  recomputation on/off; precision "AMP bf16 (fp32 master weights)", "bf16 end to end, no master copy",
  "fp16 AMP with a grad scaler"; optimizers "bitsandbytes paged 8-bit AdamW", "torch.optim.AdamW,
  nothing fancy", "SGD + momentum"; regions "our Paris zone" / "our Frankfurt zone"; sharding "ZeRO stage
  3", "torch FSDP sharding", "replicated DDP"; attention "flash-attn kernels on", "eager (no flash)";
  targets "adapters on q/k/v/o only" (attention) and "adapters on every linear proj" (all-linear);
- GPUs as "H100 (SXM5, 80GB HBM3)", "A100-80G SXM", "L40S (Ada, 48G)", "GeForce 4090 (24G)", "H200 141GB
  HBM3e", "Blackwell B200 HGX", "H100 PCIe card (80G)", "L4 Ada card (24G)", "AMD Instinct MI300X OAM",
  "A10G (24G GDDR6)", "RTX 6000 Ada, 48G", "A100-40G SXM4"; counts "a rack of {c} {g}", "a pod of {c}x
  {g}", "one single {g} and that's it" (one), "rented {g} capacity" (no count), Spanish "un rack de {c}
  {g}", "un pod de {c}x {g}", "una {g} y nada más", "capacidad {g} alquilada";
- frames: "quick q — ..., ... what GPU + cost?", "... | ... | what do you reckon?", "sizing ask from the
  nlp squad: ...\n• ...", "hey advisor, we're planning ...: ...", "looking to do ... (...) — cheapest
  option?", the two questions, and their Spanish; settings joined by ", ", " / " or bullet lines;
- corrections: "...\nedit: seq is {new}, not {old}", "... hmm actually {new}, not {old}", Spanish
  "...\neditado: el contexto es {new}, no {old}", "... bueno, en realidad {new}, no {old}" (labelled with
  the new value); two values "seq {a}/{b} (open question)", "{a} or {b} epochs, haven't decided" and
  Spanish (a "conflict" question); follow-ups "same setup, just {slot}", "ok and if we go with {slot}?",
  "redo it with {slot}, everything else as is", "try again with {slot} pls", Spanish "igual que antes pero
  con {slot}", "vale, ¿y si vamos con {slot}?", "¿y si mejor {slot}?", "rehazlo con {slot}, porfi";
  relative changes "double the GPUs", "halve the window", "two more epochs" and Spanish, in a frame
  (the new value when the thread has the old one, a "relative" question when it does not); vague values
  "seq length: depends on the tokenizer", "rank: dunno, something sensible", "epochs: until eval loss
  plateaus", "batch: whatever the box can take", "GPUs: a bunch of them", "tokens: a big chunk of the
  wiki dump" and Spanish ("unreadable"); no model: "... but the base model isn't picked yet —
  suggestions?" ("model");
- distractor numbers that are no spec field: a budget approval date, a team of 6, a transformers version,
  a JIRA key, an eval score, money spent on the last try, a Slack user id, an on-call rota week, a
  launcher's timeout, wall time, disk size, step or iteration count, global batch, seed and warm-up steps;
- noise: a Slack user mention, a quoted earlier message ("> ..."), a wrapped line (a comma then a line
  break), emoji, a lower-cased message, a method word in capitals;
- config shapes (``CONFIG_SHAPES``; none of ``SHAPE_MARKERS`` is in the earlier generators, which already
  have SkyPilot, Modal, srun, a torchtitan TOML, a W&B JSON dict and NeMo 1 overrides): a ``runpodctl
  create pod --gpuType ... --gpuCount N`` line, a Flyte ``@task(requests=Resources(gpu="N"),
  accelerator=...)`` (flytekit.extras.accelerators), a SageMaker ``PyTorch(instance_type=...,
  instance_count=...)`` estimator (GPUs per instance type in ``SAGEMAKER``), a Determined experiment YAML
  (``resources.slots_per_trial``), an llm-foundry YAML (``max_duration: 2ep`` epochs,
  ``device_train_microbatch_size``, ``fsdp_config.sharding_strategy: FULL_SHARD``, ``peft_config`` for
  LoRA), an ``mlflow.log_params({...})`` call, a W&B run's ``config.yaml`` (``desc`` / ``value`` under each
  key), a Megatron-LM ``pretrain_gpt.py`` launch, a NeMo 2 ``llm.<recipe>.finetune_recipe(...)`` script and
  a PBS ``#PBS -l select=N:ngpus=M`` job.

Labelling conventions are the earlier sets' (tests/heldout/table4.py's docstring): k = 1024 in a sequence
length, "4,096" / "4.096" and "cuatro mil noventa y seis" are 4096, token counts decimal ("4.5 billion" and
"4,5 mil millones" are 4.5 x 10^9), "rented H100 capacity" no count, "one single" / "una ... y nada más" a
count of 1, "H100" the SXM part, "A100" the 80 GB one, a catalog model by its catalog id and never with a
size, a Hub id the catalog does not know by the id, a size alone by ``params_b``; a follow-up labels only
values that differ from the thread's. Megatron's ``--bf16`` is mixed precision (fp32 main params) and
``--recompute-activations`` gradient checkpointing; the launcher's GPUs are the job's GPU count
(``--gpuCount``, Flyte's ``Resources(gpu=...)``, SageMaker's instance count x the instance type's GPUs,
``slots_per_trial``, torchrun's ``--nproc_per_node``, NeMo's ``num_nodes`` x ``num_gpus_per_node``, PBS
``select`` x ``ngpus``); llm-foundry's ``FULL_SHARD`` is FSDP and ``max_duration: Nep`` N epochs, without
``peft_config`` a full fine-tune; NeMo's ``peft_scheme="lora"`` is LoRA and ``peft_scheme=None`` a full
fine-tune; no stack is labelled (none of these tools is a ``Stack``).
"""

from __future__ import annotations

import random
from typing import Any

from advisor.catalog import Catalog

SPLIT = "gen15"
N_DEFAULT = 3000
KINDS = ("estimate", "question", "config", "followup", "correction", "relative", "no_model", "unreadable",
         "conflict", "voice", "codeswitch")

# --- vocabularies -------------------------------------------------------------------------------

METHOD = {
    "en": {"qlora": ["quantized LoRA (QLoRA)", "QLoRA w/ a 4-bit bnb base", "QLoRA"],
           "lora": ["low-rank adapters (LoRA)", "PEFT-style LoRA", "LoRA"],
           "full": ["fine-tuning every weight", "all-parameter FT", "full fine-tune"]},
    "es": {"qlora": ["LoRA cuantizado (QLoRA)", "QLoRA con base bnb de 4 bits", "QLoRA"],
           "lora": ["adaptadores de bajo rango (LoRA)", "LoRA al estilo PEFT", "LoRA"],
           "full": ["ajuste de todos los pesos", "FT de todos los parámetros", "ajuste completo"]},
}
PLAIN_METHODS = ("QLoRA", "LoRA", "full fine-tune", "ajuste completo")
# Hub models the catalog does not know (checked with Catalog.find_model in tests/test_parse_blind15g_counts.py).
FOREIGN = ("stabilityai/stablelm-2-1_6b", "bigcode/starcoder2-15b", "nvidia/Mistral-NeMo-Minitron-8B-Base",
           "THUDM/glm-4-9b", "allenai/OLMo-7B-0724-hf", "baichuan-inc/Baichuan2-13B-Base", "Deci/DeciLM-7B",
           "microsoft/Orca-2-13b")
SIZES = (2.5, 5, 8, 10, 16, 22, 45, 90)
SIZE_FORMS = {"en": ["a {s}B-param base model", "a homegrown {s}B net"],
              "es": ["una red propia de {s}B parámetros", "un {s}B propio"]}
MODEL_FORMS = {"en": ["hf://{hub}", "{hub} (rev main)", "{display} off the shelf", "{display} (base weights)", "{id}",
                      "{display}"],
               "es": ["hf://{hub}", "{hub} (rev main)", "{display} tal cual viene", "{display} (pesos base)", "{id}",
                      "{display}"]}
SEQ_VALUES = (1024, 2048, 3072, 4096, 8192, 12288, 16384)
SEQ = {"en": ["sample windows of {n}", "context window pinned at {n}"],
       "es": ["ventanas de {n} tokens", "ventana de contexto fijada en {n}"]}
BATCH = {"en": ["device batch = {b}", "{b} samples per forward pass"],
         "es": ["lote por dispositivo de {b}", "{b} muestras por pasada"]}
RANK = {"en": ["LoRA r of {r}", "r pinned at {r}", "r/alpha = {r}/{a}"],
        "es": ["rango de adaptador en {r}", "r fijado en {r}", "r/alfa = {r}/{a}"]}
EPOCHS = {"en": ["{e} sweeps of the corpus", "{e} full passes over the data"],
          "es": ["{e} barridos del corpus", "{e} vueltas completas a los datos"]}
DATASET = {"en": ["{D} in the mix", "the mix is {D}"], "es": ["{D} en la mezcla de datos", "la mezcla suma {D}"]}
# (tokens, English forms, Spanish forms); decimal counts
DATASET_VALUES = ((40_000_000, ("40M tokens", "40 million tokens"), ("40 millones de tokens", "40M tokens")),
                  (4_500_000_000, ("4.5B tokens", "4.5 billion tokens"),
                   ("4.500 millones de tokens", "4,5 mil millones de tokens")),
                  (4_000_000_000, ("4B tokens", "4 billion tokens"),
                   ("cuatro mil millones de tokens", "4.000 millones de tokens")),
                  (250_000_000, ("250M tokens", "a quarter of a billion tokens"), ("250 millones de tokens",)),
                  (1_200_000, ("1.2M tokens",), ("1,2 millones de tokens",)))
GPU_FORMS = {"h100-sxm": "H100 (SXM5, 80GB HBM3)", "a100-80gb": "A100-80G SXM", "l40s": "L40S (Ada, 48G)",
             "rtx-4090": "GeForce 4090 (24G)", "h200": "H200 141GB HBM3e", "b200": "Blackwell B200 HGX",
             "h100-pcie": "H100 PCIe card (80G)", "l4": "L4 Ada card (24G)", "mi300x": "AMD Instinct MI300X OAM",
             "a10g": "A10G (24G GDDR6)",
             "rtx-6000-ada": "RTX 6000 Ada, 48G", "a100-40gb": "A100-40G SXM4"}
# (form, count): "c" the drawn count, 1 a single GPU, 0 no count
GPU_SLOT = {"en": [("a rack of {c} {g}", "c"), ("a pod of {c}x {g}", "c"), ("one single {g} and that's it", 1),
                   ("rented {g} capacity", 0)],
            "es": [("un rack de {c} {g}", "c"), ("un pod de {c}x {g}", "c"), ("una {g} y nada más", 1),
                   ("capacidad {g} alquilada", 0)]}
GPU_COUNTS = (2, 3, 4, 6, 8, 16)
GC = {"en": [("activation recompute: on", True), ("activation recompute: off", False)],
      "es": [("recomputar activaciones: sí", True), ("recomputar activaciones: no", False)]}
PRECISION = {"en": [("AMP bf16 (fp32 master weights)", "bf16-mixed"), ("bf16 end to end, no master copy", "bf16"),
                    ("fp16 AMP with a grad scaler", "fp16-mixed")],
             "es": [("AMP bf16 (pesos maestros en fp32)", "bf16-mixed"), ("bf16 de punta a punta, sin copia maestra", "bf16"),
                    ("AMP fp16 con grad scaler", "fp16-mixed")]}
OPTIMIZER = {"en": [("bitsandbytes paged 8-bit AdamW", "paged-adamw-8bit"), ("torch.optim.AdamW, nothing fancy", "adamw"),
                    ("SGD + momentum", "sgd")],
             "es": [("AdamW paginado de 8 bits (bitsandbytes)", "paged-adamw-8bit"),
                    ("torch.optim.AdamW, nada raro", "adamw"), ("SGD con momento", "sgd")]}
REGION = {"en": [("our Paris zone", "eu-west"), ("our Frankfurt zone", "eu-central")],
          "es": [("nuestra zona de París", "eu-west"), ("nuestra zona de Fráncfort", "eu-central")]}
SHARDING = {"en": [("ZeRO stage 3", "zero3"), ("torch FSDP sharding", "fsdp"), ("replicated DDP", "ddp")],
            "es": [("ZeRO etapa 3", "zero3"), ("sharding FSDP de torch", "fsdp"), ("DDP replicado", "ddp")]}
ATTENTION = {"en": [("flash-attn kernels on", "flash"), ("eager (no flash)", "eager")],
             "es": [("kernels flash-attn activos", "flash"), ("eager (sin flash)", "eager")]}
TARGETS = {"en": [("adapters on q/k/v/o only", "attention"), ("adapters on every linear proj", "all-linear")],
           "es": [("adaptadores solo en q/k/v/o", "attention"), ("adaptadores en cada proyección lineal", "all-linear")]}
DISTRACTORS = {"en": ["budget approved Nov 14", "team of 6", "on transformers 4.46.3", "JIRA MLP-2291",
                      "last eval scored 71.2", "we burned €300 on the last try", "on-call rota week 48"],
               "es": ["presupuesto aprobado el 14 de noviembre", "somos 6 en el equipo", "con transformers 4.46.3",
                      "JIRA MLP-2291", "la última eval dio 71,2", "quemamos 300 € en el último intento",
                      "guardia de la semana 48"]}
TEMPLATES = {"en": ["quick q — {core}, {rest}. what GPU + cost?", "{core} | {rest} | what do you reckon?",
                    "sizing ask from the nlp squad: {core}\n• {rest}", "hey advisor, we're planning {core}: {rest}",
                    "looking to do {core} ({rest}) — cheapest option?"],
             "es": ["pregunta rápida — {core}, {rest}. ¿qué GPU y cuánto cuesta?", "{core} | {rest} | ¿qué os parece?",
                    "solicitud de dimensionado: {core}\n• {rest}", "hola advisor, estamos planeando {core}: {rest}",
                    "queremos hacer {core} ({rest}) — ¿la opción más barata?"]}
QUESTIONS = {"en": ["how long would {core} take with {rest}?", "what would {core} cost us, given {rest}?"],
             "es": ["¿cuánto tardaría {core} con {rest}?", "¿cuánto nos costaría {core}, con {rest}?"]}
CORES = {"en": ["{method} on {model}", "{model} with {method}"],
         "es": ["{method} partiendo de {model}", "{model} con {method}"]}
JOIN = {"en": [", ", " / ", "\n• "], "es": [", ", " / ", "\n• "]}
CORRECTION = {"en": ["{text}\nedit: seq is {new}, not {old}", "{text} hmm actually {new}, not {old}"],
              "es": ["{text}\neditado: el contexto es {new}, no {old}", "{text} bueno, en realidad {new}, no {old}"]}
CONFLICT = {"en": [("seq {a}/{b} (open question)", "seq_len"), ("{a} or {b} epochs, haven't decided", "epochs")],
            "es": [("ventana {a}/{b} (pendiente de decidir)", "seq_len"), ("{a} o {b} épocas, no lo hemos decidido", "epochs")]}
FOLLOWUP = {"en": ["same setup, just {slot}", "ok and if we go with {slot}?", "redo it with {slot}, everything else as is",
                   "try again with {slot} pls"],
            "es": ["igual que antes pero con {slot}", "vale, ¿y si vamos con {slot}?", "¿y si mejor {slot}?",
                   "rehazlo con {slot}, porfi"]}
# (text, field, change) — a change relative to what the thread has
RELATIVE = {"en": [("double the GPUs", "num_gpus", "*2"), ("halve the window", "seq_len", "/2"),
                   ("two more epochs", "epochs", "+2")],
            "es": [("duplica las GPUs", "num_gpus", "*2"), ("la ventana a la mitad", "seq_len", "/2"),
                   ("dos épocas más", "epochs", "+2")]}
RELATIVE_FRAMES = {"en": ["same setup, just {slot}", "ok, now {slot} and rerun"],
                   "es": ["igual que antes, pero {slot}", "vale, ahora {slot} y recalcula"]}
NO_MODEL = {"en": ["{method}, {rest}, but the base model isn't picked yet — suggestions?"],
            "es": ["{method}, {rest}, pero aún no elegimos el modelo base — ¿sugerencias?"]}
UNREADABLE = {"en": [("seq length: depends on the tokenizer", "seq_len"), ("rank: dunno, something sensible", "lora_rank"),
                     ("epochs: until eval loss plateaus", "epochs"), ("batch: whatever the box can take", "micro_batch"),
                     ("GPUs: a bunch of them", "num_gpus"), ("tokens: a big chunk of the wiki dump", "dataset_tokens")],
              "es": [("longitud: depende del tokenizador", "seq_len"), ("rango: ni idea, algo sensato", "lora_rank"),
                     ("épocas: hasta que la loss de eval se estanque", "epochs"),
                     ("lote: lo que aguante la máquina", "micro_batch"), ("GPUs: unas cuantas", "num_gpus"),
                     ("tokens: un buen trozo del volcado de la wiki", "dataset_tokens")]}
VOICE = {"en": ["um so we want {method} on {model} {rest} thanks", "okay so {method} for {model} {rest} what would that cost"],
         "es": ["eh bueno queremos {method} de {model} {rest} gracias", "vale pues {method} para {model} {rest} cuánto costaría"]}
VOICE_SLOTS = {"en": {"seq": "at a context of {n}", "gpus": "on {c} {g}", "epochs": "going {e} epochs"},
               "es": {"seq": "con ventana de {n}", "gpus": "en {c} {g}", "epochs": "dando {e} épocas"}}
NUM_WORDS = {"en": {1024: "one thousand twenty four", 2048: "two thousand forty eight", 4096: "four thousand ninety six",
                    8192: "eight thousand one hundred ninety two", 2: "two", 3: "three", 4: "four", 6: "six",
                    8: "eight", 16: "sixteen", 1: "one", 5: "five"},
             "es": {1024: "mil veinticuatro", 2048: "dos mil cuarenta y ocho", 4096: "cuatro mil noventa y seis",
                    8192: "ocho mil ciento noventa y dos", 2: "dos", 3: "tres", 4: "cuatro", 6: "seis", 8: "ocho",
                    16: "dieciséis", 1: "una", 5: "cinco"}}
# how a spoken GPU name and method come out of voice-to-text (lower case, digits as said or as digits)
VOICE_GPU = {"en": {"h100-sxm": ["h one hundreds", "h100s"], "a100-80gb": ["a one hundreds", "a100s"],
                    "l40s": ["l forty s cards", "l40s cards"], "rtx-4090": ["forty ninety cards", "4090s"]},
             "es": {"h100-sxm": ["h cien", "h100"], "a100-80gb": ["a cien", "a100"], "l40s": ["l cuarenta s", "l40s"],
                    "rtx-4090": ["cuarenta noventa", "4090"]}}
VOICE_METHOD = {"en": {"full": ["a full fine tune of the whole thing"], "lora": ["lora"], "qlora": ["cue lora", "qlora"]},
                "es": {"full": ["un ajuste de todo el modelo"], "lora": ["lora"], "qlora": ["cu lora", "qlora"]}}
QUOTE = {"en": "> can someone size this before friday?\n", "es": "> ¿alguien puede dimensionar esto antes del viernes?\n"}
MENTION = "<@U07QX2K9P> "
EMOJI = (" 🙏", " 🚀", " 🤔")
# GPU names as each tool spells them: RunPod's GPU type ids (runpodctl create pod --gpuType; docs.runpod.io
# references/gpu-types), flytekit.extras.accelerators constants, SageMaker instance types (aws.amazon.com/
# sagemaker/pricing: ml.p5.48xlarge 8x H100, ml.p4de.24xlarge 8x A100 80GB, ml.p4d.24xlarge 8x A100 40GB,
# ml.g5.12xlarge 4x A10G, ml.g6.12xlarge 4x L4, ml.g6e.12xlarge 4x L40S), as (catalog id, GPUs per instance).
RUNPOD_GPU = {"rtx-6000-ada": "NVIDIA RTX 6000 Ada Generation", "mi300x": "AMD Instinct MI300X OAM"}
FLYTE_GPU = {"a100-80gb": "A100_80GB", "a10g": "A10G", "l4": "L4", "h100-sxm": "H100"}
SAGEMAKER = {"ml.p5.48xlarge": ("h100-sxm", 8), "ml.p4de.24xlarge": ("a100-80gb", 8),
             "ml.p4d.24xlarge": ("a100-40gb", 8), "ml.g5.12xlarge": ("a10g", 4), "ml.g6.12xlarge": ("l4", 4),
             "ml.g6e.12xlarge": ("l40s", 4)}
PBS_GPU = {"h100-sxm": "H100", "a100-80gb": "A100 80GB", "l40s": "L40S", "h200": "H200"}
# NeMo 2 recipe modules (nemo/collections/llm/recipes/): llama3_8b, llama31_8b, mistral_7b, gemma2_9b, qwen2_7b ...
NEMO_RECIPE = {"llama-3-8b": "llama3_8b", "llama-3.1-8b": "llama31_8b", "llama-3-70b": "llama3_70b",
               "gemma-2-9b": "gemma2_9b", "mixtral-8x7b": "mixtral_8x7b"}
CONFIG_SHAPES = ("runpod", "flyte", "sagemaker", "determined", "llmfoundry", "mlflow", "wandb_yaml", "megatron",
                 "nemo2", "pbs")
# What marks each shape in a message; none of them is in the earlier generators.
SHAPE_MARKERS = ("runpodctl", "flytekit", "sagemaker", "slots_per_trial", "max_duration", "mlflow.log_params",
                 "wandb_version", "pretrain_gpt.py", "finetune_recipe", "#PBS")
HEAD = {"en": {"full": ["full fine-tune of {model}, launcher below:", "sizing this full fine-tune of {model}?"],
               "lora": ["LoRA on {model}, launcher below:", "sizing this LoRA on {model}?"],
               "qlora": ["QLoRA on {model}, launcher below:", "sizing this QLoRA on {model}?"]},
        "es": {"full": ["ajuste completo de {model}, el lanzador abajo:", "¿me dimensionas este ajuste completo de {model}?"],
               "lora": ["LoRA sobre {model}, el lanzador abajo:", "¿me dimensionas este LoRA sobre {model}?"],
               "qlora": ["QLoRA sobre {model}, el lanzador abajo:", "¿me dimensionas este QLoRA sobre {model}?"]}}
CODESWITCH = {"es": "oye, queremos {method} de {model}, {rest} — ¿qué GPU nos conviene?",
              "en": "hey, we want {method} on {model}, {rest} — ¿cuánto sale?"}


def _fmt_size(s: float) -> str:
    return f"{s:g}"


class _Gen:
    def __init__(self, rng: random.Random, catalog: Catalog):
        self.rng = rng
        self.models = [m for m in catalog.models() if m.id != "tiny-test"]
        self.gpus = {g.id for g in catalog.gpus()}

    def pick(self, seq):
        return self.rng.choice(list(seq))

    # --- slots: each returns (text, fields) -------------------------------------------------------

    def method(self, lang: str, method: str | None = None) -> tuple[str, dict]:
        method = method or self.pick(("full", "lora", "qlora"))
        return self.pick(METHOD[lang][method]), {"method": method}

    def model(self, lang: str, *, plain_case: bool = False) -> tuple[str, dict]:
        roll = self.rng.random()
        if roll < 0.15 and not plain_case:
            hub = self.pick(FOREIGN)
            form = self.pick(["hf://{hub}", "{hub} (rev main)", "{hub}"])
            return form.format(hub=hub), {"model": hub}
        if roll < 0.27:
            s = self.pick(SIZES)
            return self.pick(SIZE_FORMS[lang]).format(s=_fmt_size(s)), {"params_b": float(s)}
        m = self.pick(self.models)
        form = self.pick(MODEL_FORMS[lang])
        return form.format(hub=m.hub_id, display=m.display_name, id=m.id), {"model": m.id}

    def seq_value(self, lang: str, n: int) -> str:
        style = self.rng.random()
        if style < 0.4:
            return str(n)
        if style < 0.75:
            return f"{n // 1024}k"
        return f"{n:,}" if lang == "en" else f"{n:,}".replace(",", ".")

    def seq(self, lang: str, n: int | None = None) -> tuple[str, dict]:
        n = n or self.pick(SEQ_VALUES)
        return self.pick(SEQ[lang]).format(n=self.seq_value(lang, n)), {"seq_len": n}

    def batch(self, lang: str) -> tuple[str, dict]:
        form = self.pick(BATCH[lang])
        b = self.pick((1, 2, 4, 8, 16) if form.startswith(("device", "lote")) else (2, 4, 8, 16))  # "1 samples" is no English
        return form.format(b=b), {"micro_batch": b}

    def rank(self, lang: str) -> tuple[str, dict]:
        r = self.pick((8, 16, 32, 64, 128))
        form = self.pick(RANK[lang])
        if "{a}" in form:
            a = r * self.pick((1, 2))
            return form.format(r=r, a=a), {"lora_rank": r, "lora_alpha": float(a)}
        return form.format(r=r), {"lora_rank": r}

    def epochs(self, lang: str, e: float | None = None) -> tuple[str, dict]:
        e = e or self.pick((1, 2, 3, 4, 5, 1.5))
        shown = f"{e:g}" if lang == "en" else f"{e:g}".replace(".", ",")
        return self.pick(EPOCHS[lang]).format(e=shown), {"epochs": float(e)}

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

    def extras(self, lang: str, method: str, k: int) -> list[tuple[str, dict]]:
        """``k`` settings for distinct fields, beyond method and model."""
        makers = [lambda: self.seq(lang), lambda: self.batch(lang), lambda: self.epochs(lang),
                  lambda: self.dataset(lang), lambda: self.gpu(lang),
                  lambda: self._pair(GC, lang, "gradient_checkpointing"),
                  lambda: self._pair(PRECISION, lang, "precision"), lambda: self._pair(OPTIMIZER, lang, "optimizer"),
                  lambda: self._pair(REGION, lang, "region"), lambda: self._pair(SHARDING, lang, "sharding"),
                  lambda: self._pair(ATTENTION, lang, "attention")]
        if method in ("lora", "qlora"):
            makers += [lambda: self.rank(lang), lambda: self._pair(TARGETS, lang, "lora_targets")]
        out: list[tuple[str, dict]] = []
        seen: set[str] = set()
        weights = [3, 1, 2, 1, 3, 1, 1, 1, 1, 1, 1] + ([2, 1] if method != "full" else [])
        while len(out) < k:
            maker = self.rng.choices(makers, weights=weights)[0]
            text, fields = maker()
            if seen & set(fields):
                continue
            seen |= set(fields)
            out.append((text, fields))
        return out

    # --- noise ------------------------------------------------------------------------------------

    def noisy(self, text: str, lang: str, noise: list[str], *, lower_ok: bool) -> str:
        rng = self.rng
        if rng.random() < 0.12:
            if text.endswith("```"):
                text = text + "\n" + self.pick(DISTRACTORS[lang])
            elif text.endswith("?"):
                text = self.pick(DISTRACTORS[lang]) + ". " + text
            else:
                text = text + ". " + self.pick(DISTRACTORS[lang])
            noise.append("distractor")
        if rng.random() < 0.06 and ", " in text:
            i = text.index(", ")
            text = text[:i] + ",\n" + text[i + 2:]
            noise.append("line_wrap")
        if rng.random() < 0.08:
            text += self.pick(EMOJI)
            noise.append("emoji")
        if lower_ok and rng.random() < 0.07:
            text = text.lower()
            noise.append("lowercase")
        elif rng.random() < 0.05:
            for word in ("QLoRA", "LoRA"):
                if word in text:
                    text = text.replace(word, word.upper(), 1)
                    noise.append("caps_method")
                    break
        if rng.random() < 0.06:
            text = MENTION + text
            noise.append("mention")
        if rng.random() < 0.06:  # a quote opens the message, above the mention
            text = QUOTE[lang] + text
            noise.append("quote")
        return text

    def entry(self, text: str, lang: str, expected: dict, kind: str, noise: list[str],
              previous: dict | None = None, lower_ok: bool = False) -> dict[str, Any]:
        text = self.noisy(text, lang, noise, lower_ok=lower_ok)
        out = {"text": text, "lang": lang, "expected": {**expected}, "noise": noise, "split": SPLIT, "kind": kind}
        if previous is not None:
            out["previous"] = previous
        return out

    # --- message kinds ----------------------------------------------------------------------------

    def _core(self, lang: str) -> tuple[str, dict, str, bool]:
        mtext, mf = self.method(lang)
        model_text, model_f = self.model(lang)
        core = self.pick(CORES[lang]).format(method=mtext, model=model_text)
        lower_ok = "model" in model_f and "/" not in model_f["model"]
        return core, {**mf, **model_f}, mf["method"], lower_ok

    def _rest(self, lang: str, method: str, k: int, join: str | None = None) -> tuple[str, dict]:
        items = self.extras(lang, method, k)
        join = join or self.pick(JOIN[lang])
        fields: dict[str, Any] = {}
        for _, f in items:
            fields.update(f)
        return join.join(t for t, _ in items), fields

    def estimate(self, lang: str) -> dict[str, Any]:
        core, fields, method, lower_ok = self._core(lang)
        rest, rf = self._rest(lang, method, self.pick((1, 2, 3, 4)))
        text = self.pick(TEMPLATES[lang]).format(core=core, rest=rest)
        return self.entry(text, lang, {**fields, **rf}, "estimate", [], lower_ok=lower_ok)

    def question(self, lang: str) -> dict[str, Any]:
        core, fields, method, lower_ok = self._core(lang)
        rest, rf = self._rest(lang, method, self.pick((1, 2, 3)), join=", ")
        text = self.pick(QUESTIONS[lang]).format(core=core, rest=rest)
        return self.entry(text, lang, {**fields, **rf}, "question", [], lower_ok=lower_ok)

    def codeswitch(self, lang: str) -> dict[str, Any]:
        other = "es" if lang == "en" else "en"  # the slot phrases come from the other language
        mtext, mf = self.method(other)
        model_text, model_f = self.model(lang)
        rest, rf = self._rest(other, mf["method"], self.pick((1, 2, 3)), join=", ")
        text = CODESWITCH[lang if lang == "es" else "en"].format(method=mtext, model=model_text, rest=rest)
        return self.entry(text, lang, {**mf, **model_f, **rf}, "codeswitch", ["codeswitch"])

    def voice(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora", "qlora"))
        mtext = self.pick(VOICE_METHOD[lang][method])
        m = self.pick([m for m in self.models if "(" not in m.display_name])
        model_text = self.pick([m.display_name.lower(), m.id.replace("-", " ")])
        expected: dict[str, Any] = {"method": method, "model": m.id}
        parts = []
        slots = VOICE_SLOTS[lang]
        words = NUM_WORDS[lang]
        for name in self.rng.sample(["seq", "gpus", "epochs"], self.pick((1, 2, 3))):
            if name == "seq":
                n = self.pick((1024, 2048, 4096, 8192))
                parts.append(slots["seq"].format(n=words[n]))
                expected["seq_len"] = n
            elif name == "gpus":
                gid = self.pick(sorted(VOICE_GPU[lang]))
                c = self.pick((2, 4, 8))
                parts.append(slots["gpus"].format(c=words[c], g=self.pick(VOICE_GPU[lang][gid])))
                expected.update(gpu=gid, num_gpus=c)
            else:
                e = self.pick((2, 3, 4, 5))
                parts.append(slots["epochs"].format(e=words[e]))
                expected["epochs"] = float(e)
        text = self.pick(VOICE[lang]).format(method=mtext, model=model_text, rest=" ".join(parts))
        return {"text": text, "lang": lang, "expected": expected, "noise": ["voice"], "split": SPLIT, "kind": "voice"}

    def config(self, lang: str) -> dict[str, Any]:
        shape = self.pick(CONFIG_SHAPES)
        return getattr(self, "_cfg_" + shape)(lang)

    def _head(self, lang: str, method: str, model_text: str) -> str:
        return self.pick(HEAD[lang][method]).format(model=model_text)

    def _catalog_model(self) -> Any:
        return self.pick(self.models)

    def _cfg_runpod(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora", "qlora"))
        m = self._catalog_model()
        gid = self.pick(sorted(RUNPOD_GPU))
        c, seq = self.pick((1, 2, 4, 8)), self.pick(SEQ_VALUES)
        line = (f'runpodctl create pod --name sft-{self.pick(("a", "b", "x"))} --gpuType "{RUNPOD_GPU[gid]}" '
                f"--gpuCount {c} --imageName runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04 "
                f"--containerDiskSize 200 --env MAX_SEQ_LEN={seq}")
        text = self._head(lang, method, m.id) + "\n```\n" + line + "\n```"
        expected = {"method": method, "model": m.id, "gpu": gid, "num_gpus": c, "seq_len": seq}
        return self.entry(text, lang, expected, "config", ["config:runpod"])

    def _cfg_flyte(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora", "qlora"))
        m = self._catalog_model()
        gid = self.pick(sorted(FLYTE_GPU))
        c, seq, b = self.pick((1, 2, 4, 8)), self.pick(SEQ_VALUES), self.pick((1, 2, 4))
        code = (f"from flytekit.extras.accelerators import {FLYTE_GPU[gid]}\n\n"
                f'@task(requests=Resources(gpu="{c}", mem="200Gi"), accelerator={FLYTE_GPU[gid]}, '
                f"timeout=timedelta(hours=20))\n"
                f'def finetune(model_id: str = "{m.hub_id}", max_seq_len: int = {seq}, micro_batch_size: int = {b}):\n'
                f"    ...")
        text = self._head(lang, method, m.display_name) + "\n```python\n" + code + "\n```"
        expected = {"method": method, "model": m.id, "gpu": gid, "num_gpus": c, "seq_len": seq, "micro_batch": b}
        return self.entry(text, lang, expected, "config", ["config:flyte"])

    def _cfg_sagemaker(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora", "qlora"))
        m = self._catalog_model()
        itype = self.pick(sorted(SAGEMAKER))
        gid, per = SAGEMAKER[itype]
        count, seq, e = self.pick((1, 1, 2)), self.pick(SEQ_VALUES), self.pick((1, 2, 3))
        code = ("from sagemaker.pytorch import PyTorch\n\n"
                f'estimator = PyTorch(entry_point="sft.py", instance_type="{itype}", instance_count={count},\n'
                f'                    framework_version="2.3", py_version="py311",\n'
                f'                    hyperparameters={{"model_id": "{m.hub_id}", "epochs": {e}, "max_seq_length": {seq}}})')
        text = self._head(lang, method, m.display_name) + "\n```python\n" + code + "\n```"
        expected = {"method": method, "model": m.id, "gpu": gid, "num_gpus": per * count, "seq_len": seq,
                    "epochs": float(e)}
        return self.entry(text, lang, expected, "config", ["config:sagemaker"])

    def _cfg_determined(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora", "qlora"))
        m = self._catalog_model()
        slots, seq, b = self.pick((2, 4, 8, 16)), self.pick(SEQ_VALUES), self.pick((1, 2, 4, 8))
        lines = ["name: sft-run", "resources:", f"  slots_per_trial: {slots}", "hyperparameters:",
                 f"  model: {m.hub_id}", f"  max_seq_len: {seq}", f"  micro_batch: {b}", "searcher:",
                 "  name: single", "  metric: eval_loss", "  max_length:", "    batches: 2000"]
        text = self._head(lang, method, m.display_name) + "\n```yaml\n" + "\n".join(lines) + "\n```"
        expected = {"method": method, "model": m.id, "num_gpus": slots, "seq_len": seq, "micro_batch": b}
        return self.entry(text, lang, expected, "config", ["config:determined"])

    def _cfg_llmfoundry(self, lang: str) -> dict[str, Any]:
        lora = self.rng.random() < 0.5
        m = self._catalog_model()
        seq, b, e = self.pick(SEQ_VALUES), self.pick((1, 2, 4, 8)), self.pick((1, 2, 3))
        lines = [f"max_seq_len: {seq}", "model:", "  name: hf_causal_lm",
                 f"  pretrained_model_name_or_path: {m.hub_id}", "  pretrained: true"]
        expected: dict[str, Any] = {"method": "full", "model": m.id, "seq_len": seq, "micro_batch": b,
                                    "epochs": float(e), "sharding": "fsdp"}
        if lora:
            r = self.pick((8, 16, 32, 64))
            lines += ["  peft_config:", "    peft_type: LORA", f"    r: {r}", f"    lora_alpha: {2 * r}"]
            expected.update(method="lora", lora_rank=r, lora_alpha=float(2 * r))
        lines += [f"max_duration: {e}ep", f"device_train_microbatch_size: {b}", "global_train_batch_size: 64",
                  "fsdp_config:", "  sharding_strategy: FULL_SHARD"]
        intro = {"en": "our llm-foundry yaml, what would it cost?", "es": "nuestro yaml de llm-foundry, ¿cuánto costaría?"}
        text = intro[lang] + "\n```yaml\n" + "\n".join(lines) + "\n```"
        return self.entry(text, lang, expected, "config", ["config:llmfoundry"])

    def _cfg_mlflow(self, lang: str) -> dict[str, Any]:
        method = self.pick(("lora", "qlora"))
        m = self._catalog_model()
        r, seq, e = self.pick((8, 16, 32, 64)), self.pick(SEQ_VALUES), self.pick((1, 2, 3))
        intro = {"en": "params of the last run, same again with this:",
                 "es": "los params del último run, repetimos con esto:"}[lang]
        code = (f'mlflow.log_params({{"base_model": "{m.hub_id}", "peft": "{method}", "lora_rank": {r}, '
                f'"max_seq_len": {seq}, "epochs": {e}, "seed": 1234}})')
        text = intro + "\n```\n" + code + "\n```"
        expected = {"method": method, "model": m.id, "lora_rank": r, "seq_len": seq, "epochs": float(e)}
        return self.entry(text, lang, expected, "config", ["config:mlflow"])

    def _cfg_wandb_yaml(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora", "qlora"))
        m = self._catalog_model()
        seq, b, g = self.pick(SEQ_VALUES), self.pick((1, 2, 4, 8)), self.pick((2, 4, 8))
        lines = ["wandb_version: 1", "ctx_len:", "  desc: null", f"  value: {seq}", "micro_bsz:", "  desc: null",
                 f"  value: {b}", "n_gpus:", "  desc: null", f"  value: {g}", "warmup_steps:", "  desc: null",
                 "  value: 100"]
        intro = {"en": "W&B config.yaml of the run we want to repeat ({method} of {model}):",
                 "es": "config.yaml de W&B del run que queremos repetir ({method} de {model}):"}[lang]
        text = intro.format(method=self.pick(METHOD[lang][method]), model=m.id) + "\n```\n" + "\n".join(lines) + "\n```"
        expected = {"method": method, "model": m.id, "seq_len": seq, "micro_batch": b, "num_gpus": g}
        return self.entry(text, lang, expected, "config", ["config:wandb_yaml"])

    def _cfg_megatron(self, lang: str) -> dict[str, Any]:
        m = self._catalog_model()
        n, seq, b = self.pick((4, 8)), self.pick(SEQ_VALUES), self.pick((1, 2, 4))
        recompute = self.rng.random() < 0.5
        line = (f"torchrun --nproc_per_node {n} pretrain_gpt.py --tensor-model-parallel-size 2 "
                f"--pipeline-model-parallel-size 1 --seq-length {seq} --micro-batch-size {b} "
                f"--global-batch-size 256 --train-iters 5000 --bf16" + (" --recompute-activations" if recompute else ""))
        text = self._head(lang, "full", m.id) + "\n```\n" + line + "\n```"
        expected = {"method": "full", "model": m.id, "num_gpus": n, "seq_len": seq, "micro_batch": b,
                    "precision": "bf16-mixed"}
        if recompute:
            expected["gradient_checkpointing"] = True
        return self.entry(text, lang, expected, "config", ["config:megatron"])

    def _cfg_nemo2(self, lang: str) -> dict[str, Any]:
        mid = self.pick(sorted(NEMO_RECIPE))
        nodes, per = self.pick((1, 2)), self.pick((2, 4, 8))
        lora = self.rng.random() < 0.6
        seq, b = self.pick(SEQ_VALUES), self.pick((1, 2, 4))
        scheme = '"lora"' if lora else "None"
        code = (f'recipe = llm.{NEMO_RECIPE[mid]}.finetune_recipe(name="sft", num_nodes={nodes}, '
                f"num_gpus_per_node={per}, peft_scheme={scheme})\n"
                f"recipe.data.seq_length = {seq}\nrecipe.data.micro_batch_size = {b}")
        intro = {"en": "how much would this NeMo job be?", "es": "¿cuánto saldría este trabajo de NeMo?"}[lang]
        text = intro + "\n```python\n" + code + "\n```"
        expected = {"method": "lora" if lora else "full", "model": mid, "num_gpus": nodes * per, "seq_len": seq,
                    "micro_batch": b}
        return self.entry(text, lang, expected, "config", ["config:nemo2"])

    def _cfg_pbs(self, lang: str) -> dict[str, Any]:
        method = self.pick(("full", "lora", "qlora"))
        m = self._catalog_model()
        gid = self.pick(sorted(PBS_GPU))
        nodes, per = self.pick((1, 2, 4)), self.pick((4, 8))
        seq, e = self.pick(SEQ_VALUES), self.pick((1, 2, 3))
        head = self._head(lang, method, m.display_name) + " " + {"en": f"({PBS_GPU[gid]} nodes)",
                                                                 "es": f"(nodos {PBS_GPU[gid]})"}[lang]
        lines = ["#PBS -N sft", f"#PBS -l select={nodes}:ncpus=64:ngpus={per}", "#PBS -l walltime=23:59:00",
                 f"python sft.py --max-len {seq} --epochs {e}"]
        text = head + "\n```\n" + "\n".join(lines) + "\n```"
        expected = {"method": method, "model": m.id, "gpu": gid, "num_gpus": nodes * per, "seq_len": seq,
                    "epochs": float(e)}
        return self.entry(text, lang, expected, "config", ["config:pbs"])

    def _thread(self, lang: str) -> dict[str, Any]:
        m = self.pick(self.models)
        prev = {"method": self.pick(("full", "lora", "qlora")), "model": m.id, "seq_len": self.pick((2048, 4096)),
                "gpu": self.pick(("h100-sxm", "a100-80gb", "l40s")), "num_gpus": self.pick((2, 4))}
        if self.rng.random() < 0.5:
            prev["epochs"] = float(self.pick((1, 2, 3)))
        return prev

    def followup(self, lang: str) -> dict[str, Any]:
        prev = self._thread(lang)
        while True:
            which = self.pick(("seq", "gpu", "method", "batch", "epochs", "precision"))
            if which == "seq":
                text, f = self.seq(lang)
            elif which == "gpu":
                text, f = self.gpu(lang, count=self.pick((3, 6, 8)) if self.rng.random() < 0.5 else None)
            elif which == "method":
                text, f = self.method(lang)
            elif which == "batch":
                text, f = self.batch(lang)
            elif which == "epochs":
                text, f = self.epochs(lang)
            else:
                text, f = self._pair(PRECISION, lang, "precision")
            if all(prev.get(k) != v for k, v in f.items()):  # every stated value is a change
                break
        msg = self.pick(FOLLOWUP[lang]).format(slot=text)
        return self.entry(msg, lang, {**f, "intent": "followup"}, "followup", ["followup"], previous=prev)

    def correction(self, lang: str) -> dict[str, Any]:
        core, fields, method, lower_ok = self._core(lang)
        old, new = self.rng.sample(SEQ_VALUES, 2)
        seq_text, _ = self.seq(lang, old)
        items = [(t, f) for t, f in self.extras(lang, method, self.pick((0, 1, 2))) if "seq_len" not in f]
        rf: dict[str, Any] = {}
        for _, f in items:
            rf.update(f)
        base = self.pick(TEMPLATES[lang]).format(core=core, rest=", ".join([seq_text] + [t for t, _ in items]))
        text = self.pick(CORRECTION[lang]).format(text=base, old=old, new=new)
        return self.entry(text, lang, {**fields, **rf, "seq_len": new}, "correction", ["correction"], lower_ok=lower_ok)

    def relative(self, lang: str) -> dict[str, Any]:
        prev = self._thread(lang)
        text, field, change = self.pick(RELATIVE[lang])
        has = self.rng.random() < 0.6
        if not has:
            prev.pop(field, None)
        elif field not in prev:
            prev[field] = 1.0 if field == "epochs" else prev.get(field)
        msg = self.pick(RELATIVE_FRAMES[lang]).format(slot=text)
        if not has:
            return self.entry(msg, lang, {"intent": "clarify", "clarify_code": "relative"}, "relative", ["relative"],
                              previous=prev)
        old = prev[field]
        new = old * 2 if change == "*2" else old // 2 if change == "/2" else old + 2
        new = float(new) if field == "epochs" else int(new)
        return self.entry(msg, lang, {field: new, "intent": "followup"}, "relative", ["relative"], previous=prev)

    def no_model(self, lang: str) -> dict[str, Any]:
        mtext, mf = self.method(lang)
        rest, rf = self._rest(lang, mf["method"], self.pick((1, 2)), join=", ")
        text = self.pick(NO_MODEL[lang]).format(method=mtext, rest=rest)
        return self.entry(text, lang, {**mf, **rf, "intent": "clarify", "clarify_code": "model"}, "no_model", [])

    def unreadable(self, lang: str) -> dict[str, Any]:
        core, fields, method, lower_ok = self._core(lang)
        vague, field = self.pick([u for u in UNREADABLE[lang] if method != "full" or u[1] != "lora_rank"])
        items = [(t, f) for t, f in self.extras(lang, method, self.pick((0, 1, 2))) if field not in f
                 and not ({"gpu", "num_gpus"} & set(f) and field == "num_gpus")]
        rf: dict[str, Any] = {}
        for _, f in items:
            rf.update(f)
        rest = ", ".join([t for t, _ in items] + [vague])
        text = self.pick(TEMPLATES[lang]).format(core=core, rest=rest)
        return self.entry(text, lang, {**fields, **rf, "intent": "clarify", "clarify_code": "unreadable"},
                          "unreadable", [], lower_ok=lower_ok)

    def conflict(self, lang: str) -> dict[str, Any]:
        core, fields, method, lower_ok = self._core(lang)
        form, field = self.pick(CONFLICT[lang])
        if field == "seq_len":
            a, b = self.rng.sample(SEQ_VALUES, 2)
        else:
            a, b = self.rng.sample((1, 2, 3, 4), 2)
        items = [(t, f) for t, f in self.extras(lang, method, self.pick((0, 1, 2))) if field not in f]
        rf: dict[str, Any] = {}
        for _, f in items:
            rf.update(f)
        rest = ", ".join([form.format(a=a, b=b)] + [t for t, _ in items])
        text = self.pick(TEMPLATES[lang]).format(core=core, rest=rest)
        return self.entry(text, lang, {**fields, **rf, "intent": "clarify", "clarify_code": "conflict"}, "conflict",
                          [], lower_ok=lower_ok)


def generate(n: int = N_DEFAULT, *, catalog: Catalog, seed: int = 15) -> list[dict[str, Any]]:
    """``n`` labelled messages, the same for the same seed (about half English, half Spanish)."""
    rng = random.Random(f"{seed}:gen15")
    gen = _Gen(rng, catalog)
    plan = ((0.30, gen.estimate), (0.40, gen.question), (0.55, gen.config), (0.66, gen.followup),
            (0.72, gen.correction), (0.77, gen.relative), (0.81, gen.no_model), (0.86, gen.unreadable),
            (0.90, gen.conflict), (0.95, gen.voice), (1.01, gen.codeswitch))
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
