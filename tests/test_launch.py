"""Launch configs, each read back by its tool's own parser where the tool installs here.

TRL, PEFT and transformers: the real classes (``trl sft``'s own parser, ``get_peft_config``,
``get_quantization_config``, ``accelerate launch``'s parser). Ray: the real JobSubmitRequest and
RuntimeEnv, and (marked ``ray``) a real local cluster on loopback. axolotl, torchtune and
SkyPilot cannot be installed beside this project's pinned stack (see
scripts/derive_launch_schemas.py): their configs are checked against schemas derived from their
own code (tests/data/launch_schemas/), by the rule each tool applies.
"""

from __future__ import annotations

import json
import os
import re
import time

import pytest
import yaml

from advisor.errors import LaunchError
from advisor.launch import FORMATS, LaunchOptions, choose_plan, launch_config, render
from advisor.spec import SpecRequest
from tests.conftest import DATA, have
from tests.rayhead import RayHead

SCHEMAS = DATA / "launch_schemas"
LORA_8B = SpecRequest(method="lora", model="llama-3.1-8b")
# the 2-GPU FSDP QLoRA plan the configs below are checked on, named: which GPU the ranking picks
# moves with the throughput model (tests/test_throughput_fit.py), the configs' shape should not
QLORA_70B_ANY = SpecRequest(method="qlora", model="llama-3.1-70b", seq_len=8192)
# two H100s asked (issue #16: on one H100 the ranking now fits it with Liger's fused cross-entropy and
# 8-bit AdamW; the FSDP configs below are for the two-GPU plan a team names)
QLORA_70B = QLORA_70B_ANY.model_copy(update={"gpu": "h100", "num_gpus": 2, "sharding": "fsdp"})
OPTS = LaunchOptions(dataset="trl-lib/Capybara")


@pytest.fixture(scope="module")
def plans(catalog):
    return {"lora-8b": choose_plan(LORA_8B, catalog), "qlora-70b": choose_plan(QLORA_70B, catalog)}


@pytest.fixture
def clean_env():
    """TrainingArguments(fsdp=...) exports ACCELERATE_USE_FSDP and FSDP_* for accelerate: undo it."""
    before = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(before)


def _yaml(config) -> dict:
    return yaml.safe_load(render(config))


# --- the plans -------------------------------------------------------------------------------


def test_the_plans_are_the_recommendations(catalog, plans):
    from advisor.recommend import recommend
    from advisor.resolve import resolve_request

    for request in (LORA_8B, QLORA_70B_ANY):
        rec = recommend(resolve_request(request, catalog), catalog)
        best = rec.option(rec.recommended)
        plan = choose_plan(request, catalog)
        assert (plan.gpu.id, plan.num_gpus, plan.spec.sharding) == (best.gpu, best.num_gpus, best.sharding)
        # the levers the row's plan applies are in the spec the config is written from (issue #16)
        kinds = {c.kind for c in best.plan.changes}
        assert plan.spec.liger_kernel == ("fused_ce" in kinds)
        assert (plan.spec.optimizer == "adamw-8bit") == ("optimizer_8bit" in kinds)
        assert (plan.spec.micro_batch, plan.spec.gradient_accumulation_steps) == (best.plan.micro_batch,
                                                                                 best.plan.accumulation)
        assert plan.gpus_per_node == best.plan.gpus_per_node and plan.nodes == best.plan.nodes
    named = plans["qlora-70b"]
    assert (named.gpu.id, named.num_gpus, named.spec.sharding) == ("h100-sxm", 2, "fsdp")


def test_a_named_count_that_does_not_fit_says_which_does(catalog):
    with pytest.raises(LaunchError, match=r"--num-gpus 4"):  # not even with levers on one L40S
        choose_plan(QLORA_70B_ANY.model_copy(update={"gpu": "l40s", "num_gpus": 1}), catalog)


def test_a_region_that_does_not_offer_the_gpu_is_refused(catalog):
    with pytest.raises(LaunchError, match="not offered"):
        choose_plan(LORA_8B.model_copy(update={"gpu": "h200", "region": "paris"}), catalog)


# --- TRL -------------------------------------------------------------------------------------


