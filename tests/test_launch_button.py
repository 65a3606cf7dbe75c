"""Issue #16 item 6's button: "Launch config" on an answer posts, in its thread, the launch config
for the answer's recommended plan, with buttons for the other formats; each posted config is
read back by the tool's own parser (TRL's `trl sft` parser and SFTConfig / PEFT LoraConfig for
trl, YAML for axolotl, torchtune and SkyPilot, the shell script's `ray job submit` for Ray), as
tests/test_launch.py reads the CLI's. Through the real bot against the fake Slack, in English and
Spanish; a config longer than a section is uploaded as a file (in-process, with the real app)."""

from __future__ import annotations

import html
import json
import shlex

import pytest
import yaml

from tests.conftest import have
from tests.fakeslack import BotProcess, assert_valid_blocks, message_text

pytestmark = pytest.mark.skipif(not (have("trl") and have("peft")), reason="needs the launch extra (trl, peft)")


@pytest.fixture(scope="module")
def bot(slack, tmp_path_factory):
    process = BotProcess(slack, tmp_path_factory.mktemp("launchbot")).start()
    yield process
    process.stop()


@pytest.fixture
def clean_env():
    """TrainingArguments(fsdp=...) exports ACCELERATE_USE_FSDP and FSDP_* for accelerate: undo it."""
    import os

    before = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(before)


def _in(channel, thread=None):
    return lambda c: c.args.get("channel") == channel and (thread is None or c.args.get("thread_ts") == thread)


def _ask(bot, slack, channel, question):
    assert bot.command(question, channel=channel, response_url=slack.response_url(channel)).status == 200
    [answer] = slack.wait_for("chat.postMessage", _in(channel))
    root = answer.result["ts"]
    bot.wait_remembered(channel, root)
    return root, assert_valid_blocks(answer.args["blocks"])


def _buttons(blocks, action_id):
    return [e for b in blocks if b["type"] == "actions" for e in b["elements"] if e["action_id"] == action_id]


def _posted_config(slack, channel, root, count):
    """The count-th message in the thread: (its blocks, the config text of its code block)."""
    call = slack.wait_for("chat.postMessage", _in(channel, root), count=count, timeout=60)[count - 1]
    blocks = assert_valid_blocks(call.args["blocks"])
    [code] = [b["text"]["text"] for b in blocks if b["type"] == "section" and b["text"]["text"].startswith("```")]
    return call, blocks, html.unescape(code.removeprefix("```\n").removesuffix("\n```")) + "\n"


def _trl_parse(tmp_path, monkeypatch, text):
    """What `trl sft --config train.yaml` does before training (trl/cli/commands/training.py):
    TRL's parser over its dataclasses, then accelerate launch's parser over the rest."""
    import transformers.training_args as ta
    from accelerate.commands.launch import launch_command_parser
    from trl.cli.accelerate_config import resolve_accelerate_config_argument
    from trl.scripts.sft import make_parser

    monkeypatch.setattr(ta, "is_torch_bf16_gpu_available", lambda: True)  # this CPU has no bf16 GPU
    path = tmp_path / "train.yaml"
    path.write_text(text)
    script, train, model, data, config_rest, cli_rest = make_parser().parse_args_and_config(
        ["--config", str(path)], return_remaining_strings=True, separate_remaining_strings=True)
    launch = launch_command_parser().parse_args(resolve_accelerate_config_argument(config_rest + cli_rest) + ["sft.py"])
    return train, model, launch


CASES = [("CLAUNCH", "lora llama-3.1-8b seq 2048", "Launch config", "Launch config (TRL) for Llama 3.1 8B, LoRA",
          "Save it as `train.yaml` and run:"),
         ("CLAUNCHES", "lora de llama-3.1-8b con secuencia de 2048", "Config. de lanzamiento",
          "Configuración de lanzamiento (TRL) para Llama 3.1 8B, LoRA", "Guárdala como `train.yaml` y ejecuta:")]


