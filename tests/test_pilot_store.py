"""Pilot state, results and calibration in the state database (shared with the bot's tables),
against both backends (a SQLite file and a real PostgreSQL server) where the database matters."""

from __future__ import annotations

import sqlite3

import pytest

from advisor.pilot.calibration import PilotCalibration
from advisor.pilot.launchers.base import PilotHandle, PilotStatus
from advisor.pilot.store import PilotStore
from tests.pilot_helpers import tiny_pilot


def _result(on_target=True, efficiency=0.3, ratio=1.08, device="cuda", tokens_per_s=1000.0, architecture=None,
            phase_mean_s=None):
    return {"device": device, "on_target_gpu": on_target, "efficiency": efficiency, "mfu": efficiency * 0.8,
            "tokens_per_s": tokens_per_s, "tokens_per_step": 32,
            "memory": {"peak_allocated_bytes": 100, "peak_reserved_bytes": int(100 * ratio),
                       "reserved_over_allocated": ratio},
            "checkpoint": {"save_s": 1.0, "bytes": 10}, "environment": {"gpu_name": "NVIDIA A100-SXM4-80GB"},
            "architecture": architecture, "phase_mean_s": phase_mean_s}


def _finished(store, tmp_path, name, **result):
    pspec = tiny_pilot(tmp_path / name, pilot_id=name)
    store.create(pspec, launcher="local", state="pending")
    store.update(name, handle=PilotHandle(pilot_id=name, launcher="local", submitted_at=0, ref={}))
    result.setdefault("architecture", pspec.arch.model_dump(mode="json"))
    return store.apply_status(name, PilotStatus(state="finished", result=_result(**result), events=3))


def test_pilot_tables_live_beside_the_bots_tables(tmp_path):
    from bot.store import StateStore

    path = tmp_path / "state.db"
    bot = StateStore(path)
    store = PilotStore(path)
    names = {r[0] for r in sqlite3.connect(path).execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"pilots", "pilot_results", "schema_versions", "threads", "outbox"} <= names
    assert store.schema_version() == 1 and bot.version("bot") >= 2
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_reopening_does_not_migrate_twice(state_target):
    PilotStore(state_target)
    assert PilotStore(state_target).schema_version() == 1


def test_confirm_moves_a_proposed_pilot_once(state_target, tmp_path):
    store = PilotStore(state_target)
    store.create(tiny_pilot(tmp_path, pilot_id="p-one"), launcher="local")
    assert store.transition("p-one", ("proposed",), "pending", confirmed_by="U1")
    assert not store.transition("p-one", ("proposed",), "pending", confirmed_by="U2")
    assert store.require("p-one").confirmed_by == "U1"


def test_a_finished_pilot_records_its_result_and_cost(state_target, tmp_path):
    store = PilotStore(state_target)
    rec = _finished(store, tmp_path, "p-done")
    [row] = store.results()
    assert rec.state == "finished" and rec.cost_usd is not None and rec.cost_usd >= 0
    assert row["gpu"] == "a100-80gb" and row["efficiency"] == 0.3 and row["reserved_ratio"] == 1.08


def test_terminal_pilots_are_not_changed_by_late_status(state_target, tmp_path):
    store = PilotStore(state_target)
    _finished(store, tmp_path, "p-late")
    rec = store.apply_status("p-late", PilotStatus(state="failed", reason="killed"))
    assert rec.state == "finished" and rec.reason is None


def test_spend_counts_estimates_of_running_and_costs_of_ended_pilots(state_target, tmp_path):
    store = PilotStore(state_target)
    for name, cost in (("p-a", 1.5), ("p-b", 2.0), ("p-c", 9.0)):
        store.create(tiny_pilot(tmp_path / name, pilot_id=name), launcher="local", estimated_cost_usd=cost)
    store.update("p-a", confirmed_at=100.0, state="running")
    store.update("p-b", confirmed_at=200.0, state="finished", cost_usd=0.25)
    assert store.spent_since(0) == pytest.approx(1.75)  # p-c was never confirmed
    assert store.spent_since(150) == pytest.approx(0.25)


@pytest.mark.parametrize("results, expected", [
    ([{}], (0.3, 1)),
    ([{"efficiency": 0.2}, {"efficiency": 0.4}, {"efficiency": 0.35}], (0.35, 3)),
    ([{"on_target": False}], None),  # another card, or a CPU: not a calibration of this GPU
    ([{"efficiency": 7.0}], None),  # impossible efficiency: a measurement error
])
def test_calibration_uses_the_median_of_pilots_on_the_target_gpu(state_target, tmp_path, results, expected):
    store = PilotStore(state_target)
    for i, r in enumerate(results):
        _finished(store, tmp_path, f"p-{i}", **r)
    cal = PilotCalibration(store)
    assert cal.mfu("a100-80gb", "lora") == (None if expected is None else (pytest.approx(expected[0]), expected[1]))
    assert cal.mfu("h100-sxm", "lora") is None and cal.mfu("a100-80gb", "full") is None