def _trl_parse(tmp_path, monkeypatch, config):
    """What `trl sft --config train.yaml` does before training (trl/cli/commands/training.py):
    TRL's parser over its four dataclasses, then accelerate launch's parser over the rest."""
    import transformers.training_args as ta
    from accelerate.commands.launch import launch_command_parser
    from trl.cli.accelerate_config import resolve_accelerate_config_argument
    from trl.scripts.sft import make_parser

    # the one stand-in: this CPU machine has no bf16 GPU, which TrainingArguments checks for
    monkeypatch.setattr(ta, "is_torch_bf16_gpu_available", lambda: True)
    path = tmp_path / config.filename
    path.write_text(render(config))
    script, train, model, data, config_rest, cli_rest = make_parser().parse_args_and_config(
        ["--config", str(path)], return_remaining_strings=True, separate_remaining_strings=True)
    launch = launch_command_parser().parse_args(resolve_accelerate_config_argument(config_rest + cli_rest) + ["sft.py"])
    return script, train, model, launch


@pytest.mark.parametrize("key", ["lora-8b", "qlora-70b"])
def test_trl_config_is_read_by_trl_sft(plans, key, tmp_path, monkeypatch, clean_env):
    from peft import LoraConfig
    from trl import SFTConfig, get_peft_config

    plan = plans[key]
    script, train, model, launch = _trl_parse(tmp_path, monkeypatch, launch_config(plan, "trl", OPTS))
    lora = get_peft_config(model)
    assert isinstance(train, SFTConfig) and isinstance(lora, LoraConfig)
    assert (train.max_length, train.per_device_train_batch_size, train.num_train_epochs) == (plan.spec.seq_len, 1, 3)
    assert (lora.r, lora.lora_alpha, lora.lora_dropout, lora.target_modules) == (16, 32, 0.05, "all-linear")
    assert model.model_name_or_path == plan.hub_id and script.dataset_name == "trl-lib/Capybara"
    # the hf stack's default optimizer is transformers' own default, adamw_torch_fused (advisor.spec DEFAULTS)
    assert (launch.num_processes or 1) == plan.num_gpus and train.optim == "adamw_torch_fused" and train.bf16


def test_trl_qlora_70b_quantizes_as_planned_and_shards_with_fsdp(plans, tmp_path, monkeypatch, clean_env):
    import torch
    from transformers import BitsAndBytesConfig
    from trl import get_quantization_config

    _, train, model, launch = _trl_parse(tmp_path, monkeypatch, launch_config(plans["qlora-70b"], "trl", OPTS))
    bnb = get_quantization_config(model)
    assert isinstance(bnb, BitsAndBytesConfig) and bnb.load_in_4bit and bnb.bnb_4bit_quant_type == "nf4"
    assert bnb.bnb_4bit_use_double_quant and bnb.bnb_4bit_quant_storage == torch.bfloat16
    assert bnb.bnb_4bit_compute_dtype == torch.bfloat16
    assert train.fsdp_config["version"] == 2 and train.fsdp_config["activation_checkpointing"] is True
    assert not train.activation_checkpointing and launch.num_processes == 2


def test_trl_parse_fails_on_a_key_neither_trl_nor_accelerate_knows(plans, tmp_path, monkeypatch, clean_env):
    config = launch_config(plans["lora-8b"], "trl", OPTS)
    bad = type(config)(**{**config.__dict__, "body": {**config.body, "lora_rnak": 8}})
    with pytest.raises(SystemExit):  # accelerate launch's argparse: unrecognized arguments
        _trl_parse(tmp_path, monkeypatch, bad)


@pytest.mark.parametrize("update, optim", [({"optimizer": "paged-adamw-8bit"}, "paged_adamw_8bit"),
                                           ({"optimizer_impl": "fused"}, "adamw_torch_fused"),
                                           ({"optimizer": "adamw-8bit"}, "adamw_bnb_8bit")])
def test_trl_optimizer_names_are_transformers_own(catalog, update, optim, tmp_path, monkeypatch, clean_env):
    from transformers.training_args import OptimizerNames

    plan = choose_plan(LORA_8B.model_copy(update=update), catalog)
    _, train, _, _ = _trl_parse(tmp_path, monkeypatch, launch_config(plan, "trl", OPTS))
    assert train.optim == OptimizerNames(optim)


def test_trl_attention_targets_name_the_models_projections(catalog, tmp_path, monkeypatch, clean_env):
    from trl import get_peft_config

    for model, names in (("llama-3.1-8b", {"q_proj", "k_proj", "v_proj", "o_proj"}), ("phi-3-mini", {"qkv_proj", "o_proj"})):
        plan = choose_plan(SpecRequest(method="lora", model=model, lora_targets="attention"), catalog)
        _, _, model_args, _ = _trl_parse(tmp_path, monkeypatch, launch_config(plan, "trl", OPTS))
        assert set(get_peft_config(model_args).target_modules) == names