@pytest.mark.slow
@pytest.mark.parametrize("channel, question, button, title, run", CASES)
def test_launch_config_click_posts_a_trl_config_sft_config_reads(bot, slack, tmp_path, monkeypatch, clean_env,
                                                                 channel, question, button, title, run):
    from peft import LoraConfig
    from trl import SFTConfig, get_peft_config

    root, blocks = _ask(bot, slack, channel, question)
    [launch] = _buttons(blocks, "launch_config")
    assert launch["text"]["text"] == button
    plan = json.loads(launch["value"])
    bot.action("launch_config", launch["value"], channel=channel, message_ts=root)
    call, posted, text = _posted_config(slack, channel, root, 1)
    words = message_text(posted)
    assert title in words and run in words and "trl sft --config train.yaml" in words
    assert f"{plan['num_gpus']} × " in words
    train, model, accelerate = _trl_parse(tmp_path, monkeypatch, text)
    lora = get_peft_config(model)
    assert isinstance(train, SFTConfig) and isinstance(lora, LoraConfig)
    assert train.max_length == 2048 and lora.r == 16 and model.model_name_or_path == "meta-llama/Llama-3.1-8B"
    assert (accelerate.num_processes or 1) == plan["num_gpus"]
    formats = {b["text"]["text"]: b["value"] for b in _buttons(posted, "launch_config_format")}
    assert sorted(formats) == ["Ray job", "SkyPilot", "axolotl", "torchtune"]


@pytest.mark.slow
def test_a_qlora_70b_answer_posts_a_4bit_trl_config_trl_reads(bot, slack, tmp_path, monkeypatch, clean_env):
    from peft import LoraConfig
    from trl import SFTConfig, get_peft_config, get_quantization_config

    channel = "CLAUNCH70"
    root, blocks = _ask(bot, slack, channel, "qlora llama-3-70b seq 8192")
    [launch] = _buttons(blocks, "launch_config")
    bot.action("launch_config", launch["value"], channel=channel, message_ts=root)
    _, posted, text = _posted_config(slack, channel, root, 1)
    assert "Launch config (TRL) for Llama 3 70B, QLoRA" in message_text(posted)
    train, model, _ = _trl_parse(tmp_path, monkeypatch, text)
    quant = get_quantization_config(model)
    assert isinstance(train, SFTConfig) and isinstance(get_peft_config(model), LoraConfig)
    assert train.max_length == 8192 and quant.load_in_4bit and quant.bnb_4bit_quant_type == "nf4"


@pytest.mark.slow
def test_each_format_button_posts_that_format_for_the_same_plan(bot, slack):
    channel = "CLAUNCHFMT"
    root, blocks = _ask(bot, slack, channel, "lora llama-3.1-8b seq 2048")
    [launch] = _buttons(blocks, "launch_config")
    plan = json.loads(launch["value"])
    bot.action("launch_config", launch["value"], channel=channel, message_ts=root)
    first, posted, _ = _posted_config(slack, channel, root, 1)
    formats = {json.loads(b["value"])["fmt"]: b["value"] for b in _buttons(posted, "launch_config_format")}
    seen = 1
    for fmt in ("axolotl", "torchtune", "skypilot", "ray"):
        bot.action("launch_config_format", formats[fmt], channel=channel, message_ts=first.result["ts"],
                   thread_ts=root)
        seen += 1
        _, posted_fmt, text = _posted_config(slack, channel, root, seen)
        if fmt == "ray":  # a shell script around `ray job submit`: its arguments, read as the shell reads them
            assert text.startswith("#!/usr/bin/env bash")
            args = shlex.split(text[text.index("ray job submit"):].replace("\\\n", " "))
            runtime_env = json.loads(args[args.index("--runtime-env-json") + 1])
            assert args[args.index("--entrypoint-num-gpus") + 1] == str(plan["num_gpus"])
            trainer = yaml.safe_load(runtime_env["env_vars"]["ADVISOR_TRAIN_CONFIG"])
            assert trainer["max_length"] == 2048  # the TRL config the job trains with
            if have("ray"):
                from ray.runtime_env import RuntimeEnv

                RuntimeEnv(**runtime_env)  # Ray's own class accepts it
            continue
        body = yaml.safe_load(text)
        assert isinstance(body, dict) and body
        if fmt == "axolotl":
            assert body["base_model"] == "meta-llama/Llama-3.1-8B" and body["sequence_len"] == 2048
            assert body["adapter"] == "lora" and body["lora_r"] == 16
        elif fmt == "torchtune":
            assert body["model"]["lora_rank"] == 16 and body["tokenizer"]["max_seq_len"] == 2048
        else:  # skypilot: the plan's GPUs as its accelerators
            gpu = {"rtx-4090": "RTX4090", "l40s": "L40S", "a100-80gb": "A100-80GB", "h100-sxm": "H100"}[plan["gpu"]]
            assert body["resources"]["accelerators"] == f"{gpu}:{plan['num_gpus']}"
        assert "launch_config_format" in json.dumps(posted_fmt) and fmt not in {
            json.loads(b["value"])["fmt"] for b in _buttons(posted_fmt, "launch_config_format")}


