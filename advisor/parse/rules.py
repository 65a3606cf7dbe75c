"""Rules for the settings that are words: method, quantization, optimizer, precision, gradient
checkpointing, LoRA details, attention, sharding, training stack, and ``key: value`` lines of a
pasted Axolotl / TRL / HF config. Each rule is a regex over normalized text (lower-case ASCII, see
``advisor.parse.text``) and a handler that makes claims; ``quantities`` has the rules for numbers.

Vocabulary follows what people type in both languages: "QLoRA", "q-lora", "4-bit LoRA", "LoRA en
4 bits", "adapters", "PEFT", "full fine-tune", "full FT", "full-parameter", "SFT full", "ajuste
fino completo", "sin gradient checkpointing", "8-bit adam", "paged_adamw_8bit", "pure bf16".
"""

from __future__ import annotations

import functools
import re

from advisor.parse import slots
from advisor.parse.numbers import parse_number
from advisor.parse.quantities import claim_int, claim_number
from advisor.parse.scan import Scan
from advisor.parse.slots import CUE_KEYS

# (imported here, not in the handlers that use them: an import statement in a function costs microseconds
# each call, and the config handlers run once per line of a pasted config)

R = re.compile

# --- config lines: "max_seq_length: 4096", "lora_r=16", "gradient_checkpointing: true" -----------
#
# Keys as the tools spell them: axolotl (sequence_len, micro_batch_size, num_epochs, adapter, lora_r,
# load_in_4bit; "adapter" left out trains every parameter), LLaMA-Factory (cutoff_len,
# per_device_train_batch_size, finetuning_type, quantization_bit, lora_rank, lora_target),
# TRL's SFTConfig and CLI (max_length -- max_seq_length before TRL 0.20 --, use_peft, lora_r,
# load_in_4bit; trl/trainer/sft_config.py and trl/trainer/model_config.py, trl 1.16), torchtune
# recipes (batch_size, epochs, enable_activation_checkpointing) and launchers (torchrun
# --nproc_per_node, accelerate launch --num_processes, deepspeed --num_gpus). ``flags_to_pairs``
# first rewrites command-line flags ("--lora_r 16", "--use_peft") as "key=value" pairs.

# Unsloth's use_gradient_checkpointing="unsloth" is its own offloaded form of checkpointing: on.
_TRUE = {"true", "yes", "on", "1", "si", "enabled", "unsloth", "auto"}
_FALSE = {"false", "no", "off", "0", "none", "null", "disabled"}
_CONFIG_KEYS = {
    "seq_len": "max_seq_length|max_seq_len|seq_len|seq_length|sequence_len|sequence_length|seqlen|"
               "max_length|cutoff_len|block_size|context_length|model_max_length|max_tokens_per_sample|ctx_len|"
               "context_len",  # (a script's own short names, as logged to a tracker: "ctx_len", "micro_bsz")
    "micro_batch": "per_device_train_batch_size|micro_batch_size|train_micro_batch_size_per_gpu|"
                   "micro_batch|batch_size|mbs|bs|per_gpu_train_batch_size|train_batch_size_per_device|"
                   "micro_train_batch_size|"  # OpenRLHF's per-GPU batch (openrlhf/cli/train_sft.py)
                   # a hand-written script's or dict's own names for the same per-device batch
                   "per_device_batch|per_device_batch_size|batch_per_device|batch_per_gpu|batch_size_per_gpu|"
                   "micro_bsz|micro_bs|"
                   # Ray Train's per-worker batch, one GPU per worker (ray docs, "Data loading and preprocessing":
                   # train_loop_config={"batch_size_per_worker": ...}, with ScalingConfig(resources_per_worker={"GPU": 1}))
                   "batch_size_per_worker|batch_per_worker|per_worker_batch_size|"
                   # Composer's (LLM Foundry's YAML) "the number of samples to process on each device per microbatch"
                   # (composer/trainer/trainer.py, Trainer(device_train_microbatch_size=...))
                   "device_train_microbatch_size",
    "lora_rank": "lora_r|lora_rank|rank|r",
    "lora_alpha": "lora_alpha|alpha",
    "lora_dropout": "lora_dropout",
    "epochs": "num_train_epochs|num_epochs|n_epochs|max_epochs|train_epochs|epochs",
    # (Megatron-LM's --recompute-activations: "recompute activation to allow for training with larger models,
    # sequences, and batch sizes", megatron/training/arguments.py, _add_training_args)
    # (accelerate's FSDP config: "fsdp_activation_checkpointing: Decides Whether (true|false) intermediate activations
    # are freed during the forward pass, and a checkpoint is left as a placeholder", huggingface.co/docs/accelerate,
    # usage_guides/fsdp; under fsdp_config it is FSDP's own, read as _config's "gc_fsdp")
    "gradient_checkpointing": "use_gradient_checkpointing|gradient_checkpointing|activation_checkpointing|"
                              "enable_activation_checkpointing|recompute_activations|fsdp_activation_checkpointing",
    "optimizer": "optim|optimizer",
    # (RunPod's ``runpodctl create pod --gpuCount``: "number of GPUs for the pod", docs.runpod.io runpodctl reference;
    # Determined's ``resources.slots_per_trial``: "the number of slots to use for each trial", a slot being one GPU,
    # the trial's total over its agents, docs.determined.ai experiment-config-reference)
    # (and a launch script's env-var names: NGPUS=4, NUM_GPU=2, GPU_NUM=8, N_GPU=1)
    "num_gpus": "num_gpus|n_gpus|ngpus|ngpu|num_gpu|n_gpu|gpu_num|num_of_gpus|nb_gpus|num_processes|gpus|world_size"
                "|gpucount|gpu_count|slots_per_trial",  # accelerate's num_processes counts every machine's
    # torchrun: per node, times --nnodes; Lightning's Trainer(devices=4, num_nodes=2) and LitGPT's --devices are per
    # node too (lightning/fabric/connector.py: the world size is num_nodes * devices)
    # (NeMo 2's recipes, ``llm.<model>.finetune_recipe(num_nodes=..., num_gpus_per_node=...)``: the trainer's
    # devices per node, times num_nodes, nemo/collections/llm/recipes/llama3_8b.py finetune_recipe)
    # Azure ML's PyTorchDistribution(process_count_per_instance=N): "the number of processes per node", one per GPU,
    # times the job's instance_count nodes (learn.microsoft.com, azure.ai.ml.PyTorchDistribution, command(instance_count=));
    # Vertex AI's machine_spec accelerator_count: "the number of accelerators to attach to the machine", times the
    # worker pool's replica_count machines (cloud.google.com/vertex-ai, MachineSpec, WorkerPoolSpec)
    "gpus_per_node": "nproc_per_node|nproc|gpus_per_node|devices|num_gpus_per_node|process_count_per_instance"
                     "|accelerator_count",
    # SLURM's sbatch/srun --nodes (-N) counts machines like torchrun's --nnodes (sbatch(1), "-N, --nodes")
    # Kubeflow Trainer v2's TrainJob ``spec.trainer.numNodes`` counts machines too, each with its ``resourcesPerNode``
    # limits (``nvidia.com/gpu: N``, read as per node; trainer.kubeflow.org/v1alpha1, the SDK's TrainerV1alpha1Trainer
    # model: num_nodes, resources_per_node)
    "num_nodes": "nnodes|num_nodes|numnodes|num_machines|nodes|instance_count|replica_count",
    # Ray Train's ScalingConfig(num_workers=N, use_gpu=True): N workers of one GPU each, or of
    # resources_per_worker={"GPU": k} (ray/air/config.py, ScalingConfig._resources_per_worker_not_none, ray 2.60)
    "ray_workers": "num_workers",
    "bf16": "bf16",
    "fp16": "fp16",
    "load_in_4bit": "load_in_4bit",
    "load_in_8bit": "load_in_8bit",
    # (ms-swift's --quant_bits 4|8 with --quant_method bnb: the base loaded quantized for the adapters, ms-swift docs
    # "Command-line parameters", quantization arguments; as LLaMA-Factory's quantization_bit)
    "quantization_bit": "quantization_bit|quant_bits",
    # TRL's use_peft; the use_lora / lora_enable switches of scripts built on PEFT (LLaVA's train.py --lora_enable,
    # Firefly and Chinese-LLaMA-Alpaca's --use_lora, PEFT's use_dora for DoRA, sized as LoRA)
    # (and AutoTrain's own switch, LLMTrainingParams.peft: "--peft", "peft: false" in its YAML's params)
    "use_peft": "use_peft|use_lora|lora_enable|enable_lora|use_dora|peft",
    # ms-swift: --train_type full|lora; NeMo's model.peft.peft_scheme: lora | ... | none, "none" the full fine-tune
    # (NeMo examples/nlp/language_modeling/tuning/conf/megatron_gpt_finetuning_config.yaml; nemo.collections.llm
    # recipes' finetune_recipe(peft_scheme="none"|None) trains every weight)
    "adapter": "adapter|finetuning_type|method|metodo|peft_type|training_type|train_type|peft_scheme",
    # Oumi's PeftParams.q_lora ("use quantization for the LoRA", oumi/core/configs/params/peft_params.py)
    "q_lora": "q_lora|use_qlora",
    # Unsloth's FastModel.from_pretrained(..., full_finetuning=True): every weight trained (unsloth's README, "full
    # fine-tuning": "full_finetuning = True")
    "full_finetuning": "full_finetuning",
    "flash": "flash_attention|use_flash_attention_2|use_flash_attention",
    "attn_implementation": "attn_implementation",
    # LLaMA-Factory's flash_attn: auto | disabled | sdpa | fa2 | fa3 (llamafactory/hparams/model_args.py, AttentionFunction)
    "lf_flash_attn": "flash_attn",
    "double_quant": "bnb_4bit_use_double_quant",
    "quant_type": "bnb_4bit_quant_type",
    "lora_target_linear": "lora_target_linear",
    # (and a notebook's own names: ">>> n_tokens = 48_000_000", ">>> tokens_totales = 75_000_000")
    "dataset_tokens": "dataset_tokens|num_tokens|total_tokens|n_tokens|train_tokens|training_tokens|tokens_totales"
                      "|tokens_total|num_tokens_total",
    "grad_accum": "gradient_accumulation_steps|gradient_accumulation|grad_accum_steps",
    # fields other parts of the advisor add to the spec; read when the spec has them (``_spec_accepts``)
    "compile": "torch_compile|compile",
    "packing": "packing|sample_packing|packed",
    "liger": "use_liger_kernel|use_liger|liger_kernel",
    "deepspeed": "deepspeed",
    "expandable_segments": "expandable_segments",  # PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
    # a DeepSpeed config pasted as JSON, flattened by ``pasted.flatten_json``; accelerate's deepspeed_config
    "zero_stage": r"zero_optimization\.stage|zero_stage",
    "bf16_enabled": r"bf16\.enabled",
    "fp16_enabled": r"fp16\.enabled",
    # torchtune: the recipe's dtype (no autocast: training.get_dtype(cfg.dtype) is the dtype every weight is
    # built in, recipes/lora_finetune_single_device.py, torchtune 0.6.1) and the LoRA builder's MLP flag
    "tt_dtype": "dtype",
    # accelerate's config file (accelerate/commands/config/config_args.py: distributed_type, mixed_precision,
    # num_processes; fsdp_config.fsdp_sharding_strategy)
    "mixed_precision": "mixed_precision",
    # Lightning Fabric's precision names (LitGPT --precision): bf16-true trains in bf16 (no fp32 master
    # weights), bf16-mixed / 16-mixed autocast, 32-true fp32 (lightning/fabric/connector.py _PRECISION_INPUT)
    "lightning_precision": "precision",
    "quantize": "quantize|quantization",
    "distributed_type": "distributed_type",
    "fsdp_strategy": "fsdp_sharding_strategy|sharding_strategy",
    # accelerate launch --use_fsdp (accelerate/commands/launch.py: "Whether to use fully sharded data parallelism")
    "use_fsdp": "use_fsdp",
    "apply_lora_to_mlp": "apply_lora_to_mlp",
}
# SLURM's generic resources per node, "--gres=gpu:4" or "--gres=gpu:h100:8" (sbatch(1), "--gres"; gres.conf(5)):
# the GPUs of each node, the type (when given) between the two; times --nodes like torchrun's --nproc_per_node.
# (A type the name matcher read, "gpu:h100:8", is its placeholder by then: the type names the GPU, the count is per node.)
_GRES_GPU = R(r"(?<![\w.])gres[ \t]*[:=][ \t]*gpu(?:[ \t]*:[ \t]*(?:§G\d+§|[a-z0-9_.-]+)[ \t]*)?:(\d{1,4})\b"
              # sbatch's short form of --nodes in a batch script's directive: "#SBATCH -N 2"
              r"|#sbatch[ \t]+-n[ \t]*=?[ \t]*(\d{1,4})\b")


# Launchers and schedulers that give the GPU count in their own shape (all read as GPUs per machine, times the
# machines where the same text says how many, as ``request._Assembler._settle`` does for torchrun):
# - Kubernetes: the device plugins' extended resource in a container's ``resources.limits`` / ``requests``,
#   "nvidia.com/gpu: 8" (NVIDIA k8s-device-plugin; AMD's "amd.com/gpu", Intel's "gpu.intel.com/i915"): the GPUs
#   of one pod. A Kubeflow PyTorchJob runs ``replicas`` pods of each replica spec (Master, Worker; kubeflow
#   training-operator, PyTorchJob's ReplicaSpec.replicas, default 1), each with that count.
# - DeepSpeed's launcher "--include localhost:0,1,2,3" (deepspeed/launcher/runner.py, parse_resource_filter:
#   NODE_SPEC[@NODE_SPEC ...], NODE_SPEC = NAME[:SLOT[,SLOT ...]]): the slots listed, summed over the hosts; a
#   host named without slots means all its GPUs, a count the text does not give (nothing is read).
# - CUDA_VISIBLE_DEVICES=0,1 (the CUDA runtime's device mask): the GPUs the job can see, used only when no
#   launcher states a count (``visible_gpus``, settled in ``request._Assembler._settle``).
_K8S_GPU = R(r"(?<![\w.])(?:nvidia\.com|amd\.com|gpu\.intel\.com)/(?:gpu|i915)[\"']?[ \t]*:[ \t]*[\"']?(\d{1,3})\b(?![.\w])")
_K8S_REPLICAS = R(r"(?<![\w.])replicas[ \t]*:[ \t]*(\d{1,3})\b")
_DS_INCLUDE = R(r"(?<![\w.])include[ \t]*=[ \t]*[\"']?((?:[a-z0-9_.\-]+(?::\d{1,3}(?:,\d{1,3})*)?)(?:@[a-z0-9_.\-]+(?::\d{1,3}(?:,\d{1,3})*)?)*)")
# The devices a process may see, listed: CUDA's and NVIDIA's container runtime's variables ("CUDA_VISIBLE_DEVICES=0,1",
# "NVIDIA_VISIBLE_DEVICES=0,1,2,3", ROCm's HIP_/ROCR_VISIBLE_DEVICES) and Docker's ``--gpus '"device=0,1"'`` (Docker
# docs, "docker run --gpus": "device=" then the GPUs' indices, comma-separated): one GPU per index listed.
_VISIBLE = R(r"(?<![\w.])(?:(?:cuda|nvidia|hip|rocr)_visible_devices|(?<=[\s\"'=])device)[ \t]*=[ \t]*[\"']?(\d{1,2}(?:[ \t]*,[ \t]*\d{1,2})*)\b"
             # Docker's --gpus '"device=0,1"' (docs.docker.com, "Access an NVIDIA GPU": the devices the container sees;
             # "--gpus 2" is a count, read as one by the config keys, "--gpus all" a count the text does not give)
             r"|(?<![\w.-])gpus[ \t]*[=:][ \t]*[\"']*device=(\d{1,2}(?:[ \t]*,[ \t]*\d{1,2})*)\b[\"']*")


# SkyPilot's task YAML, ``resources: accelerators: H100:8`` (a GPU name and the count per node; SkyPilot docs, "YAML
# configuration", resources.accelerators "<name>:<count>", also as a one-entry mapping "{A100: 8}"), times its
# ``num_nodes``.
# The same "<name>:<count>" is SkyPilot's ``sky launch --gpus A100:8`` and Modal's ``gpu="A100:2"`` (modal docs, "GPU
# acceleration": a count after the type's colon).
_SKY_ACC = R(r"(?<![\w.])(?:accelerators|gpus?)[\"']?[ \t]*[:=][ \t]*[\"'{]?[ \t]*§G\d+§[\"']?[ \t]*:[ \t]*(\d{1,3})\b")
# A package install line ("setup: pip install trl peft", "uv pip install unsloth bitsandbytes", "conda install -c
# conda-forge ..."): package names, not a method ("peft") or a stack said by the user; read and left alone up to the
# line's end or the next command ("&&", ";", "|").
# The GPUs as a mapping under the resources' "gpu:" key, their count one of its keys (dstack.yml's
# ``resources: gpu: {name: H100, memory: 80GB, count: 4}``, dstack.ai/docs/reference/dstack.yml/task: "count" is the
# number of GPUs, a range "2..8" is no single count): that many per node.
_GPU_BLOCK_COUNT = R(r"(?m)^([ \t]*)gpus?[ \t]*:[ \t]*\n(?:\1[ \t]+[\w-]+[ \t]*:[^\n]*\n)*?\1[ \t]+count[ \t]*:[ \t]*(\d{1,3})\b(?![.\w])")
_INSTALL = R(r"\b(?:pip3?|uv[ \t]+pip|uv|conda|mamba|poetry|apt(?:-get)?)[ \t]+(?:install|add)\b"
             r"(?:[ \t]+(?!(?:and|then|y|luego|so|para|to|for)\b)(?:-[\w-]+|[a-z0-9_.\-\[\]=<>~!,]+))+"
             # an image builder's package list, Modal's ``Image.pip_install("torch", "peft")`` / ``uv_pip_install`` /
             # ``apt_install`` (modal docs, modal.Image): the packages in the call's parentheses
             r"|\.(?:uv_)?(?:pip|apt|conda|micromamba)_install[ \t]*\([^()\n]*\)")
