"""Saying a request back in words, in the message's language: the "Understood: ..." line, the
"Assumed ..." line for defaults, and example messages built from what the user already said.

Each setting is one phrase from ``advisor.i18n.parse`` ("seq 8192", "contexto de 8192", "on 2 x
H100"). The same phrases make examples, and every phrase parses back to its setting (a test
checks the round trip), so an example built from a request always works.
"""

from __future__ import annotations

from typing import Any

from advisor.catalog import Catalog
from advisor.i18n import t
from advisor.spec import DEFAULTS, SpecRequest

_ORDER = ("method", "model", "params_b", "seq_len", "micro_batch", "gradient_accumulation_steps",
          "gradient_checkpointing", "lora_rank",
          "lora_alpha", "lora_dropout", "lora_targets", "quant", "double_quant", "optimizer", "optimizer_impl",
          "precision", "attention", "sharding", "stack", "gpu", "num_gpus", "dataset_tokens", "epochs", "region",
          # fields other parts added to the spec (#12, #17); phrased only when the spec has them
          "compile", "packing", "length_distribution", "expandable_segments")
_COST_ORDER = ("failed_run_fraction", "eval_fraction", "evals_per_epoch", "checkpoints_kept", "storage_months",
               "include_pilot")


def number(value: float, lang: str, *, grouped: bool = True) -> str:
    """8192 -> "8,192" (en) / "8.192" (es); 0.5 -> "0.5" / "0,5"."""
    if float(value) == int(value):
        text = f"{int(value):,}" if grouped else str(int(value))
        return text.replace(",", ".") if lang == "es" else text
    text = f"{value:g}"
    return text.replace(".", ",") if lang == "es" else text


def phrases(request: SpecRequest, lang: str, catalog: Catalog | None = None, *,
            display: bool = True) -> list[str]:
    """One phrase per setting the request has. ``display``: catalog display names and grouped
    numbers for people; otherwise catalog ids and plain numbers (for example messages)."""
    fields = request.model_dump(exclude_none=True)
    out: list[str] = []
    for name in _ORDER:
        if name not in fields or (name == "num_gpus" and "gpu" in fields):
            continue
        out.append(_phrase(name, fields[name], fields, lang, catalog, display))
    for name in _COST_ORDER:
        if request.costs and name in request.costs:
            out.append(_cost_phrase(name, request.costs[name], lang, display))
    return out


def setting_phrase(name: str, value: Any, lang: str, catalog: Catalog | None = None, *, display: bool = False) -> str:
    """One setting in the words ``phrases`` uses for it ("on 2 GPUs", "seq 4096", "samples of 200-2048
    tokens, mean 600"); ``value`` as the spec holds it (a model such as ``LengthDistribution`` is dumped)."""
    if hasattr(value, "model_dump"):
        value = value.model_dump(exclude_none=True)
    return _phrase(name, value, {name: value}, lang, catalog, display)


def _name(kind: str, ident: str, catalog: Catalog | None, display: bool, lang: str = "en") -> str:
    if kind == "model" and ident.startswith("config:"):
        return t("parse.say.pasted_config", lang)
    if not display or catalog is None:
        return ident
    found = catalog.find_model(ident) if kind == "model" else catalog.find_gpu(ident) if kind == "gpu" else catalog.find_region(ident)
    return found.display_name if found is not None else ident


def _phrase(name: str, value: Any, fields: dict[str, Any], lang: str, catalog: Catalog | None, display: bool) -> str:
    n = lambda v: number(v, lang, grouped=display)  # noqa: E731
    if name == "method":
        return t(f"method.{value}", lang)
    if name == "model":
        return _name("model", value, catalog, display, lang)
    if name == "gradient_checkpointing":
        return t("parse.say.gc_on" if value else "parse.say.gc_off", lang)
    if name == "double_quant":
        return t("parse.say.double_quant_on" if value else "parse.say.double_quant_off", lang)
    if name in ("compile", "packing", "expandable_segments"):
        key = {"compile": "compile", "packing": "packing", "expandable_segments": "expandable"}[name]
        return t(f"parse.say.{key}_{'on' if value else 'off'}", lang)
    if name == "length_distribution":
        return _length_phrase(value, lang, n)
    if name in ("lora_targets", "quant", "optimizer", "precision", "attention", "sharding", "stack"):
        return t(f"parse.say.{name}.{value}", lang)
    if name == "gpu":
        gpu = _name("gpu", value, catalog, display)
        if "num_gpus" in fields:
            return t("parse.say.gpus_on", lang, count=n(fields["num_gpus"]), gpu=gpu)
        return t("parse.say.gpu_on", lang, gpu=gpu)
    if name == "num_gpus":
        return t("parse.say.num_gpus", lang, count=n(value))
    if name == "region":
        return t("parse.say.region", lang, value=_name("region", value, catalog, display))
    if name == "optimizer_impl":
        return t("parse.say.optimizer_impl", lang, value=value)
    return t(f"parse.say.{name}", lang, value=n(value))


