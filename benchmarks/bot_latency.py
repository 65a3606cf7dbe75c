"""Ack and answer latency of the real bot under a burst of signed slash commands.

Starts the fake Slack (tests/fakeslack.py) and `python -m bot` in HTTP mode (gunicorn, ``--workers``
processes) against it, then sends
``--rate`` signed `/finetune` commands per second for ``--seconds`` (open loop: each request leaves
at its scheduled time, whatever the previous ones are doing), each from its own channel so its
answer can be matched. Prints the ack latency (HTTP response to the command; Slack's deadline is
3 s) and the command-to-answer latency (until the fake Slack receives the chat.postMessage).

    python benchmarks/bot_latency.py                       # 100/s for 3 s, the default question
    python benchmarks/bot_latency.py --rate 20 --seconds 5 --text "lora llama-3.1-8b seq 4096"
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fakeslack import BotProcess, FakeSlack  # noqa: E402

WARMUP = 5  # commands answered before timing: the first answers load the catalog and caches
SENDERS = 64  # client threads, so a slow ack never delays the next request's departure


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def report(name: str, seconds: list[float]) -> None:
    ms = [s * 1000 for s in seconds]
    print(f"{name:<22} n={len(ms):<5} p50={percentile(ms, 50):7.1f} ms  p90={percentile(ms, 90):7.1f} ms  "
          f"p99={percentile(ms, 99):7.1f} ms  max={max(ms):7.1f} ms  mean={statistics.fmean(ms):7.1f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=100.0, help="commands per second (default 100)")
    parser.add_argument("--seconds", type=float, default=3.0, help="length of the burst (default 3)")
    parser.add_argument("--text", default="qlora llama-3-70b seq 8192", help="the question")
    parser.add_argument("--answer-timeout", type=float, default=120.0)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes (default 2)")
    args = parser.parse_args()
    total = int(args.rate * args.seconds)
    with FakeSlack() as slack, tempfile.TemporaryDirectory() as tmp:
        bot = BotProcess(slack, Path(tmp), web_workers=args.workers).start()
        try:
            for i in range(WARMUP):
                bot.command(args.text, channel=f"CWARM{i}")
            slack.wait_for("chat.postMessage", lambda c: c.args.get("channel", "").startswith("CWARM"),
                           count=WARMUP, timeout=args.answer_timeout)
            sent: dict[str, float] = {}
            acks: list[float] = []
            statuses: list[int] = []
            lock = threading.Lock()

            def send(i: int, at: float) -> None:
                delay = at - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
                channel = f"CB{i:05d}"
                with lock:
                    sent[channel] = time.monotonic()
                reply = bot.command(args.text, channel=channel)
                with lock:
                    acks.append(reply.seconds)
                    statuses.append(reply.status)

            start = time.perf_counter() + 0.2
            with ThreadPoolExecutor(SENDERS) as pool:
                for i in range(total):
                    pool.submit(send, i, start + i / args.rate)
            posts = slack.wait_for("chat.postMessage", lambda c: c.args.get("channel", "").startswith("CB"),
                                   count=total, timeout=args.answer_timeout)
            answers = [p.at - sent[p.args["channel"]] for p in posts]
            wall = max(p.at for p in posts) - min(sent.values())
        finally:
            bot.stop()
    print(f"{total} signed /finetune commands at {args.rate:g}/s over loopback; question: {args.text!r}")
    print(f"HTTP statuses: { {s: statuses.count(s) for s in set(statuses)} }")
    report("ack (HTTP response)", acks)
    report("command -> answer", answers)
    print(f"all answered in {wall:.2f} s ({total / wall:.1f} answers/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
