"""FLOPs per token, efficiency priors, multi-GPU scaling and calibration (advisor.throughput)."""

import json

import pytest

from advisor.spec import FinetuneSpec
from advisor.throughput import (
    efficiency,
    estimate_throughput,
    flops_per_token,
    measured_mfu,
    seq_factor,
)
from tests.conftest import DATA

NEMO = json.loads((DATA / "throughput_measurements.json").read_text())["rows"]


class Pilots:
    """A calibration store holding measured efficiencies (the real protocol, in memory)."""

    def __init__(self, table: dict):
        self.table = table

    def mfu(self, gpu_id, method):
        return self.table.get((gpu_id, method))

    def reserved_ratio(self, gpu_id, stack):
        return None


def _spec(**kw) -> FinetuneSpec:
    return FinetuneSpec(**{"model": "llama-3.1-8b", **kw})


@pytest.mark.parametrize("row", NEMO, ids=[r["id"] for r in NEMO])
def test_flops_per_token_reproduce_nemo_model_flops_within_5_percent(catalog, row):
    spec = FinetuneSpec(model=row["model"], method=row["method"], seq_len=row["seq_len"],
                        micro_batch=row["micro_batch"], gradient_checkpointing=False)
    published = row["model_tflops_per_gpu"] * 1e12 / row["tokens_per_s_per_gpu"]
    ours = flops_per_token(spec, catalog.model(row["model"]).arch).model
    assert ours == pytest.approx(published, rel=0.05)


@pytest.mark.parametrize("method, ratio_to_n, tol", [("full", 6.0, 0.06), ("lora", 4.0, 0.06), ("qlora", 4.0, 0.06)])
def test_flops_per_token_are_about_6n_full_and_4n_adapters_at_short_seq(catalog, method, ratio_to_n, tol):
    arch = catalog.model("llama-3.1-8b").arch
    non_embedding = arch.params_total - arch.params_embedding  # Kaplan et al.'s N
    f = flops_per_token(_spec(method=method, seq_len=256, gradient_checkpointing=False), arch)
    assert f.executed / non_embedding == pytest.approx(ratio_to_n, rel=tol)


def test_gradient_checkpointing_adds_one_forward_of_the_blocks(catalog):
    arch = catalog.model("llama-3.1-8b").arch
    off = flops_per_token(_spec(gradient_checkpointing=False), arch)
    on = flops_per_token(_spec(gradient_checkpointing=True), arch)
    head = 2 * arch.vocab * arch.hidden
    assert on.model == off.model
    assert on.executed - off.executed == pytest.approx(off.forward - head, rel=1e-9)


def test_attention_grows_linearly_with_seq_and_eager_doubles_it(catalog):
    arch = catalog.model("llama-3.1-8b").arch
    a4k = flops_per_token(_spec(seq_len=4096), arch).forward_attention
    a8k = flops_per_token(_spec(seq_len=8192), arch).forward_attention
    eager = flops_per_token(_spec(seq_len=4096, attention="eager"), arch).forward_attention
    assert a8k == 2 * a4k and eager == 2 * a4k
    assert a4k == 2 * arch.layers * arch.q_dim * 4096  # 4 x L x q_dim x seq, halved by causal


@pytest.mark.parametrize("tokens, expected", [(4096, 1.0), (8192, 1.0), (2048, 0.944), (512, 0.708), (128, 0.354)])
def test_short_micro_batches_lose_efficiency(tokens, expected):
    assert seq_factor(tokens) == pytest.approx(expected, abs=0.001)


def test_qlora_prior_is_between_half_and_eight_tenths_of_lora(catalog):
    gpu = catalog.gpu("a100-80gb")
    lora = efficiency(_spec(method="lora", seq_len=4096), gpu).value
    qlora = efficiency(_spec(method="qlora", seq_len=4096), gpu).value
    assert 0.5 <= qlora / lora <= 0.8


@pytest.mark.parametrize("gpu, lo, hi", [("h100-sxm", 2.0, 3.2), ("rtx-4090", 0.4, 0.65), ("l40s", 0.7, 1.2)])
def test_speed_relative_to_a100_is_in_published_ranges(catalog, gpu, lo, hi):
    arch = catalog.model("llama-3.1-8b").arch
    spec = _spec(method="lora", seq_len=4096)
    ref = estimate_throughput(spec, arch, catalog.gpu("a100-80gb")).tokens_per_s
    assert lo <= estimate_throughput(spec, arch, catalog.gpu(gpu)).tokens_per_s / ref <= hi


def test_tokens_per_s_is_peak_times_efficiency_over_executed_flops(catalog):
    arch, gpu = catalog.model("llama-3.1-8b").arch, catalog.gpu("h100-sxm")
    t = estimate_throughput(_spec(seq_len=4096), arch, gpu)
    assert t.tokens_per_s == pytest.approx(989.4e12 * t.efficiency.value / t.flops.executed, rel=1e-12)
    assert t.scaling == 1.0


def test_nvlink_scales_better_than_pcie_and_lora_ddp_scales_almost_perfectly(catalog):
    arch = catalog.model("llama-3.1-70b").arch
    full = FinetuneSpec(model="llama-3.1-70b", method="full", seq_len=4096, sharding="fsdp")
    nvlink = estimate_throughput(full, arch, catalog.gpu("a100-80gb"), num_gpus=8).scaling
    pcie = estimate_throughput(full, arch, catalog.gpu("l40s"), num_gpus=8).scaling
    lora = estimate_throughput(_spec(seq_len=4096), catalog.model("llama-3.1-8b").arch,
                               catalog.gpu("rtx-4090"), num_gpus=4, sharding="ddp").scaling
    assert pcie < nvlink <= 1.0 and lora > 0.99


def test_more_nodes_lower_scaling_efficiency(catalog):
    arch = catalog.model("llama-3.1-70b").arch
    full = FinetuneSpec(model="llama-3.1-70b", method="full", seq_len=4096, sharding="fsdp")
    one_node = estimate_throughput(full, arch, catalog.gpu("h100-sxm"), num_gpus=8).scaling
    two_nodes = estimate_throughput(full, arch, catalog.gpu("h100-sxm"), num_gpus=16).scaling
    assert two_nodes < one_node


def test_calibration_replaces_the_prior_and_round_trips_through_measured_mfu(catalog):
    arch, gpu = catalog.model("llama-3.1-8b").arch, catalog.gpu("a100-80gb")
    spec = _spec(seq_len=4096)
    measured = measured_mfu(2500.0, spec, arch, gpu)
    t = estimate_throughput(spec, arch, gpu, calibration=Pilots({("a100-80gb", "lora"): (measured, 3)}))
    assert t.efficiency.source == "calibrated" and t.efficiency.pilots == 3
    assert t.tokens_per_s == pytest.approx(2500.0, rel=1e-9)
    other = estimate_throughput(spec, arch, catalog.gpu("h100-sxm"), calibration=Pilots({}))
    assert other.efficiency.source == "prior"
