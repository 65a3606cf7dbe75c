"""Trainer configs for a plan: TRL (``trl sft``), axolotl (``axolotl train``) and torchtune
(``tune run``). Pure functions: plan + options in, a ``LaunchConfig`` out; anything of the plan
a tool cannot express goes to ``unexpressed`` (written as comments), never silently dropped.

Sources (the versions the tests parse with, or derive schemas from):
- TRL 1.16 ``trl/scripts/sft.py`` (make_parser: ScriptArguments, SFTConfig, ModelConfig,
  DatasetMixtureConfig), ``trl/scripts/utils.py`` TrlParser.parse_args_and_config (YAML keys that
  are no dataclass field become ``accelerate launch`` arguments), ``trl/cli/accelerate_config.py``
  (``accelerate_config: zero3`` names a config shipped in trl/accelerate_configs/),
  ``trl.get_peft_config`` / ``trl.get_quantization_config`` (ModelConfig -> LoraConfig /
  BitsAndBytesConfig).
- axolotl 0.19.0 ``axolotl/utils/schemas/config.py`` AxolotlInputConfig, ``peft.py``,
  ``training.py``, ``fsdp.py``; ``axolotl/utils/config/__init__.py`` (bf16 loads the model in
  bf16), ``axolotl/cli/main.py`` train (``--launcher torchrun -- <torchrun args>``).
- torchtune 0.6.1 ``recipes/configs/llama3_1/8B_lora_single_device.yaml``,
  ``8B_qlora_single_device.yaml``, ``70B_lora.yaml`` and the recipes
  ``lora_finetune_single_device.py`` / ``lora_finetune_distributed.py`` /
  ``full_finetune_*.py`` (the keys they read).
"""

from __future__ import annotations

import math
import shlex
from typing import Any

from advisor.errors import LaunchError
from advisor.launch import names
from advisor.launch.config import LaunchConfig, LaunchOptions
from advisor.launch.plan import Plan

# The plan decides no learning rate, and axolotl and torchtune require one: every tool gets
# torchtune's recipe values (recipes/configs/llama3_1/8B_lora.yaml lr 3e-4, 8B_full.yaml 2e-5),
# and the header says so.
LEARNING_RATE = {True: 3e-4, False: 2e-5}  # trains adapters -> lr
MASTER_PORT = 29500  # torch.distributed's default MASTER_PORT (torchrun --master-port default)


def output_dir(plan: Plan, opts: LaunchOptions) -> str:
    model = plan.model.id if plan.model is not None else f"{plan.spec.params_b:g}b"
    return opts.output_dir or f"./outputs/{model}-{plan.spec.method}"


def header(plan: Plan, opts: LaunchOptions, tool: str) -> list[str]:
    lines = [f"{tool} config for: {plan.summary()}",
             f"plan: {'recommended by advisor' if plan.chosen == 'recommended' else 'on the GPU named'}; "
             f"memory predicted for the '{plan.spec.stack}' stack"]
    if opts.dataset is not None:
        lines.append(f"dataset: {opts.dataset} (format: {opts.dataset_format})")
    lines.append(f"learning rate {LEARNING_RATE[plan.spec.trains_adapters]:g}: not part of the plan "
                 "(torchtune's recipe value); tune it")
    return lines


def _lora_targets(plan: Plan) -> list[str] | str:
    if plan.spec.lora_targets == "all-linear":
        return "all-linear"
    return list(names.attention_modules(plan.model.family if plan.model else None))


def _common_unexpressed(plan: Plan, opts: LaunchOptions) -> list[str]:
    out = []
    if plan.hub_id is None:
        out.append(f"model: {plan.model_label} has no Hugging Face Hub id in the catalog; set the model path")
    if opts.dataset is None:
        out.append("dataset: not given (advisor launch-config --dataset ID_OR_PATH); set it before running")
    if plan.spec.dataset_tokens is not None:
        out.append(f"dataset size: {plan.spec.dataset_tokens:,} tokens per epoch (the estimate's); the trainer "
                   "reads the dataset itself")
    if plan.spec.expandable_segments:
        out.append("expandable segments: set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True in the job's environment")
    return out