# A timeout in seconds written as arithmetic or plain (Modal's ``@app.function(timeout=6 * 60 * 60)``, seconds per
# modal docs; a job's ``timeout: 3600``): a wall-clock limit, no setting we size
_TIMEOUT = R(r"(?<![\w.])(?:timeout|timeout_s|timeout_seconds|time_limit|ttl)[\"']?[ \t]*[=:][ \t]*\d+(?:[ \t]*[*x][ \t]*\d+)*(?:,[ \t]|[ \t]*\)|$)")
# (normalizing drops a "*" as markdown emphasis: "timeout=6 * 60 * 60" arrives as "timeout=6 60 60"; only inside a call's
# arguments, up to the next argument or the parenthesis, is that run of numbers the product)
_TIMEOUT_BARE = R(r"(?<![\w.])(?:timeout|timeout_s|timeout_seconds|time_limit)[ \t]*=[ \t]*\d+(?:[ \t]+\d+){1,3}(?=[ \t]*[,)])")


def _gpu_block_count(scan: Scan, m: re.Match[str]) -> None:
    scan.claim("gpus_per_node", int(m.group(2)), m.start())


# SkyPilot's accelerator names: a bare ``A100`` is the 40 GB part, the 80 GB one is ``A100-80GB`` (SkyPilot docs,
# "sky show-gpus": A100 40GB / A100-80GB 80GB listed apart). Under SkyPilot's own ``accelerators:`` key a bare "A100"
# therefore states the 40 GB card, not the catalog's reading of the bare name (``_stated_variant`` keeps this one).
_SKY_BARE = {"a100": "a100-40gb"}


def _sky_acc(scan: Scan, m: re.Match[str]) -> None:
    scan.claim("gpus_per_node", int(m.group(1)), m.start())
    if not m.group(0).startswith("accelerators"):
        return
    mark = re.search(r"§G(\d+)§", m.group(0))
    gpus = [n for n in scan.names if n.kind == "gpu"]
    if mark and int(mark.group(1)) < len(gpus):
        name = gpus[int(mark.group(1))]
        # the name as typed was the four letters "a100" alone (the normalized span: no memory typed with it)
        if name.ident == "a100-80gb" and name.end - name.start == len("a100"):
            scan.claim("gpu", _SKY_BARE["a100"], m.start())


def _k8s_gpu(scan: Scan, m: re.Match[str]) -> None:
    scan.claim("gpus_per_node", int(m.group(1)), m.start())
    if "pytorchreplicaspecs" in scan.marked:  # a PyTorchJob: every replica of every spec is a pod with these GPUs
        pods = sum(int(r.group(1)) for r in _K8S_REPLICAS.finditer(scan.marked))
        if pods:
            scan.claim("num_nodes", pods, m.start())


def _ds_include(scan: Scan, m: re.Match[str]) -> None:
    hosts = m.group(1).split("@")
    if all(":" in h for h in hosts):
        scan.claim("gpus_per_node", sum(len(h.split(":", 1)[1].split(",")) for h in hosts), m.start())


# ``nvidia-smi -L`` (--list-gpus) prints one line per GPU the machine has, "GPU <index>: <product name> (UUID:
# GPU-<hex>)" (nvidia-smi(1), "-L, --list-gpus: List each of the NVIDIA GPUs in the system, along with their UUIDs"):
# pasted, the lines count the box's GPUs (used as CUDA_VISIBLE_DEVICES' list is, when nothing else gives a count);
# the index and the UUID's hex digits are no settings.
_SMI_LINE = R(r"(?m)^[ \t]*gpu[ \t]+\d{1,2}[ \t]*:(?=[^\n]*\(uuid:[ \t]*gpu-[0-9a-f-]+\))")
_SMI_UUID = R(r"\(uuid:[ \t]*gpu-[0-9a-f-]+\)")


def _smi_line(scan: Scan, m: re.Match[str]) -> None:
    scan.claim("visible_gpus", len(_SMI_LINE.findall(scan.marked)), m.start())


def _visible(scan: Scan, m: re.Match[str]) -> None:
    scan.claim("visible_gpus", len((m.group(1) or m.group(2)).split(",")), m.start())


# PBS Professional's chunk request, "#PBS -l select=2:ncpus=64:ngpus=8" (PBS Professional User's Guide, "Requesting
# Resources": select=<N>:<chunk>, N chunks each with the chunk's resources; ngpus the GPUs in one chunk; a job whose
# chunks are each a node, as a GPU job's usually are): N chunks of ngpus each, read as nodes and GPUs per node. A
# request of several kinds of chunk ("select=1:ngpus=8+2:ngpus=4") is left alone (no one count per node).
_PBS_SELECT = R(r"(?<![\w.])select[ \t]*=[ \t]*(\d{1,4})((?::[a-z_]+=[\w.]+)*?):ngpus=(\d{1,3})\b((?::[a-z_]+=[\w.]+)*)(?![+\w])")


# Flyte's task resources, ``@task(requests=Resources(gpu="2", mem="200Gi"))`` (flytekit.Resources: cpu, mem, gpu,
# ..., "gpu" the number of GPUs the task's pod requests, flytekit/core/resources.py), the GPU type its
# ``accelerator=`` (flytekit.extras.accelerators): the GPUs of one pod.
_FLYTE_GPU = R(r"\bresources\([^()]{0,200}?(?<![\w.])gpu[ \t]*=[ \t]*[\"']?(\d{1,3})[\"']?(?=[ \t]*[,)])")


def _flyte_gpu(scan: Scan, m: re.Match[str]) -> None:
    scan.claim("gpus_per_node", int(m.group(1)), m.start())


# An AWS instance type names its GPUs and their count (Amazon EC2 "Accelerated computing" instance specifications,
# aws.amazon.com/ec2/instance-types/; SageMaker's "ml." types are the same machines, aws.amazon.com/sagemaker/pricing):
# P5 p5.48xlarge 8 H100; P5e / P5en .48xlarge 8 H200; P4d p4d.24xlarge 8 A100 40 GB; P4de p4de.24xlarge 8 A100 80 GB;
# G5 (A10G), G6 (L4), G6e (L40S): 1 GPU up to .16xlarge, 4 in .12xlarge and .24xlarge, 8 in .48xlarge. Per
# instance: SageMaker's ``instance_count`` (the estimator's "number of Amazon EC2 instances to use for training",
# sagemaker.estimator.EstimatorBase) counts the machines. Other families (V100's P3, the catalog lacks) are left alone.
# (P6-B200: p6-b200.48xlarge, 8 B200, aws.amazon.com/ec2/instance-types/p6)
_AWS_INSTANCE = R(r"(?<![\w.-])(?:ml\.)?(p6-b200|p5en|p5e|p5|p4de|p4d|g6e|g6|g5)\.(\d{0,2})[ \t]?x[ \t]?large\b")  # (normalized: "12 x large")
_AWS_FAMILY = {"p5": "h100-sxm", "p5e": "h200", "p5en": "h200", "p4d": "a100-40gb", "p4de": "a100-80gb",
               "g5": "a10g", "g6": "l4", "g6e": "l40s", "p6-b200": "b200"}
_AWS_SIZES = {"p5": {"48": 8}, "p5e": {"48": 8}, "p5en": {"48": 8}, "p4d": {"24": 8}, "p4de": {"24": 8},
              "p6-b200": {"48": 8}}
# An Azure GPU VM size whose name carries no GPU name (learn.microsoft.com, "NDasrA100_v4 sizes": Standard_ND96asr_v4,
# 8 A100 40 GB); the sizes that name theirs ("Standard_ND96amsr_A100_v4", "Standard_ND96isr_H100_v5") are read by it
_AZURE_VM = R(r"(?<![\w.-])(?:standard_)?nd96asr_v4\b")


def _azure_vm(scan: Scan, m: re.Match[str]) -> None:
    scan.claim("gpu", "a100-40gb", m.start())  # (the GPUs used are the job's processes per instance, said apart)
_AWS_G_SIZES = {"": 1, "2": 1, "4": 1, "8": 1, "16": 1, "12": 4, "24": 4, "48": 8}


def _aws_instance(scan: Scan, m: re.Match[str]) -> bool | None:
    family, size = m.group(1), m.group(2)
    count = (_AWS_SIZES.get(family) or _AWS_G_SIZES).get(size)
    if count is None:
        return False
    scan.claim("gpu", _AWS_FAMILY[family], m.start())
    scan.claim("gpus_per_node", count, m.start())
    return None


# A Google Cloud machine type names its GPUs and their count (Compute Engine "Accelerator-optimized machine family",
# cloud.google.com/compute/docs/accelerator-optimized-machines): A2 Standard a2-highgpu-{1,2,4,8}g and a2-megagpu-16g
# carry that many A100 40 GB, A2 Ultra a2-ultragpu-{1,2,4,8}g A100 80 GB, A3 a3-highgpu-{1,2,4,8}g / a3-megagpu-8g /
# a3-edgegpu-8g H100 80 GB (SXM), A3 Ultra a3-ultragpu-8g H200; the count is the type's "-<N>g" suffix. (Vertex AI's
# ``machine_type`` and gcloud's ``--machine-type`` take the same names.) The pasted type is what the user stated: a
# bare "A100" beside it (``accelerator_type: NVIDIA_TESLA_A100``, GCP's name for the 40 GB part) is the same card.
_GCP_MACHINE = R(r"(?<![\w.-])(a2-highgpu|a2-megagpu|a2-ultragpu|a3-highgpu|a3-megagpu|a3-edgegpu|a3-ultragpu)-(\d{1,2})g\b")
_GCP_FAMILY = {"a2-highgpu": "a100-40gb", "a2-megagpu": "a100-40gb", "a2-ultragpu": "a100-80gb",
               "a3-highgpu": "h100-sxm", "a3-megagpu": "h100-sxm", "a3-edgegpu": "h100-sxm", "a3-ultragpu": "h200"}
_GCP_SIZES = {"a2-highgpu": (1, 2, 4, 8), "a2-megagpu": (16,), "a2-ultragpu": (1, 2, 4, 8), "a3-highgpu": (1, 2, 4, 8),
              "a3-megagpu": (8,), "a3-edgegpu": (8,), "a3-ultragpu": (8,)}


# gcloud's ``--accelerator=type=TYPE,count=COUNT`` ("count: the number of accelerators to attach to the instances",
# cloud.google.com/sdk/gcloud/reference/compute/instances/create): the GPUs of one machine, in either order of its keys
_GCLOUD_ACC = R(r"(?<![\w-])accelerator[ \t]*=[ \t]*[\"']?(?:[a-z]+=[ \t]*[^\s,\"']+[ \t]*,[ \t]*)*count=(\d{1,3})\b")


def _gcloud_acc(scan: Scan, m: re.Match[str]) -> None:
    scan.claim("gpus_per_node", int(m.group(1)), m.start())


def _gcp_machine(scan: Scan, m: re.Match[str]) -> bool | None:
    family, count = m.group(1), int(m.group(2))
    if count not in _GCP_SIZES[family]:
        return False  # no such machine type: a name we do not know, left alone
    scan.claim("gpu", _GCP_FAMILY[family], m.start())
    scan.claim("gpus_per_node", count, m.start())
    return None


# Composer's training length, LLM Foundry's ``max_duration: 2ep`` (composer/core/time.py, Time.from_timestring: an
# integer then its unit, TimeUnit EPOCH "ep", BATCH "ba", SAMPLE "sp", TOKEN "tok", DURATION "dur"): in epochs only
# with "ep"; "5000ba" is batches, no epoch count (read and left alone by the other keys' rule).
_COMPOSER_EPOCHS = R(r"(?<![\w.])max_duration[\"']?[ \t]*[:=][ \t]*[\"']?(\d{1,3}(?:\.\d+)?)[ \t]*ep\b")


def _composer_epochs(scan: Scan, m: re.Match[str]) -> None:
    scan.claim("epochs", float(m.group(1)), m.start())


def _pbs_select(scan: Scan, m: re.Match[str]) -> None:
    scan.claim("num_nodes", int(m.group(1)), m.start())
    scan.claim("gpus_per_node", int(m.group(3)), m.start())


def _gres(scan: Scan, m: re.Match[str]) -> None:
    if m.group(1) is not None:
        scan.claim("gpus_per_node", int(m.group(1)), m.start())
    else:
        scan.claim("num_nodes", int(m.group(2)), m.start())
# (The key's quantifiers are possessive, ``*+``: a key ends where its characters do, so when no ":" or "=" follows
# there is nothing to backtrack into; the same matches at about half the cost on a pasted config.)
# Any key, then its value; the handler reads the keys above (``_KEY_FIELD``) and leaves the rest to
# ``_OTHER_KEY``. One key pattern, not an alternation of every key: Python's re tries each alternative at
# every position, which made this the slowest rule on a pasted config.
# (a value never ends before a decimal comma, a comma glued to one or two digits and a scale: "PEFT: 1,2 millones de
# tokens" is 1,2 million, not the switch's "1" and then a count of 2 million; "rank: 16,4 GPUs" is a list)
_CONFIG = R(r"(?<![\w.])\"?([a-z_][a-z0-9_]*+(?:\.[a-z0-9_]++)*+)[\"']?[ \t]*[:=][ \t]*[\"']?(\d+(?:[.,]\d{3})*(?:\.\d+)?k?|\d+(?:[.,]\d+)?k?|[a-z0-9_./\-]+?)[\"']?(?=[\s;)}\]?!]|,(?!\d{1,2}[ \t]*(?:mil(?:lones|lon)?|millions?|billions?|[kmb])\b)|\.(?:\s|$)|$)")
_KEY_FIELD = {k.replace("\\.", "."): f for f, keys in _CONFIG_KEYS.items() for k in keys.split("|")}
# A key: value pair of a pasted config whose key we do not model ("warmup_ratio: 0.1",
# "save_steps=500"): read and left alone, so its number is not asked about.
_OTHER_KEY = R(r"(?<![\w.])\"?([a-z][a-z0-9]*+(?:_[a-z0-9]++)++)\"?[ \t]*[:=][ \t]*[\"']?(-?\d+(?:[.,]\d+)*(?:e-?\d+)?|[a-z0-9_./\-]+)[\"']?"
               r"(?=[\s,;)}\]]|$)")
# (an unquoted list is module names joined by commas or spaces, "q_proj, v_proj", "q_proj v_proj"; a conjunction or a number after a comma
# starts the next clause, "target_modules=all-linear, and 48", whose number is the user's, asked about, and so does
# a word with its own colon, the next key: "target_modules=all-linear, rank: 16", "..., rango: lo decide el consultor")
_TARGETS = R(r"(?<![\w.])\"?(lora_target_modules|target_modules|lora_target|lora_attn_modules)\"?\s*[:=]\s*(\[[^\]]{0,400}\]|\"[^\"\n]*\"|'[^'\n]*'|[a-z0-9_\-]+(?:[ \t]*,[ \t]*(?!(?:and|or|y|o|e|u)\b)(?![a-z0-9_\-]+[ \t]*[:=])[a-z_][a-z0-9_\-]*|[ \t]+[a-z][a-z0-9]*_[a-z0-9_\-]*)*)")
_OPTIM_VALUES = {
    "paged_adamw_8bit": "paged-adamw-8bit", "paged_adamw": "paged-adamw-8bit",
    "paged-adamw-8bit": "paged-adamw-8bit", "adamw_8bit": "adamw-8bit", "adamw_bnb_8bit": "adamw-8bit",
    "adamw-8bit": "adamw-8bit", "adam8bit": "adamw-8bit", "adamw_torch": "adamw",
    "adamw_torch_fused": "adamw", "adamw_hf": "adamw", "adamw": "adamw", "adam": "adamw",
    "sgd": "sgd", "paged_adamw_32bit": "adamw",
}
# Flags that stand alone on a command line ("--use_peft", "--bf16"): on.
_BOOL_FLAGS = {"use_peft", "use_lora", "lora_enable", "enable_lora", "use_dora", "use_fsdp", "load_in_4bit", "load_in_8bit", "gradient_checkpointing", "bf16", "fp16",
               "use_flash_attention_2", "flash_attention", "bnb_4bit_use_double_quant", "lora_target_linear",
               "multi_gpu", "packing", "use_liger_kernel", "use_liger", "torch_compile", "recompute_activations"}
_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9_.-]*)(?:=([^\s?!,;]+)|[ \t]+(?!--)([^\s\\?!,;]+))?")