# --- axolotl (schema derived from AxolotlInputConfig) -----------------------------------------


def _axolotl_errors(body: dict) -> list[str]:
    import jsonschema

    schema = json.loads((SCHEMAS / "axolotl-0.19.0.schema.json").read_text())
    return [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(body)]


@pytest.mark.parametrize("key", ["lora-8b", "qlora-70b"])
def test_axolotl_config_matches_axolotls_schema(plans, key):
    body = _yaml(launch_config(plans[key], "axolotl", OPTS))
    assert _axolotl_errors(body) == []
    assert body["adapter"] == plans[key].spec.method and body["sequence_len"] == plans[key].spec.seq_len


def test_axolotl_qlora_70b_has_4bit_and_fsdp2(plans):
    body = _yaml(launch_config(plans["qlora-70b"], "axolotl", OPTS))
    assert body["load_in_4bit"] and body["bnb_config_kwargs"] == {"bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": True}
    assert body["fsdp_version"] == 2 and body["fsdp_config"]["activation_checkpointing"] is True


def test_axolotl_schema_rejects_a_misspelt_key_and_a_wrong_type(plans):
    body = _yaml(launch_config(plans["lora-8b"], "axolotl", OPTS))
    assert _axolotl_errors({**body, "lora_rnak": 8}) and _axolotl_errors({**body, "sequence_len": "long"})


@pytest.mark.skipif(not have("axolotl"), reason="axolotl 0.19 pins transformers==5.16.1/peft==0.20.0; "
                    "install it with --no-deps to run this against the real class")
def test_axolotl_real_class_reads_the_config(plans):
    from axolotl.utils.schemas.config import AxolotlInputConfig

    for key in plans:
        cfg = AxolotlInputConfig(**_yaml(launch_config(plans[key], "axolotl", OPTS)))
        assert cfg.sequence_len == plans[key].spec.seq_len


# --- torchtune (components and recipe keys derived from torchtune 0.6.1) -----------------------


def _torchtune_errors(body: dict, recipe: str) -> list[str]:
    """`tune validate`'s rule (torchtune/config/_validate.py): every `_component_` resolves and
    its arguments bind (missing required ones are passed by the recipe); plus every top-level
    key is one the recipe reads."""
    derived = json.loads((SCHEMAS / "torchtune-0.6.1.json").read_text())
    errors = [f"recipe does not read {k!r}" for k in body if k not in derived["recipes"][recipe]]
    for key, node in body.items():
        if isinstance(node, dict) and "_component_" in node:
            sig = derived["components"].get(node["_component_"])
            if sig is None:
                errors.append(f"{key}: unknown component {node['_component_']}")
                continue
            extra = [a for a in node if a != "_component_" and a not in sig["params"]]
            if extra and not sig["var_kwargs"]:
                errors.append(f"{key}: {node['_component_']} takes no {extra}")
    return errors


@pytest.mark.parametrize("key, recipe", [("lora-8b", "lora_finetune_single_device"), ("qlora-70b", "lora_finetune_distributed")])
def test_torchtune_config_validates_like_tune_validate(plans, key, recipe):
    config = launch_config(plans[key], "torchtune", OPTS)
    body = _yaml(config)
    assert _torchtune_errors(body, recipe) == [] and f" {recipe} " in config.command
    assert body["tokenizer"]["max_seq_len"] == plans[key].spec.seq_len
    assert body["model"]["_component_"].rsplit(".", 1)[1] == {"lora-8b": "lora_llama3_1_8b", "qlora-70b": "qlora_llama3_1_70b"}[key]


def test_torchtune_check_catches_a_wrong_argument(plans):
    body = _yaml(launch_config(plans["lora-8b"], "torchtune", OPTS))
    body["model"]["lora_rnak"] = 8
    assert _torchtune_errors(body, "lora_finetune_single_device")


def test_torchtune_says_what_it_cannot_express(plans):
    text = render(launch_config(plans["lora-8b"], "torchtune", OPTS))
    assert re.search(r"^#\s+- precision bf16-mixed: torchtune has no autocast", text, re.M)


def test_torchtune_refuses_models_it_has_no_builder_for(catalog):
    with pytest.raises(LaunchError, match="--format trl or axolotl"):
        launch_config(choose_plan(SpecRequest(method="lora", model="falcon-7b"), catalog), "torchtune", OPTS)