def _length_phrase(dist: dict[str, Any], lang: str, n) -> str:
    """A ``LengthDistribution`` (as dumped) in words that parse back to it."""
    if dist.get("lengths"):
        lengths = dist["lengths"]
        return t("parse.say.length_list", lang, n=n(len(lengths)), mean=n(round(sum(lengths) / len(lengths))))
    if dist.get("max") is not None:
        return t("parse.say.length_range", lang, min=n(dist.get("min") or 1), max=n(dist["max"]), mean=n(dist["mean"]))
    return t("parse.say.length_mean", lang, mean=n(dist["mean"]))


def _cost_phrase(name: str, value: Any, lang: str, display: bool) -> str:
    if name == "include_pilot":
        return t("parse.say.pilot_on" if value else "parse.say.pilot_off", lang)
    if name in ("failed_run_fraction", "eval_fraction"):
        value = round(float(value) * 100, 6)
    return t(f"parse.say.{name}", lang, value=number(value, lang, grouped=display))


def understood(request: SpecRequest, lang: str, catalog: Catalog | None = None) -> str:
    items = phrases(request, lang, catalog)
    return t("parse.understood", lang, items=", ".join(items)) if items else t("parse.understood.nothing", lang)


def assumed(names: list[str], lang: str) -> str:
    """The defaults an answer assumed ("Assumed micro-batch 1, with gradient checkpointing ...");
    ``names`` as returned by ``advisor.spec.resolve``."""
    request = SpecRequest(**{name: DEFAULTS[name].value for name in names if name in SpecRequest.model_fields})
    return t("parse.assumed", lang, items=", ".join(phrases(request, lang))) if names else ""


# The four things every answer's first line names, said or assumed (issue 13): the method, the
# model or its size, the sequence length and the GPU count.
_HEAD_FIELDS = {"method", "model", "params_b", "seq_len", "gpu", "num_gpus"}


def answer_head(request: SpecRequest, spec: Any, model_label: str, assumed_names: list[str], lang: str,
                catalog: Catalog | None = None) -> list[str]:
    """The first two lines of an answer: "Understood: <method>, <model or size>, <sequence length>,
    <GPU count>[, what else was said]." and "Assumed: <the defaults used>." (empty when none).

    ``request`` is what the messages said, ``spec`` the resolved ``FinetuneSpec``, ``model_label``
    the model as the answer names it (catalog name, Hub id, or "13B-parameter model")."""
    items = [t(f"method.{spec.method}", lang), _model_label(request, model_label, lang), t("parse.say.seq_len", lang,
             value=number(spec.seq_len, lang)), _gpus(request, lang, catalog)]
    said = request.model_copy(update={k: None for k in _HEAD_FIELDS})
    items += phrases(said, lang, catalog)
    lines = [t("parse.understood", lang, items=", ".join(items))]
    if assumed_names:
        lines.append(assumed(assumed_names, lang))
    return lines


def _model_label(request: SpecRequest, label: str, lang: str) -> str:
    if request.model is None and request.params_b is not None:
        return t("parse.say.params_b", lang, value=number(request.params_b, lang))
    if request.model is not None and request.model.startswith("config:"):
        return f"{label} ({t('parse.say.pasted_config', lang)})"
    return label


def _gpus(request: SpecRequest, lang: str, catalog: Catalog | None) -> str:
    if request.gpu is not None:
        gpu = _name("gpu", request.gpu, catalog, True, lang)
        if request.num_gpus is not None:
            return t("parse.say.gpus_on", lang, count=number(request.num_gpus, lang), gpu=gpu)
        return t("parse.say.gpu_fewest", lang, gpu=gpu)
    if request.num_gpus is not None:
        return t("parse.say.num_gpus", lang, count=number(request.num_gpus, lang))
    return t("parse.say.gpus_fewest", lang)


def example_message(request: SpecRequest, lang: str) -> str:
    """A message that parses to ``request`` (catalog ids, plain numbers)."""
    return " ".join(phrases(request, lang, display=False))


def join_options(options: list[str], lang: str) -> str:
    if len(options) <= 1:
        return "".join(options)
    return ", ".join(options[:-1]) + f" {t('parse.or', lang)} " + options[-1]
