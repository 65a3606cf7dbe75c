"""From what was said to what will be computed: a ``SpecRequest`` plus the catalog give a resolved
``FinetuneSpec`` (catalog ids, defaults filled) and the exact ``Architecture`` to model."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from advisor.arch import Architecture, infer_architecture
from advisor.catalog import Catalog, ModelEntry
from advisor.errors import SpecError
from advisor.spec import ARCH_OVERRIDES, FinetuneSpec, SpecRequest, resolve

if TYPE_CHECKING:
    from advisor.hub import HubModel, HubReader


@dataclass(frozen=True)
class Resolved:
    spec: FinetuneSpec
    arch: Architecture
    model: ModelEntry | None  # None when the size was given without a catalog model
    assumed: list[str] = field(default_factory=list)  # defaults filled in, worth telling
    arch_note: str | None = None  # how the architecture was obtained when it was not the catalog's
    hub: "HubModel | None" = None  # a model read from a config.json (the Hub or a pasted one)
    said: tuple[str, ...] = ()  # the request's fields the user stated (advisor.recommend keeps a stated GPU count)

    @property
    def label(self) -> str:
        if self.model is not None:
            return self.model.display_name
        if self.hub is not None:
            return self.hub.label
        return f"{self.arch.params_total / 1e9:.1f}B-parameter model"


def architecture_for(spec: FinetuneSpec, catalog: Catalog,
                     hub: "HubModel | None" = None) -> tuple[Architecture, ModelEntry | None, str | None]:
    """The architecture a spec describes: the catalog model's, one read from a config.json
    (``hub``), or one inferred from params_b, with the spec's overrides applied and checked."""
    entry: ModelEntry | None = None
    note = None
    if hub is not None:
        base = hub.arch
        note = hub.describe()
    elif spec.model is not None:
        entry = catalog.model(spec.model)
        base = entry.arch
    elif spec.params_b is None:  # FinetuneSpec guarantees the whole shape then
        if spec.hidden % spec.heads:
            raise SpecError(f"Invalid architecture: hidden size {spec.hidden} is not a multiple of {spec.heads} heads")
        try:
            arch = Architecture(layers=spec.layers, hidden=spec.hidden, intermediate=spec.intermediate,
                                heads=spec.heads, kv_heads=spec.kv_heads, head_dim=spec.hidden // spec.heads,
                                vocab=spec.vocab, tied_embeddings=bool(spec.tied_embeddings))
        except ValueError as exc:
            raise SpecError(f"Invalid architecture: {exc}") from None
        _check_rank(spec, arch)
        return arch, None, f"architecture as given ({arch.params_total / 1e9:.2f}B parameters, Llama-style blocks)"
    else:
        base, ref = infer_architecture(spec.params_b * 1e9)
        note = f"architecture inferred from {spec.params_b:g}B parameters (shape of {ref}, depth scaled)"
    overrides = {k: getattr(spec, k) for k in ARCH_OVERRIDES if getattr(spec, k) is not None}
    if overrides:
        if "hidden" in overrides or "heads" in overrides:
            heads = overrides.get("heads", base.heads)
            overrides.setdefault("head_dim", overrides.get("hidden", base.hidden) // heads)
        if "heads" in overrides and "kv_heads" not in overrides and overrides["heads"] % base.kv_heads:
            overrides["kv_heads"] = overrides["heads"]
        try:
            arch = Architecture(**{**base.model_dump(), **overrides})
        except ValueError as exc:
            raise SpecError(f"Invalid architecture override: {exc}") from None
    else:
        arch = base
    _check_rank(spec, arch)
    return arch, entry, note


def _check_rank(spec: FinetuneSpec, arch: Architecture) -> None:
    if spec.trains_adapters and spec.lora_rank > arch.hidden:
        raise SpecError(
            f"LoRA rank {spec.lora_rank} is larger than the model's hidden size {arch.hidden}; "
            "ranks of 8-64 are usual (e.g. 'rank 16')."
        )


def resolve_request(request: SpecRequest, catalog: Catalog, models: "HubReader | None" = None) -> Resolved:
    """Resolve names against the catalog (or, for a Hub id or a pasted config, through ``models``,
    ``advisor.hub``), fill defaults, and build the architecture."""
    from advisor.hub import catalog_name, external_model

    update = {}
    hub = external_model(request.model, catalog, models) if request.model is not None else None
    if request.model is not None and hub is None:
        update["model"] = catalog.model(catalog_name(request.model)).id
    if request.gpu is not None:
        update["gpu"] = catalog.gpu(request.gpu).id
    if request.region is not None:
        update["region"] = catalog.region(request.region).id
    if update:
        request = request.model_copy(update=update)
    spec, assumed = resolve(request)
    arch, entry, note = architecture_for(spec, catalog, hub)
    return Resolved(spec=spec, arch=arch, model=entry, assumed=assumed, arch_note=note, hub=hub,
                    said=tuple(request.said()))
