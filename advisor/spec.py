"""What a team wants to train: ``FinetuneSpec`` (resolved) and ``SpecRequest`` (what was said).

Every default lives in ``DEFAULTS`` below with the reason for it. The default stack is the most
common one: Hugging Face Trainer + PEFT + TRL's SFTTrainer (+ bitsandbytes). Where the libraries'
own defaults are not what people run for fine-tuning (the libraries default to settings meant for
small models), we say what we assume instead and why; the answer always lists the defaults it
assumed. Another stack brings its own recipe defaults (``STACK_DEFAULTS``: torchtune's recipe
configs, litgpt's config hub, Unsloth's ``get_peft_model``), each with the file it comes from;
``default_for(field, stack, method)`` is the one lookup, and a ``FinetuneSpec`` fills what was
not given from it.

``SpecRequest`` has the same fields, all optional (None = "the user did not say"): the parser
produces it, follow-ups merge into it, and ``resolve`` turns it into a ``FinetuneSpec``.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from advisor.errors import SpecError

Method = Literal["full", "lora", "qlora"]
Stack = Literal["hf", "torchtune", "litgpt", "unsloth", "reference"]
LoraTargets = Literal["all-linear", "attention"]
Quant = Literal["nf4", "int8"]
Optimizer = Literal["adamw", "adamw-8bit", "paged-adamw-8bit", "sgd"]
OptimizerImpl = Literal["foreach", "fused", "for-loop"]
Precision = Literal["bf16-mixed", "bf16", "fp16-mixed", "fp32"]
Attention = Literal["flash", "eager"]
Sharding = Literal["ddp", "fsdp", "zero2", "zero3"]

# Limits that keep every number physical; each message says what to type instead.
MAX_SEQ_LEN = 1_048_576  # 1M tokens: the longest context any catalog model was trained for is 1M
MAX_PARAMS_B = 999.0  # below 10^12 parameters; the largest open dense model is 405B
MAX_MICRO_BATCH = 4096
MAX_GPUS = 4096
MAX_ACCUMULATION = 4096
MAX_DATASET_TOKENS = 100_000_000_000_000  # 10^14: beyond any fine-tuning corpus (pre-training is ~10^13)
MAX_EPOCHS = 1000


class CostAssumptions(BaseModel):
    """What a run costs beyond the training steps themselves. Each default has its reason."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    failed_run_fraction: float = Field(
        default=0.3, ge=0, le=10,
        description="Extra GPU time for failed and exploratory runs, as a fraction of one full "
        "run. 0.3: our provider's guidance counts failed runs in the cost to an accepted "
        "checkpoint; a typical project reruns about a third (a crash, a bad learning rate, a "
        "data fix) before a checkpoint is accepted.",
    )
    eval_fraction: float = Field(
        default=0.05, ge=0, le=10,
        description="Evaluation tokens per epoch as a fraction of training tokens (forward only). "
        "0.05: a 5% held-out split is the usual train/eval split in TRL and Axolotl examples.",
    )
    evals_per_epoch: int = Field(
        default=1, ge=0, le=1000,
        description="Evaluations per epoch. 1: HF Trainer eval_strategy='epoch' as most recipes set.",
    )
    checkpoints_kept: int = Field(
        default=2, ge=0, le=1000,
        description="Checkpoints kept on persistent storage (the accepted one and one fallback).",
    )
    storage_months: float = Field(
        default=1.0, ge=0, le=120,
        description="How long checkpoints and data stay on persistent storage (one month).",
    )
    include_pilot: bool = Field(
        default=True,
        description="Count a short pilot run before the real one, as our provider advises.",
    )


