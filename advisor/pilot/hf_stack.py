"""``runtime='hf'``: the training step through the stack teams run — transformers
(``AutoModelForCausalLM``), PEFT LoRA and bitsandbytes 4-bit — instead of advisor's decoder.

One step, two users: ``advisor pilot run --runtime hf`` runs it on a GPU, and the exact trace
(``advisor.hftrace``, ``advisor trace --runtime hf``) runs the very same functions under
``FakeTensorMode``. Everything that decides memory is here once: how the model is made
(``make_model``), how it is prepared for training (``prepare``: gradient checkpointing as
transformers applies it, PEFT's k-bit preparation, the LoRA wrapper), the optimizer
(``make_optimizer``), the batch (``make_batch``) and the step (``make_step``: forward with the
loss as transformers computes it, only the loss kept alive through backward as
``Trainer.compute_loss`` does, backward, optimizer step, ``zero_grad(set_to_none=True)``).

Random weights are made from the catalog architecture (``AutoModelForCausalLM.from_config``)
directly on the device in the target dtype; under QLoRA the skeleton is built on the meta device
and each decoder layer is materialised and quantized in turn, so a 70B QLoRA pilot never holds
the 16-bit model. ``make_linear4bit`` decides how a 4-bit linear is made: bitsandbytes'
``Params4bit`` on a GPU, the byte-faithful stand-in of ``advisor.hftrace.bnb4bit`` under fake
tensors. Real weights come from a local directory the user names (``weights_dir``,
``from_pretrained`` loads shard by shard). Needs the ``hf`` extra (transformers, peft,
bitsandbytes for QLoRA and 8-bit optimizers).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from advisor.errors import MissingExtra, PilotError

# transformers' defaults for Llama-family configs (LlamaConfig): initializer_range, rms_norm_eps.
INIT_STD = 0.02
RMS_NORM_EPS = 1e-5
LEARNING_RATE = 1e-4  # a common LoRA/QLoRA recipe value (QLoRA paper: 1e-4 to 2e-4)
NF4_BLOCKSIZE = 64  # bitsandbytes Linear4bit / quantize_4bit default blocksize
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


class _DeferredCompile:
    """What ``torch.compile(fn, **options)`` returns, made on the first call instead of now.

    ``torch.compile`` is lazy by design: it compiles at the first call of what it returns
    (torch/__init__.py ``compile``, torch 2.13). Only building that wrapper is eager, and it
    imports the Inductor backend (``_TorchCompileInductorWrapper.__init__`` and
    ``torch._inductor.compile_fx``): about 1.5 s of CPU on this machine. bitsandbytes 0.50
    wraps its CPU kernels in it when imported (``bitsandbytes/backends/default/ops.py``
    ``_try_torch_compile``), and PEFT imports bitsandbytes whenever it is installed, so every
    hf step paid that at import, LoRA included, though neither a fake trace nor a GPU run ever
    calls those CPU kernels. Calls are unchanged: the first one builds the real wrapper (inside
    bitsandbytes' own try/except fallback) and every call goes to it."""

    def __init__(self, compile_fn, fn, options):
        import functools  # noqa: PLC0415

        self._compile, self._fn, self._options, self._compiled = compile_fn, fn, options, None
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        if self._compiled is None:
            self._compiled = self._compile(self._fn, **self._options)
        return self._compiled(*args, **kwargs)


@contextlib.contextmanager
def deferred_torch_compile():
    """While importing the stack: ``torch.compile`` builds its wrapper at the first call
    (``_DeferredCompile``); restored after."""
    try:
        import torch  # noqa: PLC0415
    except ImportError:  # _imports says which extra is missing
        yield
        return
    real = torch.compile

    def deferred(model=None, **options):
        if model is None:  # used as @torch.compile(...)
            return lambda fn: _DeferredCompile(real, fn, options)
        return _DeferredCompile(real, model, options)

    torch.compile = deferred
    try:
        yield
    finally:
        torch.compile = real


def _imports(qlora: bool, optimizer: str):
    with deferred_torch_compile():
        try:
            import peft
            import transformers
        except ImportError as exc:
            raise MissingExtra("The hf runtime (transformers + PEFT)", "hf", exc.name or "transformers") from None
        bnb = None
        if qlora or optimizer in ("adamw-8bit", "paged-adamw-8bit"):
            try:
                import bitsandbytes as bnb
            except ImportError:
                raise MissingExtra("QLoRA and 8-bit optimizers in the hf runtime", "hf", "bitsandbytes") from None
    return transformers, peft, bnb


def imports(spec):
    """(transformers, peft, bitsandbytes or None) for ``spec``; MissingExtra when absent."""
    out = _imports(spec.method == "qlora", spec.optimizer)
    if getattr(spec, "liger_kernel", False):
        try:
            import liger_kernel  # noqa: F401
        except ImportError:
            raise MissingExtra("Liger kernels in the hf runtime", "liger", "liger_kernel") from None
    return out


def apply_liger(model, kernel_config: dict | None = None):
    """Liger on ``model`` (PEFT-wrapped or not) as ``transformers.Trainer`` applies it for
    ``use_liger_kernel=True``: ``transformers.integrations.liger.apply_liger_kernel(model,
    args.liger_kernel_config)`` (transformers 5.24 trainer.py ``train``; the config defaults to
    None: every kernel of ``apply_liger_kernel_to_llama`` at its default, fused linear
    cross-entropy included). Under the trace, ``advisor.hftrace.liger.stand_ins`` stands in for
    its Triton kernels."""
    from transformers.integrations.liger import apply_liger_kernel

    apply_liger_kernel(model, kernel_config)
    return model


def versions(spec=None) -> dict[str, str]:
    """Versions of the libraries the hf step runs on (what a trace or pilot result says)."""
    import torch

    out = {"torch": torch.__version__}
    for name in ("transformers", "peft", "bitsandbytes", "liger_kernel"):
        try:
            module = __import__(name)
        except ImportError:
            continue
        if name in ("bitsandbytes",) and spec is not None and spec.method != "qlora" \
                and spec.optimizer not in ("adamw-8bit", "paged-adamw-8bit"):
            continue
        if name == "liger_kernel" and not getattr(spec, "liger_kernel", False):
            continue
        out[name] = getattr(module, "__version__", None) or _dist_version(name)
    return out


def _dist_version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name.replace("_", "-"))
    except PackageNotFoundError:
        return "unknown"