# A Markdown table of settings (a wiki page, a PR description): "| max seq len | 4096 |" is the pair
# "max seq len: 4096"; the rule line under the header ("|---|---|") says nothing.
_MD_ROW = re.compile(r"^[ \t]*\|[ \t]*([^|\n]+?)[ \t]*\|[ \t]*([^|\n]+?)[ \t]*\|[ \t]*$", re.M)
_MD_RULE = re.compile(r"^[ \t]*\|(?:[ \t]*:?-{3,}:?[ \t]*\|)+[ \t]*$", re.M)


def table_to_pairs(text: str) -> str:
    if "\n" not in text:
        return text
    if "," in text or ";" in text or "\t" in text:
        text = csv_to_pairs(text)
    if "|" not in text:
        return text
    return _MD_ROW.sub(lambda m: f"{m.group(1)}: {m.group(2)}", _MD_RULE.sub("", text))


# A CSV (or semicolon- or tab-separated) block of settings pasted from a sheet: a header line of keys, then rows of
# values ("model,method,seq_len,num_gpus,gpu_type" / "qwen/qwen3-14b,qlora,8192,1,a100-80gb"). Each row is read as the
# pairs "key: value" of its columns, as a Markdown table's rows are; two rows give two values (a question back).
_CSV_HEADER = re.compile(r"^[ \t]*([a-z][a-z0-9_]*(?:[ \t]*([,;\t])[ \t]*[a-z][a-z0-9_]*){2,})[ \t]*$", re.M)


_CSV_HINT = re.compile(r"\n[ \t]*[a-z][a-z0-9_]*[ \t]*[,;\t][ \t]*[a-z][a-z0-9_]*[ \t]*[,;\t]")
_CSV_HINT_FIRST = re.compile(r"[ \t]*[a-z][a-z0-9_]*[ \t]*[,;\t][ \t]*[a-z][a-z0-9_]*[ \t]*[,;\t]")


def csv_to_pairs(text: str) -> str:
    # (a header line has three keys and two separators: a text with no such line is left at once, found by its
    # newline first, as ``re`` looks for a literal opening character, never by trying every position)
    if not (_CSV_HINT.search(text) or _CSV_HINT_FIRST.match(text)):
        return text
    out, last = [], 0
    for head in _CSV_HEADER.finditer(text):
        sep = head.group(2)
        keys = [k.strip() for k in head.group(1).split(sep)]
        if not any(k in _KEY_FIELD for k in keys):
            continue
        rows, end = [], head.end()
        while end < len(text) and text[end] == "\n":
            line_end = text.find("\n", end + 1)
            line_end = len(text) if line_end < 0 else line_end
            cells = text[end + 1:line_end].split(sep)
            if len(cells) != len(keys) or not text[end + 1:line_end].strip():
                break
            rows.append(" ".join(f"{k}: {c.strip()}" if c.strip() else "" for k, c in zip(keys, cells)))
            end = line_end
        if rows:
            out.append(text[last:head.start()] + "\n".join(rows))
            last = end
    return "".join(out) + text[last:] if out else text


# A command written as a list of argv words (Kubernetes' ``command:``/``args:``, Docker's exec form, a Python
# subprocess list): ``"--max_length", "4096"`` is the flag and its value, as on a command line.
_ARGV_PAIR = re.compile(r"[\"'](--[a-z][a-z0-9_.-]*)[\"'][ \t]*,[ \t]*[\"'](?!--)([^\"'\s,]+)[\"']")


def flags_to_pairs(text: str) -> str:
    """Command-line flags as key=value pairs: "--nproc-per-node 8" -> "nproc_per_node=8",
    "--use_peft --lora_r 16" -> "use_peft=true lora_r=16" (normalized text); a Markdown table's rows too."""
    text = table_to_pairs(text)
    if "--" not in text:
        return text
    if "\"," in text or "'," in text:
        text = _ARGV_PAIR.sub(r"\1 \2", text)

    def pair(m: re.Match[str]) -> str:
        # jsonargparse namespaces ("--train.micro_batch_size 2", LitGPT): the setting is the last part
        key = m.group(1).replace("-", "_").rsplit(".", 1)[-1]
        value = m.group(2) or m.group(3)
        if value is None:
            return f"{key}=true"
        if key in _BOOL_FLAGS and _bool(value.strip("\"'")) is None:
            return f"{key}=true {value}"  # a bare flag, then an argument of its own
        return f"{key}={value}"

    return _FLAG.sub(pair, text)


def _bool(value: str) -> bool | None:
    return True if value in _TRUE else False if value in _FALSE else None


_DS_LAUNCH = R(r"(?:^|[\s;&|`$(])deepspeed[ \t]+(?:num_|include=|exclude=|hostfile=|master_|[\w./-]+\.py\b)")
_RAY_GPU = R(r"(?<![\w.])use_gpu[\"']?[ \t]*[:=][ \t]*(?:true|1|yes)\b")
_RAY_PER_WORKER = R(r"resources_per_worker[\"']?[ \t]*[:=][ \t]*\{[^}]*?[\"']?gpu[\"']?[ \t]*:[ \t]*(\d+(?:\.\d+)?)")


def _ray_workers(scan: Scan, value: str, pos: int) -> bool | None:
    """Ray's workers are GPUs only with use_gpu on (its default is off: CPU workers); a DataLoader's num_workers
    (no use_gpu beside it) is left alone."""
    if not re.fullmatch(r"\d{1,4}", value) or not _RAY_GPU.search(scan.marked):
        return False
    per = _RAY_PER_WORKER.search(scan.marked)
    gpus = float(per.group(1)) if per else 1.0
    if gpus >= 1 and gpus.is_integer():
        scan.claim("gpus_per_node", int(value) * int(gpus), pos)
    return None


_VAGUE_COUNTS = {"tbd", "auto", "max", "maximum", "unknown", "whatever", "any", "maximo", "maxima", "todas", "all"}


def _names_a_setting(scan: Scan, m: re.Match[str], key: str, value: str) -> bool:
    """A plain word as the key ("GPUs", "rank", "batch": no tool's underscore or dot) is prose, not a config line,
    when what follows the colon is no value for it: a word that is neither a number nor a vague value ("before I
    book GPUs: lora -> ...", "antes de reservar GPUs: meterle adaptadores LoRA a ...", "GPUs: the 32B variant of
    ..."), or a number that its own unit or cue word claims ("before I book GPUs: 24 bn params": a size). The typed
    slots then read the text as prose ("GPUs: 4 A100", "batch: 8 per GPU" still are the count and the batch)."""
    if "_" in key or "." in key:
        return False  # a tool's own key ("max_seq_length: auto"): its value, readable or not
    if not re.fullmatch(r"\d[\d.,]*k?", value):
        if _KEY_FIELD.get(key) == "num_gpus":  # a count said vaguely: "GPUs: several", "gpus: tbd" (not "GPUs: full ...")
            return value not in slots.QUANTITY_WORDS and value not in _VAGUE_COUNTS
        return value not in slots.VAGUE and value not in slots.QUANTITY_WORDS and value not in slots.VAGUE_HEADS
    after = re.match(r"[\"']?[ \t]*([a-z]+)", scan.text[m.end():])
    return after is not None and (after.group(1) in slots.SPACED_SCALES or after.group(1) in ("params", "parameters",
                                                                                             "parametros", "tokens"))


def _config(scan: Scan, m: re.Match[str]) -> bool | None:
    key, value = m.group(1), m.group(2).strip(".,")
    name = _KEY_FIELD.get(key)
    if name is None and "." in key:  # Hydra / OmegaConf overrides ("train.method=full"): the setting is the last part
        name = _KEY_FIELD.get(key.rsplit(".", 1)[1])
    if name is None:
        return False
    flag = _bool(value)
    if name == "ray_workers":
        return _ray_workers(scan, value, m.start())
    if name in ("gpus_per_node", "num_nodes"):
        if re.fullmatch(r"\d{1,4}", value):
            scan.claim(name, int(value), m.start())
            return None
        return False

    if name in ("seq_len", "micro_batch", "lora_rank", "num_gpus", "dataset_tokens") and _names_a_setting(scan, m, key, value):
        return False  # "before I book GPUs: lora -> ...": a prose heading, then the request; no GPU count
    if name == "num_gpus" and key in ("num_gpus", "num_accelerators") and re.fullmatch(r"\d{1,4}", value) \
            and _DS_LAUNCH.search(scan.marked):
        # DeepSpeed's launcher: --num_gpus is "Max number of GPUs to use on each node" (deepspeed/launcher/runner.py,
        # parse_args), times its --num_nodes
        scan.claim("gpus_per_node", int(value), m.start())
        return None
    if name in ("seq_len", "micro_batch", "lora_rank", "num_gpus", "dataset_tokens"):
        if claim_int(scan, name, value, m.start(), seq=name == "seq_len") is False:
            if name != "lora_rank" or key != "r":
                scan.unreadable.append((name, value, m.start()))
        return None
    if name in ("lora_alpha", "epochs", "lora_dropout"):
        if claim_number(scan, name, value, m.start()) is False:
            scan.unreadable.append((name, value, m.start()))
        return None
    if name == "grad_accum":
        from advisor.spec import SpecRequest

        if "gradient_accumulation_steps" in SpecRequest.model_fields:
            return claim_int(scan, "gradient_accumulation_steps", value, m.start())
        scan.warn("parse.warn.global_batch")
        return None
    if name in ("compile", "packing", "liger", "expandable_segments") and flag is not None:
        return _optional_field(scan, name, flag, m.start())
    if name == "zero_stage" and value in ("0", "1", "2", "3"):
        if value == "3":
            _zero3_claim(scan, m.start())
        elif value in ("1", "2"):
            if _spec_accepts("sharding", f"zero{value}"):
                scan.claim("sharding", f"zero{value}", m.start())
            else:
                scan.warn("parse.warn.zero12", stage=value)
        return None  # stage 0: plain data parallelism, nothing to say
    if name in ("bf16_enabled", "fp16_enabled") and flag is not None:
        if flag:
            scan.claim("precision", f"{name[:4]}-mixed", m.start())
        return None
    if name == "tt_dtype":
        if not any(c.field == "stack" and c.value == "torchtune" for c in scan.claims) and "torchtune" not in scan.marked:
            return None  # a dtype outside a torchtune config: what it sets depends on the tool; left alone
        if value in ("bf16", "bfloat16"):
            scan.claim("precision", "bf16", m.start())  # torchtune has no autocast: bf16 weights and states
        elif value in ("fp32", "float32"):
            scan.claim("precision", "fp32", m.start())
        return None
    if name == "apply_lora_to_mlp":
        return None  # read with lora_attn_modules (``_targets``)
    if name == "lightning_precision":
        known = {"bf16-true": "bf16", "bf16-mixed": "bf16-mixed", "16-mixed": "fp16-mixed", "32-true": "fp32",
                 "32": "fp32", "bf16": "bf16-mixed", "16": "fp16-mixed", "fp16": "fp16-mixed", "fp32": "fp32"}
        if value in known:
            scan.claim("precision", known[value], m.start())
            return None
        return False
    if name == "quantize":
        if value.startswith("bnb.nf4"):
            scan.claim("method", "qlora", m.start())
            scan.claim("quant", "nf4", m.start())
            if value.endswith("-dq"):
                scan.claim("double_quant", True, m.start())
        elif value == "int4":  # AutoTrain's --quantization int4: bitsandbytes 4-bit NF4 (autotrain/trainers/clm/utils.py)
            scan.claim("method", "qlora", m.start())
        elif value in ("bnb.int8", "int8"):
            scan.claim("method", "qlora", m.start())
            scan.claim("quant", "int8", m.start())
        elif value.startswith("bnb.fp4"):
            scan.claim("method", "qlora", m.start())
            scan.warn("parse.warn.optimizer_unknown", name=value)  # FP4: sized as NF4 (the same 4 bits per weight)
        else:
            return False
        return None
    if name == "mixed_precision":
        if value in ("bf16", "fp16"):
            scan.claim("precision", f"{value}-mixed", m.start())
        elif value == "no":
            scan.claim("precision", "fp32", m.start())
        return None
    if name == "distributed_type":
        if value in ("fsdp",):
            scan.claim("sharding", "fsdp", m.start())
        elif value in ("multi_gpu", "multi_npu", "multi_xpu"):
            scan.claim("sharding", "ddp", m.start())
        return None  # DEEPSPEED: its stage is in the deepspeed config; NO: one process
    if name == "use_fsdp" and flag is not None:
        if flag:
            scan.claim("sharding", "fsdp", m.start())
        return None
    if name == "fsdp_strategy":
        if value in ("full_shard", "1", "hybrid_shard"):
            scan.claim("sharding", "fsdp", m.start())
        elif value in ("no_shard", "3"):
            scan.claim("sharding", "ddp", m.start())
        else:
            scan.warn("parse.warn.zero12", stage=value)  # SHARD_GRAD_OP: ZeRO-2-like, not modeled
        return None
    if name == "gradient_checkpointing" and flag is not None:
        if _under(scan.text, m.start(), "fsdp_config"):
            # FSDP's own activation checkpointing (an accelerate/TRL fsdp_config): with it the trainer's
            # gradient_checkpointing is set false on purpose, so this one says what the run does
            scan.claim("gc_fsdp", flag, m.start())
        else:
            scan.claim(name, flag, m.start())
    elif name == "optimizer" and value in _OPTIM_VALUES:
        scan.claim("optimizer", _OPTIM_VALUES[value], m.start())
        if value.endswith("_fused"):
            scan.claim("optimizer_impl", "fused", m.start())
    elif name == "optimizer":
        scan.warn("parse.warn.optimizer_unknown", name=value)
    elif name in ("bf16", "fp16") and flag:
        scan.claim("precision", f"{name}-mixed", m.start())
    elif name == "full_finetuning" and flag:
        scan.claim("method", "full", m.start())
    elif name == "load_in_4bit" and flag:
        scan.claim("method", "qlora", m.start())
    elif name == "load_in_8bit" and flag:
        scan.claim("method", "qlora", m.start())
        scan.claim("quant", "int8", m.start())
    elif name == "quantization_bit" and value in ("4", "8"):  # LLaMA-Factory: QLoRA on a 4- or 8-bit base
        scan.claim("method", "qlora", m.start())
        if value == "8":
            scan.claim("quant", "int8", m.start())
    elif name == "use_peft" and flag:
        scan.claim("method", "lora", m.start())
    elif name == "use_peft" and flag is False:
        # TRL's ModelConfig.use_peft and Oumi's training.use_peft said off: no adapters, every weight trains
        # (trl/trainer/model_config.py; oumi TrainingParams.use_peft)
        scan.claim("method", "full", m.start())
    elif name == "q_lora" and flag is not None:
        if flag:
            scan.claim("method", "qlora", m.start())
    elif name == "adapter" and value.replace("-", "") in ("lora", "qlora", "full", "dora"):
        scan.claim("method", "lora" if value == "dora" else value.replace("-", ""), m.start())
    elif name == "adapter" and value in ("completo", "completa", "complete", "entero"):  # "• método: completo"
        scan.claim("method", "full", m.start())
    elif name == "adapter" and value in ("none", "null") and "_" in key:
        scan.claim("method", "full", m.start())  # a tool's adapter key set to none ("peft_scheme=none"): no adapters
    elif name == "deepspeed" and re.search(r"z(?:ero)?_?3|stage_?3", value):
        _zero3_claim(scan, m.start())
    elif name == "deepspeed" and re.search(r"z(?:ero)?_?([12])|stage_?([12])", value):
        # a DeepSpeed config file named for its stage ("deepspeed_configs/zero2.json", LLaMA-Factory's
        # "examples/deepspeed/ds_z2_config.json"): that stage, where the spec models it (as zero_optimization.stage)
        found = re.search(r"z(?:ero)?_?([12])|stage_?([12])", value)
        stage = found.group(1) or found.group(2)
        if _spec_accepts("sharding", f"zero{stage}"):
            scan.claim("sharding", f"zero{stage}", m.start())
        else:
            scan.warn("parse.warn.zero12", stage=stage)
    elif flag is False and name in ("load_in_4bit", "load_in_8bit", "bf16", "fp16", "lora_target_linear", "q_lora"):
        return None  # said off: nothing to claim, and no later rule may read "load_in_4bit" as on
    elif name == "flash" and flag is not None:
        scan.claim("attention", "flash" if flag else "eager", m.start())
    elif name == "lf_flash_attn" and value == "auto":
        return None  # the library picks one at load time: no kernel said
    elif name == "lf_flash_attn" and value in ("fa2", "fa3", "sdpa", "disabled"):
        scan.claim("attention", "eager" if value == "disabled" else "flash", m.start())
    elif name == "lf_flash_attn" and flag is not None:  # a bare "--flash_attn" flag or "flash_attn: true"
        scan.claim("attention", "flash" if flag else "eager", m.start())
    elif name == "attn_implementation" and value in ("eager", "sdpa", "flash_attention_2", "flash_attention_3"):
        scan.claim("attention", "eager" if value == "eager" else "flash", m.start())
    elif name == "double_quant" and flag is not None:
        scan.claim("double_quant", flag, m.start())
    elif name == "quant_type" and value == "nf4":
        scan.claim("quant", "nf4", m.start())
    elif name == "lora_target_linear" and flag:
        scan.claim("lora_targets", "all-linear", m.start())
    else:
        return False
    return None


