"""Decoder architectures: the shapes the memory model, the trace and the pilot all build from.

An ``Architecture`` is what a Hugging Face ``config.json`` says about a decoder-only LLM, reduced to
the numbers that decide parameter counts, activation sizes and FLOPs. Parameter counts are computed
from the shape (and checked against the published totals in ``tests/test_catalog.py``).
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

MlpKind = Literal["gated", "plain"]
NormKind = Literal["rmsnorm", "layernorm"]


class Architecture(BaseModel):
    """The shape of a decoder-only transformer (Llama-style unless the fields say otherwise)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    layers: int = Field(ge=1, le=1024)
    hidden: int = Field(ge=8, le=65536)
    intermediate: int = Field(ge=8, le=262144, description="MLP inner size (per expert for MoE)")
    heads: int = Field(ge=1, le=1024)
    kv_heads: int = Field(ge=1, le=1024)
    head_dim: int = Field(ge=4, le=1024)
    vocab: int = Field(ge=2, le=1_048_576)
    tied_embeddings: bool = False
    mlp_kind: MlpKind = "gated"
    norm: NormKind = "rmsnorm"
    attn_bias: bool = False
    experts: int = Field(default=0, ge=0, le=512, description="MoE experts per layer; 0 = dense")
    experts_per_token: int = Field(default=0, ge=0, le=64)

    @model_validator(mode="after")
    def _check(self) -> "Architecture":
        if self.heads % self.kv_heads:
            raise ValueError(
                f"heads ({self.heads}) must be a multiple of kv_heads ({self.kv_heads}) for "
                "grouped-query attention"
            )
        if self.experts and not 1 <= self.experts_per_token <= self.experts:
            raise ValueError("a MoE needs 1 <= experts_per_token <= experts")
        return self

    # --- parameter counts (exact for Llama/Mistral/Qwen/Gemma-style blocks) -----------------------

    @property
    def q_dim(self) -> int:
        return self.heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        return self.kv_heads * self.head_dim

    @property
    def mlp_matrices(self) -> int:
        """Weight matrices of one MLP: gate, up, down (SwiGLU/GeGLU) or up, down (GELU)."""
        return 3 if self.mlp_kind == "gated" else 2

    def linear_shapes(self) -> dict[str, tuple[int, int]]:
        """(in_features, out_features) of each linear of one block, per expert for the MLP."""
        shapes = {
            "q_proj": (self.hidden, self.q_dim),
            "k_proj": (self.hidden, self.kv_dim),
            "v_proj": (self.hidden, self.kv_dim),
            "o_proj": (self.q_dim, self.hidden),
            "up_proj": (self.hidden, self.intermediate),
            "down_proj": (self.intermediate, self.hidden),
        }
        if self.mlp_kind == "gated":
            shapes["gate_proj"] = (self.hidden, self.intermediate)
        return shapes

    @property
    def n_experts_stored(self) -> int:
        return max(self.experts, 1)

    @property
    def attn_params_per_layer(self) -> int:
        weights = 2 * self.hidden * self.q_dim + 2 * self.hidden * self.kv_dim
        bias = (self.q_dim + 2 * self.kv_dim) if self.attn_bias else 0
        return weights + bias

    @property
    def mlp_params_per_layer(self) -> int:
        per_expert = self.mlp_matrices * self.hidden * self.intermediate
        router = self.hidden * self.experts if self.experts else 0
        return per_expert * self.n_experts_stored + router

    @property
    def norm_params_per_layer(self) -> int:
        # two norms per block; LayerNorm has a bias as well as a weight
        return 2 * self.hidden * (2 if self.norm == "layernorm" else 1)

    @property
    def params_per_layer(self) -> int:
        return self.attn_params_per_layer + self.mlp_params_per_layer + self.norm_params_per_layer

    @property
    def params_embedding(self) -> int:
        """Input embedding (the LM head is counted separately unless tied)."""
        return self.vocab * self.hidden

    @property
    def params_head(self) -> int:
        return 0 if self.tied_embeddings else self.vocab * self.hidden

    @property
    def params_final_norm(self) -> int:
        return self.hidden * (2 if self.norm == "layernorm" else 1)

    @property
    def params_total(self) -> int:
        return (
            self.layers * self.params_per_layer
            + self.params_embedding
            + self.params_head
            + self.params_final_norm
        )

    @property
    def params_linear(self) -> int:
        """Parameters inside the blocks' linear layers (what QLoRA quantizes)."""
        per_layer = 2 * self.hidden * self.q_dim + 2 * self.hidden * self.kv_dim
        per_layer += self.mlp_matrices * self.hidden * self.intermediate * self.n_experts_stored
        return self.layers * per_layer


# Reference shapes used to infer an architecture from a bare parameter count ("a 13B model").
# Each is a published Llama-family config (Llama 2 / Llama 3 / Qwen 2.5 / SmolLM2 config.json);
# inference picks the nearest one (in log-size) and scales its depth to the requested size.
_LADDER: list[tuple[str, Architecture]] = [
    ("smollm2-135m", Architecture(layers=30, hidden=576, intermediate=1536, heads=9, kv_heads=3, head_dim=64, vocab=49152, tied_embeddings=True)),
    ("qwen2.5-0.5b", Architecture(layers=24, hidden=896, intermediate=4864, heads=14, kv_heads=2, head_dim=64, vocab=151936, tied_embeddings=True, attn_bias=True)),
    ("llama-3.2-1b", Architecture(layers=16, hidden=2048, intermediate=8192, heads=32, kv_heads=8, head_dim=64, vocab=128256, tied_embeddings=True)),
    ("llama-3.2-3b", Architecture(layers=28, hidden=3072, intermediate=8192, heads=24, kv_heads=8, head_dim=128, vocab=128256, tied_embeddings=True)),
    ("llama-3.1-8b", Architecture(layers=32, hidden=4096, intermediate=14336, heads=32, kv_heads=8, head_dim=128, vocab=128256)),
    ("llama-2-13b", Architecture(layers=40, hidden=5120, intermediate=13824, heads=40, kv_heads=40, head_dim=128, vocab=32000)),
    ("qwen2.5-32b", Architecture(layers=64, hidden=5120, intermediate=27648, heads=40, kv_heads=8, head_dim=128, vocab=152064, attn_bias=True)),
    ("llama-3.1-70b", Architecture(layers=80, hidden=8192, intermediate=28672, heads=64, kv_heads=8, head_dim=128, vocab=128256)),
    ("llama-3.1-405b", Architecture(layers=126, hidden=16384, intermediate=53248, heads=128, kv_heads=8, head_dim=128, vocab=128256)),
]


def infer_architecture(params: float) -> tuple[Architecture, str]:
    """A plausible Llama-style architecture with about ``params`` parameters.

    Returns the architecture and the name of the reference shape it was scaled from. Width comes
    from the nearest reference (log distance); depth is then chosen so the total matches.
    """
    if not params > 0:
        raise ValueError("parameter count must be positive")
    name, ref = min(_LADDER, key=lambda item: abs(math.log(item[1].params_total / params)))
    fixed = ref.params_embedding + ref.params_head + ref.params_final_norm
    layers = max(1, round((params - fixed) / ref.params_per_layer))
    return ref.model_copy(update={"layers": layers}), name
