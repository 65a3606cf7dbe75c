"""``runtime='hf'``: the pilot's step through the stack teams run — transformers
(``AutoModelForCausalLM``), PEFT LoRA and bitsandbytes 4-bit — instead of advisor's decoder.

Random weights are made from the catalog architecture (``AutoModelForCausalLM.from_config``)
directly on the device in the target dtype; under QLoRA the skeleton is built on the meta device
and each decoder layer is materialised and quantized in turn, so a 70B QLoRA pilot never holds
the 16-bit model. Real weights come from a local directory the user names (``weights_dir``,
``from_pretrained`` loads shard by shard). Needs the ``hf`` extra (transformers, peft,
bitsandbytes on CUDA).
"""

from __future__ import annotations

from typing import Any

from advisor.errors import MissingExtra, PilotError

# transformers' defaults for Llama-family configs (LlamaConfig): initializer_range, rms_norm_eps.
INIT_STD = 0.02
RMS_NORM_EPS = 1e-5
LEARNING_RATE = 1e-4  # a common LoRA/QLoRA recipe value (QLoRA paper: 1e-4 to 2e-4)
LORA_MODULES = {
    "all-linear": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
    "attention": ["q_proj", "k_proj", "v_proj", "o_proj"],
}


def hf_config(arch) -> dict[str, Any]:
    """transformers config kwargs for a catalog architecture (Llama, Qwen2 with q/k/v bias, or
    Mixtral for mixture-of-experts). Raises PilotError for shapes transformers' Llama-family
    classes cannot express (plain GELU MLPs, LayerNorm blocks)."""
    if arch.mlp_kind != "gated" or arch.norm != "rmsnorm":
        raise PilotError("The hf runtime builds Llama-family decoders (gated MLP, RMSNorm); this architecture "
                         f"has a {arch.mlp_kind} MLP and {arch.norm}. Use --runtime reference.")
    model_type = "mixtral" if arch.experts else ("qwen2" if arch.attn_bias else "llama")
    config: dict[str, Any] = {
        "model_type": model_type, "vocab_size": arch.vocab, "hidden_size": arch.hidden,
        "intermediate_size": arch.intermediate, "num_hidden_layers": arch.layers,
        "num_attention_heads": arch.heads, "num_key_value_heads": arch.kv_heads, "head_dim": arch.head_dim,
        "tie_word_embeddings": arch.tied_embeddings, "hidden_act": "silu", "rms_norm_eps": RMS_NORM_EPS,
        "initializer_range": INIT_STD, "use_cache": False,
    }
    if model_type == "llama":
        config["attention_bias"] = False
    if arch.experts:
        config.update(num_local_experts=arch.experts, num_experts_per_tok=arch.experts_per_token)
    return config


def _imports(qlora: bool, optimizer: str):
    try:
        import peft
        import transformers
    except ImportError as exc:
        raise MissingExtra("The hf pilot runtime (transformers + PEFT)", "hf", exc.name or "transformers") from None
    bnb = None
    if qlora or optimizer in ("adamw-8bit", "paged-adamw-8bit"):
        try:
            import bitsandbytes as bnb
        except ImportError:
            raise MissingExtra("QLoRA and 8-bit optimizers in the hf pilot runtime", "hf", "bitsandbytes") from None
    return transformers, peft, bnb


def _dtype(torch, precision: str):
    return {"bf16-mixed": torch.bfloat16, "bf16": torch.bfloat16, "fp16-mixed": torch.float16,
            "fp32": torch.float32}[precision]


def _quantize_layer(torch, bnb, layer, device, dtype, double_quant: bool) -> None:
    """Materialise one meta-device decoder layer on ``device`` and swap its linears for 4-bit."""
    layer.to_empty(device=device)
    for name, module in list(layer.named_modules()):
        if isinstance(module, torch.nn.Linear):
            weight = torch.empty(module.out_features, module.in_features, dtype=dtype, device=device)
            weight.normal_(0.0, INIT_STD)
            q = bnb.nn.Linear4bit(module.in_features, module.out_features, bias=module.bias is not None,
                                  compute_dtype=dtype, compress_statistics=double_quant, quant_type="nf4",
                                  device="meta")
            q.weight = bnb.nn.Params4bit(weight, requires_grad=False, compress_statistics=double_quant,
                                         quant_type="nf4").to(device)
            if module.bias is not None:
                q.bias = torch.nn.Parameter(torch.zeros(module.out_features, dtype=dtype, device=device))
            parent_name, _, child = name.rpartition(".")
            setattr(layer.get_submodule(parent_name) if parent_name else layer, child, q)
            del weight
        elif hasattr(module, "weight") and module.weight is not None and not list(module.children()):
            torch.nn.init.ones_(module.weight) if "norm" in name.lower() else module.weight.data.normal_(0.0, INIT_STD)