# Where another part of the advisor adds a field to the spec (gradient accumulation, torch.compile,
# packing, Liger kernels, an Unsloth stack, DeepSpeed ZeRO stages), the chat reads it with no
# change here: each rule below claims only what ``advisor.spec.SpecRequest`` accepts.
_OPTIONAL_NAMES = {"compile": ("compile", "torch_compile"), "packing": ("packing", "sample_packing"),
                   "liger": ("liger", "liger_kernel", "use_liger")}


@functools.lru_cache(maxsize=256)
def _spec_accepts(field_name: str, value: object) -> bool:
    """Whether ``advisor.spec.SpecRequest`` has ``field_name`` and accepts ``value`` (remembered: the spec's
    fields do not change while the process runs)."""
    from pydantic import ValidationError

    from advisor.spec import SpecRequest

    if field_name not in SpecRequest.model_fields:
        return False
    try:
        SpecRequest(**{field_name: value})
    except ValidationError:
        return False
    return True


def _optional_field(scan: Scan, name: str, value: object, pos: int) -> bool | None:
    for field_name in _OPTIONAL_NAMES.get(name, (name,)):
        if _spec_accepts(field_name, value):
            scan.claim(field_name, value, pos)
            return None
    return None  # read: a setting this advisor does not model yet, never asked about


# An on/off setting said off: negated before its name ("no packing", "sin empaquetado", "disable
# torch.compile", "desactiva los segmentos expandibles") or given an off value after it ("packing off",
# "torch.compile: false", "expandable_segments:False" as in PYTORCH_CUDA_ALLOC_CONF). Every toggle gets
# both forms from one builder, so "X off" is never read as "X" alone (on).
_NEGATED = r"\b(?:no|without|w/o|sin|disabl\w*|desactiv\w*|turn(?:ing|ed)?\s+off|apag\w*)\s+(?:the\s+|el\s+|la\s+|los\s+|las\s+)?"
_OFF_VALUE = (r"(?:\s*[:=]\s*(?:off|false|0|no|disabled?|desactivad[oa]s?)"
              r"|\s+(?:off|disabled|desactivad[oa]s?|apagad[oa]s?))\b")


def _toggle_off(term: str) -> re.Pattern[str]:
    return R(_NEGATED + r"(?:" + term + r")\b|\b(?:" + term + r")" + _OFF_VALUE)


_COMPILE_TERM = r"(?:torch[\s._-]*)?compile|compilar|compilacion"
_PACKING_TERM = r"(?:sample[\s_-]*)?packing|empaquetad[oa]s?(?:\s+de\s+(?:secuencias|muestras))?"
_EXPANDABLE_TERM = r"expandable[\s_-]*segments?|segmentos\s+expandibles"
_COMPILE_OFF = _toggle_off(_COMPILE_TERM)
_COMPILE_ON = R(r"\btorch[\s._-]*compile\b|\b(?:with|con)\s+compile\b")
# (TRL's SFTConfig.packing: samples concatenated into full rows of max_length; said as what it does to the rows:
# "samples packed into full rows", "muestras empaquetadas en filas llenas"; off: "unpacked", "one sample per row",
# "una muestra por fila, sin empaquetar")
_PACKING_OFF = R(_toggle_off(_PACKING_TERM).pattern + r"|\bunpacked\b|\bnot\s+packed\b|\bsin\s+empaquetar\b"
                 r"|\b(?:one|a\s+single|1)\s+(?:sample|example|sequence|conversation)\s+per\s+(?:row|sequence)\b"
                 r"|\b(?:una|1)\s+(?:sola\s+)?(?:muestra|secuencia|conversacion)\s+por\s+(?:fila|secuencia)\b")
_PACKING_ON = R(r"\b(?:sample[\s_-]*)?packing\b|\bpacked\s+(?:sequences|samples|dataset)\b|\bempaquetad[oa]s?\b"
                r"|\b(?:samples|sequences|examples|rows)\s+(?:are\s+)?packed\b|\bpacked\s+(?:into|together)\b")
_LIGER = R(r"\bliger(?:[\s_-]*kernels?)?\b")
# PyTorch's allocator option (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True; c10/cuda/CUDAAllocatorConfig.cpp),
# in #17's spec field ``expandable_segments``; said as the option, the env setting, or in Spanish.
_EXPANDABLE_OFF = _toggle_off(_EXPANDABLE_TERM)
_EXPANDABLE_ON = R(r"\bexpandable[\s_-]*segments?(?:\s*[:=]\s*(?:true|on|1|yes))?\b|\bsegmentos\s+expandibles\b")
_UNSLOTH = R(r"\bunsloth\b")


def _optional(name: str, value: object):
    def handler(scan: Scan, m: re.Match[str]) -> bool | None:
        if name == "stack":
            if _spec_accepts("stack", value):
                scan.claim("stack", value, m.start())
            return None
        return _optional_field(scan, name, value, m.start())
    return handler


def _under(text: str, pos: int, key: str) -> bool:
    """``pos`` is on an indented YAML line inside the block of ``key:`` (or in a ``key={...}`` / JSON object)."""
    line_start = text.rfind("\n", 0, pos) + 1
    indent = len(text[line_start:pos]) - len(text[line_start:pos].lstrip(" "))
    if indent == 0:
        return False
    for line in reversed(text[:line_start].split("\n")):
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        if len(line) - len(stripped) < indent:
            return stripped.rstrip().startswith(key + ":")
    return False


def _targets(scan: Scan, m: re.Match[str]) -> bool | None:
    """LoRA target modules: "all-linear" (PEFT), "all" (LLaMA-Factory), or a list of projections."""
    key, value = m.group(1), m.group(2)
    modules = set(re.findall(r"[a-z_]+", value))
    if key == "lora_attn_modules":
        # torchtune: the attention projections, plus every MLP projection when apply_lora_to_mlp (default
        # False in the lora_* builders, torchtune/models/llama3_1/_model_builders.py)
        mlp = re.search(r"apply_lora_to_mlp\s*[:=]\s*(true|false)", scan.marked)
        if mlp is not None and mlp.group(1) == "true" and {"q_proj", "k_proj", "v_proj", "output_proj"} <= modules:
            scan.claim("lora_targets", "all-linear", m.start())
        elif modules and modules <= {"q_proj", "k_proj", "v_proj", "output_proj"} and (mlp is None or mlp.group(1) == "false"):
            scan.claim("lora_targets", "attention", m.start())
        else:
            return False
        return None
    if modules & {"all", "all_linear", "linear"} or "all-linear" in value:
        scan.claim("lora_targets", "all-linear", m.start())
    elif modules and modules <= {"q_proj", "k_proj", "v_proj", "o_proj", "qkv_proj", "query_key_value", "c_attn"}:
        scan.claim("lora_targets", "attention", m.start())
    elif {"gate_proj", "up_proj", "down_proj"} <= modules and {"q_proj", "v_proj"} <= modules:
        scan.claim("lora_targets", "all-linear", m.start())
    else:
        return False
    return None


# A keyword argument of a call in pasted code that we do not model ("@app.function(gpu=\"A10G:4\", timeout=86400)",
# "Trainer(..., seed=42)"): Python's own key=value (no space around "="), read and left alone like _OTHER_KEY's pairs,
# so its number is not asked about. Ray's resources_per_worker={"GPU": 1} is read by ``_ray_workers`` from the whole
# call; its dict is consumed here.
_KWARG = R(r"[(,][ ]?([a-z][a-z0-9]{1,30})=(-?\d+(?:\.\d+)?(?:e-?\d+)?)(?=[ ]*[,)])")
_RAY_RESOURCES = R(r"(?<![\w.])resources_per_worker[\"']?[ \t]*[:=][ \t]*\{[^}]{0,200}\}")


def _kwarg(scan: Scan, m: re.Match[str]) -> bool | None:
    from advisor.parse.slots import CUE_KEYS

    if m.group(1) in CUE_KEYS or m.group(1) in _KEY_FIELD:
        return False
    return None


def _other_key(scan: Scan, m: re.Match[str]) -> bool | None:
    """A config key we do not model: its value is read and left alone. A key whose words are a
    setting's cue words ("per_device_batch_size=8", "micro_bs=4") is that setting: left for the
    typed slots to read."""
    if m.group(1) in CUE_KEYS:
        return False
    return None


# The same for a one-word key glued to its value by "=", as code and command lines write them ("timeout=86400",
# "port=8080", "workers=4", Modal's ``@app.function(..., timeout=86400)``): a keyword argument we do not model, read
# and left alone; a key that is a setting's cue ("seq=2048", "bs=4", "gpus=8", "r=16") is left for the typed slots.
_OTHER_WORD_KEY = R(r"(?<![\w.\-/])([a-z]{3,})=[\"']?(-?\d+(?:\.\d+)?(?:e-?\d+)?)[\"']?(?=[\s,;)}\]]|$)")


# And a one-word key in quotes before its colon, as a JSON object or a Python dict writes every key ('"seed": 1234',
# "mlflow.log_params({..., 'seed': 1234})", '{"warmup": 100}'): a key by its quotes, read and left alone the same way.
_QUOTED_WORD_KEY = R(r"[\"']([a-z]{3,})[\"'][ \t]*:[ \t]*(-?\d+(?:\.\d+)?(?:e-?\d+)?)(?=[ \t]*[,;)}\]\n]|[ \t]*$)")


# And a one-word key nested under a parent key of a pasted YAML, its number alone on the line (LitGPT's "eval:\n
# interval: 100", "train:\n  epochs: 3"): a key by its indentation, read and left alone the same way (a setting's cue,
# "epochs", is left for the typed slots)
_NESTED_WORD_KEY = R(r"(?m)^[ \t]+([a-z]{3,})[ \t]*:[ \t]*(-?\d+(?:\.\d+)?(?:e-?\d+)?)[ \t]*$")


# (what every match holds, stated for the prefilter, which cannot read it from the pattern: a closing quote, then the colon)
_QUOTED_KEY_NEEDS = ('":', "':", '" :', "' :", '"\t:', "'\t:")


def _other_word_key(scan: Scan, m: re.Match[str]) -> bool | None:
    from advisor.parse.slots import CUE_KEYS, cue_word

    if cue_word(m.group(1)):
        return False
    # the last word of a cue said in words ("micro-batch size=16", "max seq len=2048"): the cue's, not a key of its own
    before = re.findall(r"[a-z0-9]+", scan.text[max(0, m.start() - 40):m.start()])[-3:]
    return False if any("_".join([*before[len(before) - k:], m.group(1)]) in CUE_KEYS for k in range(1, len(before) + 1)) else None


_PARENT_KEY = re.compile(r"(?m)^[ \t]*[\"']?([a-z_][a-z0-9_.]*)[\"']?[ \t]*:[ \t]*\n\Z")


def _nested_word_key(scan: Scan, m: re.Match[str]) -> bool | None:
    from advisor.parse.slots import CUE_KEYS

    # the value of a setting whose key is the parent line (W&B's config.yaml: "lora_r:\n  value: 64", the run's
    # config with each key's value nested, docs.wandb.ai): the parent's, left for the rules that read it
    line_start = scan.text.rfind("\n", 0, m.start()) + 1
    parent = _PARENT_KEY.search(scan.text, max(0, line_start - 120), line_start)
    if parent is not None and (parent.group(1) in _KEY_FIELD or parent.group(1) in CUE_KEYS):
        return False
    return _other_word_key(scan, m)


# --- methods ---------------------------------------------------------------------------------

_ART = r"(?:(?:an?|the|una?|la|el|las|los)\s+)?"
_FT = r"(?:fine[\s_-]*tun\w*|finetun\w*|ft|sft|training|train|tun(?:e|ing))"
_FT_ES = r"(?:ajuste(?:\s+fino)?|afinamiento|afinado|entrenamiento|reentrenamiento|fine[\s_-]*tun\w*|finetun\w*|sft|ft)"
_ALL_ES = r"(?:complet[oa]|total|enter[oa]|integral|de\s+todos\s+los\s+(?:parametros|pesos))"
# What may stand between "all of" and "weights" in "train all of <the model>'s weights": articles, the
# model (a catalog name, a size, "a 3-billion-parameter model", "a 0.5B-param LLM", a pasted link to it), the
# possessive. Never an adapter word ("all of the LoRA weights" are the adapters), a GPU or a count of something else.
_OWNER = (r"(?:(?:the|its|a|an|our|my|this|that|whole|entire|base|model|models|llm|network|billion|§M\d+§|https?://\S*"
          r"|(?:www\.)?(?:huggingface|hf)\.co/\S*"
          r"|[a-z0-9.]*\d[a-z0-9.]*(?:-[a-z0-9.]+)*|[a-z0-9.-]*param\w*)(?:'s?)?|'s?"
          # the model's name in quotes ('all of "Phi-3.5 mini"'s weights')
          r"|\"(?:'s?)?)")
_FULL_WORDS = (
    r"\bfull[\s_-]*(?:parameter[\s_-]*|param[\s_-]*|model[\s_-]*|weights?[\s_-]*)?" + _FT + r"\b"
    r"|\bfully[\s_-]*(?:fine[\s_-]*tun\w*|finetun\w*|train\w*|tun\w*)\b"
    # "full-rank training": every weight matrix updated at its full rank, as against LoRA's low-rank update
    # (Hu et al. 2021, "LoRA: Low-Rank Adaptation"); the compound adjective, never a LoRA rank of its own
    r"|\bfull[\s_-]*rank[\s_-]*(?:" + _FT + r"|updates?|weights?)\b"
    r"|\b(?:whole|entire)[\s_-]*(?:model|network)(?:[\s_-]*" + _FT + r")?\b"
    r"|\bfull[\s_-]*param(?:eter)?s?\b|\ball[\s_-]?param(?:eter)?s?(?:[\s_-]*" + _FT + r")?\b|\bfft\b|\bsft[\s_-]*(?:\(\s*)?(?:full|completo)\b"
    r"|\ball\s+(?:of\s+)?(?:the\s+|its\s+)?(?:parameters|weights|params)\b"
    r"|\bcomplete[\s_-]+(?:(?:parameters?|params?|model|weights?)[\s_-]+)?" + _FT + r"\b"
    # "a full weight update", "full-parameter updates": every weight is updated; "a full-weights run"
    r"|\bfull[\s_-]*(?:parameter|param|model|weights?)?[\s_-]*updates?\b"
    r"|\b(?:full|complete|all)[\s_-]*(?:parameters?|params?|weights?)[\s_-]*(?:runs?|jobs?)\b"
    # "ajuste fino de todo el modelo", "entrenar todo un LLM": the whole model
    r"|\b(?:" + _FT_ES + r"|entrenar|afinar|ajustar|reentrenar)\s+(?:de\s+)?tod[oa]\s+(?:el|la|un|una)\s+(?:modelo|red|llm)\b"
    r"|\b" + _FT_ES + r"\s+" + _ALL_ES + r"\b"
    r"|\btodos\s+los\s+(?:parametros|pesos)\b"
    # "entrenamiento de pesos completos", "ajuste fino con los parámetros completos", "training of the full weights":
    # the noun of the training, then the whole set of weights it updates
    r"|\b(?:" + _FT_ES + r"|entrenar|afinar|ajustar|reentrenar)\s+(?:de|con|sobre|a|en)\s+(?:los\s+|sus\s+)?"
    r"(?:parametros|pesos)\s+(?:complet[oa]s|enter[oa]s|totales)\b"
    r"|\b(?:training|tuning|fine[\s_-]*tuning|updates?)\s+(?:of|on)\s+(?:the\s+|its\s+)?(?:full|complete|entire)\s+"
    r"(?:set\s+of\s+)?(?:weights|parameters|params)\b"
    # "entrenar todo Qwen3 14B", "afinar todo el LLM": the verb and "all of" the model that follows
    r"|\b(?:entrenar|afinar|ajustar|reentrenar)\s+tod[oa]\s+(?=§M\d+§|https?://|(?:el|la|un|una|modelo|llm)\s|[a-z]*\d)"
)
# "entrenar X completo", "afinar Llama 3 8B entero": the verb, the model, then the word for all.
_FULL_WRAP = R(r"\b(?:entrenar|afinar|ajustar|reentrenar|tunear|entrenamos|afinamos|ajustamos)\b"
               r"(?=(?:https?://\S*|[^,.;:?!\n]|(?<=\d)\.(?=\d)){1,40}?\b(?:complet[oa]|enter[oa])\b)")
_METHOD_WORD = r"(?:q[\s_-]?lora|lora|" + _FULL_WORDS.replace(r"\b", "") + r")"
# (a region too: "Paris, not Frankfurt", "en París, no en Fráncfort", "not in Frankfurt"; and what a verb of dropping
# names: "scratch the H100s, price it on 4090s", "forget Frankfurt", "olvida las H100", "quita la A100", "descarta Fráncfort")
_INSTEAD = R(r"\b(?:instead\s+of|rather\s+than|en\s+(?:vez|lugar)\s+del?|not)\s+(?:(?:in|on|en)\s+)?" + _ART
             + r"(?:\d+\s*(?:x\s*)?)?(§[GMR](\d+)§|" + _METHOD_WORD + r")")
# (three rules, not one alternation: each opens with its own words, so each is tried only where they stand)
_NOT_REGION = R(r"(?<=[,;(]\s)no\s+(?:(?:en|in)\s+)?(§R(\d+)§)")
_DROPPED = R(r"\b(?:scratch|forget|drop|ditch|skip|olvida\w*|quita\w*|descarta\w*)\s+" + _ART
             + r"(?:\d+\s*(?:x\s*)?)?(§[GMR](\d+)§)")
