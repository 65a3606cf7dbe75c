"""Round 19's hand-written blind set of Slack messages for the chat parser (tests/data/heldout/table7.json).

Written for issue #13's held-out measurement of round 19 by a helper who did not read the parser (``advisor/parse/``
beyond ``result.py``'s field names, intents, clarify codes and FAQs, and the clarify message keys of
``advisor/i18n/parse.py``), did not run it, any benchmark, ``advisor ask`` / ``advisor parse`` or any test that runs
it while writing, and read no message of the earlier sets (tests/data/phrasings*.json, tests/data/heldout/*.json,
tests/phrasings*.py beyond ``tests/phrasings.py``'s ``check_said_fields`` label check, tests/phrasegen.py beyond its
``judge`` function, tests/heldout/gen*.py beyond a grep of gen17.py for the lines naming its ``SPLIT``,
``N_DEFAULT`` and ``generate`` signature, for the duplicate check). What it did read: ``advisor/spec.py`` (the
fields, the values and stacks they accept and the MAX_* bounds), the catalog (``advisor catalog list --all
--models`` and ``--all``: model, GPU and region ids), tests/heldout/table6.py (its docstring's conventions, followed
here, and the loader), the keys of one table6.json entry (``text``, ``lang``, ``kind``, ``expected``; no message),
and the structure checks (tests/test_parse_blind17t_counts.py, tests/test_parse_blind_counts.py). The set was
written as Python calls in a scratch script outside the repository and dumped to JSON; the only test run was its own
structure check (tests/test_parse_blind19t_counts.py, which never calls the parser). That check's duplicate test
named seven of the first drafts as texts an earlier set already has ("help", "yo", "ayuda", "wena", "¿y?", "double
the batch", "¿qué modelos conocés?"); they were reworded without looking at the earlier sets. One small over-read:
listing ``advisor/i18n/parse.py``'s message keys printed its first 80 keys, the ``parse.say.*``, ``parse.bounds.*``
and ``parse.example.*`` keys besides the clarify ones (key names only, no message text and no parser code). No other
slip. It was committed ("freeze round-19 blind set table7 (written blind, before any parser run)") before any parser
run on it; nobody tunes the parser on it.

452 messages, 223 English and 229 Spanish (Argentina: "che", "pará", "probalo", "tachá", "olvidate", "andás";
Mexico: "oigan", "la neta", "ahorita", "nomás"; Chile: "wena"; Colombia: "parce"; Venezuela: "chamo"; Costa Rica:
"mae", "pura vida"; and neutral office Spanish in minutes, emails and tickets), written as people
table5's and table6's docstrings do not list: an on-call SRE in an incident channel (INC ids, node names, "heads
up from on-call"), a product manager relaying a request second-hand ("Ana wants…", "Ana pregunta…"), a
procurement reviewer (PO, quote and cost-centre ids, quote validity dates), a PhD student quoting their advisor
("my advisor says", "mi director de tesis dice"), a non-native writer ("I am need to fine tune", "quiero hacer
qlora a modelo"), someone on a phone (all lowercase, no punctuation, "w/", "b/c", "approx", "pls", "xq", "q", "tb",
"porfa", "pa", "c/"), meeting minutes and action items, a forwarded email thread ("---------- Forwarded message
---------", "From:/Subject:", "De:/Para:/Asunto:", a quoted "On … wrote:" / "El … escribió:"), a GitHub PR and an
issue description, a Notion and a Confluence page paste, a Google Sheets row pasted tab-separated with its header,
a CSV row with a header, a Slack Workflow form submission ("*Method:* QLoRA\n*Model:* …"), a message that asks two
things, and numbers with units in odd spots ("8k-token context", "ctx=8192", "L=4096", "2×H100", "x4 A100", "4 x
H100s", "(4) A100s", "(8) H100").

Each entry's ``kind`` lists what it is (``KINDS``, table6's): a short ``command`` in many slot orders, with sizes
right before a sequence word ("qlora 34b L=4096", "lora 70B 8k ctx", "qlora 14b L=8192"), resets and help; a
``sentence`` with numbers that are not spec values (budgets in $, € and pesos, PO / quote / ticket / customer /
cost-centre / budget-line ids, GPU-hour quotes and prices, dates as 2027-03-14, 14/03/2027, "May 19", times, SLA
and OKR percentages, library and pipeline versions, MMLU / F1 / leaderboard scores and places, team sizes and
days, node names, a previous cluster's GPUs), forwarded emails; a ``question`` (estimates asked as questions, GPU
comparisons with and without counts, the four FAQs, help, the catalog, a question that asks two things); a
thread ``followup`` (changes, "and?" / "¿y?" empty follow-ups, changes relative to a count the thread lacks, an
out-of-range value, a comparison in a thread); a ``correction`` ("sorry", "wait no", "scratch that", "(typo,
meant ...)", "my bad", "correction:", "correcting myself", "Amendment:", "strike the X, make it Y", "oops", "update:",
"~X~ Y"; "perdón", "no, pará", "olvidate", "uy", "edito:", "me equivoqué", "rectifico", "mmm no", "mejor",
"error de tipeo, quise decir", "ay no", "actualización:", "me corrijo", "Enmienda:", "tachá el X, poné Y", "o sea,
no"); a pasted ``config`` of the tools and shapes listed below; Slack ``markup`` (Workflow form fields, user,
channel, ``<!here>`` and ``<!channel>`` mentions, labelled and bare Hub links, quotes and ``>>>`` blocks, bullets,
numbered minutes, bold and italic labels, code spans and blocks, Markdown tables, strike-through, emoji codes,
Notion / Confluence pastes); a ``typo`` (one edit in a method, model or setting word, both languages, read as the
word; a name nobody can place, "zentaro-max-13x", "florimax-ultra-9", is a question without a code); and
``ambiguous`` messages the bot should ask about (every clarify code of the brief in both languages).

Entry format and labelling conventions: table6's conventions apply (tests/heldout/table6.py's docstring: the
entry format, ``expected`` naming what the message states and never a default, a follow-up's and a thread
clarify's ``expected`` being the thread's request merged with the message, and every labelling convention listed
there, table5's included).

Conventions this set adds (tool facts from each tool's documentation as the writer knows it, not looked up while
writing):
- SkyPilot task YAML: ``resources.accelerators: NAME:M`` is M GPUs per node and ``num_nodes: N`` N nodes, N x M
  GPUs in all; SkyPilot's names: ``A100`` is the 40 GB A100 (``a100-40gb``), ``A100-80GB`` the 80 GB one,
  ``H100`` the H100 SXM, ``H200`` / ``B200`` / ``L40S`` / ``L4`` those GPUs. It states no stack; what ``run:`` or
  ``envs:`` say (a model, ``SEQ_LEN``, ``--lora``) is read as said there.
- Modal: ``@app.function(gpu="NAME:M")`` is M of that GPU (``H100`` the SXM part, ``A100-80GB`` the 80 GB A100);
  ``gpu="NAME"`` without ``:M`` names the GPU and no count (as "on an H100" does); ``timeout`` is no spec value; no
  stack.
- Ray Train: ``ScalingConfig(num_workers=W, use_gpu=True, resources_per_worker={"GPU": G})`` is W x G GPUs
  (W without ``resources_per_worker``); no stack.
- NVIDIA NeMo YAML or its dotted overrides: ``trainer.devices`` x ``trainer.num_nodes`` GPUs,
  ``model.peft.peft_scheme: lora`` LoRA, ``lora_tuning.adapter_dim`` the LoRA rank, ``model.encoder_seq_length``
  the sequence length, ``model.micro_batch_size`` the micro-batch, ``trainer.max_epochs`` the epochs,
  ``trainer.precision: bf16-mixed`` mixed bf16, and ``restore_from_path: /path/NAME.nemo`` names the model by the
  path it is loaded from (``llama3-8b.nemo`` is llama-3-8b); NeMo is no stack the spec accepts, so none.
- ms-swift ``swift sft``: ``--train_type lora`` / ``full`` the method, ``--quant_bits 4`` with LoRA QLoRA (no
  ``quant``: it names no quantization type), ``--lora_rank``, ``--max_length`` the sequence length,
  ``--per_device_train_batch_size`` the micro-batch, ``--num_train_epochs``, ``--deepspeed zero2`` / ``zero3`` the
  sharding, ``NPROC_PER_NODE=M`` (or ``CUDA_VISIBLE_DEVICES``) M GPUs. ms-swift trains through the transformers
  Trainer with PEFT, as LLaMA-Factory does, so it states the ``hf`` stack (the only tool of this round that does).
- XTuner ``xtuner train CONFIG``: the config name spells model, method and epochs
  (``internlm2_chat_7b_qlora_oasst1_e3`` QLoRA of internlm/internlm2-chat-7b (not in the catalog, so its Hub id),
  3 epochs; ``llama3_8b_instruct_qlora_alpaca_e3`` llama-3-8b; ``llama2_7b_qlora_oasst1_e3`` llama-2-7b; the
  dataset name is no spec value); ``NPROC_PER_NODE=M`` M GPUs, ``--deepspeed deepspeed_zero2`` ``zero2``; no
  stack (XTuner runs on MMEngine).
- OpenRLHF ``openrlhf.cli.train_sft``: ``--pretrain`` the model, ``--lora_rank R`` LoRA with rank R,
  ``--load_in_4bit`` with it QLoRA, ``--max_len`` the sequence length, ``--micro_train_batch_size`` the
  micro-batch, ``--zero_stage 2`` / ``3`` ``zero2`` / ``zero3``, ``--bf16`` mixed bf16 (DeepSpeed's bf16, as the
  DeepSpeed JSON convention), ``--flash_attn`` flash attention, ``--gradient_checkpointing`` on, ``--max_epochs``
  the epochs; ``deepspeed --num_gpus M`` M GPUs (without it, no count); no stack.
- Levanter LoRA config (``levanter.main.lora_lm``): ``model_name_or_path`` the model, ``max_tune_length`` the
  sequence length, ``lora.r`` the rank, and the LoRA config itself the LoRA method; no stack (JAX).
- A shell line with env vars (``NUM_GPUS=4 SEQ_LEN=4096 METHOD=qlora MODEL=... ./train.sh``, ``GPU_TYPE=L40S``,
  ``make finetune ... GPUS=2``) states those values; a script named for a method (``train_qlora.sh``,
  ``scripts/lora.sh``, ``scripts/full.sh``) states that method; no stack.
- ``docker run --gpus all`` states no count, ``--gpus '"device=0,1"'`` 2 GPUs (the devices listed);
  ``-e MODEL=... -e METHOD=... -e MAX_LEN=...`` those values; an image tag (``trainer:1.4``) is no spec value.
- A Kubernetes pod spec, ``kubectl ... | grep nvidia.com/gpu`` or Helm values: ``nvidia.com/gpu: M`` is M GPUs (one
  pod), and the GPU feature discovery label ``nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3`` the H100 SXM,
  ``NVIDIA-A100-SXM4-80GB`` the 80 GB A100; no stack.
- A W&B run ``config.yaml`` dump (``wandb_version: 1``, each key's ``value:``) or an MLflow params table states the
  logged values (``model_name_or_path``, ``per_device_train_batch_size``, ``max_seq_length``, ``num_train_epochs``,
  ``use_peft: true`` with ``lora_r`` LoRA, with ``load_in_4bit: true`` QLoRA; MLflow ``peft | lora``); a logger's
  dump states no stack; a run id is no spec value.
- ``CUDA_VISIBLE_DEVICES=0,1,2,3`` is 4 GPUs (the devices listed), with or without a launcher.
- A Makefile target (``.PHONY: train`` then ``torchrun --nproc_per_node=M ...``) states what its recipe line says;
  ``torchrun`` there is a bare script, no stack.
- A Google Sheets row pasted tab-separated or a CSV row under its header states the values under each column; a
  ``budget_eur`` / ``presupuesto_usd`` column is no spec value; "2x A100" in a cell is 2 80 GB A100s.
- A GitHub PR's "seq_len: 4096 (was 2048)" / "(antes 4096)" states the new value; "Closes #398" is no spec value;
  an issue's "Hardware: 1x L40S ... what should we rent instead?" is the machine the message leaves, no GPU of
  this job, while its pasted flags are this job's.
- A Slack Workflow form (``*Method:* ...``) and a Notion / Confluence paste state their fields; a field left to
  someone ("*Model:* _whatever Ana picked_", "_el que elija Ana_") is a question without a code.
- Units in odd spots: "8k-token context", "ctx=8192", "L=4096" (a length), "2×H100", "x4 A100", "4 x H100s", "(4)
  A100s" state the sequence length or the count and GPU; "1.5k" / "2.5k" / "6k" / "12k" sequence lengths are
  1536 / 2560 / 6144 / 12288.
- A message that asks two things, an estimate and which of two GPU setups is better for it ("…, and would one H100
  beat two L40S on it?", "and whether 4 L40S or 2 H100 would be cheaper"), is a comparison on that request.
- A person relayed ("Ana wants…", "my advisor says…", "Corrección de Ana: 16k") states the request; a relayed
  correction replaces the value as one's own does.
- Out of range (limit): a 2M / 3M token context, 5000 / 6000 GPUs, 1500 / 2000 epochs, a 1500B / 2000B model, a
  micro-batch of 6000, a gradient accumulation of 10000; family sizes the catalog lacks (family_size): qwen3 72b,
  gemma 2 12b, falcon 180b, llama 3.2 8b, qwen2.5 4b, yi 9b; a family without a size (family): "llama 3", "phi-3",
  "gemma 3", "qwen2.5", "llama 3.1", "gemma 2", "qwen3".
- A greeting alone ("yo bot 👀", "good morning 👋", "wena wena, ¿cómo va?", "mae, pura vida, ¿qué tal?") is a
  "nothing" question.
"""

from __future__ import annotations

import json
from pathlib import Path

PATH = Path(__file__).resolve().parent.parent / "data" / "heldout" / "table7.json"
KINDS = ("command", "sentence", "question", "followup", "correction", "config", "markup", "typo", "ambiguous")


def load() -> list[dict]:
    """Every entry of the set, in file order."""
    return json.loads(PATH.read_text(encoding="utf-8"))