# --- SkyPilot (sky.utils.schemas task + resources schema) -------------------------------------


def _sky_errors(body: dict) -> list[str]:
    import jsonschema

    schema = json.loads((SCHEMAS / "skypilot-0.14.1-task.schema.json").read_text())
    return [e.message for e in jsonschema.Draft7Validator(schema).iter_errors(body)]


@pytest.mark.parametrize("key", ["lora-8b", "qlora-70b"])
def test_skypilot_task_matches_skypilots_schema_and_carries_the_trainer_config(catalog, key):
    plan = choose_plan((LORA_8B if key == "lora-8b" else QLORA_70B).model_copy(update={"region": "frankfurt"}), catalog)
    config = launch_config(plan, "skypilot", LaunchOptions(dataset="trl-lib/Capybara", cloud="aws"))
    body = _yaml(config)
    assert _sky_errors(body) == []
    accel = {"lora-8b": "RTX4090:1", "qlora-70b": "H100:2"}[key]
    assert body["resources"] == {"accelerators": accel, "infra": "aws/eu-central-1"}
    carried = re.search(r"<<'ADVISOR_EOF'\n(.*)\nADVISOR_EOF\n(.*)\n", body["run"], re.S)
    assert yaml.safe_load(carried.group(1)) == config.inner.body and carried.group(2) == "trl sft --config train.yaml"


def test_skypilot_says_a_hyperscaler_rents_no_rtx_4090(plans):
    config = launch_config(plans["lora-8b"], "skypilot", LaunchOptions(dataset="d", cloud="aws"))
    assert any("rents no consumer GPUs" in u for u in config.unexpressed)


def test_skypilot_schema_rejects_an_unknown_resource_field(plans):
    body = _yaml(launch_config(plans["qlora-70b"], "skypilot", OPTS))
    body["resources"]["gpus"] = "H100:2"
    assert _sky_errors(body)


def test_a_multi_node_plan_is_a_multi_node_task(catalog):
    plan = choose_plan(SpecRequest(method="full", model="llama-3.1-70b"), catalog, max_gpus=32)
    assert plan.nodes > 1 and plan.gpus_per_node == 8
    body = _yaml(launch_config(plan, "skypilot", LaunchOptions(dataset="d", tool="axolotl")))
    assert _sky_errors(body) == [] and body["num_nodes"] == plan.nodes
    assert "--node_rank $SKYPILOT_NODE_RANK" in body["run"]
    with pytest.raises(LaunchError, match="--format skypilot"):
        launch_config(plan, "ray", OPTS)


# --- Ray Jobs API ----------------------------------------------------------------------------


@pytest.mark.skipif(not have("ray"), reason="needs the ray extra")
@pytest.mark.parametrize("key", ["lora-8b", "qlora-70b"])
def test_ray_job_is_a_valid_job_submission(plans, key):
    from ray.dashboard.modules.job.common import JobSubmitRequest
    from ray.runtime_env import RuntimeEnv

    plan = plans[key]
    config = launch_config(plan, "ray", OPTS)
    request = JobSubmitRequest(**config.body)
    RuntimeEnv(**config.body["runtime_env"])
    label = {"lora-8b": "GeForce-RTX-4090", "qlora-70b": "H100"}[key]
    assert request.entrypoint_num_gpus == plan.num_gpus and request.entrypoint_resources == {f"accelerator_type:{label}": 0.001}
    assert yaml.safe_load(request.runtime_env["env_vars"]["ADVISOR_TRAIN_CONFIG"]) == config.inner.body


# --- every format over many plans -------------------------------------------------------------

_MODELS = ("llama-3.2-1b", "llama-3.1-8b", "mistral-7b-v0.3", "qwen2.5-14b", "gemma-2-9b", "phi-3-mini", "llama-3.1-70b")


@pytest.mark.parametrize("model", _MODELS)
@pytest.mark.parametrize("method", ["full", "lora", "qlora"])
def test_every_format_writes_a_valid_config_or_says_why_not(catalog, model, method):
    plan = choose_plan(SpecRequest(method=method, model=model, seq_len=4096), catalog, max_gpus=64)
    for fmt in FORMATS:
        try:
            config = launch_config(plan, fmt, OPTS)
        except LaunchError as exc:
            assert "use --" in str(exc) or "--format" in str(exc), (fmt, str(exc))
            continue
        text = render(config)
        if fmt == "axolotl":
            assert _axolotl_errors(yaml.safe_load(text)) == [], (model, method)
        elif fmt == "torchtune":
            from advisor.launch.trainers import torchtune_recipe

            assert _torchtune_errors(yaml.safe_load(text), torchtune_recipe(plan)) == [], (model, method)
        elif fmt == "skypilot":
            assert _sky_errors(yaml.safe_load(text)) == [], (model, method)
        elif fmt == "trl":
            assert yaml.safe_load(text)["max_length"] == 4096


