"""Issue #16 item 7: "Verify exactly" edits its placeholder with the trace's phases (at most one
edit per interval: chat.update's Tier 3 pace), then with the result, in English and Spanish,
through the real bot against the fake Slack."""

from __future__ import annotations

import pytest

from bot.verify import PHASES, TraceProgress
from tests.conftest import have
from tests.fakeslack import BotProcess, assert_valid_blocks, message_text


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_first_phase_is_shown_at_once_and_later_ones_no_faster_than_the_interval():
    clock, edits = Clock(), []
    progress = TraceProgress(edits.append, interval_s=3.0, clock=clock)
    progress("resolve")
    clock.now += 1.0
    progress("build")  # 1 s later: skipped
    clock.now += 2.0
    progress("forward")  # 3 s after the last edit
    clock.now += 2.9
    progress("backward")
    assert edits == ["resolve", "forward"] == progress.shown


def test_a_failed_edit_never_stops_the_trace():
    def edit(phase):
        raise RuntimeError("ratelimited")

    progress = TraceProgress(edit, interval_s=0)
    progress("resolve")  # logged, not raised
    assert progress.shown == []


@pytest.fixture(scope="module")
def bot(slack, tmp_path_factory):
    # every phase edited (no interval), so what the test sees does not depend on how fast this CPU traces
    process = BotProcess(slack, tmp_path_factory.mktemp("verifybot"),
                         env={"ADVISOR_VERIFY_EDIT_INTERVAL_S": "0"}).start()
    yield process
    process.stop()


def _in(channel, thread=None):
    return lambda c: c.args.get("channel") == channel and (thread is None or c.args.get("thread_ts") == thread)


CASES = [
    ("CVPROG", "lora tiny-test seq 128", "Tracing one real training step", "tracing the forward pass",
     "Exact trace vs estimate"),
    ("CVPROGES", "ajuste lora de tiny-test con secuencia de 128", "Trazando un paso real", "trazando el forward",
     "Traza exacta frente a estimación"),
]


@pytest.mark.slow
@pytest.mark.torch
@pytest.mark.skipif(not have("torch"), reason="needs the pilot extra (torch)")
@pytest.mark.parametrize("channel, question, progress_words, forward_words, title", CASES)
def test_the_placeholder_shows_each_phase_then_the_result(bot, slack, channel, question, progress_words,
                                                          forward_words, title):
    assert bot.command(question, channel=channel, response_url=slack.response_url(channel)).status == 200
    [answer] = slack.wait_for("chat.postMessage", _in(channel))
    root = answer.result["ts"]
    bot.wait_remembered(channel, root)
    bot.action("verify_exactly", "verify", channel=channel, message_ts=root)
    [placeholder] = slack.wait_for("chat.postMessage", _in(channel, root))
    ts = placeholder.result["ts"]
    slack.wait_for("chat.update", lambda c: c.args.get("ts") == ts and title in c.args.get("text", ""), timeout=120)
    edits = slack.calls_to("chat.update", lambda c: c.args.get("ts") == ts)
    texts = [message_text(assert_valid_blocks(e.args["blocks"])) for e in edits]
    *progress, result = texts
    assert title in result and all(progress_words in p for p in progress)
    assert len(progress) == len(PHASES)  # one edit per phase, in order
    assert [f"({i} " in p for i, p in enumerate(progress, start=1)] == [True] * len(PHASES)
    assert any(forward_words in p for p in progress)