def compute_dtype(torch, precision: str):
    """The 16-bit (or fp32) dtype the model is loaded in and autocast computes in."""
    return {"bf16-mixed": torch.bfloat16, "bf16": torch.bfloat16, "fp16-mixed": torch.float16,
            "fp32": torch.float32}[precision]


def bnb_linear4bit(torch, bnb, module, weight, dtype, double_quant: bool, device):
    """bitsandbytes' own 4-bit linear (a GPU node): ``Params4bit(...).to(device)`` quantizes."""
    q = bnb.nn.Linear4bit(module.in_features, module.out_features, bias=module.bias is not None,
                          compute_dtype=dtype, compress_statistics=double_quant, quant_type="nf4",
                          device="meta")
    q.weight = bnb.nn.Params4bit(weight, requires_grad=False, compress_statistics=double_quant,
                                 quant_type="nf4", blocksize=NF4_BLOCKSIZE).to(device)
    return q


def _quantize_layer(torch, layer, device, dtype, double_quant: bool, make_linear4bit: Callable) -> None:
    """Materialise one meta-device decoder layer on ``device`` and swap its linears for 4-bit
    (transformers' bitsandbytes quantizer replaces every nn.Linear of the blocks; the LM head is
    in modules_to_not_convert)."""
    layer.to_empty(device=device)
    for name, module in list(layer.named_modules()):
        if isinstance(module, torch.nn.Linear):
            weight = torch.empty(module.out_features, module.in_features, dtype=dtype, device=device)
            weight.normal_(0.0, INIT_STD)
            q = make_linear4bit(module, weight, dtype, double_quant, device)
            if module.bias is not None:
                q.bias = torch.nn.Parameter(torch.zeros(module.out_features, dtype=dtype, device=device))
            parent_name, _, child = name.rpartition(".")
            setattr(layer.get_submodule(parent_name) if parent_name else layer, child, q)
            del weight
        elif hasattr(module, "weight") and module.weight is not None and not list(module.children()):
            torch.nn.init.ones_(module.weight) if "norm" in name.lower() else module.weight.data.normal_(0.0, INIT_STD)


