"""Where a trainer config runs: a SkyPilot task (``sky launch task.yaml``) or a Ray job (Ray Jobs
API). Each carries the trainer config it runs, so one file is all a team needs.

Sources:
- SkyPilot 0.14.1 task YAML (``sky/utils/schemas.py`` get_task_schema / get_resources_schema;
  docs "YAML configuration" and "Distributed multi-node jobs": SKYPILOT_NODE_RANK,
  SKYPILOT_NODE_IPS, SKYPILOT_NUM_NODES, SKYPILOT_NUM_GPUS_PER_NODE are set on every node;
  ``secrets`` with a null value are read from the launching environment).
- Ray 2.60 Jobs API (``ray.job_submission.JobSubmissionClient.submit_job``,
  ``ray/dashboard/modules/job/common.py`` JobSubmitRequest): the entrypoint is a shell command run
  by the job's supervisor actor, which reserves ``entrypoint_num_gpus`` and
  ``entrypoint_resources`` on one node; ``runtime_env`` (``ray.runtime_env.RuntimeEnv``)
  installs ``pip`` packages and sets ``env_vars`` for it.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from advisor.errors import LaunchError
from advisor.launch import names
from advisor.launch.config import LaunchConfig, LaunchOptions
from advisor.launch.plan import Plan
from advisor.launch.trainers import AXOLOTL_VERSION, MASTER_PORT, TORCHTUNE_VERSION, TRAINERS, header

CONFIG_ENV = "ADVISOR_TRAIN_CONFIG"  # the Ray job's trainer config travels in this variable


def packages(inner: LaunchConfig, plan: Plan) -> list[str]:
    """What the node installs to run ``inner``: the versions its config was checked against
    (TRL 1.16 / PEFT 0.21 / transformers 5.24 in tests; axolotl and torchtune pinned to the
    release whose schema the tests derive)."""
    s = plan.spec
    bnb = s.method == "qlora" or s.optimizer in ("adamw-8bit", "paged-adamw-8bit")
    if inner.tool == "trl":
        out = ["trl>=1.16,<2", "peft>=0.21,<1", "transformers>=5.24,<6", "accelerate>=1.15", "datasets"]
    elif inner.tool == "axolotl":
        out = [f"axolotl=={AXOLOTL_VERSION}"]
    else:
        out = [f"torchtune=={TORCHTUNE_VERSION}", "torchao==0.15.0"]
    if bnb and inner.tool != "axolotl":  # axolotl depends on bitsandbytes itself
        out.append("bitsandbytes>=0.49")
    if plan.spec.sharding in ("zero2", "zero3") and plan.num_gpus > 1:
        out.append("deepspeed")
    return out


def _run_command(inner: LaunchConfig, plan: Plan, *, multinode_env: bool) -> str:
    """The trainer's command; on several SkyPilot nodes, with the rank and the head's address
    from SkyPilot's environment."""
    if plan.nodes == 1 or not multinode_env:
        return inner.command
    head = '"$(echo "$SKYPILOT_NODE_IPS" | head -n1)"'
    if inner.tool == "trl":
        return f"{inner.command} --machine_rank $SKYPILOT_NODE_RANK --main_process_ip {head} --main_process_port {MASTER_PORT}"
    if inner.tool == "axolotl":
        return (f"axolotl train {inner.filename} --launcher torchrun -- --nproc_per_node $SKYPILOT_NUM_GPUS_PER_NODE "
                f"--nnodes $SKYPILOT_NUM_NODES --node_rank $SKYPILOT_NODE_RANK --master_addr {head} "
                f"--master_port {MASTER_PORT}")
    return inner.command.replace(f"--nnodes {plan.nodes}",
                                 f"--nnodes $SKYPILOT_NUM_NODES --node_rank $SKYPILOT_NODE_RANK "
                                 f"--master_addr {head} --master_port {MASTER_PORT}")


def job_name(plan: Plan, opts: LaunchOptions) -> str:
    if opts.job_name:
        return opts.job_name
    model = plan.model.id if plan.model is not None else f"{plan.spec.params_b:g}b"
    return re.sub(r"[^a-z0-9-]+", "-", f"ft-{model}-{plan.spec.method}".lower()).strip("-")


def _render_inner(inner: LaunchConfig) -> str:
    from advisor.launch.serialize import render

    return render(inner)


