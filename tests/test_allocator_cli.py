"""`--length-distribution` and the allocator simulation through the CLI."""

import json

import pytest


def test_trace_reports_reserved_bytes_from_the_simulation_with_segments(cli):
    pytest.importorskip("torch")
    result = cli("trace", "--model", "tiny-test", "--seq-len", "256", "--length-distribution", "20,256,80",
                 "--replay-steps", "50", "--json")
    assert result.exit_code == 0, result.output
    mem = json.loads(result.output)["memory"]
    alloc = mem["allocator"]
    assert mem["reserved_bytes"] == alloc["reserved_bytes"] >= mem["allocated_bytes"] > 0
    assert mem["device_bytes"] > mem["reserved_bytes"] and alloc["segments"] >= 1
    assert alloc["variable_lengths"] and alloc["steps"] == 50 and alloc["longest_batch"] <= 256
    assert alloc["with_expandable_segments"]["reserved_bytes"] > 0


def test_trace_text_says_what_the_allocator_holds(cli):
    pytest.importorskip("torch")
    result = cli("trace", "--model", "tiny-test", "--seq-len", "128", "--replay-steps", "5", "--lang", "es")
    assert result.exit_code == 0, result.output
    assert "Reservado por el asignador con caché en 5 micro-lotes (todos los lotes de 128 tokens)" in result.output
    assert "expandable_segments:True" in result.output


def test_a_length_file_is_read(cli, tmp_path):
    pytest.importorskip("torch")
    path = tmp_path / "lengths.txt"
    path.write_text("40\n120\n64\n")
    result = cli("trace", "--model", "tiny-test", "--seq-len", "128", "--length-distribution", f"@{path}",
                 "--replay-steps", "20", "--json")
    assert result.exit_code == 0, result.output
    spec = json.loads(result.output)["spec"]
    assert spec["length_distribution"]["lengths"] == [40, 120, 64]


@pytest.mark.parametrize("value, message", [
    ("1,2", "MIN,MAX,MEAN"),
    ("200,100,600", "must lie between"),
    ("@/nonexistent/lengths.txt", "cannot read"),
])
def test_a_bad_length_distribution_is_a_usage_error(cli, value, message):
    result = cli("estimate", "--model", "llama-3.1-8b", "--length-distribution", value)
    assert result.exit_code == 2 and message in result.output


def test_estimate_uses_the_closed_form_for_variable_lengths(cli):
    fixed = json.loads(cli("estimate", "--model", "llama-3.1-8b", "--json").output)["memory"]
    var = json.loads(cli("estimate", "--model", "llama-3.1-8b", "--length-distribution", "200,2048,600",
                         "--json").output)["memory"]
    assert var["allocated_bytes"] == fixed["allocated_bytes"]
    assert var["reserved_bytes"] > fixed["reserved_bytes"] > fixed["allocated_bytes"]


def test_verify_exactly_shows_the_simulated_reserved_memory():
    from bot.render.verify import render_verify
    from bot.verify import Comparison
    from tests.test_bot_render import message_text

    c = Comparison(model="Llama 3.1 8B", num_gpus=1, estimate_terms={"weights": 16 * 2**30},
                   estimate_allocated=16 * 2**30, trace_terms={"weights": 16 * 2**30}, trace_allocated=16 * 2**30,
                   trace_phase="backward", seconds=3.0, estimate_reserved=18 * 2**30, trace_reserved=17 * 2**30,
                   trace_segments=412)
    text = message_text(render_verify(c, "es"))
    assert "17,0 GiB" in text and "412 segmentos" in text and "18,0 GiB" in text  # es_ES: decimal comma
