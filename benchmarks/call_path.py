"""How far a slash command travels: the modules of advisor/ and bot/ that one `/finetune ...`
passes through on its way to the posted answer, and the longest functions of the code base.

The real Bolt app is built in this process (``bot.app.build_app``) against the fake Slack Web API
of the tests (127.0.0.1), a really signed slash command is dispatched to it, and every Python call
made in any thread until the answer reaches ``chat.postMessage`` is recorded with
``sys.setprofile`` / ``threading.setprofile``. Only our own modules count (``advisor.*``,
``bot.*``); the libraries in between (Bolt, slack_sdk, pydantic) are skipped.

Printed:
  modules        distinct modules of ours that ran for this command
  entries        how often the call chain entered a module from another of our modules
  returns up     how often the chain entered a module that imports the caller's module
                 (a call back up the import layers: ``report`` calling into ``recommend`` while
                 ``recommend`` imports ``report``, say)
  per module     entries per module, most first
  longest        the longest functions (lines, ``ast`` end_lineno - lineno + 1) in advisor/ and bot/

    python benchmarks/call_path.py ["lora llama-3.1-8b seq 4096"]
"""

from __future__ import annotations

import ast
import os
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fakeslack import APP_ID, BOT_TOKEN, SIGNING_SECRET, TEAM_ID, FakeSlack, sign  # noqa: E402

OURS = ("advisor", "bot")
TEXT = "lora llama-3.1-8b seq 4096"


def _ours(module: str | None) -> bool:
    return bool(module) and module.split(".")[0] in OURS


def _imports_of(module: str) -> set[str]:
    """Modules of ours that ``module``'s source imports (at any depth of the file)."""
    path = ROOT / (module.replace(".", "/") + ".py")
    if not path.exists():
        path = ROOT / module.replace(".", "/") / "__init__.py"
    if not path.exists():
        return set()
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and _ours(node.module):
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if _ours(a.name))
    return found


def longest_functions(top: int = 10) -> list[tuple[int, str]]:
    rows = []
    for package in OURS:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    rows.append((node.end_lineno - node.lineno + 1,
                                 f"{path.relative_to(ROOT)}:{node.lineno} {node.name}"))
    return sorted(rows, reverse=True)[:top]


def _command_request(text: str, response_url: str):
    from slack_bolt import BoltRequest

    body = urlencode({
        "token": "legacy-verification-token", "team_id": TEAM_ID, "team_domain": "fake-team",
        "channel_id": "CGENERAL", "channel_name": "general", "user_id": "UALICE", "user_name": "alice",
        "command": "/finetune", "text": text, "api_app_id": APP_ID, "is_enterprise_install": "false",
        "response_url": response_url, "trigger_id": f"{time.time_ns()}.trigger",
    })
    headers = {k.lower(): [v] for k, v in sign(body).items()}
    headers["content-type"] = ["application/x-www-form-urlencoded"]
    return BoltRequest(body=body, headers=headers)


def trace_command(text: str) -> list[tuple[str, str]]:
    """(caller module, callee module) for every call between two of our modules."""
    edges: list[tuple[str, str]] = []
    lock = threading.Lock()
    recording = threading.Event()  # set from the dispatch of the command to the posted answer

    def profiler(frame, event, arg):  # noqa: ANN001 - sys.setprofile's signature
        if event != "call" or not recording.is_set():
            return
        callee = frame.f_globals.get("__name__")
        if not _ours(callee):
            return
        back = frame.f_back
        while back is not None and not _ours(back.f_globals.get("__name__")):
            back = back.f_back  # skip library frames (Bolt, slack_sdk) between two of ours
        caller = back.f_globals.get("__name__") if back is not None else "<entry>"
        if caller != callee:
            with lock:
                edges.append((caller, callee))

    with FakeSlack() as slack, tempfile.TemporaryDirectory() as tmp:
        os.environ.update({
            "SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET,
            "SLACK_API_URL": slack.api_url, "ADVISOR_STATE_DB": str(Path(tmp) / "state.db"),
            "ADVISOR_CATALOG": str(ROOT / "catalog.db"),
        })
        from bot.app import build_app
        from bot.settings import Settings

        settings = Settings.from_env() if hasattr(Settings, "from_env") else Settings()
        # the outbox workers (bot/outbox.py) that post the answer are threads build_app starts:
        # the profiler is installed for threads before they exist, and records only from the
        # dispatch on (threading.setprofile reaches threads started after it, Python 3.11)
        threading.setprofile(profiler)
        app, services = build_app(settings)
        request = _command_request(text, slack.response_url())
        sys.setprofile(profiler)
        recording.set()
        try:
            app.dispatch(request)
            slack.wait_for("chat.postMessage", timeout=60)
        finally:
            recording.clear()
            sys.setprofile(None)
            threading.setprofile(None)
        deadline = time.monotonic() + 60  # the worker still records the thread after posting
        outbox = getattr(services, "outbox", None)  # the outbox workers (bot/outbox.py) deliver the answer
        while (getattr(getattr(services, "answers", None), "pending", 0) or (outbox is not None and outbox.busy)) \
                and time.monotonic() < deadline:
            time.sleep(0.05)
        if getattr(services, "pilots", None) is not None and hasattr(services.pilots, "stop"):
            services.pilots.stop()
        services.close()
    return edges


def main() -> None:
    text = sys.argv[1] if len(sys.argv) > 1 else TEXT
    edges = trace_command(text)
    entries = Counter(callee for _, callee in edges)
    up = sum(1 for caller, callee in edges if caller in _imports_of(callee))
    print(f"/finetune {text}")
    print(f"modules     {len(entries)}")
    print(f"entries     {len(edges)}")
    print(f"returns up  {up}")
    print("per module  " + ", ".join(f"{m} {n}" for m, n in entries.most_common()))
    print("longest functions:")
    for lines, where in longest_functions():
        print(f"  {lines:4d}  {where}")


if __name__ == "__main__":
    main()
