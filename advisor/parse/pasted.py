"""Pasted training configs whose shape the word rules cannot see: nested JSON and torchtune components.

Both run on normalized text before names are matched (``advisor.parse.request``).

``flatten_json``: a JSON object with nested objects (a DeepSpeed config: ``{"zero_optimization":
{"stage": 3}, "bf16": {"enabled": true}}``) is rewritten as one ``path.to.key: value`` line per leaf,
so the config-key rules (``rules._CONFIG_KEYS``) read ``zero_optimization.stage: 3`` and
``bf16.enabled: true`` the way they read an axolotl YAML line. DeepSpeed's keys are documented in
its config reference (deepspeed/runtime/config.py: ``train_micro_batch_size_per_gpu``,
``gradient_accumulation_steps``, ``bf16.enabled``, ``fp16.enabled``; deepspeed/runtime/zero/config.py:
``zero_optimization.stage``).

``torchtune_components``: ``_component_: torchtune.models.llama3_1.qlora_llama3_1_8b`` names the
method (the ``lora_`` / ``qlora_`` prefix, none for the full model) and the model the builder was
written for (torchtune 0.6.1, torchtune/models/<family>/_model_builders.py; the builders the advisor
itself writes are ``advisor.launch.names.TORCHTUNE_MODELS``, read lazily: only a pasted torchtune
config pays for that import). The component is blanked so the names inside it ("mistral_7b", which
a person would read as the current Mistral 7B, is v0.1 in torchtune) are not read again.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

_LEAF = (str, int, float, bool, type(None))
MAX_LINES = 200


def json_objects(text: str, accept) -> list[tuple[int, int, Any]]:
    """(start, end, object) of every JSON value opening with ``{`` in ``text`` that ``accept``
    takes, scanning left to right; the scan resumes after an accepted object and one character
    after a rejected or unreadable one (so an object nested in a rejected one is still seen)."""
    out = []
    decoder = json.JSONDecoder()
    i = text.find("{")
    while i >= 0:
        try:
            obj, end = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            i = text.find("{", i + 1)
            continue
        if accept(obj):
            out.append((i, end, obj))
            i = text.find("{", end)
        else:
            i = text.find("{", i + 1)
    return out


def flatten_json(text: str) -> str:
    """``text`` with every nested JSON object written as ``a.b: value`` lines (flat ones are left as typed)."""
    if "{" not in text:
        return text
    out: list[str] = []
    prev = 0
    nested = json_objects(text, lambda obj: isinstance(obj, dict) and any(isinstance(v, dict) for v in obj.values()))
    for start, end, obj in nested:
        lines = list(_leaves(obj, ""))[:MAX_LINES]
        out += [text[prev:start], "\n" + "\n".join(f"{key}: {_show(value)}" for key, value in lines) + "\n"]
        prev = end
    out.append(text[prev:])
    return "".join(out)


def _leaves(obj: dict[str, Any], prefix: str):
    for key, value in obj.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            yield from _leaves(value, path + ".")
        elif isinstance(value, _LEAF):
            yield path, value
        # lists of objects (a dataset list) are not settings the advisor reads


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value)


# A W&B run's config.yaml (the file its Files tab shows, written by the wandb client): every logged key holds a mapping
# of ``desc`` (the key's description, null unless given) and ``value`` (what was logged), one level down,
# "ctx_len:\n  desc: null\n  value: 2048" (wandb/sdk/lib/config_util.py, dict_add_value_dict: {key: {"desc": None,
# "value": v}}, dumped as YAML; the file opens with "wandb_version: 1"). The setting is the key's ``value``.
_DESC_VALUE = re.compile(r"(?m)^([ \t]*)([a-z_][\w.-]*)[ \t]*:[ \t]*\n(?:\1[ \t]+desc[ \t]*:[^\n]*\n)?"
                         r"\1[ \t]+value[ \t]*:[ \t]*([^\n]*)")


def desc_values(text: str) -> str:
    """``text`` with each W&B ``key: {desc, value}`` block written as ``key: value`` (other text as typed)."""
    if "value:" not in text or "desc:" not in text:
        return text
    return _DESC_VALUE.sub(lambda m: f"{m.group(1)}{m.group(2)}: {m.group(3)}", text)


# A Python function's parameter with its type and default, "micro_batch_size: int = 4", "max_seq_len: int=8192" (a
# Flyte task's, a script's ``def main(...)``, a dataclass field): the setting is the default after "=", not the type
# after ":" (which a config key's rule would read as the value, "int", and ask about).
# A parameter with its type and no default ("def train(seq_len: int, ...)") says no value: the type is dropped too.
_ANNOTATED = re.compile(r"(?<![\w.])([a-z_][a-z0-9_]*)[ \t]*:[ \t]*(?:int|float|str|bool|optional\[(?:int|float|str)\])"
                        r"(?:[ \t]*(=)|(?=[ \t]*[,)]))")


def annotated_defaults(text: str) -> str:
    """``text`` with each ``name: type = value`` parameter written as ``name = value`` (``name: type`` as ``name``)."""
    if ": int" not in text and ":int" not in text and "float" not in text and "optional[" not in text:
        return text
    return _ANNOTATED.sub(lambda m: m.group(1) + (" =" if m.group(2) else ""), text)


# NeMo 2's recipe modules name the model with its version's digits run together, "llm.llama31_8b", "llm.llama32_1b",
# "llm.qwen25_7b" (nemo/collections/llm/recipes/: llama31_8b.py is Llama 3.1 8B, llama32_3b.py Llama 3.2 3B, qwen25_7b.py
# Qwen2.5 7B; one digit, "llama3_8b", "gemma2_9b", is the version as it is): written as the model's name,
# "llama3.1-8b", which the name matcher reads.
_NEMO_RECIPE = re.compile(r"(?<![\w])llm\.([a-z]+)(\d)(\d)_(\d+(?:\.\d+)?b)\b")


def nemo_recipes(text: str) -> str:
    """``text`` with each NeMo 2 recipe module of a two-digit version written as the model's name."""
    if "llm." not in text:
        return text
    return _NEMO_RECIPE.sub(lambda m: f"llm. {m.group(1)}{m.group(2)}.{m.group(3)}-{m.group(4)}", text)


_COMPONENT = re.compile(r"\btorchtune\.models\.([a-z0-9_]+)\.(qlora_|lora_|dora_)?([a-z0-9_]+)")


@functools.lru_cache(maxsize=1)
def _builders() -> dict[str, str]:
    from advisor.launch.names import TORCHTUNE_MODELS

    return {tt.builder: ident for ident, tt in TORCHTUNE_MODELS.items()}


def torchtune_components(text: str) -> tuple[str, list[tuple[str, Any, int]]]:
    """``text`` with torchtune model components blanked, and the claims they make
    (field, value, position): the method, the model where the builder is one we know, the stack."""
    if "torchtune.models." not in text:
        return text, []
    claims: list[tuple[str, Any, int]] = []
    spans = []
    for m in _COMPONENT.finditer(text):
        prefix, builder = m.group(2), m.group(3)
        method = {"qlora_": "qlora", "lora_": "lora", "dora_": "lora", None: "full"}[prefix]
        ident = _builders().get(builder)
        if ident is None and not re.search(r"\d", builder):
            continue  # a tokenizer or another component ("torchtune.models.llama3.llama3_tokenizer")
        if builder.endswith(("_tokenizer", "_transform")):
            continue
        claims.append(("method", method, m.start()))
        claims.append(("stack", "torchtune", m.start()))
        if ident is not None:
            claims.append(("model", ident, m.start()))
            spans.append(m.span())
    for start, end in spans:
        text = text[:start] + " " * (end - start) + text[end:]
    return text, claims


# A torchtune config named on the command line ("tune run full_finetune_distributed --config mistral/7B_full",
# "--config llama3_1/8B_lora_single_device"; ``flags_to_pairs`` has made it "config=mistral/7b_full"): the directory
# is the torchtune model module and the size its builder's (recipes/configs/<module>/<size>_<method>*.yaml, torchtune
# 0.6.1), so the model is the catalog model that builder loads ("mistral/7B_full" is Mistral 7B v0.1, the checkpoint
# torchtune's mistral configs download), not whatever a person would read in "mistral 7b".
_CONFIG_PATH = re.compile(r"(?<![\w.])config[ \t]*[=:][ \t]*([a-z0-9_]+)/(\d+(?:[._]\d+)?)b_(?:q?lora|full|dora)\w*")


def torchtune_config_model(text: str) -> tuple[str, int, int] | None:
    """The catalog model a torchtune config path names, with the path's span, or None."""
    if "config" not in text or "/" not in text:
        return None
    m = _CONFIG_PATH.search(text)
    if m is None:
        return None
    from advisor.launch.names import TORCHTUNE_MODELS

    size = "_" + m.group(2).replace(".", "_") + "b"
    for ident, tt in TORCHTUNE_MODELS.items():
        if tt.module == m.group(1) and (tt.builder.endswith(size) or size + "_" in tt.builder):
            return ident, m.start(1), m.end()
    return None


# A header line and one row under it, pasted from a spreadsheet or a CSV export (Google Sheets copies cells
# tab-separated; a CSV has commas, or semicolons where the locale's decimal mark is the comma, as a Spanish-locale
# spreadsheet exports it: "1,5" stays one cell). Each value is read under its column's name: the row is rewritten as
# one "column name: value" line per cell (underscores as spaces, "context_len: 8192" -> "context len: 8192"), the
# key-value form the setting rules read, whatever the header words are. Only a header of name-like cells (no digit)
# and exactly one row of the same width with a digit in it: two rows or more are several jobs, left as they are.
# (run on the cleaned text, before normalizing collapses the tabs: any letter case, accents kept, "método", "Épocas")
_HEADER_CELL = {"\t": re.compile(r"[^\W\d][^\W\d ./#()-]*(?:[ ./#()-]+[^\W\d]+)*[)]?"),
                "|": re.compile(r"[^\W\d][^\W\d ./#()-]*(?:[ ./#()-]+[^\W\d]+)*[)]?"),
                ";": re.compile(r"[^\W\d][^\W\d./#-]*"), ",": re.compile(r"[^\W\d][^\W\d./#-]*")}


def header_rows(text: str) -> str:
    if "\n" not in text or not any(sep in text for sep in _HEADER_CELL):
        return text
    lines = text.split("\n")
    for i in range(len(lines) - 1):
        for sep, cell in _HEADER_CELL.items():
            if lines[i].count(sep) < 2:
                continue
            head = [c.strip() for c in lines[i].strip().strip(sep).split(sep)]
            row = [c.strip() for c in lines[i + 1].strip().strip(sep).split(sep)]
            if len(row) != len(head) or not all(cell.fullmatch(h) and len(h) <= 40 for h in head) \
                    or not any(ch.isdigit() for ch in lines[i + 1]) \
                    or i + 2 < len(lines) and lines[i + 2].count(sep) == lines[i + 1].count(sep):
                continue
            lines[i] = ""
            lines[i + 1] = "\n".join(f"{h.replace('_', ' ')}: {v}" for h, v in zip(head, row) if v)
            return "\n".join(lines)
    return text
