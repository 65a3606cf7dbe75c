"""An answer in the state database survives an upgrade (issue #15): the bot stores the reply's
data, the ``Answer``'s dump with its ``schema_version``; an answer stored by an older advisor
(schema 1, tests/data/golden_blocks/*.json were written by it) still loads, renders, and its
buttons work in a running bot."""

from __future__ import annotations

import json

import pytest

from advisor.answer import Advisor
from advisor.answer_model import SCHEMA_VERSION, Answer
from advisor.catalog import Catalog
from advisor.spec import SpecRequest
from bot.render.answer import render_answer
from bot.store import StateStore
from tests.conftest import DATA
from tests.fakeslack import BotProcess, assert_valid_blocks

GOLDEN = DATA / "golden_blocks"


def schema_1(name: str) -> dict:
    case = json.loads((GOLDEN / f"answer_{name}.json").read_text(encoding="utf-8"))
    assert "schema_version" not in case["data"]  # written before issue #15
    return case


def test_the_store_keeps_the_answer_with_its_schema_version(tmp_path):
    store = StateStore(tmp_path / "state.db")
    reply = Advisor(Catalog.open()).ask("qlora llama-3-70b seq 8192")
    store.save_answer("C1", "1.1", "1.1", reply.kind, reply.lang, reply.request, reply.data)
    stored = store.answer("C1", "1.1")
    assert stored.data["schema_version"] == SCHEMA_VERSION
    assert Answer.load(stored.data) == reply.answer
    store.close()


@pytest.mark.parametrize("name", ["qlora70b_en", "qlora70b_es", "full_huge_en"])
def test_a_schema_1_answer_in_the_store_loads_and_renders(tmp_path, name):
    case = schema_1(name)
    store = StateStore(tmp_path / "state.db")
    store.save_answer("C1", "2.1", "2.1", "estimate", case["lang"], SpecRequest(**case["request"]), case["data"])
    stored = store.answer("C1", "2.1")
    answer = Answer.load(stored.data)
    assert answer.schema_version == SCHEMA_VERSION and answer.recommended == case["data"]["recommended"]
    blocks = assert_valid_blocks(render_answer(stored.data, stored.lang))
    buttons = blocks[-1]["elements"]
    if answer.best is not None:
        assert json.loads(buttons[0]["value"]) == {"gpu": answer.best.gpu, "num_gpus": answer.best.num_gpus}
    store.close()


def test_show_chart_on_a_thread_answered_before_the_upgrade(slack, tmp_path):
    """A running bot, and a thread whose answer an older advisor stored: its "Show chart" button
    still uploads the chart."""
    bot = BotProcess(slack, tmp_path).start()
    try:
        case = schema_1("qlora70b_en")
        store = StateStore(bot.state)
        store.save_answer("COLD", "3.1", "3.1", "estimate", "en", SpecRequest(**case["request"]), case["data"])
        store.save_thread("COLD", "3.1", SpecRequest(**case["request"]), "en", "3.1")
        store.close()
        assert bot.action("show_chart", "chart", channel="COLD", message_ts="3.1").status == 200
        [done] = slack.wait_for("files.completeUploadExternal", lambda c: c.args.get("channel_id") == "COLD",
                                timeout=60)
        assert done.args["thread_ts"] == "3.1" and done.result["ok"]
        files = json.loads(done.args["files"]) if isinstance(done.args["files"], str) else done.args["files"]
        assert slack.uploads[files[0]["id"]].startswith(b"\x89PNG\r\n\x1a\n")
    finally:
        bot.stop()
