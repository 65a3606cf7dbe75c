"""`advisor pilot ...` end to end on this CPU: run, status, history, cancel."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import have, run_advisor

pytestmark = [pytest.mark.torch, pytest.mark.skipif(not have("torch"), reason="needs the pilot extra (torch)")]


@pytest.fixture(scope="module")
def pilot_run(tmp_path_factory):
    """The issue's acceptance command (bf16-mixed as defaulted; a short sequence keeps it fast)."""
    tmp = tmp_path_factory.mktemp("cli")
    db = str(tmp / "state.db")
    out = run_advisor("pilot", "run", "--model", "tiny-test", "--method", "lora", "--steps", "5", "--seq-len", "64",
                      "--gpu", "a100", "--json", "--state-db", db, "--out-dir", str(tmp / "runs"))
    return out, db, tmp


def test_pilot_run_prints_measured_figures_and_a_manifest(pilot_run):
    out, _, _ = pilot_run
    result = json.loads(out.stdout)
    assert out.returncode == 0 and result["state"] == "finished" and len(result["step_s"]) == 5
    assert result["tokens_per_s"] > 0 and result["spec"]["precision"] == "bf16-mixed"
    manifest = json.loads(Path(result["checkpoint"]["manifest"]).read_text())
    assert manifest["adapter"]["rank"] == 16 and manifest["training"]["precision"] == "bf16-mixed"
    assert "step " not in out.stderr  # --json: the JSON alone on stdout, no progress (tests/test_cli_progress.py)


def test_pilot_run_puts_the_prediction_beside_the_measurement(pilot_run):
    result = json.loads(pilot_run[0].stdout)
    rows = {r["metric"]: r for r in result["comparison"]}
    assert rows["tokens_per_s"]["error"] is None  # CPU figures are no test of an A100 prediction
    assert rows["checkpoint_bytes"]["error"] == pytest.approx(0, abs=0.05)  # safetensors header only
    assert result["prediction"]["cost_usd"] > 0 and result["estimated_cost_usd"] == result["prediction"]["cost_usd"]


def test_history_and_status_read_the_state_database(pilot_run):
    out, db, tmp = pilot_run
    pilot_id = json.loads(out.stdout)["pilot_id"]
    history = json.loads(run_advisor("pilot", "history", "--json", "--state-db", db).stdout)
    status = json.loads(run_advisor("pilot", "status", pilot_id, "--json", "--state-db", db).stdout)
    assert [r["pilot_id"] for r in history["results"]] == [pilot_id] and history["calibration"] == []
    assert history["results"][0]["on_target"] is False and status["state"] == "finished"


def test_unknown_pilot_is_a_clean_error(tmp_path):
    out = run_advisor("pilot", "status", "p-nope", "--state-db", str(tmp_path / "s.db"))
    assert out.returncode == 2 and "No pilot 'p-nope'" in out.stderr and "Traceback" not in out.stderr


def test_hf_runtime_without_transformers_says_what_to_install(tmp_path):
    if have("transformers") and have("peft"):
        pytest.skip("transformers and peft are installed here")
    out = run_advisor("pilot", "run", "--model", "tiny-test", "--stack", "hf", "--steps", "1", "--seq-len", "16",
                      "--json", "--state-db", str(tmp_path / "s.db"), "--out-dir", str(tmp_path / "runs"))
    result = json.loads(out.stdout)
    assert out.returncode == 1 and (result["state"], result["reason"]) == ("failed", "missing_extra")
    assert "transformers" in result["message"] and "pip install" in result["message"]


@pytest.mark.parametrize("lang", ["en", "es"])
def test_pilot_commands_speak_the_language_asked(pilot_run, lang):
    """`advisor pilot status|history|cancel --lang en|es`: every human line in that language and its
    number formats (tests/localecheck.py), as `advisor ask` does."""
    from tests.localecheck import locale_problems

    out, db, _ = pilot_run
    pilot_id = json.loads(out.stdout)["pilot_id"]
    status = run_advisor("pilot", "status", pilot_id, "--lang", lang, "--state-db", db)
    history = run_advisor("pilot", "history", "--lang", lang, "--state-db", db)
    cancel = run_advisor("pilot", "cancel", pilot_id, "--lang", lang, "--state-db", db)
    from advisor.pilot.store import PilotStore

    impl = ((PilotStore(db).get(pilot_id).result or {}).get("stack_ran") or {}).get("implementation", "")
    for result in (status, history, cancel):
        assert result.returncode == 0, result.stderr
        text = result.stdout.replace(impl, "`impl`")  # a runner's name for its stack, as it ran (code)
        assert not locale_problems(text, lang), (locale_problems(text, lang), text)
    assert (pilot_id + " ") in history.stdout
    assert cancel.stdout.strip() == (f"piloto {pilot_id}: terminado" if lang == "es" else f"pilot {pilot_id}: finished")
    if lang == "es":
        assert "secuencia 64" in history.stdout and "calibra: no" in history.stdout


@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_finished_pilot_reads_in_one_locale_on_both_surfaces(pilot_run, lang):
    """The CLI and the Slack renderings of a real pilot's result use the language's separators and
    words throughout (tests/localecheck.py, the check every answer passes), and the Spanish ones
    are not the English ones."""
    from advisor.pilot.report import render_cli
    from advisor.pilot.store import PilotStore
    from advisor.pilot.report import progress_text
    from bot.pilot.render import final
    from tests.fakeslack import message_text
    from tests.localecheck import locale_problems

    out, db, _ = pilot_run
    rec = PilotStore(db).get(json.loads(out.stdout)["pilot_id"])
    texts = [render_cli(rec, lang), message_text(final(rec, lang, None)[1]), progress_text(rec, lang)]
    impl = (rec.result.get("stack_ran") or {}).get("implementation", "")  # a runner's name for its stack, as it ran
    for text in texts:
        text = text.replace(impl, "`impl`")
        assert not locale_problems(text, lang), (locale_problems(text, lang), text)
    if lang == "es":
        assert "por paso" in texts[0] and "," in texts[0]  # decimal commas in the figures
