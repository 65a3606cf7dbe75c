"""Round 15's hand-written blind set of Slack messages for the chat parser (tests/data/heldout/table5.json).

Written for issue #13's held-out measurement of round 15 by a helper who did not read the parser
(``advisor/parse/`` beyond ``result.py``'s field names and intents, and ``advisor/i18n/parse.py``'s clarify
codes), did not run it, any benchmark, ``advisor ask`` / ``advisor parse`` or any test that runs it while
writing, and read no message of the earlier sets (tests/data/phrasings*.json, tests/data/heldout/table2-4.json,
tests/phrasings*.py, tests/phrasegen.py beyond its ``judge`` function, tests/heldout/gen*.py). What it did read:
``advisor/spec.py`` (the fields and the values they accept), the catalog (``catalog.db``: model, GPU and region
ids), tests/heldout/table4.py (this docstring's conventions and the loader) and the structure checks
(tests/test_parse_blind13_counts.py, tests/test_parse_blind_counts.py). It was committed ("freeze round-15 blind
set table5 (written blind, before any parser run)") before any parser run on it; nobody tunes the parser on it.

547 messages, 271 English and 276 Spanish (Spain: "tío", "vale", "pasta", "tenéis"; Mexico: "oigan", "ahorita",
"la neta"; Argentina: "che", "llamame", "pará", "probalo", "agregale"; Colombia: "parce"; Chile: "cachai",
"po", "bacán", "al tiro"), written as people other than table4's write in a channel: a student on a credit
budget, an MLOps engineer on call at 3am quoting an incident id, a PM reading a dashboard (GPU-hours, $/h,
a KPI sheet row), a data engineer with row counts and mean lengths, someone forwarding an email or a
procurement invoice line, a voice-to-text transcript without punctuation and with numbers in words ("qwen
three eight b at eight k context", "cuatro mil noventa y seis"), people mixing English and Spanish in one
message, a finance person's cost assumptions (failed-run share, months of storage, no pilot, checkpoints
kept, evaluations per epoch, the eval split), and thread replies to the bot's previous answer.

Each entry's ``kind`` lists what it is (``KINDS``, table4's): a short ``command`` in varied orders
("lora / qwen3-8b / 8k / bs2", "4k. lora. llama-2-70b. 4 h200.", "8xH100, full, qwen2.5-7b, 16k"); a
``sentence`` with numbers that are not spec values (invoice lines, latency SLOs, eval scores, dates as
03/15, 2026-05-20 and 20/05/2026, version strings, phone numbers, ticket, PR, PO and account ids, uptime
and regression percentages, tokens/s of an old run, team sizes, quotas, an old run's GPUs and hours,
NVMe and NIC sizes); a ``question`` (estimates asked as questions, GPU comparisons with and without counts,
the four FAQs, help and the catalog); a thread ``followup`` (a new value, a doubled, halved or multiplied
one, a switch of method, model, GPU or region, a reset, a change relative to a count the thread does not
have, an empty "and?"); a ``correction`` ("sorry 8k", "(edit: ...)", "no wait", "->", "→", "~old~ new",
"scratch that", "I mean", "correction:", "digo", "mejor dicho", "borra eso", "pará", "corrijo", "uy"); a
pasted ``config`` of tools table4 did not paste (a SkyPilot task YAML and ``sky launch --gpus``, Modal's
``@app.function(gpu="H100:2")``, ``runpodctl create pod --gpuType ... --gpuCount``, a Lambda instance type
``gpu_8x_h100_sxm5``, an MLflow params table and ``mlflow.log_params``, a W&B ``config.yaml`` with
``value:`` keys, OpenRLHF ``train_sft``, verl ``fsdp_sft_trainer``, a NeMo ``megatron_gpt_finetuning.py``
launcher, Megatron flags, a torchtitan toml, Slurm ``srun --nodes --gpus-per-node`` and ``#SBATCH
--gpus-per-node`` headers, a GitHub issue template with ``### Model`` sections, ``docker run --gpus``, a
Jupyter ``In [3]:`` cell, environment variables) and a few of the earlier tools in new shapes (axolotl,
PEFT ``LoraConfig``, ``BitsAndBytesConfig``, ``SFTConfig``, ``TrainingArguments``, ``tune run``, Unsloth,
Kubernetes with a GKE accelerator selector, ``accelerate launch``); Slack ``markup`` (user, channel and
group mentions, labelled and bare Hub links, quotes, bullets, numbered lists, bold and italic labels, code
spans and blocks, strike-through, emoji codes); a ``typo`` (one edit in a method, model or setting word,
read as the word; a name nobody can place is a question); and ``ambiguous`` messages the bot should ask
about.

Entry format (table4's): ``text``, ``lang``, ``kind``, ``expected``, ``previous`` for a thread follow-up,
judged by ``tests.phrasegen.judge`` as table rows (no ``noise`` key): ``expected`` names what the message
states, never a default, plus ``intent`` / ``clarify_code`` / ``faq`` / ``params`` / ``gpus`` /
``gpu_counts`` where it is not a plain estimate; a follow-up's ``expected`` is the thread's request merged
with the message. A clarify row without ``clarify_code`` accepts any question back (an unknown model name
may be asked as "did you mean" or as "which model"; "a 4090 or two" as "how many"; "a bigger batch" as
"which batch"). A clarify row labels what the message (and, in a thread, the thread) made clear so far.

Labelling conventions (table4's, verbatim where they apply):
k = 1024 in a sequence length ("1.5k" is 1536), "4,096" / "4.096" / "16,384" / "dos mil cuarenta y ocho"
are the number itself; token counts are decimal ("30M", "1.800 millones", "3,5 millones", "2.5B"), and
"N examples/rows of about L tokens" states N x L tokens; "on an H100" / "en una 4090" names a GPU and no
count, "one" / "a single" / "1x" / "una sola" a count of 1; "H100" is the H100 SXM, "A100" the 80 GB A100,
"A100 40GB" the 40 GB part; a catalog model is labelled by its catalog id (its Hub id, an -Instruct or -it
repo, a Hub URL or an Unsloth re-upload of it is that model), a Hub id the catalog does not know by the
Hub id, a size alone by ``params_b``; a struck-through or corrected value is replaced by the correction; a
previous run's GPUs, a quota, "fits in 80GB" and a manager's opinion are not this job's values; "fp16"
training and Trainer / accelerate / Hydra ``bf16`` flags are mixed precision, torchtune's ``dtype: bf16``
pure bf16; an axolotl config without ``adapter`` and ``trl sft`` without ``--use_peft`` are full
fine-tunes; ``quantization_bit: 4`` / ``load_in_4bit`` with a LoRA adapter is QLoRA; q/k/v/o targets are
the attention targets and ``all-linear`` / ``lora_target_linear`` / ``lora_target: all`` / all seven
projections every linear layer; axolotl, LLaMA-Factory, TRL and ``TrainingArguments`` state the ``hf``
stack, torchtune and Unsloth their own, a bare script none; ``*_single_device`` torchtune recipes run on one
GPU; SLURM ``--nodes=N`` x ``--gres=gpu:M`` is N x M GPUs; "N X or M Y" GPUs, "X vs Y" and "on an X or a Y"
are comparisons; two values for another field without a correction a "conflict"; "rank: whatever you think",
"batch: as big as fits", "a decent context", "a handful of H100s", "a few epochs" are stated values nobody
can read ("unreadable"); a bare number whose field nobody can tell is a "number" question.

Conventions this set adds:
- Launchers: ``srun --nodes=N --gpus-per-node=M`` and ``#SBATCH --nodes=N`` with ``--gpus-per-node=M`` or
  ``--gres=gpu:TYPE:M``, NeMo ``trainer.num_nodes=N trainer.devices=M``, "N nodes of M H100" are N x M GPUs;
  ``torchrun --nproc_per_node=M`` (one node), ``accelerate launch --num_processes M``, ``docker run --gpus M``
  or ``--gpus '"device=0,1"'``, SkyPilot ``accelerators: H100:8`` / ``--gpus A100-80GB:4``, Modal
  ``gpu="H100:2"``, RunPod ``--gpuCount``, a Lambda ``gpu_Nx_...`` instance type and Kubernetes
  ``nvidia.com/gpu: M`` state M GPUs; the GPU named in the same line (``H100``, ``NVIDIA H100 80GB HBM3``,
  ``h100_sxm5``, ``nvidia-h100-80gb``, ``NVIDIA A100 80GB PCIe``, a Slurm ``--partition=h100``) is the GPU.
- verl's ``fsdp_sft_trainer`` and torchtitan's ``data_parallel_shard_degree = N`` state FSDP (the latter N
  GPUs); OpenRLHF ``--zero_stage 2/3`` a ZeRO stage; OpenRLHF ``--bf16``, Megatron ``--bf16`` and
  ``accelerate --mixed_precision bf16/fp16`` are mixed precision; a Megatron tensor-parallel size states no
  GPU count; OpenRLHF, verl, NeMo, Megatron, torchtitan, SkyPilot, Modal, RunPod, MLflow and W&B state no
  stack (the ``axolotl`` image in a RunPod line states axolotl, the ``hf`` stack).
- The machine a message leaves ("the old A10G box OOMed again, we're moving off it") is no GPU of this job.
- A model is also named by a path or a file name it is loaded from (NeMo ``restore_from_path=/models/
  llama-3.1-70b.nemo``, torchtitan ``hf_assets_path = "./assets/hf/Llama-3.1-8B"``); torchtitan's
  ``name = "llama3"`` alone names no model.
- ``load_in_4bit`` names no quantization type (bitsandbytes' own default is fp4), so only an explicit
  ``bnb_4bit_quant_type="nf4"`` labels ``quant``; "int8 base" / "base int8" with QLoRA is ``quant: int8``.
- ``optim="adamw_bnb_8bit"`` / "8-bit adam" / "adam de 8 bits" is ``adamw-8bit``, ``paged_adamw_8bit``
  ``paged-adamw-8bit``; "fused adamw" is ``adamw`` with the ``fused`` implementation.
- A finance person's assumptions are ``costs``: "assume 50% of the GPU time is lost to crashes" is
  ``failed_run_fraction`` 0.5, "keep checkpoints for 6 months" ``storage_months`` 6, "skip the pilot"
  ``include_pilot`` false, "only the final checkpoint" ``checkpoints_kept`` 1, "evaluate 4 times per epoch"
  ``evals_per_epoch`` 4, "our 10% holdout is the eval split" ``eval_fraction`` 0.1.
- "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True ... with expandable segments" is
  ``expandable_segments``; "liger kernels on" is ``liger_kernel``.
- Numbers in words ("four thousand ninety six", "eight k", "h one hundred", "h cien", "qwen three eight b",
  "llama 3 punto 2 1b", "mistral seven b version zero point three") are the numbers and names they spell.
- "N examples a week" and "N rows" without a length state no dataset size; "20k examples of about 800
  tokens" does (16M).
- "4x the batch" / "el lote por 4" multiplies the thread's value; "a bigger batch" with no amount is a
  question; "a T4? jk, an L4" is a correction to the L4.
- Out of range: a context of 4 million tokens, 5000 GPUs, 2500 epochs, a micro-batch of 10000, a 1500B model
  are "limit" questions (advisor/spec.py's MAX_* bounds); a catalog family with a size it does not have
  ("qwen2.5 20b", "llama 3.1 13b") is a "family_size" question; "hmm and?" in a thread "followup_empty".

Relabelled once, after the set was diagnosed (i13-p14a): the eight ``can_i_gpu`` FAQ rows ("what could I
realistically fine-tune on an A10G?", "¿una 4090 sirve para afinar algo útil?", ...) named their GPU only in
``params``; ``expected`` names what the message states, and tables 2-4 label the same FAQ with the GPU field too
("on an A10G" names a GPU), so those rows now label ``gpu`` as well.
"""

from __future__ import annotations

import json
from pathlib import Path

PATH = Path(__file__).resolve().parent.parent / "data" / "heldout" / "table5.json"
KINDS = ("command", "sentence", "question", "followup", "correction", "config", "markup", "typo", "ambiguous")


def load() -> list[dict]:
    """Every entry of the set, in file order."""
    return json.loads(PATH.read_text(encoding="utf-8"))