def _liger_unexpressed(plan: Plan, tool: str) -> list[str]:
    """The plan fits with Liger's fused linear cross-entropy (advisor.recommend's fused_ce lever);
    a tool without a config key for it is told so (TRL/transformers has ``use_liger_kernel``)."""
    if not plan.spec.liger_kernel:
        return []
    if tool == "axolotl":
        return ["fused linear cross-entropy: the plan fits with Liger's kernel; add plugins: "
                "[axolotl.integrations.liger.LigerPlugin] and liger_fused_linear_cross_entropy: true (plugin "
                "arguments, outside axolotl's base schema)"]
    return [f"fused linear cross-entropy: the plan fits with Liger's kernel, which {tool} does not use; its "
            "memory there is higher than planned (use --format trl)"]


def _sharding(plan: Plan) -> str | None:
    """'fsdp', 'zero2', 'zero3' or None (one GPU, or DDP replicas)."""
    if plan.num_gpus == 1 or plan.spec.sharding == "ddp":
        return None
    return plan.spec.sharding


# --- TRL -------------------------------------------------------------------------------------


def trl_config(plan: Plan, opts: LaunchOptions) -> LaunchConfig:
    """``trl sft --config train.yaml``: one YAML for TRL's ScriptArguments, SFTConfig and
    ModelConfig; the keys no dataclass owns (num_processes, accelerate_config, num_machines) go
    to ``accelerate launch`` (TrlParser.set_defaults_with_config returns them as launch args)."""
    s = plan.spec
    optim, optim_args = names.hf_optim(s)
    unexpressed = _common_unexpressed(plan, opts)
    body: dict[str, Any] = {}
    if plan.hub_id:
        body["model_name_or_path"] = plan.hub_id
    if opts.dataset:
        body["dataset_name"] = opts.dataset
    body.update(dtype=names.model_dtype(s), attn_implementation=names.hf_attention(s))
    if s.trains_adapters:
        body.update(use_peft=True, lora_r=s.lora_rank, lora_alpha=_int_if_whole(s.lora_alpha),
                    lora_dropout=s.lora_dropout, lora_target_modules=_lora_targets(plan))
    if s.method == "qlora":
        if s.quant == "nf4":
            body.update(load_in_4bit=True, bnb_4bit_quant_type="nf4", use_bnb_nested_quant=s.double_quant)
        else:
            body.update(load_in_8bit=True)
    body.update(
        max_length=s.seq_len, per_device_train_batch_size=s.micro_batch,
        gradient_accumulation_steps=plan.gradient_accumulation_steps,
        # transformers 5.24 renamed gradient_checkpointing to activation_checkpointing (the old
        # name is a deprecated alias, TrainingArguments.__post_init__)
        activation_checkpointing=s.gradient_checkpointing, optim=optim,
        learning_rate=LEARNING_RATE[s.trains_adapters],
        **names.amp_flags(s), num_train_epochs=s.epochs, output_dir=output_dir(plan, opts),
    )
    if optim_args:
        body["optim_args"] = optim_args
    if s.liger_kernel:  # TrainingArguments.use_liger_kernel (transformers 5.24 training_args.py)
        body["use_liger_kernel"] = True
    body.update(_hf_eval_and_save(plan))
    if body["eval_strategy"] != "no":
        unexpressed.append(f"evaluation on {s.costs.eval_fraction:.0%} of the data: TRL evaluates on the dataset's "
                           "'test' split (dataset_test_split); the dataset must have one")
    for key in ("packing", "torch_compile"):
        if getattr(s, key, None):
            body[key] = True
    shard = _sharding(plan)
    if shard == "fsdp":
        # FSDP through TrainingArguments (transformers sets ACCELERATE_USE_FSDP from args.fsdp):
        # FSDP's own activation checkpointing replaces the Trainer's, as TrainingArguments'
        # fsdp_config docs prefer ("prefer this over the activation_checkpointing training argument").
        body["fsdp"] = "full_shard auto_wrap"
        body["fsdp_config"] = {"version": 2, "auto_wrap_policy": "TRANSFORMER_BASED_WRAP",
                               "reshard_after_forward": True, "cpu_ram_efficient_loading": True,
                               "state_dict_type": "FULL_STATE_DICT",
                               "activation_checkpointing": s.gradient_checkpointing}
        body["activation_checkpointing"] = False
        if s.method == "qlora":
            # FSDP flattens parameters of one dtype: the 4-bit weights must be stored as the
            # 16-bit dtype (transformers docs, "FSDP + QLoRA"; BitsAndBytesConfig
            # bnb_4bit_quant_storage).
            body["bnb_4bit_quant_storage"] = names.compute_dtype(s)
    elif shard in ("zero2", "zero3"):
        body["accelerate_config"] = shard
    if plan.num_gpus > 1:
        body["num_processes"] = plan.num_gpus
    if plan.nodes > 1:
        body["num_machines"] = plan.nodes
        unexpressed.append(f"multi-node: {plan.nodes} nodes; start `trl sft` on each with --machine_rank R "
                           f"--main_process_ip IP --main_process_port {MASTER_PORT}")
    command = "trl sft --config train.yaml"
    return LaunchConfig("trl", body, "yaml", "train.yaml", command, header(plan, opts, "TRL"), unexpressed)