class LengthDistribution(BaseModel):
    """The tokenized lengths of the training samples, when batches are padded per batch to their
    longest sample (transformers DataCollatorWithPadding / DataCollatorForSeq2Seq with
    padding=True, TRL's default collators) instead of all being ``seq_len`` long (packing, or
    padding="max_length"). Either the lengths themselves (``lengths``: a sample of them), or a
    summary: ``mean`` with optional ``min``, ``max``, ``std``. ``seq_len`` stays the maximum:
    longer samples are truncated to it (``overflow="truncate"``, the tokenizers'
    truncation=True) or dropped (``overflow="drop"``, e.g. ms-swift's truncation_strategy
    'delete'). ``pad_to_multiple_of``: the collator's rounding (LLaMA-Factory uses 8)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    lengths: tuple[int, ...] | None = Field(default=None, min_length=1, max_length=10_000_000)
    mean: float | None = Field(default=None, gt=0, le=MAX_SEQ_LEN)
    min: int | None = Field(default=None, ge=1, le=MAX_SEQ_LEN)
    max: int | None = Field(default=None, ge=1, le=MAX_SEQ_LEN)
    std: float | None = Field(default=None, gt=0, le=MAX_SEQ_LEN)
    overflow: Literal["truncate", "drop"] = "truncate"
    pad_to_multiple_of: int | None = Field(default=None, ge=1, le=4096)

    @model_validator(mode="after")
    def _coherent(self) -> "LengthDistribution":
        if self.lengths is not None:
            if any(n < 1 or n > MAX_SEQ_LEN for n in self.lengths):
                raise ValueError(f"sample lengths must be between 1 and {MAX_SEQ_LEN:,} tokens")
            if self.mean is not None or self.min is not None or self.max is not None or self.std is not None:
                raise ValueError("give either the sample lengths or their mean/min/max, not both")
            return self
        if self.mean is None:
            raise ValueError("a length distribution needs the samples' mean length (e.g. 'mean=600') "
                             "or the lengths themselves")
        lo, hi = self.min or 1, self.max
        if lo > self.mean or (hi is not None and not self.mean <= hi):
            raise ValueError(f"the mean length ({self.mean:g}) must lie between the shortest "
                             f"({lo}) and the longest ({hi}) sample")
        if hi is not None and hi == lo and self.std:
            raise ValueError("samples of a single length have no spread (std)")
        return self

    @property
    def summary(self) -> str:
        if self.lengths is not None:
            ls = self.lengths
            return f"{len(ls)} sample lengths, mean {sum(ls) / len(ls):.0f}, {min(ls)}-{max(ls)} tokens"
        parts = [f"mean {self.mean:g}"]
        if self.min is not None or self.max is not None:
            parts.append(f"{self.min or 1}-{self.max if self.max is not None else 'seq_len'} tokens")
        if self.std:
            parts.append(f"std {self.std:g}")
        return ", ".join(parts)


def parse_length_distribution(text: str) -> LengthDistribution:
    """``MIN,MAX,MEAN`` (e.g. "200,2048,600": samples between 200 and 2048 tokens, mean 600) or
    key=value pairs ``mean=600,max=2048[,min=200][,std=300][,drop][,multiple=8]``.
    Raises SpecError with what to type instead."""
    hint = ("write the sample lengths as MIN,MAX,MEAN (e.g. '200,2048,600') or as "
            "'mean=600,max=2048,min=200' (optionally std=..., drop, multiple=8), or @FILE with "
            "one tokenized length per line")
    parts = [p.strip() for p in text.replace(";", ",").split(",") if p.strip()]
    fields: dict[str, Any] = {}
    try:
        if parts and all(p.replace(".", "", 1).isdigit() for p in parts):
            if len(parts) != 3:
                raise SpecError(f"length distribution {text!r}: {hint}")
            fields = {"min": int(float(parts[0])), "max": int(float(parts[1])), "mean": float(parts[2])}
        else:
            for p in parts:
                key, _, value = p.partition("=")
                key = key.strip().lower()
                if key in ("drop", "delete"):
                    fields["overflow"] = "drop"
                elif key == "truncate":
                    fields["overflow"] = "truncate"
                elif key in ("mean", "std"):
                    fields[key] = float(value)
                elif key in ("min", "max"):
                    fields[key] = int(float(value))
                elif key in ("multiple", "pad_to_multiple_of"):
                    fields["pad_to_multiple_of"] = int(value)
                else:
                    raise SpecError(f"length distribution {text!r}: unknown part {p!r}; {hint}")
        return LengthDistribution(**fields)
    except ValueError as exc:
        if isinstance(exc, SpecError):
            raise
        if isinstance(exc, ValidationError):
            raise SpecError(f"length distribution {text!r}: " + "; ".join(
                e["msg"].removeprefix("Value error, ") for e in exc.errors())) from None
        raise SpecError(f"length distribution {text!r}: {hint}") from None


class _SpecFields(BaseModel):
    """Fields shared by FinetuneSpec and SpecRequest (types and bounds only, no defaults)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    method: Method | None = None
    stack: Stack | None = None
    model: str | None = Field(default=None, min_length=1, max_length=200)
    params_b: float | None = Field(default=None, gt=0, le=MAX_PARAMS_B)
    # architecture overrides (applied on top of the catalog model or the inferred shape)
    layers: int | None = Field(default=None, ge=1, le=1024)
    hidden: int | None = Field(default=None, ge=8, le=65536)
    intermediate: int | None = Field(default=None, ge=8, le=262144)
    heads: int | None = Field(default=None, ge=1, le=1024)
    kv_heads: int | None = Field(default=None, ge=1, le=1024)
    vocab: int | None = Field(default=None, ge=2, le=1_048_576)
    tied_embeddings: bool | None = None
    seq_len: int | None = Field(default=None, ge=1, le=MAX_SEQ_LEN)
    micro_batch: int | None = Field(default=None, ge=1, le=MAX_MICRO_BATCH)
    gradient_accumulation_steps: int | None = Field(default=None, ge=1, le=MAX_ACCUMULATION)
    gradient_checkpointing: bool | None = None
    lora_rank: int | None = Field(default=None, ge=1, le=65536)
    lora_alpha: float | None = Field(default=None, gt=0, le=1_000_000)
    lora_dropout: float | None = Field(default=None, ge=0, lt=1)
    lora_targets: LoraTargets | None = None
    quant: Quant | None = None
    double_quant: bool | None = None
    optimizer: Optimizer | None = None
    optimizer_impl: OptimizerImpl | None = None
    optimizer_in_backward: bool | None = None
    liger_kernel: bool | None = None
    precision: Precision | None = None
    attention: Attention | None = None
    compile: bool | None = None
    packing: bool | None = None
    num_gpus: int | None = Field(default=None, ge=1, le=MAX_GPUS)
    sharding: Sharding | None = None
    dataset_tokens: int | None = Field(default=None, ge=1, le=MAX_DATASET_TOKENS)
    epochs: float | None = Field(default=None, gt=0, le=MAX_EPOCHS)
    gpu: str | None = Field(default=None, min_length=1, max_length=100)
    region: str | None = Field(default=None, min_length=1, max_length=100)
    length_distribution: LengthDistribution | None = None
    expandable_segments: bool | None = None


