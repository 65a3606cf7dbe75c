"""The hf runtime's pure parts (config mapping) and its answer when the extra is missing."""

from __future__ import annotations

import pytest

from advisor.errors import MissingExtra, PilotError
from advisor.pilot.hf_stack import _imports, hf_config
from tests.conftest import have


@pytest.mark.parametrize("model, model_type, extra", [
    ("llama-3.1-8b", "llama", {"num_key_value_heads": 8, "head_dim": 128, "tie_word_embeddings": False}),
    ("qwen2.5-7b", "qwen2", {"vocab_size": 152064}),
    ("mixtral-8x7b", "mixtral", {"num_local_experts": 8, "num_experts_per_tok": 2}),
    ("llama-3.2-1b", "llama", {"tie_word_embeddings": True, "num_hidden_layers": 16}),
])
def test_catalog_architectures_map_to_transformers_configs(catalog, model, model_type, extra):
    cfg = hf_config(catalog.model(model).arch)
    assert cfg["model_type"] == model_type and cfg["hidden_size"] == catalog.model(model).arch.hidden
    assert {k: cfg[k] for k in extra} == extra


def test_plain_mlp_architectures_are_refused_with_the_alternative(catalog):
    plain = catalog.model("tiny-test").arch.model_copy(update={"mlp_kind": "plain", "norm": "layernorm"})
    with pytest.raises(PilotError, match="--runtime reference"):
        hf_config(plain)


@pytest.mark.skipif(have("transformers") and have("peft"), reason="transformers and peft are installed")
def test_missing_transformers_is_a_missing_extra():
    with pytest.raises(MissingExtra, match=r"pip install 'finetune-advisor\[hf\]'"):
        _imports(qlora=False, optimizer="adamw")