def make_model(spec, arch, device, *, weights_dir: str | None = None, make_linear4bit: Callable | None = None):
    """The transformers model of ``spec`` on ``device`` (random weights unless ``weights_dir``).

    ``make_linear4bit(module, weight, dtype, double_quant, device)`` makes each 4-bit linear
    under QLoRA (default: bitsandbytes' own, which needs CUDA)."""
    import torch

    transformers, _, bnb = imports(spec)
    dtype = compute_dtype(torch, spec.precision)
    attn = "sdpa" if spec.attention == "flash" else "eager"
    device = torch.device(device)
    if weights_dir:
        kwargs: dict[str, Any] = {"dtype": dtype, "attn_implementation": attn, "device_map": {"": device}}
        if spec.method == "qlora":
            kwargs["quantization_config"] = transformers.BitsAndBytesConfig(
                load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=spec.double_quant,
                bnb_4bit_compute_dtype=dtype)
        return transformers.AutoModelForCausalLM.from_pretrained(weights_dir, **kwargs)
    config = transformers.AutoConfig.for_model(**hf_config(arch))
    if spec.method != "qlora":
        with torch.device(device):
            return transformers.AutoModelForCausalLM.from_config(config, dtype=dtype, attn_implementation=attn)
    if make_linear4bit is None:
        if device.type != "cuda":
            raise PilotError("bitsandbytes 4-bit needs a CUDA GPU; run this QLoRA pilot on a GPU node, trace it "
                             "(advisor trace --runtime hf), or use --runtime reference (the NF4 stand-in).")

        def make_linear4bit(module, weight, dtype, double_quant, device):
            return bnb_linear4bit(torch, bnb, module, weight, dtype, double_quant, device)

    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(config, dtype=dtype, attn_implementation=attn)
    for layer in model.model.layers:
        _quantize_layer(torch, layer, device, dtype, spec.double_quant, make_linear4bit)
    for module in (model.model.embed_tokens, model.model.norm, model.lm_head):
        module.to_empty(device=device)
    model.model.embed_tokens.weight.data.normal_(0.0, INIT_STD)
    if model.lm_head.weight is not model.model.embed_tokens.weight:
        model.lm_head.weight.data.normal_(0.0, INIT_STD)
    if arch.tied_embeddings:
        model.lm_head.weight = model.model.embed_tokens.weight
    torch.nn.init.ones_(model.model.norm.weight)
    if hasattr(model.model, "rotary_emb"):  # its inv_freq buffers are computed, not loaded: make it anew
        with torch.device(device):
            model.model.rotary_emb = type(model.model.rotary_emb)(config=model.config)
    # what transformers' bitsandbytes quantizer marks on a 4-bit model
    # (transformers/quantizers/quantizer_bnb_4bit.py: setattr(model, "is_loaded_in_4bit", True)); PEFT
    # reads it to pick its bitsandbytes LoRA layer and k-bit preparation
    model.is_loaded_in_4bit = True
    return model


def prepare(model, spec):
    """Training setup as transformers + PEFT apply it: gradient checkpointing (non-reentrant,
    transformers' default when no kwargs are given: modeling_utils
    ``_activation_checkpointing_enable``), PEFT's ``prepare_model_for_kbit_training`` under
    QLoRA, ``get_peft_model`` with the spec's LoRA; a full fine-tune under mixed precision
    trains fp32 weights (HF Trainer with bf16=True on a model loaded in fp32)."""
    _, peft, _ = imports(spec)
    if spec.gradient_checkpointing:
        if hasattr(model, "activation_checkpointing_enable"):  # transformers >= 5 (the old name is deprecated)
            model.activation_checkpointing_enable(activation_checkpointing_kwargs={"use_reentrant": False})
        else:
            model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    if spec.method == "qlora":
        model = peft.prepare_model_for_kbit_training(
            model, use_gradient_checkpointing=spec.gradient_checkpointing,
            gradient_checkpointing_kwargs={"use_reentrant": False})
    if spec.trains_adapters:
        model = peft.get_peft_model(model, peft.LoraConfig(
            r=spec.lora_rank, lora_alpha=spec.lora_alpha, lora_dropout=spec.lora_dropout,
            target_modules=LORA_MODULES[spec.lora_targets], task_type="CAUSAL_LM"))
    elif spec.precision in ("bf16-mixed", "fp16-mixed"):
        model = model.float()  # HF Trainer with bf16=True trains fp32 weights under autocast
    if getattr(spec, "liger_kernel", False):  # Trainer.train applies it to the prepared model
        model = apply_liger(model)
    if spec.precision in ("bf16-mixed", "fp16-mixed"):  # then accelerator.prepare (advisor.memory._loss)
        model = fp32_outputs(model)
    return model


def fp32_outputs(model):
    """The model's forward as ``Accelerator.prepare_model`` leaves it under mixed precision, which
    transformers 5.24's Trainer calls on one GPU (trainer.py: ``model, self.optimizer =
    self.accelerator.prepare(self.model, self.optimizer)``): accelerate 1.15 accelerator.py, under
    ``self.native_amp``, ``model.forward = MethodType(convert_outputs_to_fp32(...), model)``
    (utils/operations.py ``ConvertOutputsToFp32``: every fp16/bf16 tensor of the output ``.float()``,
    so the 16-bit logits get an fp32 copy once forward returned). Without accelerate the model is
    left as it is."""
    from types import MethodType

    try:
        from accelerate.utils import convert_outputs_to_fp32
    except ImportError:
        return model
    model.forward = MethodType(convert_outputs_to_fp32(model.forward.__func__), model)
    return model


