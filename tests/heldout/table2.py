"""A hand-written held-out set of Slack messages for the chat parser (tests/data/heldout/table2.json).

Written for issue #13's held-out measurement by someone who did not read the parser
(``advisor/parse/`` beyond ``result.py``'s field names and ``advisor/i18n/parse.py``'s clarify codes)
and did not run it while writing, and without copying the existing sets' messages or templates.
About half English and half Spanish (Spain: "vale", "calculadme", "tío", "pasta"; Latin America:
"oigan", "ahorita", "qué onda", "plata"), as ML engineers and team leads write in a channel: short
commands, long sentences, questions, thread follow-ups, pasted axolotl / LLaMA-Factory / TRL /
torchtune / PEFT configs and ``accelerate launch`` / ``torchrun`` / ``deepspeed`` / ``tune run``
command lines, Slack markup (mentions, links, bold, strike-through, bullets, quotes, code), typos,
numbers in both conventions ("4,096", "4.096", "4k", "2 mil millones"), Hub ids, sizes before and
after the family, vague values, corrections ("actually 8k", "~seq 2048~ seq 4096"), two values for
one field, and messages the bot should ask about or that are not requests at all.

Entry format: the hand-written table's (``text``, ``lang``, ``expected``, ``previous`` for a thread
follow-up), judged by ``tests.phrasegen.judge`` as table rows (no ``noise`` key): ``expected`` names
what the message states (never a default), plus ``intent`` / ``clarify_code`` / ``faq`` / ``params`` /
``gpus`` / ``gpu_counts`` where it is not a plain estimate; a follow-up's ``expected`` is the thread's
request merged with the message (``None`` where a field must be cleared). ``kind`` lists what the
message is (command, sentence, question, followup, config, markup, typo, ambiguous); ``judge`` ignores it.

Labelling conventions (phrasegen's docstring, as a careful reader takes them): k = 1024 in a sequence
length and 1000 in token counts, "mil millones" = 10^9; "on an H100" / "en una H100" names a GPU and no
count, "on one H100" / "en una sola H100" a count of 1; "H100" is the H100 SXM and "A100" the 80 GB
A100; a catalog model is labelled by its catalog id (a Hub id the catalog knows, e.g. an -Instruct
repo, is that id), a Hub id it does not know by the Hub id; a struck-through value or one corrected
later in the message is replaced by the correction; a stated value nobody can read ("a long
context", "a few H100s", "batch: max") is a question back ("unreadable"), two values for one field
without a correction a "conflict", a bare number a "number" question; Trainer / accelerate ``bf16``
is bf16 mixed precision and torchtune's ``dtype: bf16`` pure bf16; ``--use_peft --load_in_4bit`` and
LLaMA-Factory's ``quantization_bit: 4`` with LoRA are QLoRA; a DeepSpeed config file named for its
stage (``zero3.json``, ``ds_z3_config.json``) states that stage; a global-batch note is not an
accumulation value; a ``*_single_device`` torchtune recipe runs on one GPU.
"""

from __future__ import annotations

import json
from pathlib import Path

PATH = Path(__file__).resolve().parent.parent / "data" / "heldout" / "table2.json"
KINDS = ("command", "sentence", "question", "followup", "config", "markup", "typo", "ambiguous")


def load() -> list[dict]:
    """Every entry of the set, in file order."""
    return json.loads(PATH.read_text(encoding="utf-8"))
