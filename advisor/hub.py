"""Any model on the Hugging Face Hub, or a pasted ``config.json``, read into an ``Architecture``.

    reader = HubReader(state_db="state.db", endpoint="https://huggingface.co")
    model = reader.model("Qwen/Qwen3-4B")              # HubModel: .arch, .commit, .source
    model = read_config(json.load(open("config.json")), name="my-model")

Only ``config.json`` is ever fetched, with ``huggingface_hub.hf_hub_download`` (the HEAD/redirect/
ETag protocol of the Hub, its on-disk cache, ``endpoint`` for a mirror or a fake Hub in tests), and
only JSON is read: no weights, no tokenizer, no code. A repository that needs ``trust_remote_code``
(``auto_map`` in its config) is read from its ``config.json`` fields like any other: its code never
runs, and a config whose fields do not describe a decoder we can model is refused with the fields
it lacks (``HubConfigError``).

Configs are kept in the state database (table ``hub_configs``: repo, revision, resolved commit,
ETag, the JSON, when it was read), so a bot answers a second question about a model without the
network, and a thread keeps its model after a restart; a row older than ``max_age_s`` is read again
from the Hub, and kept when the Hub cannot be reached (the answer says how old it is).

Field mapping (transformers 5.24, ``models/<type>/configuration_<type>.py`` and the modeling files):
- size: ``num_hidden_layers`` (``n_layer``, ``num_layers``), ``hidden_size`` (``n_embd``,
  ``d_model``), ``intermediate_size`` (``n_inner``, ``ffn_dim``; default 4 x hidden for the plain
  GELU MLP of GPT-2/Falcon/Phi), ``num_attention_heads`` (``n_head``), ``num_key_value_heads``
  (``num_kv_heads``; Falcon's ``multi_query`` is 1; default: the head count, as LlamaConfig does),
  ``head_dim`` (default hidden / heads), ``vocab_size``;
- ``tie_word_embeddings``: the config's value, else the model type's default (False for Llama,
  Mistral, Mixtral, Qwen2/3, Phi-3, OLMo 2, Granite; True for Gemma 1/2/3, Falcon, StarCoder2, GPT-2);
- MLP: gated (SwiGLU/GeGLU: gate, up, down) for the Llama family, Qwen, Gemma, Phi-3, OLMo; plain
  (up, down) for GPT-2, GPT-NeoX, Falcon, Phi-1/2, StarCoder2;
- norm: LayerNorm for GPT-2, GPT-NeoX, Falcon, Phi-1/2, StarCoder2, Cohere; RMSNorm otherwise;
- attention bias: ``attention_bias`` / ``use_bias`` / ``bias``; Qwen2 and Qwen2-MoE always have q/k/v
  biases (``modeling_qwen2.py``: ``q_proj = nn.Linear(..., bias=True)``);
- mixture of experts: ``num_local_experts`` (Mixtral) or ``num_experts`` (Qwen3-MoE), with
  ``num_experts_per_tok`` and, for Qwen MoE, the expert width ``moe_intermediate_size``. Shared
  experts (Qwen2-MoE ``shared_expert_intermediate_size``, DeepSeek) and dense layers between sparse
  ones (``decoder_sparse_step`` > 1, ``mlp_only_layers``) are not in our ``Architecture``: refused.
Multimodal configs (Gemma 3 ``text_config``, Llava ``text_config``) are read from their text part.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from advisor.arch import Architecture
from advisor.errors import AdvisorError, SpecError

# How long a config read from the Hub is trusted before asking the Hub again (a week: released
# configs rarely change, and an answer must not wait on the network every time).
MAX_AGE_S = 7 * 24 * 3600
# Seconds to wait for the Hub's answer to the HEAD of config.json (huggingface_hub's own default,
# constants.DEFAULT_ETAG_TIMEOUT, is 10).
TIMEOUT_S = 10.0
DEFAULT_ENDPOINT = "https://huggingface.co"
# A hub id as people paste it: "org/name" (optionally "org/name@revision" or a huggingface.co URL).
HUB_ID = re.compile(r"^(?:https?://(?:www\.)?(?:huggingface\.co|hf\.co)/)?([A-Za-z0-9][A-Za-z0-9._-]{0,95})/"
                    r"([A-Za-z0-9][A-Za-z0-9._-]{0,95})(?:@([A-Za-z0-9._/-]{1,100}))?/?$")
CONFIG_REF = re.compile(r"^config:([0-9a-f]{12})$")
# A model named this way is always read from the Hub, even when the catalog knows a model of that
# name: ``advisor estimate --model Qwen/Qwen3-4B`` asks for that repository's own config.json.
HUB_PREFIX = "hf:"


def is_external(name: str) -> bool:
    """A model name that is a Hub reference or a pasted config, not a catalog name."""
    return name.startswith(HUB_PREFIX) or CONFIG_REF.match(name) is not None or parse_hub_id(name) is not None


class HubError(AdvisorError):
    """A model could not be read from the Hub (unreachable, not found, gated)."""


class HubUnreachable(HubError):
    def __init__(self, repo_id: str, endpoint: str, reason: str):
        self.repo_id, self.endpoint = repo_id, endpoint
        super().__init__(
            f"Could not reach the Hugging Face Hub at {endpoint} (HF_ENDPOINT) to read config.json of "
            f"{repo_id}: {reason}. Set HF_ENDPOINT to a Hub or mirror this machine can reach, or pass the "
            "model's config.json with --config.")


class HubNotFound(HubError):
    def __init__(self, repo_id: str, endpoint: str, what: str):
        self.repo_id, self.endpoint = repo_id, endpoint
        super().__init__(f"{repo_id}: {what} on the Hub at {endpoint} (HF_ENDPOINT).")


class HubConfigError(SpecError):
    """A config.json that does not describe a decoder we can model; ``missing`` lists what it lacks."""

    def __init__(self, name: str, missing: list[str], reason: str | None = None):
        self.name, self.missing = name, list(missing)
        what = f"it lacks {', '.join(missing)}" if missing else reason or "it is not a decoder we can model"
        super().__init__(f"Cannot read an architecture from the config.json of {name}: {what}"
                         + (f" ({reason})" if reason and missing else "") + ".")


@dataclass(frozen=True)
class HubModel:
    """An architecture read from a config.json, and where it came from."""

    name: str  # "Qwen/Qwen3-4B" or the name given to a pasted config
    arch: Architecture
    model_type: str
    source: str  # "hub" (read now), "state-db" (kept from an earlier read), "file" (a config.json given)
    revision: str | None = None
    commit: str | None = None
    etag: str | None = None
    config_sha: str = ""
    max_position: int | None = None
    remote_code: bool = False  # the config asks for trust_remote_code: read from its fields only
    fetched_at: float | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def ref(self) -> str:
        """What a request names this model by: the hub id, or ``config:<sha>`` for a pasted config."""
        return self.name if self.source != "file" else f"config:{self.config_sha[:12]}"

    @property
    def label(self) -> str:
        return self.name

    def describe(self, lang: str = "en") -> str:
        """Where the architecture came from, in one line of ``lang``."""
        from advisor.i18n import t

        fields = {"name": self.name, "model_type": self.model_type, "commit": (self.commit or "?")[:10]}
        if self.source == "file":
            text = t("hub.source.file", lang, **fields)
        elif self.source == "state-db" and self.fetched_at:
            text = t("hub.source.state_db", lang, **fields, age=_age(time.time() - self.fetched_at, lang))
        else:
            text = t("hub.source.hub", lang, **fields)
        return text + (t("hub.remote_code", lang) if self.remote_code else "")

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "source": self.source, "model_type": self.model_type, "revision": self.revision,
                "commit": self.commit, "etag": self.etag, "config_sha256": self.config_sha,
                "remote_code": self.remote_code, "params_total": self.arch.params_total,
                "max_position": self.max_position, "notes": list(self.notes)}


def _age(seconds: float, lang: str = "en") -> str:
    from advisor.i18n import t

    if seconds < 3600:
        return t("hub.age.min", lang, n=f"{seconds / 60:.0f}")
    if seconds < 86400:
        return t("hub.age.h", lang, n=f"{seconds / 3600:.0f}")
    return t("hub.age.days", lang, n=f"{seconds / 86400:.0f}")


def parse_hub_id(text: str) -> tuple[str, str | None] | None:
    """("org/name", revision or None) for a hub id or huggingface.co URL, else None."""
    m = HUB_ID.match(text.strip())
    if not m:
        return None
    return f"{m.group(1)}/{m.group(2)}", m.group(3)


# --- config.json -> Architecture --------------------------------------------------------------

@dataclass(frozen=True)
class _Kind:
    mlp: str = "gated"
    norm: str = "rmsnorm"
    tied: bool = False
    qkv_bias: bool = False  # q/k/v biases whatever the config says (Qwen2)


_PLAIN_LN = _Kind("plain", "layernorm", True)
MODEL_TYPES: dict[str, _Kind] = {
    "llama": _Kind(), "mistral": _Kind(), "mixtral": _Kind(), "qwen2": _Kind(qkv_bias=True),
    "qwen2_moe": _Kind(qkv_bias=True), "qwen3": _Kind(), "qwen3_moe": _Kind(), "phi3": _Kind(), "olmo": _Kind(),
    "olmo2": _Kind(), "granite": _Kind(), "smollm3": _Kind(), "deepseek": _Kind(), "internlm2": _Kind(),
    "yi": _Kind(), "gemma": _Kind(tied=True), "gemma2": _Kind(tied=True), "gemma3": _Kind(tied=True),
    "gemma3_text": _Kind(tied=True), "cohere": _Kind("gated", "layernorm", True), "falcon": _PLAIN_LN,
    "starcoder2": _PLAIN_LN, "gpt2": _PLAIN_LN, "gpt_neox": _Kind("plain", "layernorm", False),
    "phi": _Kind("plain", "layernorm", False), "gptj": _Kind("plain", "layernorm", False),
}
_FIELDS = {
    "layers": ("num_hidden_layers", "n_layer", "num_layers"),
    "hidden": ("hidden_size", "n_embd", "d_model"),
    "heads": ("num_attention_heads", "n_head", "num_heads"),
    "vocab": ("vocab_size", "padded_vocab_size"),
    "intermediate": ("intermediate_size", "n_inner", "ffn_dim", "ffn_hidden_size"),
    "kv_heads": ("num_key_value_heads", "num_kv_heads", "n_head_kv"),
}


def _first(config: dict[str, Any], names: tuple[str, ...]) -> Any:
    for name in names:
        if config.get(name) is not None:
            return config[name]
    return None


def architecture_from_config(config: dict[str, Any], name: str = "config.json") -> tuple[Architecture, dict[str, Any]]:
    """The ``Architecture`` a Hugging Face config.json describes, and facts about it (model type,
    max position, whether it asks for remote code, notes). Raises ``HubConfigError``."""
    if not isinstance(config, dict):
        raise HubConfigError(name, [], "config.json is not a JSON object")
    text_part = config.get("text_config") if isinstance(config.get("text_config"), dict) else None
    merged = {**config, **text_part} if text_part else dict(config)
    model_type = str(merged.get("model_type") or config.get("model_type") or "")
    remote_code = bool(config.get("auto_map"))
    kind = MODEL_TYPES.get(model_type)
    notes: list[str] = []
    if kind is None:
        if not remote_code and model_type:
            notes.append(f"model type {model_type!r} is not one we know; read as a Llama-style decoder from its fields")
        kind = _Kind()
    values = {key: _first(merged, names) for key, names in _FIELDS.items()}
    missing = [names[0] for key, names in _FIELDS.items() if values[key] is None and key not in ("intermediate", "kv_heads")]
    if values["intermediate"] is None:
        if kind.mlp == "plain" and values["hidden"]:
            values["intermediate"] = 4 * int(values["hidden"])  # GPT-2 / Falcon / Phi: n_inner None -> 4 x hidden
        else:
            missing.append("intermediate_size")
    if "kv_lora_rank" in merged or "q_lora_rank" in merged:  # DeepSeek-V2/V3 multi-head latent attention
        raise HubConfigError(name, [], "multi-head latent attention (kv_lora_rank) is not modeled")
    if merged.get("shared_expert_intermediate_size") or merged.get("n_shared_experts"):
        raise HubConfigError(name, [], "shared experts are not modeled")
    if missing:
        raise HubConfigError(name, missing)
    heads = int(values["heads"])
    kv = values["kv_heads"]
    if kv is None:
        kv = 1 if merged.get("multi_query") and not merged.get("new_decoder_architecture") else heads
    experts = int(_first(merged, ("num_local_experts", "num_experts", "n_routed_experts")) or 0)
    per_token = int(merged.get("num_experts_per_tok") or 0) if experts else 0
    intermediate = int(values["intermediate"])
    if experts:
        if int(merged.get("decoder_sparse_step") or 1) != 1 or merged.get("mlp_only_layers"):
            raise HubConfigError(name, [], "dense layers between mixture-of-experts layers are not modeled")
        intermediate = int(merged.get("moe_intermediate_size") or intermediate)
    hidden = int(values["hidden"])
    head_dim = int(merged.get("head_dim") or hidden // heads)
    tied = merged.get("tie_word_embeddings")
    if tied is None:
        tied = config.get("tie_word_embeddings", kind.tied)
    bias = bool(merged.get("attention_bias") or merged.get("use_bias") or merged.get("bias") or kind.qkv_bias)
    try:
        arch = Architecture(layers=int(values["layers"]), hidden=hidden, intermediate=intermediate, heads=heads,
                            kv_heads=int(kv), head_dim=head_dim, vocab=int(values["vocab"]), tied_embeddings=bool(tied),
                            mlp_kind=kind.mlp, norm=kind.norm, attn_bias=bias, experts=experts,
                            experts_per_token=per_token)
    except (ValueError, TypeError) as exc:
        raise HubConfigError(name, [], f"its fields do not form a valid decoder: {exc}") from None
    max_position = _first(merged, ("max_position_embeddings", "n_positions", "seq_length", "max_sequence_length"))
    facts = {"model_type": model_type or "unknown", "remote_code": remote_code,
             "max_position": int(max_position) if isinstance(max_position, (int, float)) else None, "notes": notes}
    return arch, facts


def config_sha(config: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(config, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def read_config(config: dict[str, Any], name: str = "config.json") -> HubModel:
    """A pasted or local config.json as a ``HubModel`` (source "file")."""
    arch, facts = architecture_from_config(config, name)
    return HubModel(name=name, arch=arch, model_type=facts["model_type"], source="file", config_sha=config_sha(config),
                    max_position=facts["max_position"], remote_code=facts["remote_code"], notes=tuple(facts["notes"]))


def read_config_file(path: str | Path) -> HubModel:
    """``--config path/to/config.json``."""
    p = Path(path)
    try:
        config = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise HubConfigError(str(p), [], f"cannot read the file ({exc.strerror or exc})") from None
    except json.JSONDecodeError as exc:
        raise HubConfigError(str(p), [], f"it is not JSON ({exc.msg} at line {exc.lineno})") from None
    name = p.parent.name if p.name == "config.json" and p.parent.name else p.stem
    return read_config(config, name=name)


# --- the Hub, and the state database --------------------------------------------------------------

_SCHEMA = """
CREATE TABLE IF NOT EXISTS hub_configs (
    repo_id TEXT NOT NULL,
    revision TEXT NOT NULL,       -- as asked: "main", a tag, a commit; "config" for a pasted config
    commit_sha TEXT,              -- what the Hub resolved the revision to (X-Repo-Commit)
    etag TEXT,                    -- of config.json
    config_sha TEXT NOT NULL,     -- sha256 of the JSON (sorted keys)
    config TEXT NOT NULL,         -- the JSON itself
    fetched_at REAL NOT NULL,     -- unix time
    PRIMARY KEY (repo_id, revision)
);
"""


class HubReader:
    """Reads config.json of Hub models (and pasted configs) through the state database."""

    def __init__(self, state_db: str | Path | None = None, *, endpoint: str | None = None,
                 cache_dir: str | Path | None = None, token: str | None = None, timeout_s: float = TIMEOUT_S,
                 max_age_s: float = MAX_AGE_S):
        self.state_db = Path(state_db) if state_db else None
        self.endpoint = (endpoint or DEFAULT_ENDPOINT).rstrip("/")
        self.cache_dir = str(cache_dir) if cache_dir else None
        self.token = token
        self.timeout_s, self.max_age_s = timeout_s, max_age_s
        self._memory: dict[tuple[str, str], HubModel] = {}
        self._ready = False

    # --- state database ---

    def _db(self):
        from advisor import statedb

        if not self._ready:
            statedb.prepare(self.state_db)
            with statedb.connect(self.state_db) as conn:
                conn.executescript(_SCHEMA)
            self._ready = True
        return statedb.connect(self.state_db)

    def _stored(self, repo_id: str, revision: str) -> tuple[dict[str, Any], str | None, str | None, float] | None:
        if self.state_db is None:
            return None
        with self._db() as conn:
            row = conn.execute("SELECT config, commit_sha, etag, fetched_at FROM hub_configs WHERE repo_id = ? AND "
                               "revision = ?", (repo_id, revision)).fetchone()
        return (json.loads(row[0]), row[1], row[2], row[3]) if row else None

    def _store(self, repo_id: str, revision: str, config: dict[str, Any], commit: str | None, etag: str | None) -> float:
        now = time.time()
        if self.state_db is not None:
            with self._db() as conn:
                conn.execute("INSERT OR REPLACE INTO hub_configs VALUES (?, ?, ?, ?, ?, ?, ?)",
                             (repo_id, revision, commit, etag, config_sha(config), json.dumps(config), now))
        return now

    # --- models ---

    def add(self, model: HubModel) -> None:
        """A model read elsewhere (``--config``): answer for its ``ref`` without reading it again."""
        self._memory[(model.ref, "config" if model.source == "file" else model.revision or "main")] = model

    def remember_config(self, config: dict[str, Any], name: str = "config.json") -> HubModel:
        """A pasted config.json: read it, keep it under ``config:<sha>`` so a thread can name it later."""
        model = read_config(config, name)
        self._store(model.ref, "config", config, None, None)
        self._memory[(model.ref, "config")] = model
        return model

    def model(self, ref: str, revision: str | None = None) -> HubModel:
        """The architecture of a hub id ("Qwen/Qwen3-4B", "hf:Qwen/Qwen3-4B", a huggingface.co URL,
        "org/name@rev") or of a remembered pasted config ("config:<sha>")."""
        ref = ref.removeprefix(HUB_PREFIX)
        pasted = CONFIG_REF.match(ref)
        if pasted:
            return self._pasted(ref)
        parsed = parse_hub_id(ref)
        if parsed is None:
            raise HubNotFound(ref, self.endpoint, "not a Hugging Face model id (org/name)")
        repo_id, at = parsed
        revision = revision or at or "main"
        key = (repo_id, revision)
        if key in self._memory:
            return self._memory[key]
        stored = self._stored(repo_id, revision)
        if stored is not None and time.time() - stored[3] < self.max_age_s:
            model = self._model(repo_id, revision, stored[0], "state-db", stored[1], stored[2], stored[3])
        else:
            try:
                config, commit, etag = self._download(repo_id, revision)
            except HubUnreachable:
                if stored is None:
                    raise
                model = self._model(repo_id, revision, stored[0], "state-db", stored[1], stored[2], stored[3])
                model = _with_note(model, "the Hub could not be reached; using the config read earlier")
            else:
                fetched = self._store(repo_id, revision, config, commit, etag)
                model = self._model(repo_id, revision, config, "hub", commit, etag, fetched)
        self._memory[key] = model
        return model

    def _pasted(self, ref: str) -> HubModel:
        if (ref, "config") in self._memory:
            return self._memory[(ref, "config")]
        stored = self._stored(ref, "config")
        if stored is None:
            raise HubConfigError(ref, [], "that pasted config.json is no longer known; paste it again")
        model = read_config(stored[0], name="config.json")
        self._memory[(ref, "config")] = model
        return model

    def _model(self, repo_id: str, revision: str, config: dict[str, Any], source: str, commit: str | None,
               etag: str | None, fetched: float | None) -> HubModel:
        arch, facts = architecture_from_config(config, repo_id)
        return HubModel(name=repo_id, arch=arch, model_type=facts["model_type"], source=source, revision=revision,
                        commit=commit, etag=etag, config_sha=config_sha(config), max_position=facts["max_position"],
                        remote_code=facts["remote_code"], fetched_at=fetched, notes=tuple(facts["notes"]))

    def _download(self, repo_id: str, revision: str) -> tuple[dict[str, Any], str | None, str | None]:
        """config.json through huggingface_hub: one HEAD without retries first (an unreachable Hub
        answers in ``timeout_s``, not after hf_hub_download's backoff of about half a minute), then
        ``hf_hub_download`` (its HEAD, same-host redirects, ETag check and disk cache)."""
        import httpx2  # huggingface_hub's HTTP client (a dependency of huggingface_hub 2.x)
        from huggingface_hub import constants as hf_constants
        from huggingface_hub import get_hf_file_metadata, hf_hub_download, hf_hub_url

        # Only config.json: with telemetry on, huggingface_hub 2.4 also fetches
        # {HF_ENDPOINT at import}/api/agent-harnesses and imports torch to name its version in the
        # user agent (utils/_headers.py, _http_user_agent; utils/_detect_agent.py). Off, for this process.
        hf_constants.HF_HUB_DISABLE_TELEMETRY = True
        from huggingface_hub.errors import (EntryNotFoundError, GatedRepoError, HfHubHTTPError,
                                            LocalEntryNotFoundError, RepositoryNotFoundError, RevisionNotFoundError)

        url = hf_hub_url(repo_id, "config.json", revision=revision, endpoint=self.endpoint)
        try:
            try:
                get_hf_file_metadata(url, token=self.token, timeout=self.timeout_s, endpoint=self.endpoint)
            except (httpx2.TransportError, OSError) as exc:
                if isinstance(exc, HfHubHTTPError):
                    raise
                try:  # the Hub is away: the hub cache may still hold this revision's config.json
                    path = hf_hub_download(repo_id, "config.json", revision=revision, endpoint=self.endpoint,
                                           cache_dir=self.cache_dir, local_files_only=True)
                except (LocalEntryNotFoundError, OSError):
                    raise HubUnreachable(repo_id, self.endpoint, _reason(exc)) from None
            else:
                path = hf_hub_download(repo_id, "config.json", revision=revision, endpoint=self.endpoint,
                                       cache_dir=self.cache_dir, token=self.token, etag_timeout=self.timeout_s)
        except GatedRepoError:
            raise HubNotFound(repo_id, self.endpoint, "the repository is gated (accept its license on the Hub and "
                                                      "set HF_TOKEN)") from None
        except RepositoryNotFoundError:
            raise HubNotFound(repo_id, self.endpoint, "no such model repository (or it is private)") from None
        except RevisionNotFoundError:
            raise HubNotFound(repo_id, self.endpoint, f"no revision {revision!r}") from None
        except EntryNotFoundError:
            raise HubNotFound(repo_id, self.endpoint, "the repository has no config.json") from None
        except LocalEntryNotFoundError as exc:
            raise HubUnreachable(repo_id, self.endpoint, _reason(exc)) from None
        except HfHubHTTPError as exc:
            raise HubUnreachable(repo_id, self.endpoint, _reason(exc)) from None
        except OSError as exc:  # a malformed answer (no X-Repo-Commit: not a Hub endpoint), a proxy error
            raise HubUnreachable(repo_id, self.endpoint, _reason(exc)) from None
        try:
            config = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise HubConfigError(repo_id, [], f"its config.json is not JSON ({exc})") from None
        # The hub cache layout (huggingface_hub file_download.py): snapshots/<commit>/config.json, a link
        # to blobs/<etag>; both name what was read.
        snapshot = Path(path).parent.name
        commit = snapshot if re.fullmatch(r"[0-9a-f]{40}", snapshot) else None
        blob = Path(path).resolve().name
        etag = blob if re.fullmatch(r"[0-9a-f]{40,64}", blob) else None
        return config, commit, etag


def external_model(name: str, catalog: Any, models: HubReader | None) -> HubModel | None:
    """How ``advisor.resolve`` reads a model the catalog does not hold: None for a catalog name;
    the Hub's config for an "org/name" the catalog does not know, for anything named "hf:org/name"
    and for a pasted config ("config:<sha>"). A name that is neither raises the catalog's
    ``UnknownModel`` with the closest catalog matches."""
    from advisor.errors import UnknownModel

    forced = name.startswith(HUB_PREFIX) or CONFIG_REF.match(name) is not None
    if not forced and catalog.find_model(name) is not None:
        return None
    if not forced and parse_hub_id(name) is None:
        catalog.model(name)  # raises UnknownModel with suggestions
        return None
    if models is None:
        if name.startswith(HUB_PREFIX) and catalog.find_model(name.removeprefix(HUB_PREFIX)) is not None:
            return None  # no Hub to read here (a pilot, a launch config): the catalog's copy of that repo
        raise UnknownModel(name.removeprefix(HUB_PREFIX), catalog_suggestions(name.removeprefix(HUB_PREFIX), catalog))
    return models.model(name)


def catalog_name(name: str) -> str:
    """A model name as the catalog knows it ("hf:Qwen/Qwen3-4B" -> "Qwen/Qwen3-4B")."""
    return name.removeprefix(HUB_PREFIX)


def catalog_suggestions(name: str, catalog: Any, n: int = 3) -> list[str]:
    try:
        catalog.model(name.split("/")[-1])
    except Exception as exc:  # noqa: BLE001 - UnknownModel carries the suggestions we want
        return list(getattr(exc, "suggestions", []))[:n]
    return []


def _with_note(model: HubModel, note: str) -> HubModel:
    from dataclasses import replace

    return replace(model, notes=model.notes + (note,))


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    first = next((line for line in text if line.strip()), type(exc).__name__)
    return first[:200]