def test_a_config_longer_than_a_section_goes_in_a_file():
    from advisor.launch import LaunchConfig
    from bot.render.launch import fits_in_message

    short = LaunchConfig(tool="axolotl", body={"a": "x"}, syntax="yaml", filename="axolotl.yaml", command="axolotl train")
    long = LaunchConfig(tool="axolotl", body={f"k{i}": "x" * 40 for i in range(80)}, syntax="yaml",
                        filename="axolotl.yaml", command="axolotl train")
    assert fits_in_message(short) and not fits_in_message(long)


@pytest.mark.slow
def test_a_long_config_is_uploaded_as_a_snippet_file(slack, tmp_path, monkeypatch):
    """The real app in-process, its answer stored, the config forced past the section limit."""
    from advisor.spec import SpecRequest
    from bot.app import build_app
    from bot.listeners.actions import launch
    from bot.settings import Settings
    from bot.store import Job
    from tests.conftest import ROOT
    from tests.fakeslack import BOT_TOKEN, SIGNING_SECRET

    monkeypatch.setattr(launch, "fits_in_message", lambda config: False)
    settings = Settings.from_env({"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET,
                                  "SLACK_API_URL": slack.api_url, "ADVISOR_STATE_DB": str(tmp_path / "state.db"),
                                  "ADVISOR_CATALOG": str(ROOT / "catalog.db")})
    app, services = build_app(settings)
    try:
        channel, root = "CLAUNCHFILE", "1700000000.000100"
        services.store.save_answer(channel, root, root, "estimate", "en",
                                   SpecRequest(method="lora", model="llama-3.1-8b", seq_len=2048), {})
        body = {"type": "block_actions", "user": {"id": "UBOB"}, "channel": {"id": channel},
                "container": {"channel_id": channel, "message_ts": root}, "message": {"ts": root},
                "actions": [{"action_id": "launch_config", "value": json.dumps({"gpu": "rtx-4090", "num_gpus": 1})}]}
        job = Job(id=1, key="click:file-test", kind="click", queue="default", lane="", payload={"body": body},
                  attempts=1, created_at=0.0, lease_owner=None)
        launch.run_launch(services, job)
        [done] = slack.wait_for("files.completeUploadExternal", lambda c: c.args.get("channel_id") == channel)
        [file_id] = [f["id"] for f in json.loads(done.args["files"]) if f] if isinstance(done.args["files"], str) \
            else [f["id"] for f in done.args["files"]]
        text = slack.uploads[file_id].decode()
        assert done.args["thread_ts"] == root and "Launch config (TRL)" in done.args["initial_comment"]
        assert yaml.safe_load(text)["max_length"] == 2048
        [note] = slack.wait_for("chat.postMessage", _in(channel, root))
        words = message_text(assert_valid_blocks(note.args["blocks"]))
        assert "it is the file `train.yaml` above" in words and "```" not in words
    finally:
        services.close()