def _model(torch, transformers, bnb, pspec, device):
    spec, dtype = pspec.spec, _dtype(torch, pspec.spec.precision)
    attn = "sdpa" if spec.attention == "flash" else "eager"
    if pspec.weights_dir:
        kwargs: dict[str, Any] = {"torch_dtype": dtype, "attn_implementation": attn, "device_map": {"": device}}
        if spec.method == "qlora":
            kwargs["quantization_config"] = transformers.BitsAndBytesConfig(
                load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=spec.double_quant,
                bnb_4bit_compute_dtype=dtype)
        return transformers.AutoModelForCausalLM.from_pretrained(pspec.weights_dir, **kwargs)
    config = transformers.AutoConfig.for_model(**hf_config(pspec.arch))
    if spec.method != "qlora":
        with torch.device(device):
            return transformers.AutoModelForCausalLM.from_config(config, torch_dtype=dtype, attn_implementation=attn)
    if device.type != "cuda":
        raise PilotError("bitsandbytes 4-bit needs a CUDA GPU; run this QLoRA pilot on a GPU node or use "
                         "--runtime reference (the byte-faithful NF4 stand-in).")
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(config, torch_dtype=dtype, attn_implementation=attn)
    for layer in model.model.layers:
        _quantize_layer(torch, bnb, layer, device, dtype, spec.double_quant)
    for module in (model.model.embed_tokens, model.model.norm, model.lm_head):
        module.to_empty(device=device)
    model.model.embed_tokens.weight.data.normal_(0.0, INIT_STD)
    model.lm_head.weight.data.normal_(0.0, INIT_STD)
    torch.nn.init.ones_(model.model.norm.weight)
    if hasattr(model.model, "rotary_emb"):
        model.model.rotary_emb.to_empty(device=device)
        model.model.rotary_emb.__init__(config=config, device=device)
    return model


def _optimizer(torch, bnb, params, spec):
    impl = {"foreach": {"foreach": True}, "fused": {"fused": True}, "for-loop": {"foreach": False}}[spec.optimizer_impl]
    if spec.optimizer == "adamw":
        return torch.optim.AdamW(params, lr=LEARNING_RATE, **impl)
    if spec.optimizer == "adamw-8bit":
        return bnb.optim.AdamW8bit(params, lr=LEARNING_RATE)
    if spec.optimizer == "paged-adamw-8bit":
        return bnb.optim.PagedAdamW8bit(params, lr=LEARNING_RATE)
    return torch.optim.SGD(params, lr=LEARNING_RATE)


def build(pspec, device):
    """(model, step(mark), description), like the reference runtime's."""
    import torch

    spec = pspec.spec
    transformers, peft, bnb = _imports(spec.method == "qlora", spec.optimizer)
    model = _model(torch, transformers, bnb, pspec, device)
    if spec.gradient_checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    if spec.method == "qlora":
        model = peft.prepare_model_for_kbit_training(model, use_gradient_checkpointing=spec.gradient_checkpointing)
    if spec.trains_adapters:
        model = peft.get_peft_model(model, peft.LoraConfig(
            r=spec.lora_rank, lora_alpha=spec.lora_alpha, lora_dropout=spec.lora_dropout,
            target_modules=LORA_MODULES[spec.lora_targets], task_type="CAUSAL_LM"))
    elif spec.precision in ("bf16-mixed", "fp16-mixed"):
        model = model.float()  # HF Trainer with bf16=True trains fp32 weights under autocast
    optimizer = _optimizer(torch, bnb, [p for p in model.parameters() if p.requires_grad], spec)
    gen = torch.Generator(device="cpu").manual_seed(pspec.seed)
    ids = torch.randint(0, pspec.arch.vocab, (spec.micro_batch, spec.seq_len), generator=gen).to(device)
    mixed = spec.precision in ("bf16-mixed", "fp16-mixed")
    scaler = torch.amp.GradScaler(device.type) if spec.precision == "fp16-mixed" else None
    model.train()

    def step(mark):
        mark("forward")
        with torch.autocast(device.type, dtype=_dtype(torch, spec.precision), enabled=mixed):
            loss = model(input_ids=ids, labels=ids).loss  # transformers shifts the labels itself
        mark("backward")
        (scaler.scale(loss) if scaler else loss).backward()
        mark("optimizer")
        if scaler:
            scaler.step(optimizer)
            scaler.update()
        else:
            optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        mark("done")
        return loss.detach()

    describe = {"runtime": "hf", "stack_profile": spec.stack,
                "implementation": f"transformers {transformers.__version__} + peft {peft.__version__}",
                "quant_impl": f"bitsandbytes {bnb.__version__} NF4" if spec.method == "qlora" else None}
    return model, step, describe
