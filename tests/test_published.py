"""Accuracy against published measurements: the bar the benchmark prints, asserted."""

import importlib.util
import json

import pytest

from tests.conftest import DATA, ROOT

# Out-of-fold bars (issue 11: median <= 7% overall and per method, >= 80% of rows within 15%),
# held by every method. The QLoRA rows of litgpt's config hub (bitsandbytes 0.42) were 12-33% under
# until litgpt's own mechanisms were modelled from their source lines (advisor/stacks.py:
# graph_outlives_step, separate_head, quant_head, quant_dequant_fp16).
MEDIAN_BAR = {"all": 7.0, "lora": 7.0, "full": 7.0, "qlora": 7.0}
WITHIN_15_BAR = 0.80


def _bench():
    path = ROOT / "benchmarks" / "memory_accuracy.py"
    spec = importlib.util.spec_from_file_location("memory_accuracy", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def summary(catalog):
    bench = _bench()
    return bench.summarize(bench.out_of_fold(catalog))


@pytest.mark.parametrize("group", ["all", "full", "lora", "qlora"])
def test_out_of_fold_median_error_stays_under_the_bar(summary, group):
    assert summary[group]["median_ours"] <= MEDIAN_BAR[group]


def test_enough_rows_land_within_15_percent_out_of_fold(summary):
    assert summary["all"]["within"] >= WITHIN_15_BAR


def test_the_context_fit_is_what_advisor_memory_keeps(catalog):
    from advisor.memory import CUDA_CONTEXT_BYTES

    bench = _bench()
    assert bench.fit_device(bench.load_rows(), catalog) == pytest.approx(CUDA_CONTEXT_BYTES, abs=2**24)


def test_out_of_fold_scores_each_row_with_a_fit_that_never_saw_it(catalog):
    bench = _bench()
    rows = bench.load_rows()
    folds = bench.folds_of(rows)
    assert sorted(set(folds)) == list(range(bench.FOLDS))
    assert len(bench.out_of_fold(catalog, rows)) == len(rows)


def test_we_beat_the_rule_of_thumb_by_far(summary):
    assert summary["all"]["median_ours"] * 3 < summary["all"]["median_rule"]


def test_enough_usable_rows_across_methods_and_families(catalog):
    bench = _bench()
    results = bench.evaluate(catalog)
    assert len(results) >= 60
    assert len({r["family"] for r in results}) >= 5
    assert {r["method"] for r in results} == {"full", "lora", "qlora"}


def test_every_row_names_its_source_quantity_and_unit_and_exclusions_say_why():
    rows = json.loads((DATA / "published_measurements.json").read_text(encoding="utf-8"))["rows"]
    for row in rows:
        assert row["source"].get("repo") or row["source"].get("url"), row["id"]
        assert row["unit"] in ("GB", "GiB"), row["id"]
        if row["use"]:
            assert row["measured"] in ("max_allocated", "max_reserved", "nvidia_smi"), row["id"]
        else:
            assert len(row["excluded_reason"]) > 20, row["id"]
