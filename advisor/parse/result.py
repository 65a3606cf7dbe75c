"""``ParseResult``: what one chat message asked for, and its JSON form (docs/DESIGN.md's parse contract)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from advisor.spec import SpecRequest

Intent = Literal["estimate", "followup", "compare", "faq", "reset", "help", "catalog", "clarify"]
INTENTS: tuple[str, ...] = ("estimate", "followup", "compare", "faq", "reset", "help", "catalog", "clarify")

# The keys `advisor parse --json` must print first, in this order (docs/DESIGN.md, Contracts).
CONTRACT_KEYS = ("method", "model", "params_b", "seq_len", "micro_batch", "gradient_checkpointing",
                 "lora_rank", "optimizer", "precision", "num_gpus", "gpu", "dataset_tokens", "epochs")
# Further SpecRequest fields, printed after the contract keys when the message set them.
EXTRA_KEYS = ("region", "stack", "lora_alpha", "lora_dropout", "lora_targets", "quant", "double_quant",
              "optimizer_impl", "attention", "sharding", "layers", "hidden", "intermediate", "heads",
              "kv_heads", "vocab", "tied_embeddings", "costs")


@dataclass(frozen=True)
class ParseResult:
    """One message, understood.

    ``request`` is what to compute: for ``estimate`` what the text said; for ``followup`` the
    previous request merged with this message's ``delta``; for ``compare`` the request the GPUs
    in ``gpus`` are compared on; for ``clarify`` what was understood so far (a bot may keep it
    as the thread's request, so the answer to the question merges into it). ``delta`` is only
    what this message said; ``said`` its field names. ``params_b`` stays None when a catalog
    model is named: the model's own size is exact, and the two are never both set.
    """

    lang: str
    intent: Intent
    request: SpecRequest
    delta: SpecRequest
    said: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # sentences in ``lang``
    warning_codes: list[str] = field(default_factory=list)  # message keys of ``warnings``
    gpus: list[str] = field(default_factory=list)  # compare: catalog ids in the order named
    gpu_counts: dict[str, int] = field(default_factory=dict)  # compare: "8 A100s or 4 H100s"
    faq: str | None = None  # "can_i_gpu" | "a100_or_h100" | "gpu_choice" | "what_persists"
    params: dict[str, Any] = field(default_factory=dict)  # faq / catalog parameters (gpu, model, ...)
    question: str | None = None  # clarify: the question to ask, in ``lang``
    example: str | None = None  # clarify: a message that works, in ``lang``
    clarify_code: str | None = None  # clarify: "nothing" | "model" | "family" | "limit" | "number" | "followup_empty"
    #   | "unreadable" (a stated value we cannot read) | "did_you_mean" (a name we are not sure of)
    #   | "conflict" (two values for one field, neither said as a correction) | "family_size" (a family
    #   without the size asked for) | "relative" (a change relative to a count the thread does not have)
    configs: dict[str, dict[str, Any]] = field(default_factory=dict)  # pasted config.json, by the ref the request names

    def to_json(self) -> dict[str, Any]:
        """The parse contract: the 13 docs/DESIGN.md keys first (null where not said), then the rest."""
        fields = self.request.model_dump()
        out: dict[str, Any] = {key: fields[key] for key in CONTRACT_KEYS}
        out["lang"] = self.lang
        out["intent"] = self.intent
        for key in EXTRA_KEYS:
            if fields.get(key) is not None:
                out[key] = fields[key]
        out["said"] = list(self.said)
        if self.gpus:
            out["gpus"] = list(self.gpus)
            if self.gpu_counts:
                out["gpu_counts"] = dict(self.gpu_counts)
        if self.faq:
            out["faq"] = self.faq
            out["params"] = dict(self.params)
        elif self.params:
            out["params"] = dict(self.params)
        if self.question:
            out["question"] = self.question
            out["example"] = self.example
            out["clarify_code"] = self.clarify_code
        out["warnings"] = list(self.warnings)
        return out