def test_calibration_reserved_ratio_is_per_stack(tmp_path):
    store = PilotStore(tmp_path / "s.db")
    _finished(store, tmp_path, "p-r1", ratio=1.05)
    _finished(store, tmp_path, "p-r2", ratio=1.15)
    cal = PilotCalibration(store)
    assert cal.reserved_ratio("a100-80gb", "hf") == pytest.approx(1.10) and cal.reserved_ratio("a100-80gb", "litgpt") is None


def test_calibration_satisfies_the_throughput_protocol(tmp_path, catalog):
    from advisor.throughput import estimate_throughput

    pspec = tiny_pilot(tmp_path)
    gpu = catalog.gpu("a100")
    prior = estimate_throughput(pspec.spec, pspec.arch, gpu)
    store = PilotStore(tmp_path / "s.db")
    _finished(store, tmp_path, "p-e", tokens_per_s=prior.tokens_per_s / 2)  # steps twice as long as predicted
    tp = estimate_throughput(pspec.spec, pspec.arch, gpu, calibration=PilotCalibration(store))
    assert (tp.efficiency.source, tp.efficiency.pilots) == ("calibrated", 1)
    assert tp.tokens_per_s < 0.75 * prior.tokens_per_s


def test_cli_estimates_are_calibrated_by_pilots_in_the_state_db(tmp_path, cli):
    import json

    store = PilotStore(tmp_path / "s.db")
    _finished(store, tmp_path, "p-cal", efficiency=0.42)
    args = ("estimate", "--model", "llama-3.1-8b", "--method", "lora", "--json", "--state-db")
    calibrated = json.loads(cli(*args, str(tmp_path / "s.db")).output)
    prior = json.loads(cli(*args, str(tmp_path / "none.db")).output)
    a100 = lambda out: next(o for o in out["options"] if o["gpu"] == "a100-80gb")  # noqa: E731
    assert (a100(calibrated)["efficiency_source"], a100(calibrated)["pilots"]) == ("calibrated", 1)
    assert a100(prior)["efficiency_source"] == "prior" and not (tmp_path / "none.db").exists()
    assert a100(calibrated)["tokens_per_s"] != a100(prior)["tokens_per_s"]


def test_two_processes_ending_one_pilot_record_one_end(state_target, tmp_path):
    """Two replicas' watchers see the same finished pilot: one result row, the first end kept."""
    store = PilotStore(state_target)
    pspec = tiny_pilot(tmp_path / "race", pilot_id="p-race")
    store.create(pspec, launcher="local", state="pending")
    other = PilotStore(state_target)
    a = store.apply_status("p-race", PilotStatus(state="finished", result=_result(), events=3))
    b = other.apply_status("p-race", PilotStatus(state="failed", reason="killed", events=3))
    assert a.state == b.state == "finished" and len(store.results()) == 1


def test_a_confirmed_pilot_whose_start_was_interrupted_is_failed_not_left_pending(state_target, tmp_path):
    from advisor.pilot import tracking

    store = PilotStore(state_target)
    store.create(tiny_pilot(tmp_path / "stuck", pilot_id="p-stuck"), launcher="local")
    assert tracking.confirm(store, "p-stuck", "UALICE", now=1000.0)
    assert tracking.abandon_unstarted(store, older_than_s=60, now=1030.0) == []  # still within the grace
    assert tracking.abandon_unstarted(store, older_than_s=60, now=2000.0) == ["p-stuck"]
    rec = store.require("p-stuck")
    assert (rec.state, rec.reason) == ("failed", "error") and rec.message.startswith("could not start")


def test_a_launcher_that_refuses_leaves_a_failed_pilot_with_the_reason(state_target, tmp_path):
    from advisor.errors import PilotError
    from advisor.pilot import tracking

    class Refusing:
        def submit(self, spec):
            raise RuntimeError("no cluster at ray://nowhere")

    store = PilotStore(state_target)
    store.create(tiny_pilot(tmp_path / "ref", pilot_id="p-refused"), launcher="ray")
    with pytest.raises(PilotError, match="could not start"):
        tracking.launch(store, "p-refused", Refusing(), confirmed_by="UALICE")
    rec = store.require("p-refused")
    assert (rec.state, rec.handle) == ("failed", None) and "no cluster" in rec.message
