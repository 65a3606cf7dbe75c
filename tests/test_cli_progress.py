"""Issue #16 item 7 on the CLI: `advisor trace` and `advisor pilot run` show their progress on a
terminal (advisor/cli/progress.py, rich) and nothing of it with --json or when stderr is not a
terminal; the pilot's human output is plain text (no Slack markup), names no server path, and
shows no GPU prediction or MFU beside a CPU pilot's figures."""

from __future__ import annotations

import io
import json
import re

import pytest

from tests.conftest import have, run_advisor

pytestmark = [pytest.mark.torch, pytest.mark.skipif(not have("torch"), reason="needs the pilot extra (torch)")]

TINY_TRACE = ["--model", "tiny-test", "--method", "lora", "--seq-len", "64", "--steps", "2"]
TINY_PILOT = ["--model", "tiny-test", "--method", "lora", "--precision", "fp32", "--seq-len", "32", "--steps", "3",
              "--gpu", "a100"]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
SLACK_MARKUP = re.compile(r"(^|\s)\*[^*\n]+\*|:[a-z_]+:|`")
SERVER_PATH = re.compile(r"(?<![\w.])/(?:[\w.@+~-]+/)+[\w.@+~-]+")


def _on_terminal(args):
    """The command in-process with a rich Console forced to act as a terminal; (result, drawn text)."""
    from click.testing import CliRunner
    from rich.console import Console

    from advisor.cli import main
    from advisor.cli.progress import use_console

    drawn = io.StringIO()
    with use_console(Console(file=drawn, force_terminal=True, width=160)):
        result = CliRunner().invoke(main, args)
    return result, ANSI.sub("", drawn.getvalue())


@pytest.mark.parametrize("runtime", ["reference", "hf"])
def test_trace_on_a_terminal_shows_each_phase_and_step(runtime):
    if runtime == "hf" and not (have("transformers") and have("peft")):
        pytest.skip("the hf extra is not installed")
    result, drawn = _on_terminal(["trace", *TINY_TRACE, "--stack", "hf", "--runtime", runtime])
    assert result.exit_code == 0, result.output
    for phase in ("importing torch", f"building the model ({runtime} runtime)", "tracing step 1 of 2: forward",
                  "tracing step 1 of 2: backward", "tracing step 2 of 2: optimizer step",
                  "replaying the caching allocator"):
        assert phase in drawn, (phase, drawn[-2000:])
    assert "Peak allocated" in result.output and "tracing step" not in result.output  # the result alone on stdout


def test_trace_json_prints_exactly_the_json_and_no_progress():
    out = run_advisor("trace", *TINY_TRACE, "--runtime", "reference", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["runtime"] == "reference" and out.stdout.lstrip().startswith("{")
    assert "tracing" not in out.stderr and "building" not in out.stderr and "\r" not in out.stderr


def test_trace_without_a_terminal_draws_nothing():
    out = run_advisor("trace", *TINY_TRACE, "--runtime", "reference")
    assert out.returncode == 0 and "Peak allocated" in out.stdout
    assert out.stderr == ""


@pytest.fixture(scope="module")
def pilot_human(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("human")
    return run_advisor("pilot", "run", *TINY_PILOT, "--state-db", str(tmp / "s.db"), "--out-dir", str(tmp / "runs"))


def test_a_cpu_pilot_reads_as_plain_text_without_server_paths_or_gpu_figures(pilot_human):
    out = pilot_human.stdout
    assert pilot_human.returncode == 0, pilot_human.stderr
    assert not SLACK_MARKUP.search(out), SLACK_MARKUP.search(out)
    assert not SERVER_PATH.search(out), SERVER_PATH.search(out)
    assert "CPU smoke run: checks the pipeline, not GPU speed." in out
    assert "MFU" not in out and "tokens/s on the CPU" in out
    assert "manifest manifest.json in the pilot's directory" in out
    [tps] = [line for line in out.splitlines() if line.startswith("tokens/s ")]
    assert tps.split()[1] == "-"  # no A100 prediction beside a CPU's measurement
    [size] = [line for line in out.splitlines() if line.startswith("checkpoint size")]
    assert "KiB" in size.split("size", 1)[1].split()[1]  # the checkpoint's size is predicted on any device
    assert pilot_human.stderr == ""  # not a terminal: no progress


def test_pilot_run_on_a_terminal_shows_the_runner_and_its_steps(tmp_path):
    result, drawn = _on_terminal(["pilot", "run", *TINY_PILOT, "--state-db", str(tmp_path / "s.db"),
                                  "--out-dir", str(tmp_path / "runs")])
    assert result.exit_code == 0, result.output
    pilot_id = re.search(r"Pilot (p-[0-9a-f]+) for", result.output).group(1)
    assert f"pilot {pilot_id}: starting the runner (local)" in drawn
    assert f"pilot {pilot_id}: step 5 of 5" in drawn  # 2 warm-up + 3 measured: the runner's last progress
    assert "starting the runner" not in result.output  # progress stays off stdout


def test_pilot_run_json_prints_exactly_the_json_and_no_progress(tmp_path):
    out = run_advisor("pilot", "run", *TINY_PILOT, "--json", "--state-db", str(tmp_path / "s.db"),
                      "--out-dir", str(tmp_path / "runs"))
    assert out.returncode == 0 and json.loads(out.stdout)["state"] == "finished"
    assert out.stderr == ""


def test_pilot_run_of_a_two_gpu_fsdp_plan_says_what_one_card_measures(tmp_path):
    out = run_advisor("pilot", "run", *TINY_PILOT[:-2], "--gpu", "h100", "--num-gpus", "2", "--sharding", "fsdp",
                      "--state-db", str(tmp_path / "s.db"), "--out-dir", str(tmp_path / "runs"))
    assert out.returncode == 0, out.stderr
    assert out.stderr.startswith("The plan is 2 × NVIDIA H100 SXM 80 GB with FSDP") and "unsharded step" in out.stderr
    assert not SLACK_MARKUP.search(out.stderr) and "Pilot p-" in out.stdout


def test_without_rich_a_plain_line_is_rewritten_in_place(monkeypatch):
    from advisor.cli import progress

    monkeypatch.setattr(progress, "_rich", lambda: None)
    stream = io.StringIO()
    with progress.Progress(True, stream=stream) as p:
        p.phase("building the model")
        p.steps(1, 3)
        p.phase("tracing step 2 of 3: forward")
    drawn = stream.getvalue()
    assert "\rbuilding the model" not in drawn and "building the model" in drawn and "[1/3]" in drawn
    assert "tracing step 2 of 3: forward" in drawn and drawn.endswith("\r") and "\n" not in drawn