def make_optimizer(model, spec, *, stand_in_8bit: bool = False):
    """The spec's optimizer over the trainable parameters, its implementation explicit (the
    default of torch.optim.AdamW differs between CPU and CUDA). ``stand_in_8bit``: the 8-bit
    AdamW of advisor.model.optim (same bytes) instead of bitsandbytes' CUDA one (fake tensors)."""
    import torch

    params = [p for p in model.parameters() if p.requires_grad]
    impl = {"foreach": {"foreach": True}, "fused": {"fused": True}, "for-loop": {"foreach": False}}[spec.optimizer_impl]
    if spec.optimizer == "adamw":
        return torch.optim.AdamW(params, lr=LEARNING_RATE, **impl)
    if spec.optimizer == "sgd":
        return torch.optim.SGD(params, lr=LEARNING_RATE)
    if stand_in_8bit:
        from advisor.model.optim import AdamW8bit

        return AdamW8bit(params, lr=LEARNING_RATE)
    _, _, bnb = imports(spec)
    if spec.optimizer == "adamw-8bit":
        return bnb.optim.AdamW8bit(params, lr=LEARNING_RATE)
    return bnb.optim.PagedAdamW8bit(params, lr=LEARNING_RATE)


def make_batch(spec, arch, device, seed: int = 0):
    """micro_batch x seq_len random token ids (labels = input_ids: transformers shifts them)."""
    import torch

    gen = torch.Generator(device="cpu").manual_seed(seed)
    return torch.randint(0, arch.vocab, (spec.micro_batch, spec.seq_len), generator=gen).to(device)


def make_step(model, optimizer, ids, spec, device_type: str, micro_batches: int | None = None) -> Callable:
    """step(mark) -> loss: one optimizer step over ``spec.gradient_accumulation_steps``
    micro-batches (``micro_batches`` overrides the count: a trace runs two, since every
    micro-batch after the first keeps the same tensors alive); ``mark`` is called with "forward",
    "backward", "optimizer", "done".

    The forward keeps only the loss (``model(...).loss``; the output with its logits is dropped at
    once, as ``Trainer.compute_loss`` returns only the loss), under autocast for mixed precision.
    fp16-mixed scales the loss with torch's GradScaler (HF Trainer fp16=True)."""
    import torch

    mixed = spec.precision in ("bf16-mixed", "fp16-mixed")
    dtype = compute_dtype(torch, spec.precision)
    scaler = torch.amp.GradScaler(device_type) if spec.precision == "fp16-mixed" else None
    accumulation = getattr(spec, "gradient_accumulation_steps", 1)
    runs = accumulation if micro_batches is None else micro_batches
    model.train()

    def step(mark):
        loss = None
        for i in range(runs):
            mark("forward")
            with no_sync(model, i < runs - 1):
                with torch.autocast(device_type, dtype=dtype, enabled=mixed):
                    loss = model(input_ids=ids, labels=ids).loss  # transformers shifts the labels itself
                mark("backward")
                scaled = loss / accumulation if accumulation > 1 else loss
                (scaler.scale(scaled) if scaler else scaled).backward()
        mark("optimizer")
        if scaler:
            scaler.step(optimizer)
            scaler.update()
        else:
            optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        mark("done")
        return loss.detach()

    return step


@contextlib.contextmanager
def no_sync(model, skip: bool):
    """Every micro-batch but the last of a step without gradient synchronisation, as the
    Trainer runs them (transformers 5.24 trainer.py ``_inner_training_loop``: ``sync_context =
    functools.partial(self.accelerator.no_sync, model=model)`` unless ``i == len(batch_samples) -
    1``, sync_each_batch off by default); accelerate 1.15 ``Accelerator.no_sync`` calls
    ``model.set_requires_gradient_sync(False)`` on an FSDP2 model, then True again (torch 2.13
    FSDPModule: each group's ``reduce_grads``). A model that is not FSDP2 has no such method and
    is left alone (one GPU: nothing to sync)."""
    toggle = getattr(model, "set_requires_gradient_sync", None) if skip else None
    if toggle is None:
        yield
        return
    toggle(False)
    try:
        yield
    finally:
        toggle(True)


def build(pspec, device):
    """(model, step(mark), description), like the reference runtime's."""
    spec = pspec.spec
    transformers, peft, bnb = imports(spec)
    model = prepare(make_model(spec, pspec.arch, device, weights_dir=pspec.weights_dir), spec)
    optimizer = make_optimizer(model, spec)
    ids = make_batch(spec, pspec.arch, device, pspec.seed)
    step = make_step(model, optimizer, ids, spec, device.type)
    describe = {"runtime": "hf", "stack_profile": spec.stack,
                "implementation": f"transformers {transformers.__version__} + peft {peft.__version__}",
                "quant_impl": f"bitsandbytes {bnb.__version__} NF4" if spec.method == "qlora" else None}
    return model, step, describe