_INT8 = R(r"\b(?:cuantiz\w*|quanti[sz]\w*)\s+(?:(?:la|el|los|the)\s+(?:base|modelo|pesos|model|weights|base\s+model)\s+)?"
          r"(?:a|en|to|in|at)\s+8[\s_-]*bits?\b|\bload[\s_-]*in[\s_-]*8[\s_-]*bits?\b|\b(?:8[\s_-]*bits?|int8|llm\.int8)[\s_-]*(?:q?lora|base|weights|quanti[sz]\w*|cuantiz\w*)\b"
          r"|\bq?lora\s+(?:in\s+|en\s+|a\s+|with\s+|con\s+)?(?:8[\s_-]*bits?|int8)\b|\bint8\b")
# (voice-to-text writes the letter Q as its spoken name: "cue lora" / "queue lora" in English, "cu lora" in Spanish,
# whose letter q is "cu")
_QLORA = R(r"\bq[\s_-]?lora\b|\b(?:cue|queue|kyu|cu)[\s_-]?lora\b|\bnf4\b|\bload[\s_-]*in[\s_-]*4[\s_-]*bits?\b"
           r"|\b(?:4|four|cuatro)[\s_-]*bits?(?:[\s_-]*(?:nf4|quanti[sz]ed|quant|cuantizad[oa]|base))?(?:[\s_-]*(?:lora|adapters?))?\b"
           r"|\b(?:lora|adapters?)\s+(?:in\s+|en\s+|a\s+|with\s+|con\s+|on\s+|sobre\s+)?(?:(?:an?|un|una)\s+)?(?:4|four|cuatro)[\s_-]*bits?\b"
           r"|\bcuantiza\w*\s+(?:a|en)\s+4\s+bits?\b|\bquanti[sz]ed\s+(?:to\s+)?4[\s_-]*bits?\b"
           # "quantized LoRA", "LoRA cuantizada": the adapters on a quantized base (QLoRA's paper title, Dettmers et al. 2023)
           r"|\b(?:quanti[sz]ed|cuantizad[oa]s?)\s+(?:lora|adapters?)\b|\b(?:lora|adaptadores?)\s+(?:cuantizad[oa]s?|quanti[sz]ed)\b")
_NO_QUANT = R(r"\b(?:without|w/o|no|sin|drop(?:\s+the)?|quita\w*(?:\s+la)?)\s+(?:the\s+|la\s+)?"
              r"(?:quanti[sz]ation|quant|cuantizacion|cuantizar|4[\s_-]*bits?|qlora)\b")
# No adapters, so every weight trains: "without LoRA", "a no-adapter full fine-tune", "no PEFT", "sin ningún adaptador",
# "adapter-free", "LoRA-less", "non-PEFT" (the word joined by a hyphen or a space, singular or plural)
# (the negation and its noun on one line: "activation recompute: no\n• adapters on q/k/v/o" ends one setting's value
# at the line's end, and the next line's adapters are no "no adapters")
_NO_LORA = R(r"\b(?:without|w/o|no|sin|zero|cero)[ \t_-]+(?:(?:any|an|the|ningun[oa]?s?|los|las|un|una|el)\s+)?"
             r"(?:lora|adapters?|adaptador(?:es)?|peft)(?:[\s_-]+(?:lora|adapters?|adaptador(?:es)?|peft))?\b"
             r"|\bnon[\s_-]*(?:lora|adapters?|peft)\b|\b(?:lora|adapters?|peft)[\s_-]*(?:free|less)\b")
# "lora rank 16", "lora_alpha", "LoRA dropout": a setting of the adapters, which says LoRA only when
# nothing else names a method (in a thread, "lora rank 64" changes the rank of a QLoRA, not its method).
_SETTING_WORDS = r"(?:rank|r\b|r\s*[=:]|alpha|alfa|dropout|targets?|modules|rango|dim\b|dimension)"
# The joint between an adapter word and the setting it qualifies: a preposition or an opening parenthesis
# ("adapters at rank 32", "LoRA @ rank 16", "LoRA with r=16", "adaptadores con rango 64", "LoRA(r=8)", PEFT's LoraConfig(r=8)).
_SETTING_LINK = r"[\s_-]*(?:(?:de|del|of|with|con|at|en|in|a)\s+(?:the\s+|el\s+|la\s+)?|\(\s*|@\s*)?"  # "LoRA @ rank 16"
_LORA_SETTING = R(r"\blora(?=" + _SETTING_LINK + _SETTING_WORDS + r")"
                  r"|\b(?:adapters?|adaptador(?:es)?)(?=" + _SETTING_LINK + r"(?:rank|r\b|r\s*[=:]|alpha|dropout|rango|dim\b|dimension))"
                  r"|\br\s*=?\s*\d+[\s_-]*(?=(?:adapters?|adaptador(?:es)?|lora)\b)"  # "r8 adapters", "r = 64 adapters"
                  r"|\b(?:rank|rango)[\s_-]*\d+[\s_-]*(?:\(\s*)?(?:(?:for|of|para|de|del)\s+(?:the\s+|el\s+|la\s+|los\s+)?)?"
                  r"(?=(?:adapters?|adaptador(?:es)?|lora)\b)"
                  # the setting and its value, then the adapters it belongs to through a preposition: "r de 16 en
                  # los adaptadores", "alpha 32 for the adapters", "rank 8 on the LoRA", "r of 4 in the adapters"
                  r"|\b(?:rank|rango|r|alpha|alfa|dropout)\s*(?:(?:of|de|=|:|is|es)\s*)?\d+(?:[.,]\d+)?[\s_-]*(?:\(\s*)?"
                  r"(?:for|of|on|in|to|para|de|del|en|sobre|a)\s+(?:the\s+|el\s+|la\s+|los\s+|las\s+|our\s+|its\s+)?"
                  r"(?=(?:adapters?|adaptador(?:es)?|lora)\b)"
                  # the setting first, the adapter word qualifying it: "rango LoRA de 32", "rank of the LoRA 16"
                  r"|\b(?:rank|rango|alpha|alfa|dropout|dim|dimension)(?:\s+(?:de|del|of|the|la|el|los))*[\s_-]+"
                  r"(?=(?:lora|adapters?|adaptador(?:es)?|peft)\b)")
_LORA = R(r"\blora\b(?!" + _SETTING_LINK + _SETTING_WORDS + r")|\b(?:lora|peft)[\s_-]*config\b|\bget_peft_model\b|\badapters?\b|\badaptadores?\b|\bpeft\b|\blow[\s_-]*rank\s+adapt\w*|\bdora\b")
_FULL = R(_FULL_WORDS)
# "train all of a 3-billion-parameter model's weights": the method, with the model's words left in place
# for the size and name rules (the handler claims without blanking).
_FULL_ALL = R(r"\ball\s+(?:of\s+)?(?:" + _OWNER + r"\s*){1,6}?(?:parameters|weights|params)\b"
              r"|\bevery\s+(?:single\s+)?(?:weight|parameter|param)\b"
              # "unfreeze all of X and fine-tune it": nothing stays frozen
              r"|\bunfreez\w*\s+(?:all|every\w*|the\s+whole|the\s+entire|the\s+full)\b"
              # nothing frozen: "without freezing anything", "no frozen layers", "nothing frozen", "sin congelar nada",
              # "sin congelar ninguna capa", "nada congelado", "sin capas congeladas"
              r"|\bwithout\s+freezing\s+(?:anything|any\s+(?:layers?|weights?))\b|\bno\s+frozen\s+(?:layers?|weights?|params?)\b"
              r"|\bnothing\s+(?:is\s+)?frozen\b|\bsin\s+congelar\s+(?:nada|ninguna\s+capa|ningun\s+peso|capas?)\b"
              r"|\bnada\s+congelad[oa]\b|\bsin\s+capas\s+congeladas\b"
              r"|\ball[\s_-]*weights?[\s_-]*" + _FT + r"\b")
# the nouns "full" qualifies when it is no method: "full precision", "full context", "3 full passes", "full fp32"
_FULL_QUALIFIED = (r"[\s_-]*(?:precision|context|contexto|shard\w*|dataset|data"
                   r"|attention|batch|run|epoch|node|gpu|card|stack|config|set|checkpoint\w*|log|list|name|id|path|text"
                   # "3 full passes", "dos épocas completas": full qualifies the count's noun
                   r"|pass|passes|pasadas?|epocas?|sweeps?|cycles?|days?|weeks?|hours?|fp32|bf16|fp16|float\w*)")
_FULL_SHORT = R(r"(?<!pasada\s)(?<!pasadas\s)(?<!epoca\s)(?<!epocas\s)(?<!vuelta\s)"
                r"\b(?:full|fully|completo|completa|entero)\b(?!" + _FULL_QUALIFIED + r")")
# the same nouns read in the text as typed, where an earlier rule blanked them ("full fp32": the precision rule)
_FULL_QUALIFIES = R(_FULL_QUALIFIED + r"\b")
# A fine-tuning word somewhere in the message makes a lone "full" the method ("SFT on llama 3 8b, full").
_FT_ANYWHERE = R(r"\b(?:sft|fine[\s_-]*tun\w*|finetun\w*|train\w*|entrenar|entrenamiento|afinar|ajuste|ajustar)\b")


from advisor.parse.relative import AS_MANY as _AS_MANY  # noqa: E402
from advisor.parse.relative import INCREMENT as _INCREMENT  # noqa: E402
from advisor.parse.relative import INCREMENT_NEEDS as _INCREMENT_NEEDS  # noqa: E402
from advisor.parse.relative import INCREMENT_SIGN as _INCREMENT_SIGN  # noqa: E402
from advisor.parse.relative import INCREMENT_SIGN_NEEDS as _INCREMENT_SIGN_NEEDS  # noqa: E402

_ADAPTER_WORD = R(r"(?:adaptador(?:es)?|adapters?|lora|peft)\b")


def _lora_setting(scan: Scan, m: re.Match[str]) -> bool:
    """"lora rank 16", "adapter rank 16", "rank-16 adapters": a setting of the adapters, which says
    LoRA only weakly; the words stay for the setting's own rule to read."""
    scan.claim("method_weak", "lora", m.start())
    scan.lora_settings.append(m.start())
    adapter = _ADAPTER_WORD.match(scan.text, m.end())
    if adapter:  # "rank-16 adapters", "rango LoRA de 32": the adapter word after the setting
        scan.lora_settings.append(m.end())
    return False


_SECTION_AFTER = re.compile(r"[ \t]*:[ \t]*(?:\n|$)")  # a YAML key opening a nested mapping: nothing after its colon


def _lora(scan: Scan, m: re.Match[str]) -> bool | None:
    if m.start() in scan.lora_settings:  # "lora rank=16", read by _lora_setting: a setting, not the method
        return False
    if m.group(0) == "peft" and _VERSION_AFTER.match(scan.text, m.end()):
        return False  # "peft 0.13": the library installed, not the method
    if m.group(0) == "peft" and _SECTION_AFTER.match(scan.text, m.end()):
        return False  # a config's "peft:" section heading (NeMo's model.peft): its keys say the method ("peft_scheme")
    scan.claim("method", "lora", m.start())
    return None


# A card named as a quota's or an allocation's ("if the H100 quota is gone", "la cuota de H100", "our A100 allocation"):
# what the team holds, not the card this job asks for (table3/table4's convention: a quota is not this job's value).
# The count said of the quota ("(we have 16)", "(tenemos 16)") goes with it.
_QUOTA = R(r"§G(\d+)§\s*(?:quota|allocation|reservation)s?\b(?:\s*\((?:we\s+have|tenemos)\s+\d+\))?"
           r"|\b(?:quota|cuota|allocation|asignacion)\s+(?:of|de)\s+" + _ART + r"(?:\d+\s*(?:x\s*)?)?§G(\d+)§"
           r"(?:\s*\((?:we\s+have|tenemos)\s+\d+\))?")


# A count said as a quota's ("our quota is 16 GPUs", "tenemos cuota de 16 GPUs", "an allocation of 32 cards", "16 GPUs
# of quota"): what the team may use, not what this job asks for; read and left alone (the convention's quota)
_QUOTA_COUNT = R(r"\b(?:quota|cuota|allocation|asignacion|cupo)\s+(?:(?:is|es|of|de|was|era)\s+|:\s*)*(?:(?:an?|the|una?)\s+)?"
                 r"\d+\s*(?:x\s*)?(?:gpus?|cards?|tarjetas?|graficas?)?"
                 r"|\b\d+\s*(?:gpus?|cards?|tarjetas?|graficas?)\s+(?:of|de)\s+(?:quota|cuota|allocation|asignacion|cupo)\b")


def _quota(scan: Scan, m: re.Match[str]) -> None:
    scan.excluded_gpus.add(int(m.group(1) or m.group(2)))


# A region or a card said to have no room ("Paris is full this week", "Frankfurt is out of capacity", "que en
# Fráncfort no hay cupo", "París está lleno", "las H100 están agotadas"): the one not to use, as "instead of" says
_NO_ROOM = R(r"§([GR])(\d+)§\s*(?:is|are|'s|'re)\s+(?:full|booked|out(?:\s+of\s+(?:capacity|stock))?|unavailable|sold\s+out"
             r"|at\s+capacity)\b"
             r"|§([GR])(\d+)§\s*(?:no\s+(?:hay|tiene|tienen|queda|quedan)\s+(?:cupo|capacidad|sitio|hueco|stock)"
             r"|(?:esta|estan)\s+(?:llen[oa]s?|complet[oa]s?|agotad[oa]s?)|sin\s+cupo)\b")


# The card a message leaves behind ("the old A10G box OOMed again, we're moving off it", "la A10G vieja se quedó sin
# memoria", "our previous A100s"): the machine it had, not the one this job asks for (table5's convention, as a
# previous run's GPUs are no value of this job)
_OLD_CARD = R(r"\b(?:old|older|previous|former|legacy)\s+§G(\d+)§"
              r"|§G(\d+)§\s+(?:viej[oa]s?|anterior(?:es)?|antigu[oa]s?)\b|\b(?:viej[oa]s?|antigu[oa]s?)\s+§G(\d+)§")


def _old_card(scan: Scan, m: re.Match[str]) -> bool:
    scan.excluded_gpus.add(int(m.group(1) or m.group(2) or m.group(3)))
    return False  # (the words stay for the other rules)


def _no_room(scan: Scan, m: re.Match[str]) -> None:
    kind, index = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    (scan.excluded_gpus if kind == "G" else scan.excluded_regions).add(int(index))


def _instead(scan: Scan, m: re.Match[str]) -> None:
    """"on H100s instead of A100s": the A100 (or the model, or the method) after "instead of" is
    not asked for."""
    if m.group(1).startswith("§G"):
        scan.excluded_gpus.add(int(m.group(2)))
    elif m.group(1).startswith("§M"):
        scan.excluded_models.add(int(m.group(2)))
    elif m.group(1).startswith("§R"):
        scan.excluded_regions.add(int(m.group(2)))


def _method(value: str, quant: str | None = None):
    def handler(scan: Scan, m: re.Match[str]) -> None:
        scan.claim("method", value, m.start())
        if quant or "nf4" in m.group(0):
            scan.claim("quant", quant or "nf4", m.start())
    return handler


def _keep(handler):
    """``handler``, with the words of its match left for the rules after it."""
    def keep(scan: Scan, m: re.Match[str]) -> bool:
        handler(scan, m)
        return False
    return keep


# What may open a request before its first word: punctuation, a greeting, a mention already cleaned away.
_OPENING = R(r"(?:[\W_\x01]|\b(?:hi|hey|hello|hola|buenas|ok|okay|so|q|please|pls|quick\s+q|pregunta|question)\b)*")
# A model (a catalog name, a family, a size) right after or right before the word, through a preposition
_MODEL_AFTER = R(r"[\s\x01]*(?:(?:of|for|on|de|del|para|con|with|sobre)\s+)?(?:(?:the|a|an|el|la|un|una|our|nuestro)\s+)?"
                 r"(?:§[MF]\d+§|\d+(?:[.,]\d+)?\s*b\b)")
_MODEL_BEFORE = R(r"(?:§[MF]\d+§|\b\d+(?:[.,]\d+)?\s*b)[\s\x01]*$")
# "context: full", "precision: full", "atención: completa": "full" as the value of another setting's key
_FULL_AS_VALUE = R(r"\b(?:context|contexto|ctx|precision|attention|atencion|window|ventana|length|longitud|seq\w*|dataset"
                   r"|data|datos|shard\w*|batch|lote)\s*[:=]\s*$")


# A terse spec's last item or a line's first: "8x L40S gemma 3 1b contexto 4096 full", "14B seq_len 1k full (eval ...)"
# (after a setting's number or a name, at the line's end or before an aside), "> maria wrote: ...\nfull, 7B context 6144"
# (opening a line of its own, an item before a separator)
_TERSE_END = R(r"[ \t]*(?:[.!?]*[ \t]*(?:\(|$|\n))")
_SETTING_BEFORE = R(r"(?:(?<![a-z0-9.,])\d[\d.,]*[kmb]?|§[MGF]\d+§)[ \t,]*$")  # (a number of its own: "fp32 completo" is fp32)
_TERSE_AFTER = R(r"[ \t]*[,;|]")


