"""Time and cost to an accepted checkpoint, storage and planning windows (advisor.cost)."""

import pytest

from advisor.cost import (
    DATASET_BYTES_PER_TOKEN,
    checkpoint_bytes,
    estimate_cost,
    estimate_time,
    planning_windows,
    price_per_million_tokens,
    smallest_window,
    storage_gb,
)
from advisor.spec import CostAssumptions, FinetuneSpec
from advisor.throughput import estimate_throughput


def _run(catalog, gpu="a100-80gb", n=1, **kw):
    spec = FinetuneSpec(**{"model": "llama-3.1-8b", "seq_len": 4096, "dataset_tokens": 50_000_000,
                           "epochs": 3, **kw})
    arch = catalog.model(spec.model).arch
    tp = estimate_throughput(spec, arch, catalog.gpu(gpu), num_gpus=n)
    return spec, arch, tp, estimate_time(spec, arch, tp)


@pytest.mark.parametrize("price, expected", [(0.34, [2.72, 13.60, 40.80]), (1.19, [9.52, 47.60, 142.80]),
                                             (2.69, [21.52, 107.60, 322.80])])
def test_planning_windows_are_8_40_120_hours_of_one_gpu(price, expected):
    assert [w.price_usd for w in planning_windows(price, None)] == expected


@pytest.mark.parametrize("gpu_hours, window", [(5.0, 8), (8.0, 8), (27.3, 40), (119.9, 120), (130.0, None)])
def test_smallest_window_the_job_fits(gpu_hours, window):
    w = smallest_window(planning_windows(0.34, gpu_hours))
    assert (w.hours if w else None) == window


def test_training_time_is_tokens_times_epochs_over_tokens_per_s(catalog):
    spec, _, tp, time = _run(catalog)
    assert time.training_s == pytest.approx(50e6 * 3 / tp.tokens_per_s, rel=1e-12)
    assert time.evaluation_s == pytest.approx(50e6 * 0.05 * 3 / tp.eval_tokens_per_s, rel=1e-12)
    assert time.evaluation_s < 0.05 * time.training_s  # forward only: about a third of a step
    assert time.saves == 3


@pytest.mark.parametrize("gpu, n, failed", [("a100-80gb", 1, 0.3), ("rtx-4090", 1, 0.0), ("h100-sxm", 4, 1.5)])
def test_cost_is_hours_times_price_times_gpus_times_the_documented_factors(catalog, gpu, n, failed):
    spec, arch, _, time = _run(catalog, gpu, n, costs=CostAssumptions(failed_run_fraction=failed))
    price = catalog.gpu(gpu).price_usd_per_hour
    c = estimate_cost(spec, arch, time, price_per_hour=price, num_gpus=n, storage_usd_per_gb_month=0.07)
    run_h = (time.training_s + time.checkpoint_s + time.startup_s) / 3600
    gpu_usd = (run_h * (1 + failed) + (time.evaluation_s + time.pilot_s) / 3600) * price * n
    assert c.total_usd == pytest.approx(gpu_usd + storage_gb(spec, arch) * 0.07 * 1.0, rel=1e-12)
    assert c.gpu_hours * price == pytest.approx(gpu_usd, rel=1e-12)


def test_failures_cost_the_failed_fraction_of_a_run_and_pilot_can_be_left_out(catalog):
    spec, arch, _, time = _run(catalog, costs=CostAssumptions(include_pilot=False))
    c = estimate_cost(spec, arch, time, price_per_hour=1.19, num_gpus=1, storage_usd_per_gb_month=0.07)
    assert c.failures_usd == pytest.approx(0.3 * (c.training_usd + c.overhead_usd), rel=1e-12)
    assert c.pilot_usd == 0.0 and time.pilot_s == 0.0


@pytest.mark.parametrize("method, optimizer, per_param", [("full", "adamw", 12.0), ("full", "adamw-8bit", 6.0),
                                                          ("lora", "adamw", 12.0)])
def test_checkpoint_holds_trainable_weights_and_optimizer_state(catalog, method, optimizer, per_param):
    spec = FinetuneSpec(model="llama-3.1-8b", method=method, optimizer=optimizer)
    arch = catalog.model("llama-3.1-8b").arch
    trainable = arch.params_total if method == "full" else 41_943_040  # rank 16, all linear (PEFT prints 41.9M)
    assert checkpoint_bytes(spec, arch) == int(trainable * per_param)


def test_storage_counts_kept_checkpoints_dataset_and_base_model(catalog):
    spec = FinetuneSpec(model="llama-3.1-8b", method="full", dataset_tokens=10**9)
    arch = catalog.model("llama-3.1-8b").arch
    expected = 2 * checkpoint_bytes(spec, arch) + 10**9 * DATASET_BYTES_PER_TOKEN + 2 * arch.params_total
    assert storage_gb(spec, arch) == pytest.approx(expected / 1e9, rel=1e-12)


def test_without_a_dataset_size_there_is_no_time_only_a_price_per_million_tokens(catalog):
    spec = FinetuneSpec(model="llama-3.1-8b")
    tp = estimate_throughput(spec, catalog.model("llama-3.1-8b").arch, catalog.gpu("rtx-4090"))
    assert estimate_time(spec, catalog.model("llama-3.1-8b").arch, tp) is None
    per_m = price_per_million_tokens(0.34, 1, tp.tokens_per_s)
    assert per_m == pytest.approx(0.34 / 3600 / tp.tokens_per_s * 1e6, rel=1e-12)
