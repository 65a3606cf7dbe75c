"""The runner for real on CPU: tiny architectures, the same code path a GPU node runs."""

from __future__ import annotations

import json

import pytest

from tests.conftest import have
from tests.pilot_helpers import run_runner, tiny_pilot

pytestmark = [pytest.mark.torch, pytest.mark.skipif(not have("torch"), reason="needs the pilot extra (torch)")]


@pytest.fixture(scope="module")
def lora_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lora")
    pspec = tiny_pilot(tmp, steps=3)
    code, events = run_runner(pspec, tmp)
    return pspec, code, events


def test_events_are_started_progress_then_finished(lora_run):
    _, code, events = lora_run
    kinds = [e.type for e in events]
    assert code == 0 and kinds[0] == "started" and kinds[-1] == "finished"
    assert "progress" in kinds and [e.seq for e in events] == list(range(len(events)))


def test_result_has_measured_figures_on_cpu(lora_run):
    pspec, _, events = lora_run
    r = events[-1].data["result"]
    assert r["device"] == "cpu" and r["on_target_gpu"] is False
    assert len(r["warmup_step_s"]) == 2 and len(r["step_s"]) == 3
    assert r["tokens_per_s"] == pytest.approx(32 / r["step_time_s"]["mean"], rel=1e-9)
    assert r["step_time_s"]["min"] <= r["step_time_s"]["mean"] <= r["step_time_s"]["max"]
    assert r["achieved_tflops"] == pytest.approx(r["flops_per_token"]["model"] * r["tokens_per_s"] / 1e12)
    assert r["mfu"] == pytest.approx(r["achieved_tflops"] / 19.5)  # A100 dense fp32 peak in the catalog


def test_each_measured_step_is_timed_by_phase(lora_run):
    """forward, backward, optimizer seconds per measured step (perf_counter on the CPU, CUDA
    events on a GPU: advisor.pilot.measure.PhaseTimer); together they are the step."""
    r = lora_run[2][-1].data["result"]
    assert r["phase_source"] == "perf_counter"
    assert set(r["phase_s"]) == {"forward", "backward", "optimizer"}
    assert all(len(v) == 3 and min(v) > 0 for v in r["phase_s"].values())
    for i, step in enumerate(r["step_s"]):
        assert sum(r["phase_s"][p][i] for p in r["phase_s"]) <= step * 1.0001
    assert r["phase_mean_s"]["backward"] == pytest.approx(sum(r["phase_s"]["backward"]) / 3)


def test_cpu_memory_says_where_it_comes_from(lora_run):
    mem = lora_run[2][-1].data["result"]["memory"]
    assert mem["source"].startswith("process-rss") and mem["peak_allocated_bytes"] is None
    assert mem["nvml_device_peak_bytes"] is None and "no CUDA device" in mem["nvml_reason"]
    assert mem["process_rss_peak_bytes"] >= mem["process_rss_baseline_bytes"] > 0 and mem["samples"] > 0


def test_lora_checkpoint_is_the_adapter_with_a_manifest(lora_run):
    pspec, _, events = lora_run
    ck = events[-1].data["result"]["checkpoint"]
    manifest = json.loads(open(ck["manifest"]).read())
    from safetensors.torch import load_file

    tensors = load_file(ck["path"])
    assert ck["kind"] == "adapter" and all("lora" in name.lower() for name in tensors)
    assert manifest["adapter"]["rank"] == 16 and manifest["base_model"]["revision"] == "random-init"
    assert manifest["base_model"]["id"] == "tiny-test" and manifest["code_version"].startswith("0.1.0")
    assert manifest["checkpoint"]["sha256"] and manifest["spec"]["method"] == "lora"


def test_full_fine_tune_saves_the_whole_state(tmp_path):
    pspec = tiny_pilot(tmp_path, method="full", steps=1)
    code, events = run_runner(pspec, tmp_path)
    ck = events[-1].data["result"]["checkpoint"]
    from safetensors.torch import load_file

    params = sum(t.numel() for t in load_file(ck["path"]).values())
    assert code == 0 and ck["kind"] == "full" and params == pspec.arch.params_total


def test_out_of_memory_is_a_result_with_the_phase(tmp_path):
    # 8 x 8192 tokens: ~0.5 GB of activations and logits, weights under 1 MB; 64 MiB of room
    pspec = tiny_pilot(tmp_path, seq_len=8192, micro_batch=8, steps=1, cpu_memory_limit_bytes=64 * 2**20)
    code, events = run_runner(pspec, tmp_path)
    failed = events[-1]
    assert code == 5 and failed.type == "failed" and failed.data["reason"] == "oom"
    assert failed.data["result"]["where"] == {"phase": "forward", "step": 1, "steps_completed": 0}
    assert "forward phase of step 1" in failed.data["message"]


def test_qlora_says_which_nf4_implementation_ran(tmp_path):
    code, events = run_runner(tiny_pilot(tmp_path, method="qlora", steps=1), tmp_path)
    ran = events[-1].data["result"]["stack_ran"]
    assert code == 0 and ran["runtime"] == "reference" and "stand-in" in ran["quant_impl"]


@pytest.mark.gpu
def test_on_cuda_the_allocator_and_nvml_are_measured(tmp_path):
    import torch

    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    code, events = run_runner(tiny_pilot(tmp_path, device="cuda", precision="bf16-mixed", steps=2), tmp_path)
    mem = events[-1].data["result"]["memory"]
    assert code == 0 and mem["source"] == "torch.cuda" and mem["peak_allocated_bytes"] > 0
    assert mem["peak_reserved_bytes"] >= mem["peak_allocated_bytes"]
    assert mem["nvml_device_peak_bytes"] >= mem["peak_reserved_bytes"] and mem["nvml_reason"] is None


def test_a_length_distribution_gives_the_pilot_variable_length_batches(tmp_path):
    from advisor.allocator.lengths import batch_lengths
    from advisor.spec import LengthDistribution

    dist = LengthDistribution(mean=12, min=4, max=32)
    pspec = tiny_pilot(tmp_path, steps=3, length_distribution=dist)
    code, events = run_runner(pspec, tmp_path)
    r = events[-1].data["result"]
    lengths = r["stack_ran"]["batch_lengths"]
    # the same draw the allocator replay makes for this spec (advisor.allocator.lengths)
    assert code == 0 and lengths == batch_lengths(dist, 32, 1, pspec.total_steps, seed=pspec.seed)
    steady = lengths[pspec.warmup_steps:]
    assert r["tokens_per_s"] == pytest.approx(sum(steady) / len(steady) / r["step_time_s"]["mean"], rel=1e-9)