def _full_short(scan: Scan, m: re.Match[str]) -> bool | None:
    """A lone "full": in a short follow-up, beside a fine-tuning word, or as an item of its own in a
    list ("8x H100, llama 3.1 70b, full, seq 4096")."""
    if _FULL_AS_VALUE.search(scan.marked, max(0, m.start() - 24), m.start()):
        return False
    if m.group() == "full" and _FULL_QUALIFIES.match(scan.marked, m.end()):
        return False  # the adjective before its noun; "fully" and Spanish "completo" qualify what came before
    # (an item of its own: between list separators, the line's end or an aside in parentheses after it, "llama 3.1
    # 405b seq 4096, full (eval on ...)")
    alone = re.fullmatch(r"[\s,;|\n]*", scan.text[max(0, m.start() - 2):m.start()] or ",") and re.match(
        r"\s*(?:[,;|\n(]|$)", scan.text[m.end():])
    # where a method word stands, whatever the message's length: opening the request ("full llama 3 8b; ...")
    # or right beside the model it applies to ("llama 3 8b full, ...", "full on qwen2.5 7b")
    line = scan.marked.rfind("\n", 0, m.start()) + 1
    placed = _OPENING.fullmatch(scan.marked, 0, m.start()) or _MODEL_AFTER.match(scan.marked, m.end()) \
        or _MODEL_BEFORE.search(scan.marked, max(0, m.start() - 40), m.start()) \
        or line and _OPENING.fullmatch(scan.marked, line, m.start()) and _TERSE_AFTER.match(scan.marked, m.end()) \
        or m.group() == "full" and _TERSE_END.match(scan.marked, m.end()) \
        and _SETTING_BEFORE.search(scan.marked, max(0, m.start() - 12), m.start())
    if placed:
        scan.claim("method", "full", m.start())
        return None
    if not scan.short and (any(c.field == "method" for c in scan.claims) or not (_FT_ANYWHERE.search(scan.marked) or alone)):
        return False
    scan.claim("method", "full", m.start())
    return None


# --- optimizer and precision ------------------------------------------------------------------

_ADAM = r"adam(?:[\s_-]?w)?"
# "paged AdamW 8-bit", Spanish "AdamW paginado de 8 bits" (the adjective after the noun)
# (the bits after it also with a preposition: "paged adamw de 8 bits", "paged AdamW in 8 bits")
_PAGED = R(r"\b(?:paged|paginad[oa])[\s_-]*(?:(?:8|32)[\s_-]*bits?[\s_-]*)?" + _ADAM
           + r"(?:(?:[\s_-]*|\s+(?:de|en|a|in|at)\s+)\(?(?:8|32)[\s_-]*bits?\)?)?"
           r"|\b" + _ADAM + r"(?:[\s_-]*(?:8|32)[\s_-]*bits?)?\s+paginad[oa](?:\s+(?:de|en|a)?\s*(?:8|32)[\s_-]*bits?)?\b"
           # the optimizer named by its kind, not its name ("optimizador paginado de 8 bits", "a paged 8-bit
           # optimizer", "8-bit paged optimizer"): bitsandbytes' paged AdamW is the paged optimizer the stacks offer
           # (transformers' OptimizerNames: paged_adamw_8bit / paged_adamw_32bit)
           r"|\b(?:optimizador|optimizer)\s+paginad[oa]\s+(?:de|en|a)\s+(?:8|32)[\s_-]*bits?\b"
           r"|\bpaged\s+(?:(?:8|32)[\s_-]*bits?\s+)?optimi[sz]er(?:\s+(?:in|at|with)\s+(?:8|32)[\s_-]*bits?)?\b"
           r"|\b(?:8|32)[\s_-]*bits?\s+paged\s+optimi[sz]er\b")
_ADAM8 = R(r"\b(?:8[\s_-]*bits?|bnb|bitsandbytes)[\s_-]*" + _ADAM + r"\b|\b" + _ADAM
           + r"[\s_-]*(?:bnb[\s_-]*)?(?:8[\s_-]*bits?|bnb)\b|\b" + _ADAM + r"\s+(?:en|in|de|a)\s+8[\s_-]*bits?\b"
           # the optimizer's states in 8 bits (bitsandbytes' 8-bit optimizers quantize the states): "AdamW, 8-bit states"
           r"|\b" + _ADAM + r"\s*[,(]?\s*(?:with\s+|con\s+)?(?:8[\s_-]*bits?\s+(?:optimizer\s+)?states?|estados?\s+(?:de\s+|en\s+)?8[\s_-]*bits?)\b")
# The optimizer noun, then its modifiers listed after it in any order, by commas, a parenthesis or "de"/"and"
# ("AdamW, paged, 8-bit", "AdamW (8-bit, bitsandbytes)", "AdamW 8-bit paginado", "AdamW 8 bits y paginado"): the
# modifiers name one optimizer between them (bitsandbytes' PagedAdamW8bit is paged AND 8-bit, bitsandbytes 0.50
# bitsandbytes/optim/adamw.py: class PagedAdamW8bit; transformers OptimizerNames.PAGED_ADAMW_8BIT). "bnb" before a
# 4-bit quantization ("AdamW, bnb 4-bit") is the base model's quantization, not the optimizer's.
_ADAM_MOD = r"(?:paged|paginad[oa]|(?:8|32)[\s_-]*bits?|(?:bnb|bitsandbytes)(?![\s_-]*(?:4|nf4|fp4|int4)))"
# "paged AdamW (8-bit)", "paged 8-bit AdamW (bnb)": the modifiers before it join those after
_PAGED_BEFORE = r"(?:(?:paged|paginad[oa])[\s_-]*(?:(?:8|32)[\s_-]*bits?[\s_-]*)?)?"
_ADAM_MODS = R(r"\b" + _PAGED_BEFORE + _ADAM + r"(?:\s*[,(/]\s*|\s+(?:(?:and|y|de|en|in|with|con)\s+)?|[_-])" + _ADAM_MOD
               + r"(?:(?:\s*[,/]\s*|\s+(?:(?:and|y|de|en|in|with|con)\s+)?|[_-])" + _ADAM_MOD + r"){1,2}\b\)?"
               r"|\b" + _PAGED_BEFORE + _ADAM + r"\s*\(\s*" + _ADAM_MOD + r"\s*\)")  # one modifier in its parenthesis: "AdamW (8-bit)"
_ADAMW = R(r"\b(?:(fused|foreach)\s+)?" + _ADAM + r"(?:[\s_-]*torch)?(?:[\s_-]*(fused|foreach))?\b")
_SGD = R(r"\bsgd\b")
_OTHER_OPT = R(r"\b(adafactor|lion|muon|sophia|lamb|galore|shampoo|soap|lomo)\b")

_BF16 = r"(?:bf16|bfloat16|bfloat[\s_-]16)"
_PURE_BF16 = R(r"\b(?:pure|full|only|solo|puro|all)[\s_-]*" + _BF16 + r"\b(?![\s_-]*(?:autocast|amp|mixed|mixta|con\s+amp))|\b" + _BF16
               # "bf16 end to end", "bf16 de punta a punta", "bf16 throughout": weights and math alike, as "everywhere"
               + r"[\s_-]*(?:pure|only|puro|weights|everywhere|puros|end[\s-]+to[\s-]+end|throughout|de\s+punta\s+a\s+punta"
               r"|de\s+principio\s+a\s+fin)\b"
               # "bf16 (no AMP)", "bf16 sin AMP": bf16 without autocast (HF's bf16=True is autocast, i.e. mixed)
               r"|\b" + _BF16 + r"[\s_-]*[(,]?\s*(?:(?:with|con|and|y|but|pero)\s+)?(?:no|sin|without|w/o)\s+(?:amp|autocast|mixed(?:\s+precision)?|precision\s+mixta"
               # "bf16, no fp32 masters", "todo en bf16, sin copia maestra": no fp32 master copy is what pure bf16 is
               # (AMP keeps fp32 parameters, torch/amp/autocast_mode.py; see _SPLIT_PRECISION below)
               r"|(?:fp32\s+)?masters?(?:\s+(?:weights?|copy|copies))?|(?:una\s+)?copia\s+maestra|pesos\s+maestros|maestros)\b"
               # "everything in bf16", "todo en bf16": weights and math alike
               r"|\b(?:everything|todo)\s+(?:in|en)\s+" + _BF16 + r"\b(?![\s_-]*(?:autocast|amp|mixed|mixta|con\s+amp))")
_BF16_MIXED = R(r"\b" + _BF16 + r"[\s_-]*(?:mixed|amp|mixta|autocast)\b|\bmixed[\s_-]*(?:precision[\s_-]*)?\(?\s*" + _BF16
                + r"\b|\b" + _BF16 + r"\b")
_MIXED = R(r"\bmixed[\s_-]*precision\b|\bprecision\s+mixta\b|\bamp\b")
_FP16 = R(r"\b(?:fp16|float16|half[\s_-]*precision|media\s+precision)(?:[\s_-]*(?:mixed|amp|mixta))?\b"
          r"|\bmixed[\s_-]*(?:precision[\s_-]*)?\(?\s*fp16\b")
_FP32 = R(r"\b(?:fp32|float32|full[\s_-]*precision|single[\s_-]*precision|precision\s+(?:completa|total|simple))\b")
# Master weights kept in fp32 while the math runs in a half type ("weights fp32, compute bf16", "pesos en fp32 y
# cómputo en bf16", "bf16 compute with fp32 master weights") is what automatic mixed precision is: torch.autocast
# runs the matmuls in the half type on fp32 parameters (torch/amp/autocast_mode.py, class autocast; HF
# TrainingArguments(bf16=True) wraps the forward in it, transformers/trainer.py autocast_smart_context_manager).
# Both values name one precision, "<half>-mixed", never two that conflict.
_HALF = r"(bf16|bfloat16|bfloat[\s_-]16|fp16|float16)"
_FP32_WORD = r"(?:fp32|float32)"
_MASTER = (r"(?:(?:fp32\s+)?master\s+(?:weights?|params|copy)|weights?|params|parameters|parametros|pesos(?:\s+maestros)?"
           r"|copia\s+maestra|masters?|maestros)")
_COMPUTE = (r"(?:compute|computation|computations|math|matmuls?|activations?|forward(?:\s+pass)?|autocast|ops"
            r"|computo|calculos?|activaciones|operaciones|matmul)")
_AS = r"(?:\s*[:=]\s*|\s+(?:in|en|at|a|as|como)\s+|\s+)"
# ("bf16 autocast over fp32 masters", "autocast bf16 sobre maestros fp32": the math runs over the fp32 copy)
_JOINT = r"(?:\s*[,;+/&]\s*|\s+(?:and|y|with|con|but|pero|plus|mas)\s+|\s+(?:over|sobre)\s+(?:the\s+|its\s+|los\s+|sus\s+)?|\s*[,;]\s*(?:and|y|with|con|but|pero)\s+)"
_SPLIT_PRECISION = R(
    r"\b" + _MASTER + _AS + _FP32_WORD + _JOINT + _COMPUTE + _AS + _HALF + r"\b"
    r"|\b" + _COMPUTE + _AS + _HALF + _JOINT + _MASTER + _AS + _FP32_WORD + r"\b"
    r"|\b" + _FP32_WORD + r"\s+" + _MASTER + _JOINT + _HALF + r"\s+" + _COMPUTE + r"\b"
    r"|\b" + _HALF + r"\s+" + _COMPUTE + _JOINT + _FP32_WORD + r"\s+" + _MASTER + r"\b"
    # the half type with its fp32 masters in a parenthesis or after a comma: "AMP bf16 (fp32 master weights)",
    # "bf16 mixed, with fp32 masters", "AMP bf16 (pesos maestros en fp32)": the same mixed precision
    r"|\b(?:(?:amp|autocast|mixed(?:\s+precision)?|precision\s+mixta)\s+)?" + _HALF
    + r"(?:[\s_-]*(?:amp|mixed|mixta|autocast))?\s*[(,;]\s*(?:(?:with|con|and|y)\s+)?(?:" + _FP32_WORD + r"\s+" + _MASTER
    + r"|" + _MASTER + _AS + _FP32_WORD + r")\b")
# The optimizer's states in fp32 ("fp32 states", "estados fp32", "optimizer states in fp32") are plain 32-bit AdamW's,
# kept in fp32 whatever the training precision is (torch/optim/adamw.py: exp_avg/exp_avg_sq are zeros_like(param),
# fp32 masters under AMP): they say nothing of the precision, so the span is read and left alone.
_FP32_STATES = R(r"\b(?:(?:optimi[sz]er|optim|optimizador|adam\w*)\s+)?states?" + _AS + r"(?:del\s+optimizador\s+)?" + _FP32_WORD + r"\b"
                 r"|\b" + _FP32_WORD + r"\s+(?:(?:optimi[sz]er|optim|adam\w*)\s+)?states?\b"
                 r"|\bestados?(?:\s+del\s+optimizador)?" + _AS + _FP32_WORD + r"\b"
                 r"|\b" + _FP32_WORD + r"\s+(?:optimizer\s+)?(?:moments|momentos)\b")


def _split_precision(scan: Scan, m: re.Match[str]) -> None:
    half = next(g for g in m.groups() if g)
    scan.claim("precision", ("fp16" if "16" in half and "b" not in half else "bf16") + "-mixed", m.start())


def _claim(field_name: str, value):
    def handler(scan: Scan, m: re.Match[str]) -> None:
        scan.claim(field_name, value, m.start())
    return handler


def _mixed(scan: Scan, m: re.Match[str]) -> None:
    """"mixed precision" alone is HF's bf16=True; next to "fp16" it only says fp16 is mixed."""
    if not any(c.field == "precision" for c in scan.claims):
        scan.claim("precision", "bf16-mixed", m.start())


def _paged(scan: Scan, m: re.Match[str]) -> None:
    if "32" in m.group(0):
        scan.claim("optimizer", "adamw", m.start())
        scan.warn("parse.warn.paged32")
    else:
        scan.claim("optimizer", "paged-adamw-8bit", m.start())


def _adam_mods(scan: Scan, m: re.Match[str]) -> None:
    """AdamW with two or three modifiers after it (``_ADAM_MODS``): paged and 8-bit together are paged 8-bit
    AdamW; paged 32-bit is AdamW's memory (as ``_paged``), 8-bit or bitsandbytes alone the 8-bit AdamW."""
    said = m.group(0)
    if "pag" in said:
        _paged(scan, m)
    elif re.search(r"8[\s_-]*bit|bnb|bitsandbytes", said):
        scan.claim("optimizer", "adamw-8bit", m.start())
    else:
        scan.claim("optimizer", "adamw", m.start())


def _adamw(scan: Scan, m: re.Match[str]) -> None:
    scan.claim("optimizer", "adamw", m.start())
    impl = m.group(1) or m.group(2)
    if impl:
        scan.claim("optimizer_impl", impl, m.start())


def _other_opt(scan: Scan, m: re.Match[str]) -> None:
    scan.warn("parse.warn.optimizer_unknown", name=m.group(1))


# --- gradient checkpointing -----------------------------------------------------------------

# The noun phrase for checkpointing, head last ("activation checkpointing", "activation recompute", "activation
# rematerialization": the activations are recomputed in the backward pass, torch.utils.checkpoint) or first
# ("recompute of the activations", "recomputar activaciones"), so a negation before it ("no activation recompute")
# negates the whole phrase.
_GC = (r"(?:(?:gradient|grad|activation|activations|activaciones)[\s_-]*(?:checkpointing|checkpoints?|ckpt|ckpting"
       r"|recomput\w*|rematerializ\w*|remat)"
       r"|checkpointing(?:\s+de\s+(?:gradientes?|activaci\w+))?|recomput\w*(?:\s+(?:de\s+|of\s+)?(?:las\s+|the\s+)?activa\w*)?"
       # the abbreviations of a terse spec line: "act. ckpt yes", "act ckpt: off", "ckpt de activaciones: sí"
       r"|act\.?[\s_-]*(?:ckpt|ckpting|checkpointing)|(?:ckpt|checkpoints?|checkpointing)\s+de\s+(?:las\s+)?activaciones"
       # the participle before or after the noun, and Spanish's noun "con checkpoint": "checkpointed activations",
       # "recomputed activations", "activations checkpointed", "activaciones con checkpoint(ing)", "activaciones
       # recomputadas", "capas con checkpoint" (torch.utils.checkpoint: the activations are recomputed in backward)
       r"|(?:checkpointed|recomputed|rematerialized)\s+(?:activations|layers|gradients|blocks)"
       r"|(?:activations|layers|blocks)\s+(?:checkpointed|recomputed|rematerialized)"
       r"|(?:activaciones|capas|bloques)\s+(?:con\s+(?:checkpoint(?:ing)?s?|ckpt|recomputo|recomputacion)"
       r"|checkpointead[oa]s|recomputad[oa]s|rematerializad[oa]s))")
_GC_OFF = R(r"\b(?:without|w/o|no|not|disable[ds]?|disabling|turn(?:ed|ing)?\s+off|switch(?:ed)?\s+off|drop|sin|desactiva\w*"
            r"|quita\w*|apaga\w*|deshabilita\w*)\s+(?:the\s+|el\s+|la\s+|any\s+|de\s+)?" + _GC + r"\b"
            # the state after the term, also with a verb of setting it ("gradient checkpointing turned off", "... switched
            # off", "... set to false", "... kept disabled", "el checkpointing queda apagado")
            r"|\b" + _GC + r"\s*(?:[:=]\s*|is\s+|esta\s+)?(?:(?:turned|switched|set|kept|left|toggled|queda|quedaria)\s+(?:to\s+)?)?"
            r"(?:off|disabled|false|no|desactivad[oa]|apagad[oa]|deshabilitad[oa])\b"
            r"|\bno\s+gc\b|\bgc\s*[:=]?\s*(?:off|false)\b")