class Default(BaseModel):
    model_config = ConfigDict(frozen=True)
    value: Any
    reason: str
    mention: bool = True  # list it among "assumed ..." in answers


# The one place where defaults live. Reasons name what the common stack does.
DEFAULTS: dict[str, Default] = {
    "method": Default(value="lora", reason="LoRA is what most teams fine-tune with first (PEFT)."),
    "stack": Default(value="hf", mention=False,
                     reason="Hugging Face Trainer + PEFT + bitsandbytes is the most common stack."),
    "seq_len": Default(value=2048, reason="a common SFT context; TRL's SFTConfig default is 1024 "
                       "and most recipes raise it to 2048."),
    "micro_batch": Default(value=1, reason="the smallest footprint; raise it with gradient "
                           "accumulation for throughput (HF's per_device_train_batch_size=8 is "
                           "meant for small models)."),
    "gradient_accumulation_steps": Default(value=1, mention=False, reason="HF TrainingArguments' "
                                           "gradient_accumulation_steps default."),
    "gradient_checkpointing": Default(value=True, reason="TRL's SFTConfig default "
                                      "(trl/trainer/base_config.py gradient_checkpointing=True); "
                                      "it trades ~1/3 more compute for activations."),
    "lora_rank": Default(value=16, reason="TRL's ModelConfig lora_r default (trl/trainer/"
                         "model_config.py), what `trl sft --use_peft` runs; PEFT's LoraConfig "
                         "default is 8; rank moves memory very little."),
    "lora_alpha": Default(value=32, mention=False, reason="TRL's ModelConfig lora_alpha default "
                          "(trl/trainer/model_config.py; PEFT's LoraConfig default is 8)."),
    "lora_dropout": Default(value=0.05, mention=False, reason="TRL's ModelConfig lora_dropout default "
                            "(trl/trainer/model_config.py), as in the QLoRA paper; PEFT's "
                            "LoraConfig default is 0.0. Dropout keeps a mask and a copy of "
                            "each adapted input for backward."),
    "lora_targets": Default(value="all-linear", reason="the QLoRA paper (Dettmers et al. 2023) "
                            "found all linear layers are needed to match full fine-tuning."),
    "quant": Default(value="nf4", mention=False, reason="QLoRA's 4-bit NormalFloat "
                     "(bitsandbytes bnb_4bit_quant_type='nf4')."),
    "double_quant": Default(value=True, mention=False, reason="the QLoRA paper quantizes the "
                            "quantization constants too (0.127 instead of 0.5 bit/param)."),
    "optimizer": Default(value="adamw", reason="HF Trainer's default optimizer (adamw_torch)."),
    "optimizer_impl": Default(value="fused", mention=False, reason="transformers' TrainingArguments "
                              "optim default is adamw_torch_fused with torch >= 2.8 "
                              "(transformers/training_args.py default_optim), torch.optim.AdamW(fused=True)."),
    "optimizer_in_backward": Default(value=False, mention=False, reason="HF Trainer steps the "
                                     "optimizer after backward."),
    "liger_kernel": Default(value=False, mention=False, reason="TrainingArguments "
                            "use_liger_kernel default."),
    "precision": Default(value="bf16-mixed", reason="TRL's SFTConfig turns on bf16=True "
                         "(trl/trainer/base_config.py): autocast over the model, which TRL loads "
                         "in fp32 from a model id (trainable fp32 weights: the master copy of a "
                         "full fine-tune); the frozen base of LoRA is loaded in 16-bit, as TRL's "
                         "PEFT examples pass dtype=bfloat16."),
    "attention": Default(value="flash", mention=False, reason="transformers uses PyTorch SDPA "
                         "(flash / memory-efficient kernels) by default."),
    "compile": Default(value=False, mention=False, reason="HF Trainer's torch_compile and the "
                       "torchtune recipes' compile both default to False; compiling fuses the "
                       "memory-bound kernels (10-30% faster for small and medium models) at the "
                       "cost of minutes of compilation per run."),
    "packing": Default(value=False, mention=False, reason="TRL SFTConfig packing=False: each "
                       "sample is its own sequence, so tokens/s holds for samples as long as "
                       "seq_len; with packing every micro-batch is full (torchtune PackedDataset, "
                       "TRL packing=True)."),
    "num_gpus": Default(value=1, mention=False, reason="one GPU unless asked; the ranking "
                        "finds the smallest count that fits."),
    "sharding": Default(value="ddp", mention=False, reason="HF Trainer replicates the model "
                        "(DDP) unless FSDP or DeepSpeed is configured."),
    "epochs": Default(value=3, reason="HF TrainingArguments' num_train_epochs default."),
    "expandable_segments": Default(value=False, mention=False, reason="PyTorch's caching allocator "
                                   "default (PYTORCH_CUDA_ALLOC_CONF unset: expandable_segments:False)."),
}