def _hf_eval_and_save(plan: Plan) -> dict[str, Any]:
    """Evaluation cadence and checkpoints kept, from the cost assumptions."""
    c = plan.spec.costs
    out: dict[str, Any] = {"save_total_limit": max(c.checkpoints_kept, 1), "save_strategy": "epoch"}
    if c.evals_per_epoch == 0 or c.eval_fraction == 0:
        out["eval_strategy"] = "no"
    elif c.evals_per_epoch == 1:
        out["eval_strategy"] = "epoch"
    else:  # a float eval_steps below 1 is a ratio of the total training steps (TrainingArguments)
        out.update(eval_strategy="steps", eval_steps=round(1 / (c.evals_per_epoch * plan.spec.epochs), 6))
    return out


def _int_if_whole(x: float) -> int | float:
    return int(x) if float(x).is_integer() else x


# --- axolotl ---------------------------------------------------------------------------------

AXOLOTL_VERSION = "0.19.0"
_AXOLOTL_DATASET_TYPES = {"messages": "chat_template", "instruction": "alpaca", "text": "completion"}


def axolotl_config(plan: Plan, opts: LaunchOptions) -> LaunchConfig:
    """``axolotl train axolotl.yaml``."""
    s = plan.spec
    optim, optim_args = names.hf_optim(s)
    unexpressed = _common_unexpressed(plan, opts)
    body: dict[str, Any] = {}
    if plan.hub_id:
        body["base_model"] = plan.hub_id
    if s.trains_adapters:
        body["adapter"] = s.method
        if s.method == "qlora":
            if s.quant == "nf4":
                body["load_in_4bit"] = True
                body["bnb_config_kwargs"] = {"bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": s.double_quant}
            else:
                body["load_in_8bit"] = True
        alpha = _int_if_whole(s.lora_alpha)
        if not isinstance(alpha, int):
            unexpressed.append(f"lora_alpha {s.lora_alpha:g}: axolotl takes a whole number; written as {round(alpha)}")
            alpha = round(alpha)
        body.update(lora_r=s.lora_rank, lora_alpha=alpha, lora_dropout=s.lora_dropout)
        if s.lora_targets == "all-linear":
            body["lora_target_linear"] = True
        else:
            body["lora_target_modules"] = _lora_targets(plan)
    if opts.dataset:
        body["datasets"] = [{"path": opts.dataset, "type": _AXOLOTL_DATASET_TYPES[opts.dataset_format]}]
    body.update(sequence_len=s.seq_len, micro_batch_size=s.micro_batch,
                gradient_accumulation_steps=plan.gradient_accumulation_steps, num_epochs=s.epochs,
                optimizer=optim, learning_rate=LEARNING_RATE[s.trains_adapters],
                gradient_checkpointing=s.gradient_checkpointing,
                attn_implementation=names.hf_attention(s))
    if optim_args:
        body["optim_args"] = dict(kv.split("=", 1) for kv in optim_args.split(","))
    unexpressed += _liger_unexpressed(plan, "axolotl")
    # axolotl: bf16/fp16 are the Trainer's autocast flags AND the load dtype
    # (utils/config/__init__.py: bf16 -> torch_dtype bfloat16), so a full fine-tune with an
    # fp32 master copy (bf16-mixed) has no spelling: it trains bf16 weights.
    if s.precision in ("bf16-mixed", "bf16"):
        body["bf16"] = True
        if s.method == "full" and s.precision == "bf16-mixed":
            unexpressed.append("precision bf16-mixed (fp32 master weights): axolotl loads the model in bf16 when "
                               "bf16 is set, so the weights train in bf16 (less memory than planned)")
    elif s.precision == "fp16-mixed":
        body["fp16"] = True
        if s.method == "full":
            unexpressed.append("precision fp16-mixed (fp32 master weights): axolotl loads the model in fp16 "
                               "when fp16 is set")
    else:
        body.update(bf16=False, fp16=False)
    c = s.costs
    body["save_total_limit"] = max(c.checkpoints_kept, 1)
    if c.eval_fraction > 0 and c.evals_per_epoch > 0:
        body.update(val_set_size=c.eval_fraction, evals_per_epoch=c.evals_per_epoch)
    else:
        body["val_set_size"] = 0.0
    for key, ax in (("packing", "sample_packing"), ("torch_compile", "torch_compile")):
        if getattr(s, key, None):
            body[ax] = True
    body["output_dir"] = output_dir(plan, opts)
    shard = _sharding(plan)
    if shard == "fsdp":
        body["fsdp_version"] = 2
        body["fsdp_config"] = {"offload_params": False, "state_dict_type": "FULL_STATE_DICT",
                               "auto_wrap_policy": "TRANSFORMER_BASED_WRAP", "reshard_after_forward": True,
                               "activation_checkpointing": s.gradient_checkpointing}
        body["gradient_checkpointing"] = False  # FSDP checkpoints the wrapped layers instead
    elif shard in ("zero2", "zero3"):
        # axolotl ships these under deepspeed_configs/ (`axolotl fetch deepspeed_configs`)
        body["deepspeed"] = f"deepspeed_configs/{shard}_bf16.json" if s.precision.startswith("bf16") else f"deepspeed_configs/{shard}.json"
    command = "axolotl train axolotl.yaml"
    if plan.num_gpus > 1:
        command += " --launcher torchrun -- " + _torchrun_args(plan)
    return LaunchConfig("axolotl", body, "yaml", "axolotl.yaml", command, header(plan, opts, "axolotl"), unexpressed)


