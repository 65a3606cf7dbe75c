"""Round 17's hand-written blind set of Slack messages for the chat parser (tests/data/heldout/table6.json).

Written for issue #13's held-out measurement of round 17 by a helper who did not read the parser (``advisor/parse/``
beyond ``result.py``'s field names, intents, clarify codes and FAQs, and the clarify codes of
``advisor/i18n/parse.py``), did not run it, any benchmark, ``advisor ask`` / ``advisor parse`` or any test that runs
it while writing, and read no message of the earlier sets (tests/data/phrasings*.json, tests/data/heldout/*.json,
tests/phrasings*.py beyond ``tests/phrasings.py``'s ``check_said_fields`` label check, tests/phrasegen.py beyond its
``judge`` function and the two constants it uses, tests/heldout/gen*.py beyond three lines of gen15.py naming its
``SPLIT``, ``N_DEFAULT`` and ``generate`` signature, for the duplicate check). What it did read: ``advisor/spec.py``
(the fields, the values they accept and the MAX_* bounds), the catalog (``advisor catalog list --all --models``:
model, GPU and region ids), tests/heldout/table5.py (its conventions, followed here, and the loader) and the
structure checks (tests/test_parse_blind15t_counts.py, tests/test_parse_blind_counts.py). It was committed ("freeze
round-17 blind set table6 (written blind, before any parser run)") before any parser run on it; nobody tunes the
parser on it.

505 messages, 250 English and 255 Spanish (Spain: "tío", "vale"; Mexico: "oigan", "ahorita", "la neta"; Argentina:
"che", "pará", "probalo", "agregale", "tachá"; Colombia: "parce"; Chile: "cachai", "po", "wena", "chuta"; Peru:
"causa", "pe"; Venezuela: "chamo", "pana"; Uruguay: "bo", "ta"; Costa Rica: "mae", "pura vida"; Ecuador: "ñaño",
"chévere"; Cuba: "asere"; Guatemala: "chilero", "vos"; Puerto Rico: "wepa"), written as people table5's docstring
does not list: a researcher pasting a paper's hyperparameter table or appendix, a hackathon team, a consultant
quoting a client, a startup CTO with a budget ceiling, someone comparing against a previous vendor's quote, a
teacher planning a course lab (N students or teams, one run each), a Kaggle competitor (leaderboard score and
place, notebook quota), release notes and a changelog, a JIRA ticket, a board-capped Series A budget, a bank
that keeps its data in Germany, a voice note with numbers in words, and people mixing English and Spanish.

Each entry's ``kind`` lists what it is (``KINDS``, table5's): a short ``command`` in every slot order, with sizes
right before a sequence word ("qlora 13b seq 2048", "lora 70B 8k ctx", "full qwen3-0.6b batch 32 2048 seq"); a
``sentence`` with numbers that are not spec values (budgets and ceilings in $, € and pesos, vendor quote ids and
prices, quote hours, dates as 2026-12-18, 15/01/2027, "Dec 31", times, job, ticket, customer and budget-line ids,
library versions, MMLU / F1 / leaderboard scores and places, SLA and growth percentages, storage prices, team,
student and node counts, tokens/s); a ``question`` (estimates asked as questions, GPU comparisons with and without
counts, the four FAQs, help and the catalog); a thread ``followup``; a ``correction`` ("sorry", "actually make that",
"nah", "(typo, meant ...)", "wait no", "update:", "✗ ... ✓", "let me rephrase", "Edit 14:02 —", "oops I meant",
"Retract ...", "strike that", "[EDIT: ...]", "=>", "whoops", "amend to", "Never mind the X, Y", "I misspoke";
"perdón", "mejor", "no, pará", "me equivoqué", "ay no", "actualización:", "rectifico", "Edito:", "chuta, quise
decir", "Retiro lo de", "tachá eso", "o sea, no", "ahí va:", "[EDITO: ...]", "uy", "enmiendo", "Olvidate de",
"Novedad de legal:", "me expresé mal"); a pasted ``config`` of tools and shapes table5 did not paste (LitGPT
``litgpt finetune_lora`` / ``finetune_full`` flags and its config YAML, torchtune recipe YAML with a
``_component_`` model builder, ``tune run ... --nproc_per_node``, Hydra overrides, a DeepSpeed JSON, an accelerate
FSDP config YAML, ``python -m torch.distributed.run``, a Determined experiment, a Kubeflow ``PyTorchJob``, SageMaker
``HuggingFace`` / ``PyTorch`` estimators, a team's own TOML, a paper's hyperparameter table, release notes, a
changelog, a JIRA ticket) and earlier tools in new shapes (axolotl, LLaMA-Factory, ``SFTConfig``,
``TrainingArguments`` with liger and fused AdamW, Unsloth); Slack ``markup`` (user, channel, ``<!here>`` and
``<!channel>`` mentions, labelled and bare Hub links, quotes and ``>>>`` blocks, bullets, numbered lists, bold and
italic labels, code spans and blocks, Markdown tables, single and double tilde strike-through, emoji codes); a
``typo`` (one edit — a letter dropped, added, swapped or replaced — in a method, model or setting word, in both
languages, read as the word; a name nobody can place, "zentara-ultra", "florentix-grande", is a question); and
``ambiguous`` messages the bot should ask about.

Entry format (table5's): ``text``, ``lang``, ``kind``, ``expected``, ``previous`` for a thread follow-up,
judged by ``tests.phrasegen.judge`` as table rows (no ``noise`` key): ``expected`` names what the message
states, never a default, plus ``intent`` / ``clarify_code`` / ``faq`` / ``params`` / ``gpus`` /
``gpu_counts`` where it is not a plain estimate; a follow-up's ``expected`` is the thread's request merged
with the message. A clarify row without ``clarify_code`` accepts any question back (an unknown model name
may be asked as "did you mean" or as "which model"; "a bigger rank" as "which rank"). A clarify row labels what
the message (and, in a thread, the thread) made clear so far. A ``can_i_gpu`` FAQ that names only a GPU labels
``params`` ``{"gpu": id}``; the other FAQs label no params.

Labelling conventions (table5's, verbatim where they apply):
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
From table5's added conventions: ``torchrun --nproc_per_node=M`` (one node) and ``accelerate launch
--num_processes M`` state M GPUs; the machine a message leaves is no GPU of this job; a model is also named by a
path it is loaded from; ``load_in_4bit`` names no quantization type, so only an explicit nf4 labels ``quant``;
"int8 base" / "base int8" with QLoRA is ``quant: int8``; "8-bit adam" / "adam de 8 bits" is ``adamw-8bit``,
``paged_adamw_8bit`` ``paged-adamw-8bit``; a finance person's assumptions are ``costs`` (failed-run share,
storage months, no pilot, checkpoints kept, evaluations per epoch); ``expandable_segments:True`` is
``expandable_segments``, ``use_liger_kernel=True`` ``liger_kernel``; numbers in words are the numbers and names
they spell; "4x the batch" / "el lote por 4" multiplies the thread's value, "a bigger X" with no amount is a
question; out-of-range values are "limit" questions, a catalog family with a size it does not have a
"family_size" question, an empty "and?" in a thread "followup_empty".

Conventions this set adds (tool facts from each tool's documentation as the writer knows it, not looked up while
writing):
- LitGPT (``litgpt finetune_lora`` / ``finetune_full``, or its config YAML) states the ``litgpt`` stack;
  ``finetune_lora`` is LoRA, ``finetune_full`` a full fine-tune, ``--quantize bnb.nf4`` with LoRA QLoRA with
  ``quant: nf4``; ``--precision bf16-true`` is pure ``bf16`` and ``bf16-mixed`` mixed (Lightning's precision
  names); ``--devices M`` is M GPUs; ``--train.micro_batch_size``, ``--train.max_seq_length``, ``--train.epochs``,
  ``--lora_r`` / ``--lora_alpha`` / ``--lora_dropout`` are those fields; ``--lora_query``, ``--lora_key``,
  ``--lora_value`` and ``--lora_projection`` on with ``--lora_mlp`` and ``--lora_head`` off are the attention
  targets; ``checkpoint_dir: checkpoints/ORG/NAME`` names the model.
- A torchtune recipe YAML (``_component_: torchtune.models...``) states the ``torchtune`` stack and its builder
  names the model and method (``lora_qwen2_5_7b_base`` LoRA of qwen2.5-7b, ``qlora_gemma2_9b`` QLoRA);
  ``enable_activation_checkpointing`` is ``gradient_checkpointing``, ``tokenizer.max_seq_len`` the sequence length,
  ``batch_size`` the micro-batch; ``tune run --nproc_per_node M`` is M GPUs.
- Hydra / Lightning overrides: ``trainer.devices=M`` with ``trainer.num_nodes=N`` are N x M GPUs, ``+peft=lora``
  / ``method=qlora`` the method, ``peft.r`` the rank; ``trainer.precision=bf16-mixed`` mixed; they state no stack.
- DeepSpeed JSON: ``train_micro_batch_size_per_gpu`` is the micro-batch, ``gradient_accumulation_steps`` the
  accumulation, ``zero_optimization.stage`` 2 / 3 ``zero2`` / ``zero3`` (CPU offload changes nothing labelled),
  ``"bf16": {"enabled": true}`` / ``"fp16"`` mixed precision; a DeepSpeed JSON states no stack.
- An accelerate config YAML: ``distributed_type: FSDP`` is ``fsdp``, ``mixed_precision: bf16`` / ``fp16`` mixed,
  ``num_processes`` the GPU count (accelerate's total over ``num_machines``); no stack.
- ``python -m torch.distributed.run --nnodes N --nproc_per_node M`` is N x M GPUs (M alone one node).
- Determined ``resources.slots_per_trial: M`` is M GPUs; a Kubeflow ``PyTorchJob`` is (Master + Worker replicas) x
  each pod's ``nvidia.com/gpu``; neither states a stack.
- SageMaker estimators (``HuggingFace``, ``PyTorch``): ``instance_count`` x the instance's GPUs, and the instance's
  GPU, per AWS's instance-type pages: ``ml.p4d.24xlarge`` 8 A100 40GB, ``ml.p4de.24xlarge`` 8 A100 80GB,
  ``ml.p5.48xlarge`` 8 H100 (SXM, 80 GB), ``ml.g5.xlarge`` 1 A10G, ``ml.g5.48xlarge`` 8 A10G; the ``hyperparameters``
  keys name the model and method; an estimator states no stack (the HuggingFace estimator names a container, not
  the training library the script uses).
- A team's own TOML / YAML of plain keys (``gpu = "L40S"``, ``count = 1``) states those values and no stack.
- Release notes and changelogs: "A -> B" / "A → B" states B, "(unchanged)" / "(igual)" / "sigue siendo" the value
  named; "GPUs: 2x A100 -> 1x H200" is 1 H200.
- A paper's hyperparameter table or appendix: its row (or "we want to reproduce this row") states the model,
  method, "LoRA (r=64)" rank, the ``Batch/GPU`` / ``Lote/GPU`` column the micro-batch, ``Seq`` and ``Epochs``;
  learning rate, warmup, weight decay and Adam betas are no spec values; "AdamW" is ``adamw``.
- A JIRA ticket's priority, story points and sprint, and a vendor's quote (its id, price, GPUs and hours) are not
  this job's values; "the previous provider billed 212 GPU-hours on H100" names no GPU of this job.
- A teacher's or team's head count ("28 students", "6 equipos de 4", "3 people") is no GPU count; "one L4 per
  student" / "on a single L4" is 1 GPU, "en una L4" a GPU and no count.
- A city the catalog names a region after states that region: Frankfurt / "keeping data in Germany" ``eu-central``,
  Paris ``eu-west``.
- A Kaggle place ("42nd place", "puesto 17") and score are not spec values.
- ``optim="adamw_torch_fused"`` is ``adamw`` with the ``fused`` implementation, "foreach adamw" ``foreach``;
  "attention-only targets" / "solo atención" the attention targets; "no wait" inside a pasted command is a
  correction of the value before it.
- Out of range (limit): a 3M / 5M token context, 6000 GPUs, 1500 epochs, a 2000B model, a micro-batch of 6000,
  500 trillion tokens, a gradient accumulation of 8192; family sizes the catalog lacks (family_size): qwen3 72b,
  llama 3.2 8b, gemma-2 12b, falcon 180b, yi 9b, deepseek-llm 33b, qwen2.5 4b; a family without a size (family):
  "llama 3", "llama 3.1", "qwen2.5", "gemma 2", "gemma 3", "phi-3".
- A greeting alone ("yo", "wena", "hola bot, ¿qué tal?", "??") is a "nothing" question.
"""

from __future__ import annotations

import json
from pathlib import Path

PATH = Path(__file__).resolve().parent.parent / "data" / "heldout" / "table6.json"
KINDS = ("command", "sentence", "question", "followup", "correction", "config", "markup", "typo", "ambiguous")


def load() -> list[dict]:
    """Every entry of the set, in file order."""
    return json.loads(PATH.read_text(encoding="utf-8"))