_GC_ON = R(r"\b" + _GC + r"(?:[\s_-]*enable\w*)?\b|\bgc\s*[:=]?\s*(?:on|true)\b")

# --- LoRA details, attention, sharding, stack -------------------------------------------------

_N = r"(\d+(?:[.,]\d+)?)"
_NOT_SIZE = r"(?![\w.,]*\s*(?:k|tokens?|b|m|x|gb|%)\b)"
_RANK = R(r"\b(?:lora[\s_-]*)?(?:rank|rango)(?:\s+(?:de\s+|del\s+|of\s+)?(?:la\s+|the\s+)?(?:lora|adapters?|adaptador(?:es)?|\x01+))?"
          r"\s*(?:of|de|=|:|is|es|a|to)?\s*" + _N + _NOT_SIZE +
          r"|\blora[\s_-]*r\s*[=:]?\s*" + _N + _NOT_SIZE + r"|\br\s*[=:]\s*" + _N
          + r"|\b(?:lora\s+)?r(\d{1,4})\b|\b(\d{1,4})[\s_-]*rank\b"
          r"|(?<![\w.,/-])r\s+(\d{1,4})\b" + _NOT_SIZE)
_ALPHA = R(r"\b(?:lora[\s_-]*)?(?:alpha|alfa)(?:\s+(?:de|del|of|the|la|el))*(?:\s+(?:lora|adapters?|adaptador(?:es)?))?"
           r"\s*(?:of|de|=|:|is|es)?\s*" + _N)
_DROPOUT = R(r"\b(?:lora[\s_-]*)?dropout\s*(?:of|de|=|:|is|es)?\s*" + _N + r"\s*(%)?|\b(?:no|sin|without)\s+dropout\b")
# (every linear layer, however counted: "all linear layers", "every linear proj", "each linear projection", "todas las
# capas lineales", "cada proyección lineal", "todas las proyecciones lineales": PEFT's target_modules="all-linear")
_ALL_LINEAR = R(r"\ball[\s_-]*(?:the\s+)?linear(?:\s+(?:layers|modules|projections|projs))?\b"
                r"|\b(?:every|each)\s+(?:of\s+the\s+)?linear\s+(?:layers?|modules?|projections?|projs?)\b"
                r"|\btodas\s+las\s+(?:capas\s+|proyecciones\s+|modulos\s+)?lineales\b"
                r"|\bcada\s+(?:capa|proyeccion|modulo)\s+lineal\b")
_ATTN_ONLY = R(r"\b(?:attention|attn)[\s_-]*(?:only|layers|projections|modules)\b|\bonly\s+(?:the\s+)?(?:attention|attn)\b"
               r"|\bsolo\s+(?:en\s+)?(?:la\s+)?(?:atencion|attention)\b|\bq[\s_-]*(?:proj)?\s*(?:,|and|y|\+|/)\s*v[\s_-]*(?:proj)?\b"
               r"|\bqv\b|\bcapas\s+de\s+atencion\b"
               # the projections or modules of attention, in Spanish ("LoRA solo en proyecciones de atención", "los
               # módulos de atención"), as "attention projections" above
               r"|\b(?:proyecciones|modulos|matrices)\s+de\s+(?:la\s+)?atencion\b"
               # the attention's projections listed, "q/k/v/o", "q,k,v,o", "q/k/v" (q_proj, k_proj, v_proj, o_proj)
               r"|\bq(?:[\s_-]*proj)?\s*[,/+]\s*k(?:[\s_-]*proj)?\s*[,/+]\s*v(?:[\s_-]*proj)?(?:\s*[,/+]\s*o(?:[\s_-]*proj)?)?\b"
               r"|\bqkvo?\b")
_EAGER = R(r"\beager(?:[\s_-]*(?:attention|attn))?\b|\b(?:without|no|sin)\s+flash(?:[\s_-]*(?:attention|attn))?\b"
           r"|\b(?:attention|atencion)\s+eager\b|\bmath\s+attention\b")
_FLASH = R(r"\bflash[\s_-]*(?:attention|attn)(?:[\s_-]*\d)?\b|\bfa[23]\b|\bsdpa\b|\bflash\b")
# ZeRO's stage said with its word in either language ("ZeRO stage 3", "ZeRO etapa 3", "DeepSpeed stage 2", "deepspeed
# fase 2", "ZeRO nivel 3"): DeepSpeed names them stages (zero_optimization.stage, deepspeed/runtime/zero/config.py)
_STAGE = r"(?:stage|etapa|fase|nivel|level)"
_ZERO3 = R(r"\b(?:deepspeed|ds)?[\s_-]*zero[\s_-]*(?:" + _STAGE + r"[\s_-]*)?3\b|\bdeepspeed[\s_-]*(?:\(\s*)?" + _STAGE
           + r"[\s_-]*3\b|\bfsdp\d?\b|\bfully[\s_-]+sharded\b")
_ZERO12 = R(r"\b(?:deepspeed[\s_-]*)?zero[\s_-]*(?:" + _STAGE + r"[\s_-]*)?([12])\b|\bdeepspeed[\s_-]*(?:\(\s*)?" + _STAGE
            + r"[\s_-]*([12])\b|\bdeepspeed\b")
_DOUBLE_OFF = R(r"\b(?:no|without|sin)\s+(?:double|doble)[\s_-]*(?:quant\w*|cuantiz\w*)|\b(?:double|doble)[\s_-]*(?:quant\w*|cuantiz\w*)"
                 r"\s*(?:[:=]\s*)?(?:off|false|desactivad[oa])\b")
_DOUBLE_ON = R(r"\b(?:double|doble)[\s_-]*(?:quant\w*|cuantiz\w*)(?:\s*(?:[:=]\s*)?(?:on|true|activad[oa]))?")
# DDP by its name (torch.nn.parallel.DistributedDataParallel: every rank holds the whole model). "Data-parallel" alone
# names no sharding: ZeRO is "ZeRO-powered data parallelism" (DeepSpeed docs) and FSDP "fully sharded data parallel",
# both data parallelism; it says only that the GPUs split the batch (the count beside it is read by the slots).
_DDP = R(r"\bddp\b|\bdistributed[\s_-]*data[\s_-]*parallel\b|\bplain[\s_-]+data[\s_-]*parallel(?:ism)?\b")
# "tune run lora_finetune_single_device": torchtune's CLI with a recipe (never "fine-tune run on ...")
_STACKS = [(R(r"\btorchtune\b|\btune\s+run\s+[a-z0-9]+_[a-z0-9_]+"), "torchtune"), (R(r"\blit[\s_-]?gpt\b"), "litgpt"),

           (R(r"\breference\s+stack\b|\bpila\s+de\s+referencia\b"), "reference"),
           # (never "HuggingFace(" called in code: that is SageMaker's estimator, sagemaker.huggingface.HuggingFace,
           # which names the Hugging Face training container its entry_point script runs in, not the library the
           # script trains with, so no stack; "from sagemaker.huggingface import HuggingFace" imports that class, the
           # module already excluded by ".")
           (R(r"(?<![/.])(?<!import )\b(?:hugging\s*face(?!\()(?:\s+trainer)?(?![.\w]*\.co\b)|hf\s+trainer|transformers|trl|sft\s*trainer"
              r"|axolotl)\b(?![./])"), "hf"),
           # TRL's CLI as a module ("torchrun ... -m trl.scripts.sft", trl/scripts/sft.py, trl 1.16)
           (R(r"(?<![\w.])-m[ \t]+trl\.scripts\.[a-z_]+"), "hf")]


# LitGPT's finetune config (litgpt/config_hub/finetune/*/lora.yaml: "checkpoint_dir: checkpoints/<org>/<model>", the
# folder ``litgpt download`` writes, with "out_dir: out/finetune/..."): both keys, a config of LitGPT's (read before the
# config keys' rules, which blank what they read)
_LITGPT_CONFIG = R(r"(?ms)^[ \t]*checkpoint_dir[ \t]*:[ \t]*[\"']?checkpoints/(?=.*^[ \t]*out_dir[ \t]*:)"
                   r"|^[ \t]*out_dir[ \t]*:(?=.*^[ \t]*checkpoint_dir[ \t]*:[ \t]*[\"']?checkpoints/)")


def _rank(scan: Scan, m: re.Match[str]) -> bool | None:
    raw = next(g for g in m.groups() if g)
    return claim_int(scan, "lora_rank", raw, m.start())


def _alpha(scan: Scan, m: re.Match[str]) -> bool | None:
    return claim_number(scan, "lora_alpha", m.group(1), m.start())


def _dropout(scan: Scan, m: re.Match[str]) -> bool | None:
    if m.group(1) is None:
        scan.claim("lora_dropout", 0.0, m.start())
        return None
    value = parse_number(m.group(1))
    value = value / 100 if m.group(2) or value >= 1 else value
    if not 0 <= value < 1:
        scan.limits.append(("lora_dropout", value))
        return None
    scan.claim("lora_dropout", value, m.start())
    return None


# torchtune recipes (torchtune/recipes/: lora_finetune_single_device.py, full_finetune_distributed.py,
# ...; QLoRA is a LoRA recipe with a qlora config): the method, the stack, and one device or several.
# LitGPT's CLI (litgpt/__main__.py: "finetune" is finetune_lora; litgpt/finetune/lora.py, full.py, adapter.py)
_LITGPT = R(r"\blitgpt\s+finetune(?:_(lora|full|adapter(?:_v2)?))?\b")


def _litgpt(scan: Scan, m: re.Match[str]) -> None:
    kind = m.group(1) or "lora"
    if kind == "full":
        scan.claim("method", "full", m.start())
    elif kind == "lora":
        scan.claim("method", "lora", m.start())
    else:
        scan.warn("parse.warn.optimizer_unknown", name="litgpt " + kind)  # LLaMA-Adapter: not a method we model
    scan.claim("stack", "litgpt", m.start())


# Hugging Face AutoTrain Advanced's LLM command ("autotrain llm --train --model ... [--peft] [--quantization int4]"):
# it trains through TRL's trainers over Transformers (autotrain/trainers/clm/), so the stack is "hf"; its LLM
# parameters default to peft=False (autotrain/trainers/clm/params.py, LLMTrainingParams.peft), so a command without
# --peft trains every weight: a full fine-tune ("--peft" itself is read by the PEFT switch rule as LoRA).
# (its YAML config, "task: llm-sft" with "base_model:" and a "params:" block, says the same: configs/llm_finetuning/)
_AUTOTRAIN = R(r"(?m)\bautotrain\s+llm\b|^[ \t]*task[ \t]*:[ \t]*[\"']?llm(?:-(?:sft|generic|orpo|dpo|reward))?[\"']?[ \t]*$")
_AUTOTRAIN_PEFT = re.compile(r"\b(?:peft|use_peft|quantization)=")


def _autotrain(scan: Scan, m: re.Match[str]) -> None:
    scan.claim("stack", "hf", m.start())
    lines = scan.marked[m.end():].split("\n")
    command = lines[0]
    for line in lines[1:]:  # a command continued with a backslash at each line's end ("--train \\")
        if not command.rstrip().endswith("\\"):
            break
        command += " " + line
    if m.group().lstrip().startswith("task"):  # the YAML: its whole text is the config
        if "base_model" in scan.marked and not re.search(r"(?m)^[ \t]*(?:peft|quantization)[ \t]*:", scan.marked):
            scan.claim("method", "full", m.start())
        return
    if "train=true" in command and not _AUTOTRAIN_PEFT.search(command):
        scan.claim("method", "full", m.start())


_RECIPE = R(r"\b(q?lora|full)_finetune_(single_device|distributed)\b|\b[a-z0-9_]+/\d+(?:\.\d+)?b_(q?lora|full)(?:_single_device)?\b")
# torchtune's QLoRA configs run the LoRA recipes: recipes/configs/llama3_1/8B_qlora_single_device.yaml (torchtune
# 0.6) names ``recipe: lora_finetune_single_device`` and the model ``qlora_llama3_1_8b``. So after a lora_finetune
# recipe, the config's name says which of the two it is ("tune run lora_finetune_single_device --config
# qwen2_5/1.5B_qlora_single_device").
# (``flags_to_pairs`` has made "--config X" "config=X"; the model in the config's path may be marked as a name.)
_RECIPE_CONFIG = re.compile(r"\s+(?:--)?config[\s=]+(?:[\w./-]|§\w*§|\s(?=_))*?[/_](q?lora|full)(?:_single_device|_distributed)?\b")


def _recipe(scan: Scan, m: re.Match[str]) -> None:
    method = m.group(1) or m.group(3)
    config = _RECIPE_CONFIG.match(scan.marked, m.end()) if m.group(1) == "lora" else None
    if config is not None and config.group(1) == "qlora":
        method = "qlora"
    scan.claim("method", method, m.start())
    scan.claim("stack", "torchtune", m.start())
    if m.group(2) == "single_device" or "single_device" in m.group(0):
        scan.claim("num_gpus", 1, m.start())


def _zero3(scan: Scan, m: re.Match[str]) -> None:
    if "zero" in m.group(0) or "deepspeed" in m.group(0):  # "ZeRO-3", "DeepSpeed stage 3"; else FSDP
        _zero3_claim(scan, m.start())
    else:
        scan.claim("sharding", "fsdp", m.start())


def _zero3_claim(scan: Scan, pos: int) -> None:
    """DeepSpeed ZeRO-3: the spec's own "zero3" where it models it, else FSDP's full sharding (the same
    partitioning of parameters, gradients and optimizer states), with a warning that says so."""
    if _spec_accepts("sharding", "zero3"):
        scan.claim("sharding", "zero3", pos)
        return
    scan.claim("sharding", "fsdp", pos)
    scan.warn("parse.warn.zero3")


def _zero12(scan: Scan, m: re.Match[str]) -> None:
    stage = m.group(1) or m.group(2)
    if stage is None and any(c.field == "sharding" for c in scan.claims) or any(
            k == "parse.warn.zero12" for k, _ in scan.warnings):
        return  # "deepspeed" beside a stage already read (a pasted DeepSpeed config)
    if stage and _spec_accepts("sharding", f"zero{stage}"):
        scan.claim("sharding", f"zero{stage}", m.start())
        return
    scan.warn("parse.warn.zero12", stage=stage or "?")


def _stack(value: str):
    def handler(scan: Scan, m: re.Match[str]) -> bool | None:
        # Unsloth drives TRL's SFTTrainer over Transformers (unsloth/trainer.py): code that names Unsloth
        # is an Unsloth run, whatever else it imports
        if value == "hf" and _UNSLOTH.search(scan.marked):
            return False
        if scan.text.startswith(("'s ", "'s,", "'s)"), m.end()):
            return False  # "torchtune's recipe value", "axolotl's default": something of the tool's, not the run's stack
        if _VERSION_AFTER.match(scan.text, m.end()):
            return False  # "we're on transformers 4.46": what is installed, not the stack asked about; its version is read
        # (the word stays for the typed slots, which leave a version after a tool name alone)
        scan.claim("stack", value, m.start())
        return None
    return handler


# Order matters: specific before general (paged before 8-bit before plain AdamW; "full precision"
# before "full fine-tune"; 8-bit base before 4-bit before LoRA; "without GC" before "GC").
def _increment(scan: Scan, m: re.Match[str]) -> bool | None:
    """"+2 GPUs", "2 more GPUs", "dos GPUs más": a change of a count, settled against the thread's
    request (``request._Assembler``), never a count of its own."""
    from advisor.parse.relative import increment_of

    found = increment_of(m)
    if found is None:
        return False
    scan.claim("increment_" + found[0], found[1], m.start())
    return None


# A count per day, week, month or year ("1,200 new chats per day", "unas 1.200 conversaciones al día", "300 tickets a
# week", "5k solicitudes por semana", "2,000 daily users"): a rate of the product's traffic, never a dataset size, an
# example count or any setting of the run (the run's data is what is said to train on). Read and left alone.
_PERIOD = r"(?:days?|weeks?|months?|years?|dias?|semanas?|mes(?:es)?|anos?)"
_RATE = R(r"(?<![\w.,])\d[\d.,_]*\s*[km]?(?:[ \t]+[a-z]{2,}){0,3}[ \t]*(?:(?:per|a|an|each|every|al|a\s+la|por|cada)[ \t]+|/[ \t]*)"
          + _PERIOD + r"\b|(?<![\w.,])\d[\d.,_]*\s*[km]?[ \t]+(?:daily|weekly|monthly|diari[oa]s|semanales|mensuales)\b")

# A throughput ("3,400 tokens/s", "1.2k tok/sec", "900 tokens per second", "3.400 tokens por segundo"): how fast a run
# went, no length nor dataset of this job; read and left alone
_THROUGHPUT = R(r"(?<![\w.,])\d[\d.,_]*\s*[km]?\s*(?:tokens?|toks?|samples?|muestras)\s*(?:/\s*(?:s|sec|seg|second|segundo)\b"
                r"|(?:per|a|por|each|cada)\s+(?:sec(?:ond)?|segundo|seg)s?\b)")

