"""One pure-torch Llama-style reference decoder (also GPT-NeoX/Falcon-style via the
Architecture's norm and MLP kinds, and Mixtral-style MoE).

Blocks follow Hugging Face transformers' modeling_llama.py operation by operation (RMSNorm in
fp32, rotary embeddings cast to the activation dtype, SDPA or eager attention, SwiGLU MLP), so the
tensors alive at each moment are the ones a real run keeps.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

from advisor.model.layers import Runtime

ROPE_THETA = 10_000.0  # Llama 2 rope_theta; the value does not change memory or FLOPs
NORM_EPS = 1e-5  # Llama config rms_norm_eps


class Norm(nn.Module):
    """LlamaRMSNorm (hidden in fp32, weight * normed.to(input dtype)) or LayerNorm."""

    def __init__(self, hidden: int, kind: str, *, dtype, device, trainable: bool):
        super().__init__()
        self.kind = kind
        self.weight = nn.Parameter(torch.ones(hidden, dtype=dtype, device=device), requires_grad=trainable)
        self.bias = (nn.Parameter(torch.zeros(hidden, dtype=dtype, device=device), requires_grad=trainable)
                     if kind == "layernorm" else None)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.kind == "layernorm":
            return F.layer_norm(x.to(self.weight.dtype), (x.shape[-1],), self.weight, self.bias, NORM_EPS)
        input_dtype = x.dtype
        h = x.to(torch.float32)
        variance = h.pow(2).mean(-1, keepdim=True)
        h = h * torch.rsqrt(variance + NORM_EPS)
        return self.weight * h.to(input_dtype)


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rope_tables(seq_len: int, head_dim: int, dtype, device) -> tuple[torch.Tensor, torch.Tensor]:
    """cos/sin of LlamaRotaryEmbedding, computed in fp32 and cast to the activation dtype."""
    inv_freq = 1.0 / (ROPE_THETA ** (torch.arange(0, head_dim, 2, dtype=torch.float32, device=device) / head_dim))
    pos = torch.arange(seq_len, dtype=torch.float32, device=device)
    emb = torch.cat((torch.outer(pos, inv_freq),) * 2, dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


class Attention(nn.Module):
    def __init__(self, arch, make_linear: Callable, attention: str, rt: Runtime):
        super().__init__()
        self.rt = rt
        self.heads, self.kv_heads, self.head_dim = arch.heads, arch.kv_heads, arch.head_dim
        self.attention = attention
        h, q, kv = arch.hidden, arch.q_dim, arch.kv_dim
        self.q_proj = make_linear("q_proj", h, q, arch.attn_bias)
        self.k_proj = make_linear("k_proj", h, kv, arch.attn_bias)
        self.v_proj = make_linear("v_proj", h, kv, arch.attn_bias)
        self.o_proj = make_linear("o_proj", q, h, False)

    def forward(self, x, cos, sin):
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        # rotary tables have the embedding's dtype (transformers casts cos/sin to hidden_states'
        # dtype), so with fp32 embeddings q/k are fp32 here; attention runs in the compute dtype
        # (autocast casts them; without autocast bitsandbytes' compute dtype decides)
        cd = self.rt.compute_dtype
        q, k, v = q.to(cd), k.to(cd), v.to(cd)
        if self.attention == "flash":
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=self.kv_heads != self.heads)
        else:
            o = self._eager(q, k, v)
        return self.o_proj(o.transpose(1, 2).reshape(b, s, self.heads * self.head_dim))

    def _eager(self, q, k, v):
        """transformers eager_attention_forward: repeat_kv, scores materialized (seq x seq),
        additive causal mask, softmax upcast to fp32, cast back, probs @ v."""
        groups = self.heads // self.kv_heads
        if groups > 1:
            b, kvh, s, d = k.shape
            k = k[:, :, None].expand(b, kvh, groups, s, d).reshape(b, kvh * groups, s, d)
            v = v[:, :, None].expand(b, kvh, groups, s, d).reshape(b, kvh * groups, s, d)
        s = q.shape[-2]
        scores = torch.matmul(q, k.transpose(2, 3)) * self.head_dim ** -0.5
        mask = torch.full((s, s), torch.finfo(q.dtype).min, dtype=q.dtype, device=q.device).triu(1)
        scores = scores + mask
        probs = F.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype)
        return torch.matmul(probs, v)


class Mlp(nn.Module):
    def __init__(self, arch, make_linear: Callable, prefix: str = ""):
        super().__init__()
        self.gated = arch.mlp_kind == "gated"
        h, i = arch.hidden, arch.intermediate
        if self.gated:
            self.gate_proj = make_linear(prefix + "gate_proj", h, i, False)
        self.up_proj = make_linear(prefix + "up_proj", h, i, False)
        self.down_proj = make_linear(prefix + "down_proj", i, h, False)

    def forward(self, x):
        if self.gated:
            return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))
        return self.down_proj(F.gelu(self.up_proj(x)))


class MoeMlp(nn.Module):
    """Mixture of experts with static shapes: expert-choice routing (Zhou et al. 2022), each
    expert takes its top ``capacity = tokens * k / experts`` tokens. Memory and FLOPs equal
    perfectly balanced token-choice top-k routing (Mixtral), and no shape depends on data, so
    the fake-tensor trace runs it."""

    def __init__(self, arch, make_linear: Callable, router: nn.Module):
        super().__init__()
        self.k, self.n = arch.experts_per_token, arch.experts
        self.router = router
        self.experts = nn.ModuleList(Mlp(arch, make_linear, f"experts.{e}.") for e in range(arch.experts))

    def forward(self, x):
        b, s, h = x.shape
        flat = x.reshape(b * s, h)
        probs = F.softmax(self.router(flat), dim=-1, dtype=torch.float32)  # (tokens, experts)
        capacity = max(1, -(-b * s * self.k // self.n))
        out = None
        for e, expert in enumerate(self.experts):
            weight, idx = probs[:, e].topk(capacity)
            y = expert(flat[idx]) * weight[:, None].to(flat.dtype)
            if out is None:  # the experts' output dtype (compute dtype under autocast)
                out = torch.zeros(flat.shape, dtype=y.dtype, device=flat.device)
            out.index_add_(0, idx, y)
        return out.view(b, s, h)


class Block(nn.Module):
    def __init__(self, arch, rt: Runtime, make_linear: Callable, make_norm: Callable, attention: str, make_router):
        super().__init__()
        self.input_norm = make_norm()
        self.attn = Attention(arch, make_linear, attention, rt)
        self.post_norm = make_norm()
        self.mlp = MoeMlp(arch, make_linear, make_router()) if arch.experts else Mlp(arch, make_linear)

    def forward(self, x, cos, sin):
        x = x + self.attn(self.input_norm(x), cos, sin)
        return x + self.mlp(self.post_norm(x))


class Decoder(nn.Module):
    """Embedding, blocks, final norm, LM head (tied or not). ``forward`` returns the mean
    next-token cross-entropy; see ``advisor.model.step.causal_lm_loss`` for the stack switches."""

    def __init__(self, arch, rt: Runtime, *, embed: nn.Parameter, head: nn.Parameter | None,
                 blocks: list[Block], final_norm: Norm, checkpointing: bool, loss_fn: Callable):
        super().__init__()
        self.arch, self.rt = arch, rt
        self.embed = embed
        self.head = head  # None when tied to the embedding
        self.blocks = nn.ModuleList(blocks)
        self.final_norm = final_norm
        self.checkpointing = checkpointing
        self.loss_fn = loss_fn

    @property
    def head_weight(self) -> torch.Tensor:
        return self.embed if self.head is None else self.head

    def forward(self, input_ids: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        rt = self.rt
        rt.caching = True
        try:
            x = F.embedding(input_ids, self.embed)
            cos, sin = rope_tables(input_ids.shape[1], self.arch.head_dim, x.dtype, input_ids.device)
            for block in self.blocks:
                if self.checkpointing and self.training:
                    x = checkpoint(block, x, cos, sin, use_reentrant=False)
                else:
                    x = block(x, cos, sin)
            x = self.final_norm(x)
            return self.loss_fn(x, self.head_weight, labels, rt)
        finally:
            rt.end_forward()
