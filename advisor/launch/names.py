"""What each tool calls the things a plan decides: optimizers, dtypes, attention kernels, LoRA
target modules, accelerators. Pure tables, each with the source it was read from.

Versions read: transformers 5.24 (``transformers.training_args.OptimizerNames``), TRL 1.16
(``trl.ModelConfig``, ``trl.SFTConfig``), PEFT 0.21 (``peft.LoraConfig``), axolotl 0.19.0
(``axolotl/utils/schemas/config.py``, ``training.py``, ``peft.py``), torchtune 0.6.1
(``recipes/configs/**.yaml``, ``torchtune/models/*/__init__.py``), SkyPilot 0.14.1
(``sky/catalog/__init__.py: get_common_gpus``, ``sky/catalog/data_fetchers/fetch_runpod.py``),
Ray 2.60 (``ray/_common/utils.py: RESOURCE_CONSTRAINT_PREFIX``,
``ray/_private/accelerators/nvidia_gpu.py: _gpu_name_to_accelerator_type``).
"""

from __future__ import annotations

from dataclasses import dataclass

from advisor.spec import FinetuneSpec

# --- optimizers --------------------------------------------------------------------------------


def hf_optim(spec: FinetuneSpec) -> tuple[str, str | None]:
    """TrainingArguments ``optim`` (and ``optim_args``) for the spec's optimizer.

    transformers 5.24 ``OptimizerNames``: ``adamw_torch`` is torch.optim.AdamW with its default
    implementation (foreach on CUDA), ``adamw_torch_fused`` passes fused=True
    (``Trainer.get_optimizer_cls_and_kwargs``), ``adamw_bnb_8bit`` is bitsandbytes AdamW8bit,
    ``paged_adamw_8bit`` its paged variant, ``sgd`` torch.optim.SGD. The for-loop AdamW has no
    name of its own: ``optim_args="foreach=False"`` is parsed into the optimizer's kwargs by
    ``get_optimizer_cls_and_kwargs`` (``optim_args`` is split on commas into key=value).
    """
    if spec.optimizer == "adamw":
        if spec.optimizer_impl == "fused":
            return "adamw_torch_fused", None
        if spec.optimizer_impl == "for-loop":
            return "adamw_torch", "foreach=False"
        return "adamw_torch", None
    return {"adamw-8bit": "adamw_bnb_8bit", "paged-adamw-8bit": "paged_adamw_8bit", "sgd": "sgd"}[spec.optimizer], None


def torchtune_optimizer(spec: FinetuneSpec) -> dict:
    """torchtune ``optimizer:`` node. torchtune's LoRA/QLoRA configs use torch.optim.AdamW with
    fused: True (configs/llama3_1/8B_qlora_single_device.yaml); its 8-bit configs name
    bitsandbytes.optim.PagedAdamW8bit (configs/llama3_1/8B_full_single_device.yaml, "paged
    optimizer"); bitsandbytes.optim.AdamW8bit is the unpaged class of the same module."""
    if spec.optimizer == "adamw":
        node = {"_component_": "torch.optim.AdamW"}
        if spec.optimizer_impl == "fused":
            node["fused"] = True
        elif spec.optimizer_impl == "for-loop":
            node["foreach"] = False
        else:
            node["foreach"] = True
        return node
    return {"_component_": {"adamw-8bit": "bitsandbytes.optim.AdamW8bit",
                            "paged-adamw-8bit": "bitsandbytes.optim.PagedAdamW8bit",
                            "sgd": "torch.optim.SGD"}[spec.optimizer]}


# --- precision -------------------------------------------------------------------------------


def model_dtype(spec: FinetuneSpec) -> str:
    """The dtype the model is loaded in (``from_pretrained(dtype=...)``), as the memory model
    assumes it (advisor.model.build.dtype_policy): a full fine-tune keeps fp32 parameters under
    bf16-mixed/fp16-mixed (HF Trainer's mixed precision over an fp32 model); LoRA/QLoRA load the
    frozen base in the compute dtype and PEFT keeps the adapters in fp32."""
    if spec.method == "full":
        return "bfloat16" if spec.precision == "bf16" else "float32"
    return compute_dtype(spec)