# "N of them" right after a count of people ("6 people, 2 of them ML", "8 engineers - 3 of them on call", "somos 5
# personas, 2 de ellas de ML"): part of that group, never devices ("4 of them" counts GPUs after a card: slots' cue)
_PEOPLE_PART = R(r"(?:(?<![\w.,])\d+\s+)?\b(?:people|persons|folks|engineers|devs|developers|members|researchers|users|interns|personas|gente"
                 r"|ingenieros|ingenieras|miembros|investigadores|usuarios|becarios)\b[^\d\n.;]{0,12}?\d+\s+"
                 r"(?:of\s+(?:them|those|us)|de\s+(?:ellos|ellas|esos|esas|nosotros))\b")

# A device count beside what says the devices are GPUs: a docker compose reservation (deploy.resources.reservations
# .devices[]: driver nvidia, count N, capabilities [gpu]; the Compose file spec, "GPU support": count is how many
# devices to reserve) and a job spec's card with its count on the next line ("gpu: A100-80GB" / "count: 2")
_DEVICE_COUNT = R(r"(?:driver\s*:\s*nvidia|capabilities\s*:\s*\[[^\]\n]*gpu)[^§]{0,80}?\bcount\s*:\s*(\d{1,3})\b"
                  r"|\bcount\s*:\s*(\d{1,3})\b[^§]{0,80}?capabilities\s*:\s*\[[^\]\n]*\bgpu"
                  r"|\bgpus?\s*:\s*§G\d+§[ \t]*\n[ \t]*(?:count|num|number)\s*:\s*(\d{1,3})\b"
                  r"|\b(?:count|num|number)\s*:\s*(\d{1,3})[ \t]*\n[ \t]*gpus?\s*:\s*§G\d+§")


def _device_count(scan: Scan, m: re.Match[str]) -> bool | None:
    n = int(next(g for g in m.groups() if g))
    if n < 1:
        return False
    scan.claim("num_gpus", n, m.start())
    return None


# A time of day for a meal or a meeting ("lunch at 1?", "¿comemos a la 1?", "standup at 10", "reunión a las 5"): an
# hour, no setting of any run
_MEETING_TIME = R(r"\b(?:lunch|dinner|breakfast|coffee|meeting|call|standup|sync|demo|comer|comemos|almorzamos|almuerzo|cenamos|cena"
                  r"|comida|desayuno|cafe|reunion|llamada|quedamos|nos\s+vemos)\b[^.?!\n\d]{0,20}?"
                  r"\b(?:at|around|a\s+las?|sobre\s+las?|hacia\s+las?)\s+\d{1,2}(?::\d\d)?(?:\s*(?:am|pm|h))?\b")

# A share of the data under or over a length ("70% of our prompts are under 2k tokens", "cerca del 70% de los prompts son
# de menos de 2k tokens"): a statistic of the data, not the length trained at (that is said on its own: "we'll train
# at 4096"); read and left alone. Without the share ("samples under 2k tokens") the bound is the length, as before.
_SHARE_UNDER = R(r"\b\d{1,3}(?:[.,]\d+)?\s*%\s+(?:of\s+(?:the\s+|our\s+)?|de\s+(?:los\s+|las\s+|nuestros\s+|nuestras\s+)?)"
                 r"(?:prompts|samples|examples|docs|documents|messages|conversations|tickets|rows|sequences|muestras|ejemplos"
                 r"|mensajes|conversaciones|documentos|filas|secuencias)\b[^.;:\n\d]{0,30}?\b(?:under|below|less\s+than"
                 r"|shorter\s+than|over|above|more\s+than|longer\s+than|menos\s+de|mas\s+de|por\s+debajo\s+de|por\s+encima\s+de)"
                 r"\s+\d[\d.,]*\s*k?(?:\s+tokens)?\b")

WORD_RULES = [
    (_INSTALL, lambda scan, m: None), (_TIMEOUT, lambda scan, m: None), (_TIMEOUT_BARE, lambda scan, m: None), (_SHARE_UNDER, lambda scan, m: None), (_DEVICE_COUNT, _device_count), (_MEETING_TIME, lambda scan, m: None), (_RATE, lambda scan, m: None), (_THROUGHPUT, lambda scan, m: None), (_PEOPLE_PART, lambda scan, m: None),
    # "twice as many GPUs": a relative change read against the thread (``relative.changes``), never a vague count
    (_AS_MANY, lambda scan, m: None),
    (_INCREMENT_SIGN, _increment, _INCREMENT_SIGN_NEEDS), (_INCREMENT, _increment, _INCREMENT_NEEDS),
    (_LORA_SETTING, _lora_setting), (_LITGPT, _litgpt), (_AUTOTRAIN, _autotrain), (_RECIPE, _recipe), (_GRES_GPU, _gres), (_PBS_SELECT, _pbs_select), (_FLYTE_GPU, _flyte_gpu), (_COMPOSER_EPOCHS, _composer_epochs), (_AWS_INSTANCE, _aws_instance), (_AZURE_VM, _azure_vm), (_GCP_MACHINE, _gcp_machine), (_GCLOUD_ACC, _gcloud_acc),
    (_K8S_GPU, _k8s_gpu), (_SKY_ACC, _sky_acc), (_GPU_BLOCK_COUNT, _gpu_block_count), (_DS_INCLUDE, _ds_include), (_VISIBLE, _visible),
    (_SMI_LINE, _smi_line), (_SMI_UUID, lambda scan, m: None), (_LITGPT_CONFIG, _stack("litgpt")), (_CONFIG, _config), (_TARGETS, _targets),
    (_OTHER_KEY, _other_key), (_KWARG, _kwarg), (_OTHER_WORD_KEY, _other_word_key), (_QUOTED_WORD_KEY, _other_word_key, _QUOTED_KEY_NEEDS), (_NESTED_WORD_KEY, _nested_word_key), (_RAY_RESOURCES, lambda scan, m: None),
    (_INSTEAD, _instead), (_NOT_REGION, _instead), (_DROPPED, _instead), (_QUOTA, _quota), (_QUOTA_COUNT, lambda scan, m: None), (_NO_ROOM, _no_room), (_OLD_CARD, _old_card),
    (_ADAM_MODS, _adam_mods), (_PAGED, _paged), (_ADAM8, _claim("optimizer", "adamw-8bit")), (_ADAMW, _adamw),
    (_SGD, _claim("optimizer", "sgd")), (_OTHER_OPT, _other_opt),
    (_SPLIT_PRECISION, _split_precision), (_FP32_STATES, lambda scan, m: None),
    (_PURE_BF16, _claim("precision", "bf16")), (_FP16, _claim("precision", "fp16-mixed")),
    (_FP32, _claim("precision", "fp32")), (_BF16_MIXED, _claim("precision", "bf16-mixed")), (_MIXED, _mixed),
    (_NO_QUANT, _claim("method", "lora")), (_NO_LORA, _claim("method", "full")),
    (_INT8, _method("qlora", "int8")), (_QLORA, _method("qlora")), (_FULL, _method("full")),
    (_FULL_WRAP, _method("full")), (_FULL_ALL, _keep(_method("full"))), (_LORA, _lora),
    (_GC_OFF, _claim("gradient_checkpointing", False)), (_GC_ON, _claim("gradient_checkpointing", True)),
    (_EAGER, _claim("attention", "eager")), (_FLASH, _claim("attention", "flash")),
    (_ALPHA, _alpha), (_DROPOUT, _dropout),
    (_ALL_LINEAR, _claim("lora_targets", "all-linear")), (_ATTN_ONLY, _claim("lora_targets", "attention")),
    (_DOUBLE_OFF, _claim("double_quant", False)), (_DOUBLE_ON, _claim("double_quant", True)),
    (_ZERO3, _zero3), (_ZERO12, _zero12), (_DDP, _claim("sharding", "ddp")),
    (_COMPILE_OFF, _optional("compile", False)), (_COMPILE_ON, _optional("compile", True)),
    (_PACKING_OFF, _optional("packing", False)), (_PACKING_ON, _optional("packing", True)),
    (_LIGER, _optional("liger", True)), (_UNSLOTH, _optional("stack", "unsloth")),
    (_EXPANDABLE_OFF, _optional("expandable_segments", False)), (_EXPANDABLE_ON, _optional("expandable_segments", True)),
    *[(pattern, _stack(value)) for pattern, value in _STACKS],
]
# An axolotl config (base_model with axolotl's own training keys) without ``adapter`` trains every
# parameter: axolotl's config schema, field ``adapter``: "If you want to use 'lora' or 'qlora' or
# leave blank to train all parameters in original model".
_AXOLOTL = R(r"(?m)(?:^|\s)[ \t\"{]*base_model\"?\s*:")
_AXOLOTL_KEYS = R(r"(?m)(?:^|[{,])[ \t\"]*(?:sequence_len|micro_batch_size|num_epochs)\"?\s*:")
_AXOLOTL_ADAPTER = R(r"(?m)(?:^|[{,])[ \t\"]*(?:adapter|load_in_4bit|load_in_8bit)\"?\s*:")


# A Transformers / TRL training script (a Trainer and a model from from_pretrained) that builds no
# adapters (no LoraConfig, get_peft_model, peft_config, --use_peft) trains every parameter.
_VERSION_AFTER = R(r"\s*(?:v(?:ersion)?\s*)?\d+\.\d+")
_HF_SCRIPT = R(r"\b(?:trainingarguments|sftconfig|sfttrainer|seq2seqtrainingarguments)\s*\(")
_FROM_PRETRAINED = R(r"\bfrom_pretrained\s*\(")
_ADAPTER_CODE = R(r"\b(?:lora|peft|adapters?|qlora)")


# TRL's own config (``trl sft --config``, or its keys): ModelConfig.use_peft defaults to False
# (trl/trainer/model_config.py), so a TRL run without adapters trains every parameter.
_TRL_CLI = R(r"\btrl\s+sft\b"  # TRL's command line, ``trl sft`` (trl/cli.py)
             # a W&B run's config.yaml logged by transformers' WandbCallback (``_wandb: value: framework: huggingface``,
             # written by wandb's integration for the Trainer): the run's arguments are a Trainer's
             r"|(?m:^[ \t]*framework[ \t]*:[ \t]*huggingface\b)(?=[\s\S]*?\b(?:per_device_train_batch_size|num_train_epochs)\b)")
_TRL_CONFIG = R(r"(?m)" + _TRL_CLI.pattern + r"|^\s*dataset_name\s*:")
# ms-swift's command line (``swift sft`` / ``swift pt`` / ``swift rlhf``, swift/cli/main.py) trains
# with transformers' Trainer: swift/trainers/trainers.py ``class Trainer(PushToMsHubMixin,
# SwiftMixin, HfTrainer)`` and ``Seq2SeqTrainer(..., HfSeq2SeqTrainer)``, so its stack is hf. Not a
# TRL config: its --train_type defaults to lora (swift/llm/argument/tuner_args.py), not full.
_SWIFT_CLI = R(r"\bswift\s+(?:sft|pt|rlhf)\b")


def _hf_full(scan: Scan, m: re.Match[str]) -> bool | None:
    if (any(c.field in ("method", "method_weak") for c in scan.claims) or not _FROM_PRETRAINED.search(scan.marked)
            or _ADAPTER_CODE.search(scan.marked)):
        return False
    scan.claim("method", "full", m.start())
    return None


def _axolotl_full(scan: Scan, m: re.Match[str]) -> bool | None:
    if (any(c.field == "method" for c in scan.claims) or not _AXOLOTL_KEYS.search(scan.marked)
            or _AXOLOTL_ADAPTER.search(scan.marked)):
        return False
    scan.claim("method", "full", m.start())
    return None


# Read last: a lone "full" in a short follow-up ("and full?", "¿y completo?") or beside a
# fine-tuning word; an axolotl config that names no adapter.
# "retrain all layers of X", "afinar todas las capas de X": every layer trained, so a full fine-tune, when the
# message names no adapters ("LoRA on all layers" is about where the adapters go).
_ALL_LAYERS = R(r"\ball\s+(?:of\s+)?(?:the\s+|its\s+)?(?:model'?s?\s+)?layers\b|\btodas\s+las\s+capas\b")


def _all_layers(scan: Scan, m: re.Match[str]) -> bool | None:
    if any(c.field in ("method", "method_weak") for c in scan.claims) or _ADAPTER_CODE.search(scan.marked) \
            or _ALL_LINEAR.search(scan.marked):
        return False
    scan.claim("method", "full", m.start())
    return None


_START = R(r"\A")  # a late rule that reads the whole message (``scan.marked``) itself


def _trl_full(scan: Scan, m: re.Match[str]) -> bool | None:
    if (any(c.field in ("method", "method_weak") for c in scan.claims) or _ADAPTER_CODE.search(scan.marked)
            or not _TRL_CONFIG.search(scan.marked) or not re.search(r"model_name_or_path", scan.marked)):
        return False
    scan.claim("method", "full", m.start())
    return None


# OpenRLHF's SFT trainer (``deepspeed --module openrlhf.cli.train_sft``): --lora_rank defaults to 0, and the actor
# builds LoRA adapters only for a rank above 0 (openrlhf/cli/train_sft.py, ``--lora_rank`` default 0;
# openrlhf/models/actor.py, ``if lora_rank > 0``), so a command without one trains every weight.
_OPENRLHF = R(r"\bopenrlhf\.cli\.train_\w+")


def _openrlhf_full(scan: Scan, m: re.Match[str]) -> bool | None:
    if any(c.field in ("method", "method_weak") for c in scan.claims) or _ADAPTER_CODE.search(scan.marked):
        return False
    scan.claim("method", "full", m.start())
    return None


# LLM Foundry's model ``name: hf_causal_lm`` (ComposerHFCausalLM, llmfoundry/models/hf/hf_causal_lm.py, registered
# as "hf_causal_lm") wraps the model in PEFT only when its ``peft_config`` is given (``peft_config: Optional[dict]``,
# the adapters built from it, else every weight trains): a config of that model without one is a full fine-tune.
_LLMFOUNDRY_MODEL = R(r"(?<![\w.])name[\"']?[ \t]*:[ \t]*[\"']?hf_causal_lm\b")


def _llmfoundry_full(scan: Scan, m: re.Match[str]) -> bool | None:
    if any(c.field in ("method", "method_weak") for c in scan.claims) or "peft_config" in scan.marked \
            or _ADAPTER_CODE.search(scan.marked):
        return False
    scan.claim("method", "full", m.start())
    return None


# Unsloth's loader class (unsloth/models/loader.py: FastLanguageModel, FastVisionModel) names the Unsloth stack when
# no word does: the word "unsloth" may sit only inside a repo name ("unsloth/Qwen3-14B") that a key's rule consumed.
_UNSLOTH_LOADER = R(r"\bfast(?:language|vision)model\b")


def _unsloth_loader(scan: Scan, m: re.Match[str]) -> bool | None:
    if any(c.field == "stack" for c in scan.claims) or not _spec_accepts("stack", "unsloth"):
        return False  # a word or a recipe named the stack
    scan.claim("stack", "unsloth", m.start())
    return None


# A pasted config of a tool that trains with Hugging Face's Trainer states the ``hf`` stack (Transformers + PEFT +
# bitsandbytes, advisor/stacks.py) when no word or loader named another: axolotl builds a ``transformers.Trainer``
# subclass (axolotl/core/trainers/base.py, ``AxolotlTrainer(..., Trainer)``), LLaMA-Factory's SFT stage a
# ``Seq2SeqTrainer`` (llamafactory/train/sft/trainer.py, ``CustomSeq2SeqTrainer``), TRL's ``SFTTrainer`` is a
# ``transformers.Trainer`` (trl/trainer/sft_trainer.py) and ``TrainingArguments(...)`` is the Trainer's own. The shapes
# are the tools' own keys: axolotl's ``base_model`` with one of its training or adapter keys, LLaMA-Factory's
# ``finetuning_type`` / ``llamafactory-cli``, TRL's config (``trl sft``) or a Trainer's arguments called in code.
_LLAMAFACTORY = R(r"(?m)llamafactory-cli|(?:^|[{,\s])[ \t\"-]*finetuning_type\"?\s*[:=\s]")


def _trainer_config_stack(scan: Scan, m: re.Match[str]) -> bool | None:
    if any(c.field == "stack" for c in scan.claims) or not _spec_accepts("stack", "hf"):
        return False  # a word, a recipe or Unsloth's loader named the stack
    marked = scan.marked
    axolotl = _AXOLOTL.search(marked) and (_AXOLOTL_KEYS.search(marked) or _AXOLOTL_ADAPTER.search(marked))
    if not (axolotl or _LLAMAFACTORY.search(marked) or _HF_SCRIPT.search(marked) or _TRL_CLI.search(marked)
            or _SWIFT_CLI.search(marked)):
        return False
    scan.claim("stack", "hf", m.start())
    return None


LATE_RULES = [(_FULL_SHORT, _full_short), (_AXOLOTL, _axolotl_full), (_HF_SCRIPT, _hf_full), (_ALL_LAYERS, _all_layers),
              (_START, _trl_full), (_OPENRLHF, _openrlhf_full), (_LLMFOUNDRY_MODEL, _llmfoundry_full), (_UNSLOTH_LOADER, _unsloth_loader),
              (_START, _trainer_config_stack)]