# --- the command -----------------------------------------------------------------------------


def test_cli_writes_the_file_and_says_how_to_run_it(cli, tmp_path):
    out = tmp_path / "train.yaml"
    r = cli("launch-config", "--model", "llama-3.1-8b", "--method", "lora", "--format", "trl", "--out", str(out))
    assert r.exit_code == 0 and "trl sft --config train.yaml" in r.output
    assert yaml.safe_load(out.read_text())["model_name_or_path"] == "meta-llama/Llama-3.1-8B"


def test_cli_json_names_the_plan(cli):
    r = cli("launch-config", "--model", "llama-3.1-70b", "--method", "qlora", "--seq-len", "8192", "--gpu", "h100",
            "--num-gpus", "2", "--sharding", "fsdp", "--format", "skypilot", "--json")
    data = json.loads(r.stdout)
    assert data["plan"]["gpu"] == "h100-sxm" and data["plan"]["num_gpus"] == 2
    assert data["config"]["resources"]["accelerators"] == "H100:2" and data["inner"]["tool"] == "trl"


def test_cli_errors_are_actionable(cli):
    r = cli("launch-config", "--model", "falcon-7b", "--method", "lora", "--format", "torchtune")
    assert r.exit_code == 2 and "--format trl or axolotl" in r.output


@pytest.fixture(scope="module")
def ray_dashboard():
    """(Jobs API URL, GCS address) of a real Ray head node of our own on loopback, no GPUs
    (tests/rayhead.py: every port its own, so a second Ray on the machine cannot take the agent's)."""
    with RayHead(num_cpus=1, num_gpus=0) as head:
        yield head.address, head.gcs_address


def _stored_job(gcs_address: str, job_id: str):
    """The JobInfo the cluster keeps in the GCS (with the entrypoint's resource requests, which
    the REST view leaves out): ray/dashboard/modules/job/common.py JobInfoStorageClient."""
    import asyncio

    from ray._raylet import GcsClient
    from ray.dashboard.modules.job.common import JobInfoStorageClient

    return asyncio.run(JobInfoStorageClient(GcsClient(address=gcs_address)).get_info(job_id))


@pytest.mark.ray
@pytest.mark.slow
@pytest.mark.skipif(not have("ray"), reason="needs the ray extra")
def test_ray_job_script_submits_to_a_real_cluster(plans, ray_dashboard, tmp_path):
    """`bash job.sh` runs `ray job submit` against the cluster: the job it creates asks for the
    plan's GPUs and accelerator type (and stays pending on a cluster that has none), and
    carries the trainer config intact through the shell quoting."""
    import subprocess
    import time

    from ray.job_submission import JobStatus, JobSubmissionClient

    url, gcs = ray_dashboard
    config = launch_config(plans["qlora-70b"], "ray", OPTS)
    (tmp_path / "job.sh").write_text(render(config))
    subprocess.run(["bash", "job.sh", "--no-wait", "--submission-id", "advisor-launch-1"], cwd=tmp_path, check=True,
                   env={**os.environ, "RAY_ADDRESS": url}, capture_output=True, timeout=300)
    client = JobSubmissionClient(url)
    info = _stored_job(gcs, "advisor-launch-1")
    assert (info.entrypoint_num_gpus, info.entrypoint_resources) == (2, {"accelerator_type:H100": 0.001})
    assert yaml.safe_load(info.runtime_env["env_vars"]["ADVISOR_TRAIN_CONFIG"]) == config.inner.body
    assert info.entrypoint == "sh -c " + __import__("shlex").quote(config.body["entrypoint"])
    sdk_id = client.submit_job(**config.body, submission_id="advisor-launch-2")  # the SDK takes the same body
    time.sleep(1)
    assert client.get_job_status(sdk_id) == JobStatus.PENDING  # no node has two H100s: it waits, never runs
    for job in ("advisor-launch-1", sdk_id):
        client.stop_job(job)