def compute_dtype(spec: FinetuneSpec) -> str:
    """The matmul dtype (bitsandbytes ``bnb_4bit_compute_dtype``)."""
    return {"bf16-mixed": "bfloat16", "bf16": "bfloat16", "fp16-mixed": "float16", "fp32": "float32"}[spec.precision]


def amp_flags(spec: FinetuneSpec) -> dict[str, bool]:
    """TrainingArguments ``bf16``/``fp16``: autocast (and for fp16 the grad scaler) over the
    loaded weights. Pure bf16 also sets bf16=True: the weights are already bf16, so autocast
    changes no matmul, and Trainer needs it to keep the loss scaler off."""
    return {"bf16": spec.precision in ("bf16-mixed", "bf16"), "fp16": spec.precision == "fp16-mixed"}


# --- attention ---------------------------------------------------------------------------------


def hf_attention(spec: FinetuneSpec) -> str:
    """``attn_implementation``: our "flash" is PyTorch SDPA (spec.DEFAULTS["attention"]: the
    flash / memory-efficient kernels transformers picks by default), not the flash-attn
    package ("flash_attention_2"), which needs a CUDA build to install."""
    return "sdpa" if spec.attention == "flash" else "eager"


# --- LoRA target modules -----------------------------------------------------------------------

# Attention projections by family: the names of the q/k/v/o nn.Linear modules in transformers'
# modeling files (LlamaAttention, MistralAttention, Qwen2Attention, Gemma2Attention,
# OlmoAttention all use q_proj/k_proj/v_proj/o_proj; Phi-3 fuses qkv_proj and keeps o_proj;
# Falcon fuses query_key_value and names the output dense).
ATTENTION_MODULES: dict[str, tuple[str, ...]] = {
    "phi": ("qkv_proj", "o_proj"),
    "falcon": ("query_key_value", "dense"),
}
DEFAULT_ATTENTION_MODULES = ("q_proj", "k_proj", "v_proj", "o_proj")


def attention_modules(family: str | None) -> tuple[str, ...]:
    return ATTENTION_MODULES.get(family or "", DEFAULT_ATTENTION_MODULES)


# --- accelerators --------------------------------------------------------------------------------

# SkyPilot accelerator names (sky/catalog/__init__.py get_common_gpus and the cloud fetchers in
# sky/catalog/data_fetchers/, SkyPilot 0.14.1). "H100" is the SXM part on AWS p5, GCP a3,
# Azure ND H100 v5 and Lambda; RunPod lists its SXM H100 as "H100-SXM".
SKYPILOT_ACCELERATORS = {
    "rtx-4090": "RTX4090", "l40s": "L40S", "a100-80gb": "A100-80GB", "h100-sxm": "H100",
    "h200": "H200", "l4": "L4", "a10g": "A10G", "rtx-6000-ada": "RTX6000-Ada", "a100-40gb": "A100",
    "h100-pcie": "H100", "b200": "B200", "mi300x": "MI300X",
}

# Ray labels a node with the resource "accelerator_type:<type>" (ray/_common/utils.py
# RESOURCE_CONSTRAINT_PREFIX) where <type> comes from the NVML device name through
# nvidia_gpu.py _gpu_name_to_accelerator_type (an RTX 4090 reports "NVIDIA GeForce RTX 4090",
# which that function turns into "GeForce-RTX-4090"). The catalog is the one source of these
# strings (gpus.csv ray_accelerator_type, and ray_accelerator_label where two catalog GPUs share
# a type, migration 3 in advisor/catalog/schema.py); a launch config asks for the type Ray adds
# by itself, so it schedules on a cluster nobody labelled by hand.
RAY_ACCELERATOR_PREFIX = "accelerator_type:"
RAY_ACCELERATOR_FRACTION = 0.001
"""What ``accelerator_type=`` asks for in Ray itself (ray/_common/utils.py
resources_from_ray_options: ``resources[f"{RESOURCE_CONSTRAINT_PREFIX}{accelerator_type}"] =
0.001``): a constraint, not a share of the node's single unit."""


