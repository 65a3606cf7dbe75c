"""How spec fields and their values read in a message (in the answer's language)."""

from __future__ import annotations

from typing import Any

from advisor.format import GIB, si
from advisor.i18n import has, numbers, t

TERMS = ("weights", "quant_constants", "adapters", "master_weights", "gradients", "optimizer_states",
         "activations", "logits_loss", "transient")


TIB = 1024 * GIB


def size(n_bytes: float, lang: str = "en") -> str:
    """GiB as torch and nvidia-smi report, TiB for the absurd (a job no cluster holds)."""
    return numbers.size(n_bytes, lang)


def short_size(n_bytes: float, lang: str = "en") -> str:
    """'84G' / '3,775T' for the narrow table column."""
    return numbers.short_size(n_bytes, lang)


def field_label(field: str, lang: str) -> str:
    key = f"bot.field.{field}"
    return t(key, lang) if has(key) else field.replace("_", " ")


def value_text(field: str, value: Any, lang: str) -> str:
    """A field's value as a person reads it: 8,192; 50M; on/off; QLoRA."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return t("word.on" if value else "word.off", lang)
    if field == "method":
        return t(f"method.{value}", lang)
    if field == "dataset_tokens":
        return si(value, lang)
    if isinstance(value, float) and value.is_integer():
        return numbers.integer(value, lang)
    if isinstance(value, int):
        return numbers.integer(value, lang)
    if isinstance(value, float):
        return numbers.plain(value, lang)
    return str(value)


def spec_summary(spec: dict[str, Any], model: str | None, lang: str) -> str:
    """One line: '*Llama 3 70B* · QLoRA (nf4, double quant) · seq 8,192 · micro-batch 1 · ...'."""
    method = spec.get("method", "lora")
    parts = [f"*{model or spec.get('model') or t('bot.answer.unnamed_model', lang)}*"]
    method_text = t(f"method.{method}", lang)
    if method == "qlora":
        quant = spec.get("quant") or "nf4"
        method_text += f" ({quant}{', ' + t('bot.field.double_quant', lang) if spec.get('double_quant') else ''})"
    parts.append(method_text)
    for field in ("seq_len", "micro_batch", "gradient_checkpointing"):
        if field in spec:
            parts.append(f"{field_label(field, lang)} {value_text(field, spec[field], lang)}")
    if method in ("lora", "qlora") and "lora_rank" in spec:
        parts.append(f"{field_label('lora_rank', lang)} {spec['lora_rank']} ({spec.get('lora_targets', 'all-linear')})")
    for field in ("optimizer", "precision"):
        if spec.get(field):
            parts.append(str(spec[field]))
    if spec.get("attention") == "eager":
        parts.append(t("bot.answer.eager_attention", lang))
    if (spec.get("num_gpus") or 1) > 1:
        parts.append(t("bot.answer.gpus", lang, n=spec["num_gpus"], sharding=(spec.get("sharding") or "ddp").upper()))
    for field in ("dataset_tokens", "epochs", "gpu", "region"):
        if spec.get(field) is not None:
            parts.append(f"{field_label(field, lang)} {value_text(field, spec[field], lang)}")
    return " · ".join(parts)


def changes(before: dict[str, Any], after: dict[str, Any], lang: str) -> list[str]:
    """'sequence length 8,192 → 16,384' for each field a follow-up changed."""
    out = []
    for field in sorted(set(before) | set(after)):
        if field == "costs" or before.get(field) == after.get(field):
            continue
        out.append(f"{field_label(field, lang)} {value_text(field, before.get(field), lang)} → "
                   f"{value_text(field, after.get(field), lang)}")
    return out