_TT = "torchtune recipes/configs/llama3_1/8B_{}_single_device.yaml"
_TT_LORA = "torchtune recipes/configs/llama3_1/8B_lora_single_device.yaml and 8B_qlora_single_device.yaml"
_LITGPT = "litgpt config_hub/finetune/llama-3.1-8b/{lora,qlora,full}.yaml"
_UNSLOTH = "unsloth/models/llama.py FastLlamaModel.get_peft_model"

# Recipe defaults of the other stacks, per method ("*" = every method). A value here replaces
# DEFAULTS for that stack; each cites the file it is read from.
STACK_DEFAULTS: dict[str, dict[str, dict[str, Default]]] = {
    "torchtune": {
        "*": {
            "precision": Default(value="bf16", reason=f"dtype: bf16 in {_TT.format('*')}: the whole "
                                 "model in bf16, no fp32 master copy, no autocast."),
            "gradient_checkpointing": Default(value=True, reason="enable_activation_checkpointing: "
                                              f"True in {_TT.format('*')}."),
            "micro_batch": Default(value=2, reason=f"batch_size: 2 in {_TT.format('*')}."),
        },
        "full": {
            "optimizer": Default(value="paged-adamw-8bit", reason="optimizer: bitsandbytes.optim."
                                 f"PagedAdamW8bit in {_TT.format('full')}."),
            "optimizer_in_backward": Default(value=True, reason="optimizer_in_bwd: True in "
                                             f"{_TT.format('full')} (each gradient is applied and "
                                             "freed as soon as backward makes it)."),
            "gradient_accumulation_steps": Default(value=1, mention=False, reason="gradient_"
                                                   f"accumulation_steps: 1 in {_TT.format('full')} "
                                                   "(optimizer_in_bwd requires 1)."),
        },
        "lora": {
            "optimizer": Default(value="adamw", reason=f"torch.optim.AdamW in {_TT_LORA}."),
            "optimizer_impl": Default(value="fused", mention=False, reason=f"fused: True in {_TT_LORA}."),
            "lora_rank": Default(value=8, reason=f"lora_rank: 8 in {_TT_LORA}."),
            "lora_alpha": Default(value=16, mention=False, reason=f"lora_alpha: 16 in {_TT_LORA}."),
            "lora_dropout": Default(value=0.0, reason=f"lora_dropout: 0.0 in {_TT_LORA}."),
            "lora_targets": Default(value="all-linear", reason=f"{_TT_LORA} adapt q_proj, v_proj, "
                                    "output_proj and the MLP (not k_proj): our closest target set; "
                                    "k_proj's adapter adds well under 0.1% of the memory."),
            "gradient_accumulation_steps": Default(value=8, reason="gradient_accumulation_steps: 8 "
                                                   f"in {_TT_LORA}."),
        },
    },
    "litgpt": {
        "*": {
            "precision": Default(value="bf16", reason=f"precision: bf16-true in {_LITGPT}: weights, "
                                 "gradients and optimizer states in bf16."),
            "gradient_checkpointing": Default(value=False, reason="litgpt's finetune scripts "
                                              "(litgpt/finetune/lora.py, full.py) run without "
                                              "activation checkpointing on one device."),
            "micro_batch": Default(value=1, reason=f"train.micro_batch_size: 1 in {_LITGPT}."),
            "gradient_accumulation_steps": Default(value=8, reason="train.global_batch_size: 8 over "
                                                   f"micro_batch_size 1 in {_LITGPT}."),
            "optimizer_impl": Default(value="foreach", mention=False, reason="optimizer: torch.optim."
                                      f"AdamW in {_LITGPT}, which takes its foreach implementation on "
                                      "CUDA when neither foreach nor fused is given."),
        },
        "lora": {
            "lora_rank": Default(value=32, reason=f"lora_r: 32 in {_LITGPT}."),
            "lora_alpha": Default(value=16, mention=False, reason=f"lora_alpha: 16 in {_LITGPT}."),
            "lora_dropout": Default(value=0.05, reason=f"lora_dropout: 0.05 in {_LITGPT}."),
            "lora_targets": Default(value="attention", reason=f"lora_query and lora_value only in "
                                    f"{_LITGPT}: our attention target set is the closest."),
        },
    },
    "unsloth": {
        "*": {
            "gradient_checkpointing": Default(value=True, reason="use_gradient_checkpointing="
                                              f"'unsloth' in {_UNSLOTH}: checkpointed layer inputs "
                                              "offloaded to CPU memory."),
        },
        "lora": {
            "lora_rank": Default(value=16, reason=f"r = 16 in {_UNSLOTH}."),
            "lora_alpha": Default(value=16, mention=False, reason=f"lora_alpha = 16 in {_UNSLOTH}."),
            "lora_dropout": Default(value=0.0, reason=f"lora_dropout = 0.0 in {_UNSLOTH} (Unsloth's "
                                    "fast LoRA kernels need 0)."),
            "lora_targets": Default(value="all-linear", reason=f"target_modules q/k/v/o/gate/up/down "
                                    f"in {_UNSLOTH}."),
        },
    },
}
STACK_DEFAULTS["torchtune"]["qlora"] = STACK_DEFAULTS["torchtune"]["lora"]
STACK_DEFAULTS["litgpt"]["qlora"] = STACK_DEFAULTS["litgpt"]["lora"]
STACK_DEFAULTS["unsloth"]["qlora"] = STACK_DEFAULTS["unsloth"]["lora"]