def ray_accelerator(gpu) -> str | None:
    """The accelerator type Ray puts on a node of this catalog GPU (None: Ray has none for it)."""
    return gpu.ray_accelerator_type or None


# Our catalog regions by city, and the region of each cloud in that city (the clouds' public
# region lists: AWS eu-west-3 Paris, eu-central-1 Frankfurt; GCP europe-west9 Paris,
# europe-west3 Frankfurt; Azure francecentral Paris, germanywestcentral Frankfurt). On
# Kubernetes and SSH node pools SkyPilot's region is the context or pool name, which is the
# operator's choice: we name it after our region id.
CLOUD_REGIONS = {
    "aws": {"eu-west": "eu-west-3", "eu-central": "eu-central-1"},
    "gcp": {"eu-west": "europe-west9", "eu-central": "europe-west3"},
    "azure": {"eu-west": "francecentral", "eu-central": "germanywestcentral"},
}
CLOUDS = ("aws", "gcp", "azure", "kubernetes")
# Consumer cards (GeForce) are not in the hyperscalers' instance catalogs (AWS, GCP and Azure
# list data-center GPUs only; SkyPilot's RTX4090 comes from RunPod and similar clouds).
CONSUMER_GPUS = ("rtx-4090",)
CONSUMER_GPU_CLOUDS_WITHOUT = ("aws", "gcp", "azure")


# --- torchtune model builders ----------------------------------------------------------------


@dataclass(frozen=True)
class TorchtuneModel:
    """A catalog model as torchtune 0.6.1 builds and loads it."""

    module: str  # torchtune.models.<module>
    builder: str  # full-model builder; lora_<builder> and qlora_<builder> where they exist
    tokenizer: str  # tokenizer builder component
    tokenizer_files: tuple[tuple[str, str], ...]  # (argument, path inside the checkpoint dir)
    model_type: str  # FullModelHFCheckpointer model_type
    files: tuple[str, int]  # (file name, or filename_format with {} {}, number of shards)
    qlora: bool = True  # torchtune ships qlora_<builder>
    lora_output: bool = True  # the LoRA builders take apply_lora_to_output (Gemma 2's do not: tied head)

    def component(self, method: str) -> str:
        prefix = {"full": "", "lora": "lora_", "qlora": "qlora_"}[method]
        return f"torchtune.models.{self.module}.{prefix}{self.builder}"

    def checkpoint_files(self) -> list[str] | dict[str, str]:
        """``checkpointer.checkpoint_files`` as torchtune's configs write it: the list for a few
        files, ``filename_format``/``max_filename`` for many (configs/llama3_1/70B_lora.yaml)."""
        name, count = self.files
        if count == 1:
            return [name]
        if count <= 4:
            return [name.format(f"{i:05d}", f"{count:05d}") for i in range(1, count + 1)]
        return {"filename_format": name, "max_filename": f"{count:05d}"}


_LLAMA3_TOK = ("torchtune.models.llama3.llama3_tokenizer", (("path", "original/tokenizer.model"),))
_LLAMA2_TOK = ("torchtune.models.llama2.llama2_tokenizer", (("path", "tokenizer.model"),))
_QWEN_TOK = ("torchtune.models.qwen2_5.qwen2_5_tokenizer", (("path", "vocab.json"), ("merges_file", "merges.txt")))
_GEMMA_TOK = ("torchtune.models.gemma.gemma_tokenizer", (("path", "tokenizer.model"),))
_MISTRAL_TOK = ("torchtune.models.mistral.mistral_tokenizer", (("path", "tokenizer.model"),))
_SAFE = "model-{}-of-{}.safetensors"
_BIN = "pytorch_model-{}-of-{}.bin"


def _tt(module, builder, tok, model_type, files, qlora=True) -> TorchtuneModel:
    return TorchtuneModel(module, builder, tok[0], tok[1], model_type, files, qlora, lora_output=module != "gemma2")