def _torchrun_args(plan: Plan, *, node_rank: str = "0", master: str = "127.0.0.1") -> str:
    args = f"--nproc_per_node {plan.gpus_per_node}"
    if plan.nodes > 1:
        args += f" --nnodes {plan.nodes} --node_rank {node_rank} --master_addr {master} --master_port {MASTER_PORT}"
    return args


# --- torchtune -------------------------------------------------------------------------------

TORCHTUNE_VERSION = "0.6.1"
_TT_DATASETS = {"messages": "torchtune.datasets.chat_dataset", "instruction": "torchtune.datasets.instruct_dataset",
                "text": "torchtune.datasets.text_completion_dataset"}
TORCHTUNE_CHECKPOINT_DIR = "./model"  # where `tune download --output-dir` puts the Hub checkpoint


def torchtune_recipe(plan: Plan) -> str:
    kind = "lora" if plan.spec.trains_adapters else "full"
    where = "distributed" if plan.num_gpus > 1 else "single_device"
    return f"{kind}_finetune_{where}"


def torchtune_config(plan: Plan, opts: LaunchOptions) -> LaunchConfig:
    """``tune run <recipe> --config torchtune.yaml``, shaped like torchtune's own configs
    (configs/llama3_1/8B_lora_single_device.yaml and friends)."""
    s = plan.spec
    model_id = plan.model.id if plan.model is not None else None
    tt = names.TORCHTUNE_MODELS.get(model_id or "")
    if tt is None:
        have = ", ".join(sorted(names.TORCHTUNE_MODELS))
        raise LaunchError(f"torchtune {TORCHTUNE_VERSION} has no model builder we map for {plan.model_label}; "
                          f"use --format trl or axolotl (torchtune models: {have}).")
    if s.method == "qlora" and not tt.qlora:
        raise LaunchError(f"torchtune {TORCHTUNE_VERSION} has no QLoRA builder for {plan.model_label} "
                          f"(torchtune.models.{tt.module} ships LoRA only); use --format trl or axolotl.")
    if s.method == "qlora" and s.quant != "nf4":
        raise LaunchError("torchtune's QLoRA builders quantize to NF4 only; use --format trl or axolotl for int8.")
    if s.precision == "fp16-mixed":
        raise LaunchError("torchtune trains in bf16 or fp32 only (recipes refuse fp16); use --precision bf16 or "
                          "--format trl.")
    unexpressed = _common_unexpressed(plan, opts) + _liger_unexpressed(plan, "torchtune")
    out = output_dir(plan, opts)
    model: dict[str, Any] = {"_component_": tt.component(s.method)}
    if s.trains_adapters:
        attn = ["q_proj", "k_proj", "v_proj", "output_proj"]
        model.update(lora_attn_modules=attn, apply_lora_to_mlp=s.lora_targets == "all-linear")
        if tt.lora_output:  # all-linear in PEFT leaves the LM head out too
            model["apply_lora_to_output"] = False
        model.update(lora_rank=s.lora_rank, lora_alpha=float(s.lora_alpha), lora_dropout=s.lora_dropout)
        if s.method == "qlora" and not s.double_quant:
            unexpressed.append("double quantization off: torchao's NF4 tensors always quantize the scales "
                               "(torchao.dtypes.nf4tensor, scaler_block_size)")
    tokenizer = {"_component_": tt.tokenizer,
                 **{arg: f"{TORCHTUNE_CHECKPOINT_DIR}/{path}" for arg, path in tt.tokenizer_files},
                 "max_seq_len": s.seq_len}
    checkpointer = {"_component_": "torchtune.training.FullModelHFCheckpointer",
                    "checkpoint_dir": TORCHTUNE_CHECKPOINT_DIR, "checkpoint_files": tt.checkpoint_files(),
                    "recipe_checkpoint": None, "output_dir": out, "model_type": tt.model_type}
    dataset: dict[str, Any] = {"_component_": _TT_DATASETS[opts.dataset_format],
                               "source": opts.dataset if opts.dataset else "???",  # OmegaConf's MISSING
                               "packed": bool(getattr(s, "packing", False))}
    if opts.dataset_format == "messages":
        dataset["conversation_style"] = "openai"
    epochs = s.epochs
    if not float(epochs).is_integer():
        unexpressed.append(f"epochs {epochs:g}: torchtune counts whole epochs; written as {math.ceil(epochs)} "
                           "(cap the steps with max_steps_per_epoch)")
    body: dict[str, Any] = {
        "output_dir": out, "model": model, "tokenizer": tokenizer, "checkpointer": checkpointer,
        "resume_from_checkpoint": False, "dataset": dataset, "seed": None, "shuffle": True,
        "batch_size": s.micro_batch, "optimizer": {**names.torchtune_optimizer(s), "lr": LEARNING_RATE[s.trains_adapters]},
        "lr_scheduler": {"_component_": "torchtune.training.lr_schedulers.get_cosine_schedule_with_warmup",
                         "num_warmup_steps": 100},
        "loss": {"_component_": "torchtune.modules.loss.CEWithChunkedOutputLoss"},
        "epochs": math.ceil(epochs), "max_steps_per_epoch": None,
        "gradient_accumulation_steps": plan.gradient_accumulation_steps, "clip_grad_norm": None,
        "compile": bool(getattr(s, "torch_compile", False)),
        "metric_logger": {"_component_": "torchtune.training.metric_logging.DiskLogger", "log_dir": f"{out}/logs"},
        "log_every_n_steps": 1, "log_peak_memory_stats": True,
        "device": "cuda", "dtype": "fp32" if s.precision == "fp32" else "bf16",
        "enable_activation_checkpointing": s.gradient_checkpointing, "enable_activation_offloading": False,
    }
    if s.trains_adapters:
        body["save_adapter_weights_only"] = True
    if s.precision == "bf16-mixed":
        what = "LoRA adapters in bf16, not fp32" if s.trains_adapters else "weights and optimizer states in bf16 (less memory than planned)"
        unexpressed.append(f"precision bf16-mixed: torchtune has no autocast; dtype bf16 trains {what}")
    if s.attention == "eager":
        unexpressed.append("attention eager: torchtune always uses SDPA (torchtune.modules.attention)")
    if s.optimizer_impl == "fused" and s.optimizer != "adamw":
        unexpressed.append(f"optimizer implementation fused: {s.optimizer} has no fused variant")
    c = s.costs
    if c.eval_fraction > 0 and c.evals_per_epoch > 0:
        unexpressed.append(f"evaluation ({c.evals_per_epoch} per epoch on {c.eval_fraction:.0%} of the data): "
                           f"torchtune {TORCHTUNE_VERSION}'s fine-tuning recipes do not evaluate; run the "
                           "eleuther_eval recipe on the saved checkpoint")
    unexpressed.append(f"checkpoints kept ({c.checkpoints_kept}): torchtune writes one checkpoint per epoch "
                       "and never deletes old ones")
    shard = _sharding(plan)
    if shard in ("zero2", "zero3"):
        raise LaunchError("torchtune shards with FSDP2 only (no DeepSpeed); use --sharding fsdp or --format trl.")
    if plan.num_gpus > 1:
        # lora_finetune_distributed / full_finetune_distributed shard with FSDP2 always; DDP
        # replicas have no spelling
        body["fsdp_cpu_offload"] = False
        body["fsdp_reshard_after_forward"] = True
        if s.sharding == "ddp":
            unexpressed.append("sharding ddp: torchtune's distributed recipes always shard with FSDP2 "
                               "(less memory per GPU than planned)")
    recipe = torchtune_recipe(plan)
    download = f"tune download {shlex.quote(plan.hub_id)} --output-dir {TORCHTUNE_CHECKPOINT_DIR}" if plan.hub_id else None
    nproc = f" --nproc_per_node {plan.gpus_per_node}" if plan.num_gpus > 1 else ""
    if plan.nodes > 1:
        nproc = f" --nnodes {plan.nodes}" + nproc
    command = f"tune run{nproc} {recipe} --config torchtune.yaml"
    if download:
        command = f"{download} && {command}"
    return LaunchConfig("torchtune", body, "yaml", "torchtune.yaml", command, header(plan, opts, "torchtune"), unexpressed)


TRAINERS = {"trl": trl_config, "axolotl": axolotl_config, "torchtune": torchtune_config}