def skypilot_task(plan: Plan, opts: LaunchOptions) -> LaunchConfig:
    inner = TRAINERS[opts.tool](plan, opts)
    accel = names.SKYPILOT_ACCELERATORS.get(plan.gpu.id)
    if accel is None:
        raise LaunchError(f"SkyPilot has no accelerator name we know for {plan.gpu.display_name}.")
    resources: dict[str, Any] = {"accelerators": f"{accel}:{plan.gpus_per_node}"}
    unexpressed = list(inner.unexpressed)
    if opts.cloud is not None:
        if opts.cloud not in names.CLOUDS:
            raise LaunchError(f"Unknown SkyPilot cloud {opts.cloud!r}; one of: {', '.join(names.CLOUDS)}.")
        if plan.region is not None:
            region = names.CLOUD_REGIONS.get(opts.cloud, {}).get(plan.region.id, plan.region.id)
            resources["infra"] = f"{'k8s' if opts.cloud == 'kubernetes' else opts.cloud}/{region}"
        else:
            resources["infra"] = "k8s" if opts.cloud == "kubernetes" else opts.cloud
    elif plan.region is not None:
        unexpressed.append(f"region {plan.region.display_name}: SkyPilot names regions per cloud; pass --cloud "
                           f"({', '.join(names.CLOUDS)}) to pin it")
    if plan.region is None:
        unexpressed.append(f"region: none named; {plan.gpu.display_name} is offered in "
                           f"{', '.join(plan.gpu.regions) or 'no region'}")
    if opts.cloud in names.CONSUMER_GPU_CLOUDS_WITHOUT and plan.gpu.id in names.CONSUMER_GPUS:
        unexpressed.append(f"{plan.gpu.display_name} on {opts.cloud}: {opts.cloud} rents no consumer GPUs, so "
                           "SkyPilot will find no instance there; use the provider's Kubernetes (--cloud kubernetes)")
    if plan.gpu.id == "h100-pcie":
        unexpressed.append("H100 PCIe: SkyPilot's 'H100' is the SXM part on most clouds")
    setup = "pip install " + " ".join(shlex.quote(p) for p in packages(inner, plan))
    run = [f"cat > {inner.filename} <<'ADVISOR_EOF'", _render_inner(inner).rstrip("\n"), "ADVISOR_EOF",
           _run_command(inner, plan, multinode_env=True)]
    body: dict[str, Any] = {"name": job_name(plan, opts), "resources": resources}
    if plan.nodes > 1:
        body["num_nodes"] = plan.nodes
    if plan.hub_id:
        body["secrets"] = {"HF_TOKEN": None}  # gated models (Llama); read from the launching shell
    body.update(setup=setup + "\n", run="\n".join(run) + "\n")
    return LaunchConfig("skypilot", body, "yaml", "task.yaml", "sky launch task.yaml",
                        header(plan, opts, "SkyPilot") + [f"trainer: {inner.tool} ({inner.command})"],
                        unexpressed, inner=inner)


def ray_job(plan: Plan, opts: LaunchOptions) -> LaunchConfig:
    """The keyword arguments of ``JobSubmissionClient.submit_job`` (and of ``ray job submit``)."""
    if plan.nodes > 1:
        raise LaunchError(
            f"A Ray job's entrypoint runs on one node, and this plan needs {plan.num_gpus} x {plan.gpu.display_name} "
            f"over {plan.nodes} nodes; use --format skypilot (num_nodes {plan.nodes}), or a Ray Train job."
        )
    inner = TRAINERS[opts.tool](plan, opts)
    label = names.ray_accelerator(plan.gpu)
    unexpressed = list(inner.unexpressed)
    resources = None
    if label is not None:
        resources = {names.RAY_ACCELERATOR_PREFIX + label: names.RAY_ACCELERATOR_FRACTION}
    else:
        unexpressed.append(f"GPU type: Ray has no accelerator label we know for {plan.gpu.display_name}; the job "
                           "takes any GPU")
    if plan.region is not None:
        unexpressed.append(f"region {plan.region.display_name}: a Ray job runs where the cluster is; submit it to "
                           "the cluster in that region")
    env_vars = {CONFIG_ENV: _render_inner(inner)}
    entrypoint = f'printf "%s" "${CONFIG_ENV}" > {inner.filename} && {_run_command(inner, plan, multinode_env=False)}'
    body: dict[str, Any] = {
        "entrypoint": entrypoint,
        "submission_id": None,
        "entrypoint_num_gpus": plan.num_gpus,
        "entrypoint_resources": resources,
        "runtime_env": {"pip": packages(inner, plan), "env_vars": env_vars},
        "metadata": {"advisor.plan": plan.summary(), "advisor.trainer": inner.tool,
                     **({"advisor.unexpressed": "; ".join(unexpressed)} if unexpressed else {})},
    }
    if plan.hub_id:
        unexpressed.append("HF_TOKEN: gated models need it in runtime_env env_vars (not written here)")
    body = {k: v for k, v in body.items() if v is not None}
    return LaunchConfig("ray", body, "shell", "job.sh", "bash job.sh",
                        header(plan, opts, "Ray job") + [f"trainer: {inner.tool} ({inner.command})"],
                        unexpressed, inner=inner)


CLUSTERS = {"skypilot": skypilot_task, "ray": ray_job}