# Builders from torchtune/models/<module>/__init__.py (0.6.1). Checkpoint files as torchtune's
# own config for that model lists them (recipes/configs/<family>/<size>_lora*.yaml): Llama 2
# and Mistral 7B load the .bin shards, Qwen2.5 configs name the instruct checkpoints (the base
# checkpoints have the same shard counts). Models without a torchtune config (Llama 3 8B, whose
# config loads Meta's consolidated.00.pth) are left out rather than guessed.
TORCHTUNE_MODELS: dict[str, TorchtuneModel] = {
    "llama-2-7b": _tt("llama2", "llama2_7b", _LLAMA2_TOK, "LLAMA2", (_BIN, 2)),
    "llama-2-13b": _tt("llama2", "llama2_13b", _LLAMA2_TOK, "LLAMA2", (_BIN, 3)),
    "llama-2-70b": _tt("llama2", "llama2_70b", _LLAMA2_TOK, "LLAMA2", (_BIN, 15)),
    "llama-3-70b": _tt("llama3", "llama3_70b", _LLAMA3_TOK, "LLAMA3", (_SAFE, 30)),
    "llama-3.1-8b": _tt("llama3_1", "llama3_1_8b", _LLAMA3_TOK, "LLAMA3", (_SAFE, 4)),
    "llama-3.1-70b": _tt("llama3_1", "llama3_1_70b", _LLAMA3_TOK, "LLAMA3", (_SAFE, 30)),
    "llama-3.1-405b": _tt("llama3_1", "llama3_1_405b", _LLAMA3_TOK, "LLAMA3", (_SAFE, 191)),
    "llama-3.2-1b": _tt("llama3_2", "llama3_2_1b", _LLAMA3_TOK, "LLAMA3_2", ("model.safetensors", 1)),
    "llama-3.2-3b": _tt("llama3_2", "llama3_2_3b", _LLAMA3_TOK, "LLAMA3_2", (_SAFE, 2)),
    "llama-3.3-70b": _tt("llama3_3", "llama3_3_70b", _LLAMA3_TOK, "LLAMA3", (_SAFE, 30)),
    "mistral-7b-v0.1": _tt("mistral", "mistral_7b", _MISTRAL_TOK, "MISTRAL", (_BIN, 2)),
    "qwen2.5-0.5b": _tt("qwen2_5", "qwen2_5_0_5b", _QWEN_TOK, "QWEN2", ("model.safetensors", 1), qlora=False),
    "qwen2.5-1.5b": _tt("qwen2_5", "qwen2_5_1_5b_base", _QWEN_TOK, "QWEN2", ("model.safetensors", 1), qlora=False),
    "qwen2.5-3b": _tt("qwen2_5", "qwen2_5_3b", _QWEN_TOK, "QWEN2", (_SAFE, 2), qlora=False),
    "qwen2.5-7b": _tt("qwen2_5", "qwen2_5_7b_base", _QWEN_TOK, "QWEN2", (_SAFE, 4), qlora=False),
    "qwen2.5-14b": _tt("qwen2_5", "qwen2_5_14b_base", _QWEN_TOK, "QWEN2", (_SAFE, 8), qlora=False),
    "qwen2.5-32b": _tt("qwen2_5", "qwen2_5_32b_base", _QWEN_TOK, "QWEN2", (_SAFE, 17), qlora=False),
    "qwen2.5-72b": _tt("qwen2_5", "qwen2_5_72b_base", _QWEN_TOK, "QWEN2", (_SAFE, 37), qlora=False),
    "gemma-2-2b": _tt("gemma2", "gemma2_2b", _GEMMA_TOK, "GEMMA2", (_SAFE, 3)),
    "gemma-2-9b": _tt("gemma2", "gemma2_9b", _GEMMA_TOK, "GEMMA2", (_SAFE, 8)),
    "gemma-2-27b": _tt("gemma2", "gemma2_27b", _GEMMA_TOK, "GEMMA2", (_SAFE, 24)),
}