def default_for(field: str, stack: str | None = None, method: str | None = None) -> Default:
    """The default of ``field`` under ``stack`` (default hf) for ``method`` (default lora)."""
    stack = stack or DEFAULTS["stack"].value
    method = method or DEFAULTS["method"].value
    per_stack = STACK_DEFAULTS.get(stack, {})
    for key in (method, "*"):
        if field in per_stack.get(key, {}):
            return per_stack[key][field]
    return DEFAULTS[field]


METHODS: tuple[str, ...] = get_args(Method)
STACKS: tuple[str, ...] = get_args(Stack)
OPTIMIZERS: tuple[str, ...] = get_args(Optimizer)
PRECISIONS: tuple[str, ...] = get_args(Precision)
ARCH_OVERRIDES = ("layers", "hidden", "intermediate", "heads", "kv_heads", "vocab", "tied_embeddings")
FULL_SHAPE = ("layers", "hidden", "intermediate", "heads", "kv_heads", "vocab")  # enough to build an Architecture


class FinetuneSpec(_SpecFields):
    """A complete fine-tuning job: every field decided (by the user or by DEFAULTS)."""

    method: Method = DEFAULTS["method"].value
    stack: Stack = DEFAULTS["stack"].value
    seq_len: int = Field(default=DEFAULTS["seq_len"].value, ge=1, le=MAX_SEQ_LEN)
    micro_batch: int = Field(default=DEFAULTS["micro_batch"].value, ge=1, le=MAX_MICRO_BATCH)
    gradient_accumulation_steps: int = Field(default=DEFAULTS["gradient_accumulation_steps"].value, ge=1,
                                             le=MAX_ACCUMULATION)
    gradient_checkpointing: bool = DEFAULTS["gradient_checkpointing"].value
    lora_rank: int = Field(default=DEFAULTS["lora_rank"].value, ge=1, le=65536)
    lora_alpha: float = Field(default=DEFAULTS["lora_alpha"].value, gt=0)
    lora_dropout: float = Field(default=DEFAULTS["lora_dropout"].value, ge=0, lt=1)
    lora_targets: LoraTargets = DEFAULTS["lora_targets"].value
    double_quant: bool = DEFAULTS["double_quant"].value
    optimizer: Optimizer = DEFAULTS["optimizer"].value
    optimizer_impl: OptimizerImpl = DEFAULTS["optimizer_impl"].value
    precision: Precision = DEFAULTS["precision"].value
    attention: Attention = DEFAULTS["attention"].value
    compile: bool = DEFAULTS["compile"].value
    packing: bool = DEFAULTS["packing"].value
    num_gpus: int = Field(default=DEFAULTS["num_gpus"].value, ge=1, le=MAX_GPUS)
    sharding: Sharding = DEFAULTS["sharding"].value
    epochs: float = Field(default=DEFAULTS["epochs"].value, gt=0, le=MAX_EPOCHS)
    optimizer_in_backward: bool = DEFAULTS["optimizer_in_backward"].value
    liger_kernel: bool = DEFAULTS["liger_kernel"].value
    expandable_segments: bool = DEFAULTS["expandable_segments"].value
    costs: CostAssumptions = CostAssumptions()

    @model_validator(mode="before")
    @classmethod
    def _stack_defaults(cls, data: Any) -> Any:
        """Fill fields not given with the defaults of the spec's stack and method."""
        if not isinstance(data, dict):
            return data
        stack, method = data.get("stack"), data.get("method")
        if not isinstance(stack, str) or stack not in STACK_DEFAULTS:
            return data
        method = method if isinstance(method, str) else None
        filled = dict(data)
        for key in (method or DEFAULTS["method"].value, "*"):
            for name, d in STACK_DEFAULTS[stack].get(key, {}).items():
                if filled.get(name) is None:
                    filled[name] = d.value
        return filled

    @model_validator(mode="after")
    def _coherent(self) -> "FinetuneSpec":
        problems: list[str] = []
        if self.model is None and self.params_b is None and not self.full_architecture:
            missing = [n.replace("_", "-") for n in FULL_SHAPE if getattr(self, n) is None]
            given = len(missing) < len(FULL_SHAPE)
            problems.append("say which model (e.g. 'llama-3.1-8b'), its size (e.g. '8B'), or its whole shape "
                            + (f"(still missing: {', '.join(missing)})" if given
                               else "(layers, hidden, intermediate, heads, kv-heads, vocab)"))
        if self.method == "qlora" and self.quant is None:
            object.__setattr__(self, "quant", DEFAULTS["quant"].value)
        if self.method != "qlora" and self.quant is not None:
            problems.append(
                f"quantized base weights ({self.quant}) are QLoRA; use method 'qlora', or drop "
                "the quantization for LoRA or a full fine-tune"
            )
        if self.optimizer_in_backward and self.gradient_accumulation_steps > 1:
            problems.append("an optimizer step fused into backward applies each gradient at once, so it "
                            "cannot accumulate gradients: use gradient accumulation 1, or turn "
                            "optimizer-in-backward off")
        if self.optimizer_in_backward and self.stack not in ("torchtune", "reference"):
            problems.append("an optimizer step fused into backward is torchtune's optimizer_in_bwd; use "
                            "--stack torchtune (or reference)")
        if self.liger_kernel and self.stack != "hf":
            problems.append("Liger kernels are an option of the hf stack (TrainingArguments."
                            "use_liger_kernel); use --stack hf")
        if self.sharding in ("zero2", "zero3") and self.stack not in ("hf", "reference"):
            problems.append(f"DeepSpeed ZeRO ({self.sharding}) runs through the HF Trainer/accelerate; "
                            "use --stack hf, or --sharding fsdp for this stack")
        if problems:
            raise ValueError("; ".join(problems))
        return self

    @property
    def full_architecture(self) -> bool:
        """Every shape field given: the architecture needs no catalog model nor size."""
        return all(getattr(self, name) is not None for name in FULL_SHAPE)

    @property
    def trains_adapters(self) -> bool:
        return self.method in ("lora", "qlora")

    @property
    def torch_compile(self) -> bool:
        """``compile`` under the name TrainingArguments and axolotl give it (advisor.launch reads it)."""
        return self.compile

    @property
    def tokens_per_step(self) -> int:
        return self.seq_len * self.micro_batch * self.num_gpus


