"""Round 13's hand-written blind set of Slack messages for the chat parser (tests/data/heldout/table4.json).

Written for issue #13's final held-out measurement of round 13 by someone who did not read the parser
(``advisor/parse/`` beyond ``result.py``'s field names and ``advisor/i18n/parse.py``'s clarify codes),
did not run it while writing, and copied no message or template of the earlier sets (tests/data/
phrasings*.json, tests/data/heldout/table2.json and table3.json, tests/phrasegen.py, tests/heldout/gen9.py
and gen11.py; table2.json and table3.json were read only for their label format). It was committed
("freeze round-13 blind sets ... before any parser run") before ``benchmarks/parse_blind13.py`` existed;
nobody tunes the parser on it.

523 messages, 261 English and 262 Spanish (Spain: "vale", "tío", "pasta", "pillo", "os paso", "chavales",
"guay"; Latin America: "oigan", "ahorita", "la neta", "lana", "plata", "che", "mi compu", "cotízame"),
written as different people write in a channel: a hurried team lead on a phone ("qlora yi 34b 4k
2xA100"), a researcher pasting from a notebook (``In [14]: spec = dict(...)``, ``>>> n_tokens = ...``),
a platform engineer pasting a job spec or launcher, a newcomer who half-knows the terms, a finance person
asking about the cost to an accepted checkpoint (failed-run rate, storage months, the pilot), a
non-native English speaker ("i want make full finetuning to ..."), and someone replying in a thread to
the bot's previous answer ("your answer said 2 GPUs; can we try 1?").

Each entry's ``kind`` lists what it is (``KINDS``): a short ``command``; a ``sentence`` with side remarks
and numbers that are not spec values (dates, budgets in $ and €, ticket and PR numbers, run ids, row
counts, library and CUDA versions, accuracies and other percentages, times of day, team sizes, quota
sizes, a previous run's GPUs and hours); a ``question`` (estimates asked as questions, GPU comparisons
with and without counts, the four FAQs, help and the catalog); a thread ``followup`` (a new value, a
doubled or halved one, a reset, thanks, a change relative to a count the thread does not have); a
``correction`` ("sorry, 4k", "(edit: ...)", "no wait", "→", "~old~ new", "(typo, batch 16)", "perdón,
quise decir"); a pasted ``config`` (axolotl YAML with and without an adapter, LLaMA-Factory YAML and
``llamafactory-cli``, TRL's ``SFTConfig`` and ``trl sft``, torchtune ``tune run`` lines and recipe YAML,
Unsloth ``FastLanguageModel``, Ray ``ScalingConfig``, Kubernetes ``nvidia.com/gpu`` limits with a GPU
product or GKE accelerator selector, SLURM ``#SBATCH --nodes`` / ``--gres=gpu:N`` / ``--gres=gpu:a100:4``
headers, Hydra overrides, a Makefile, an argparse ``--help`` text run with its defaults, Python dict
literals, TOML, ``accelerate launch`` / ``torchrun --nnodes`` / ``deepspeed --num_gpus`` lines,
``BitsAndBytesConfig`` + ``LoraConfig``, a PEFT ``adapter_config.json``, ``TrainingArguments``, a docker
compose GPU reservation, an accelerate FSDP / DeepSpeed config, a plain job spec, environment variables);
Slack ``markup`` (mentions, ``<!here>``, channel links, labelled links, quotes, bullets, bold/italic
labels, code spans and blocks, numbered lists, strike-through, emoji); a ``typo`` (one edit in a method,
model or setting word, read as the word; a name nobody can place is a question); and ``ambiguous``
messages the bot should ask about (a vague value, two values for one field, a bare number, no model, a
family without a size, a value out of range, chat that is no request).

Entry format: the hand-written tables' (``text``, ``lang``, ``kind``, ``expected``, ``previous`` for a
thread follow-up), judged by ``tests.phrasegen.judge`` as table rows (no ``noise`` key): ``expected``
names what the message states, never a default, plus ``intent`` / ``clarify_code`` / ``faq`` /
``params`` / ``gpus`` / ``gpu_counts`` where it is not a plain estimate; a follow-up's ``expected`` is
the thread's request merged with the message. A clarify row without ``clarify_code`` accepts any
question back (an unknown model name may be asked as "did you mean" or as "which model"; "and more
GPUs?" as "how many").

Labelling conventions (what a careful reader takes; the earlier sets' conventions, tests/heldout/table3.py):
k = 1024 in a sequence length ("1.5k" is 1536), "4,096" / "4.096" / "16,384" / "dos mil cuarenta y ocho"
are the number itself; token counts are decimal ("30M", "1.800 millones", "3,5 millones", "2.5B"), and
"N examples/rows of about L tokens" states N x L tokens; "on an H100" / "en una 4090" names a GPU and no
count, "one" / "a single" / "1x" / "una sola" a count of 1; "H100" is the H100 SXM, "A100" the 80 GB A100,
"A100 40GB" the 40 GB part; a catalog model is labelled by its catalog id (its Hub id, an -Instruct or -it
repo, a Hub URL or an Unsloth re-upload of it is that model), a Hub id the catalog does not know by the
Hub id, a size alone by ``params_b``; a size before the family ("72b qwen 2.5") names the model; a
struck-through or corrected value is replaced by the correction; a previous run's GPUs, a quota, "fits
in 80GB" and a manager's opinion are not this job's values; "fp16" training and Trainer / accelerate /
Hydra ``bf16`` flags are mixed precision, torchtune's ``dtype: bf16`` pure bf16; an axolotl config
without ``adapter`` and ``trl sft`` without ``--use_peft`` are full fine-tunes; ``quantization_bit: 4``
/ ``load_in_4bit`` with a LoRA adapter is QLoRA; q/k/v/o targets are the attention targets and
``all-linear`` / ``lora_target_linear`` / ``lora_target: all`` / all seven projections every linear
layer; a DeepSpeed config named for its stage states that stage; axolotl, LLaMA-Factory, TRL and
``TrainingArguments`` state the ``hf`` stack, torchtune and Unsloth their own, a bare script none;
``*_single_device`` torchtune recipes run on one GPU; SLURM ``--nodes=N`` x ``--gres=gpu:M`` is N x M
GPUs; an argparse ``--help`` run "with all defaults except ..." states the defaults it prints; "N X or M
Y" GPUs, "X vs Y" and "on an X or a Y" are comparisons; two values for another field without a
correction a "conflict"; "rank: whatever you think", "batch: as big as fits", "a decent context", "a
handful of H100s", "a few epochs" are stated values nobody can read ("unreadable"); a bare number whose
field nobody can tell is a "number" question.
"""

from __future__ import annotations

import json
from pathlib import Path

PATH = Path(__file__).resolve().parent.parent / "data" / "heldout" / "table4.json"
KINDS = ("command", "sentence", "question", "followup", "correction", "config", "markup", "typo", "ambiguous")


def load() -> list[dict]:
    """Every entry of the set, in file order."""
    return json.loads(PATH.read_text(encoding="utf-8"))
