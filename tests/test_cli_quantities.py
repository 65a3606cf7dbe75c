"""CLI flags read quantities the way the chat does (advisor.cli.spec_flags.Quantity over
advisor.parse.numbers.read_quantity), and the chat answers issue 13 names as a person expects."""

import json

import pytest

from advisor.parse.numbers import read_quantity


@pytest.mark.parametrize("text,kind,expected", [
    ("4k", "seq", 4096), ("4096", "seq", 4096), ("4,096", "seq", 4096), ("128K", "seq", 131072), ("1M", "seq", 1 << 20),
    ("50M", "count", 50_000_000), ("1.2B", "count", 1_200_000_000), ("50,000,000", "count", 50_000_000),
    ("200k tokens", "count", 200_000), ("7b", "params", 7.0), ("350M", "params", 0.35), ("70", "params", 70.0),
])
def test_a_quantity_reads_like_the_chat(text, kind, expected):
    assert read_quantity(text, kind) == pytest.approx(expected)


@pytest.mark.parametrize("text", ["4kk", "lots", "", "4 k k", "1e999e"])
def test_an_unreadable_quantity_says_what_to_write(text):
    with pytest.raises(ValueError, match="4k"):
        read_quantity(text, "seq")


def test_a_plain_integer_flag_reads_what_the_chat_reads_without_loading_the_parser():
    """spec_flags.Quantity converts a plain integer itself, so that a command given only plain
    numbers never imports advisor.parse; it must read exactly what read_quantity reads."""
    import random
    import subprocess
    import sys

    from advisor.cli.spec_flags import _PLAIN, Quantity
    from tests.conftest import ROOT

    rng = random.Random(13)
    texts = ["0", "00", "007", "7", "70", "405", "1024", "4096", "131072", "999999999"]
    texts += [str(rng.randint(0, 10 ** rng.randint(1, 9))) for _ in range(500)]
    for kind in ("seq", "count", "params"):
        for text in texts:
            assert _PLAIN.fullmatch(text)
            assert Quantity(kind).convert(text, None, None) == read_quantity(text, kind), (kind, text)
    for text in ("4.096", "4,096", "4k", "1e3", "1_000"):  # to the parser
        assert not _PLAIN.fullmatch(text)
    code = ("import sys\nfrom click.testing import CliRunner\nfrom advisor.cli import main\n"
            "r = CliRunner().invoke(main, ['trace', '--help'])\n"
            "print(r.exit_code, any(m.startswith('advisor.parse') for m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.stdout.split() == ["0", "False"], out.stderr[-2000:]


def test_cli_flags_take_chat_quantities(cli):
    out = json.loads(cli("estimate", "--model", "llama-3.1-8b", "--seq-len", "4k", "--dataset-tokens", "50M",
                         "--micro-batch", "2", "--json").output)
    assert (out["spec"]["seq_len"], out["spec"]["dataset_tokens"], out["spec"]["micro_batch"]) == (4096, 50_000_000, 2)
    out = json.loads(cli("estimate", "--params-b", "350M", "--json").output)
    assert out["spec"]["params_b"] == pytest.approx(0.35)


@pytest.mark.parametrize("args,words", [(["--seq-len", "4kk"], ["--seq-len", "4k"]),
                                        (["--micro-batch", "1.5"], ["--micro-batch", "whole number"])])
def test_a_bad_flag_value_is_a_usage_error(args, words):
    from click.testing import CliRunner

    from advisor.cli import main

    result = CliRunner().invoke(main, ["estimate", "--model", "llama-3.1-8b", *args])
    assert result.exit_code == 2 and all(w in result.output for w in words)


def test_ask_reads_a_size_before_a_sequence_word(cli):
    out = json.loads(cli("ask", "qlora 13b seq 2048", "--json").output)
    assert out["kind"] == "estimate" and out["spec"]["params_b"] == 13.0 and out["spec"]["seq_len"] == 2048
    assert out["head"]["understood"] == "Understood: QLoRA, a 13B model, seq 2,048, on the fewest GPUs that fit."
    assert out["head"]["assumed"].startswith("Assumed: ") and "seq" not in out["head"]["assumed"]


def test_ask_reads_spanish_full_fine_tuning(cli):
    out = json.loads(cli("ask", "afinamiento completo de qwen2.5 3b, secuencia 4096", "--json").output)
    assert (out["lang"], out["spec"]["method"], out["spec"]["model"], out["spec"]["seq_len"]) == ("es", "full", "qwen2.5-3b", 4096)
    assert out["head"]["understood"].startswith("Entendido: ajuste fino completo, Qwen2.5 3B, contexto de 4.096, ")


def test_ask_names_the_closest_match_of_a_typo(cli):
    result = cli("ask", "lora mistrl 7b")
    first = result.output.splitlines()  # the verdict (#16), then what was understood and assumed (#13)
    assert first[0].startswith("Yes: 1 x ")
    assert first[1] == "Understood: LoRA, Mistral 7B v0.3, seq 2,048, on the fewest GPUs that fit."
    assert first[2].startswith("Assumed: seq 2,048") and 'read "mistrl 7b" as Mistral 7B v0.3' in result.output


def test_the_bot_answer_opens_with_the_verdict_then_the_same_two_lines(catalog):
    from advisor.answer import Advisor
    from bot.render.answer import render_answer

    for text, lang in [("qlora 13b seq 2048", "en"), ("QLoRA de llama 3 8b con contexto de 8k en dos H100", "es")]:
        answer = Advisor(catalog).ask(text)
        blocks = render_answer(answer.data, lang)  # what the bot stores and renders
        shown = json.dumps(blocks, ensure_ascii=False)
        assert answer.data["head"]["understood"] in shown and answer.data["head"]["assumed"] in shown
        verdict, understood = [b for b in blocks if b["type"] == "section"][:2]
        assert verdict["block_id"] == "verdict" and understood["text"]["text"] == answer.data["head"]["understood"]