class SpecRequest(_SpecFields):
    """What a message said: every field optional; None means 'not said'."""

    costs: dict[str, Any] | None = None

    def merged(self, delta: "SpecRequest") -> "SpecRequest":
        """This request with every field that ``delta`` sets replaced (a thread follow-up)."""
        update = {k: v for k, v in delta.model_dump(exclude_none=True).items()}
        if delta.length_distribution is not None:  # keep the model, not its dump
            update["length_distribution"] = delta.length_distribution
        if "costs" in update and self.costs:
            update["costs"] = {**self.costs, **update["costs"]}
        return self.model_copy(update=update)

    def said(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


def resolve(request: SpecRequest | dict[str, Any]) -> tuple[FinetuneSpec, list[str]]:
    """Fill unset fields from DEFAULTS. Returns the spec and the names of defaults it assumed
    (only those worth telling the user, per ``Default.mention``).

    Raises SpecError with every problem listed, in words a person can act on.
    """
    said = request.said() if isinstance(request, SpecRequest) else {
        k: v for k, v in request.items() if v is not None
    }
    method = said.get("method") if said.get("method") in METHODS else DEFAULTS["method"].value
    stack = said.get("stack") if said.get("stack") in STACKS else DEFAULTS["stack"].value
    names = list(DEFAULTS) + [n for per in STACK_DEFAULTS.get(stack, {}).values() for n in per if n not in DEFAULTS]
    assumed = [
        name for name in dict.fromkeys(names)
        if name not in said and default_for(name, stack, method).mention and _relevant(name, method)
    ]
    try:
        spec = FinetuneSpec(**said)
    except ValidationError as exc:
        raise SpecError(explain_validation(exc)) from None
    return spec, assumed


def _relevant(field: str, method: str) -> bool:
    if field.startswith("lora_"):
        return method in ("lora", "qlora")
    if field in ("quant", "double_quant"):
        return method == "qlora"
    return True


_FRIENDLY = {
    "seq_len": f"sequence length must be between 1 and {MAX_SEQ_LEN:,} tokens (e.g. 'seq 4096')",
    "micro_batch": f"micro-batch must be a whole number from 1 to {MAX_MICRO_BATCH} (e.g. 'batch 4')",
    "params_b": f"model size must be above 0 and at most {MAX_PARAMS_B:g}B parameters (e.g. '70B')",
    "num_gpus": f"number of GPUs must be from 1 to {MAX_GPUS}",
    "lora_rank": "LoRA rank must be a whole number from 1 up to the model's hidden size (e.g. 'rank 16')",
    "epochs": f"epochs must be above 0 and at most {MAX_EPOCHS}",
    "dataset_tokens": f"dataset size must be from 1 to {MAX_DATASET_TOKENS:.0e} tokens (e.g. '50M tokens')",
}


def explain_validation(exc: ValidationError) -> str:
    """One line per problem, phrased for a person (pydantic's own text as the fallback)."""
    lines = []
    for err in exc.errors():
        field = str(err["loc"][0]) if err.get("loc") else ""
        if field in _FRIENDLY:
            lines.append(f"{_FRIENDLY[field]}; got {err.get('input')!r}")
        elif err["type"] == "literal_error":
            lines.append(f"{field}: {err['msg'].lower()}; got {err.get('input')!r}")
        elif err["type"] == "extra_forbidden":
            lines.append(f"unknown setting {field!r}")
        else:
            msg = err["msg"].removeprefix("Value error, ")
            lines.append(f"{field}: {msg}" if field else msg)
    return "Invalid fine-tuning spec: " + "; ".join(dict.fromkeys(lines))
