"""A fake Slack for end-to-end tests: a real HTTP server on 127.0.0.1 that speaks the Web API
methods the bot calls, records every call, and the helpers to sign requests exactly as Slack
signs them and to run the real bot (``python -m bot``) against it.

Modelled on slack-bolt's own offline tests (slackapi/bolt-python, tests/mock_web_api_server/): a
``http.server`` handler answering realistic payloads. Here the server is threaded, keeps every
call for assertions (``calls``, ``wait_for``), gives each message a real-looking ``ts``, answers
``not_in_channel`` for channels configured so, implements the three-step ``files_upload_v2``
(``files.getUploadURLExternal``, the upload URL, ``files.completeUploadExternal``) and records
``response_url`` posts.

    with FakeSlack(not_in_channel={"CPRIVATE"}) as slack:
        bot = BotProcess(slack, tmp_path).start()
        bot.command("/finetune", "help")
        [call] = slack.wait_for("chat.postMessage")
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable
from urllib.parse import parse_qs, urlencode, urlparse

from slack_sdk.signature import SignatureVerifier

ROOT = Path(__file__).resolve().parent.parent
BOT_TOKEN = "xoxb-1111-2222-fake"
SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"  # the format of Slack's docs example
TEAM_ID = "T0FAKE001"
BOT_USER_ID = "UBOT00001"
BOT_ID = "BBOT00001"
APP_ID = "AFAKE0001"
# The first ts the fake hands out; later ones count up by 1 microsecond-unit like Slack's.
FIRST_TS = 1_700_000_000_000_100


@dataclass
class Call:
    method: str  # Web API method ("chat.postMessage"), "upload", or "response_url"
    args: dict[str, Any]
    headers: dict[str, str]
    at: float
    result: dict[str, Any] = field(default_factory=dict)


class _BurstServer(ThreadingHTTPServer):
    # a burst (benchmarks/load.py) opens many connections at once; the default queue of 5 resets them
    request_queue_size = 128
    daemon_threads = True


class FakeSlack:
    """The Web API on 127.0.0.1:<random port>. Thread-safe; use as a context manager."""

    def __init__(self, *, not_in_channel: set[str] | frozenset[str] = frozenset(),
                 token: str = BOT_TOKEN):
        self.not_in_channel = set(not_in_channel)
        self.token = token
        self.calls: list[Call] = []
        self.uploads: dict[str, bytes] = {}
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._ts = itertools.count(FIRST_TS)
        self._file_ids = itertools.count(1)
        self._failures: dict[str, list[str]] = {}
        self._server = _BurstServer(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    # --- lifecycle -----------------------------------------------------------------------------

    def start(self) -> "FakeSlack":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "FakeSlack":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def api_url(self) -> str:
        return f"{self.base}/api/"

    def response_url(self, name: str = "cmd") -> str:
        return f"{self.base}/response/{name}"

    # --- what was called -----------------------------------------------------------------------

    def calls_to(self, method: str, where: Callable[[Call], bool] | None = None) -> list[Call]:
        with self._lock:
            return [c for c in self.calls if c.method == method and (where is None or where(c))]

    def wait_for(self, method: str, where: Callable[[Call], bool] | None = None, *, count: int = 1,
                 timeout: float = 15.0) -> list[Call]:
        """The first ``count`` calls to ``method`` matching ``where``, waiting up to ``timeout``."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                found = [c for c in self.calls if c.method == method and (where is None or where(c))]
                if len(found) >= count:
                    return found[:count]
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = [(c.method, _short(c.args)) for c in self.calls[-10:]]
                    raise AssertionError(f"no {count} x {method} within {timeout}s; last calls: {seen}")
                self._changed.wait(left)

    def fail_next(self, method: str, error: str = "fatal_error") -> None:
        """The next call to ``method`` answers ok=false with ``error`` (Slack's own codes)."""
        with self._lock:
            self._failures.setdefault(method, []).append(error)

    def reset(self) -> None:
        with self._lock:
            self.calls.clear()
            self.uploads.clear()

    # --- the Web API ---------------------------------------------------------------------------

    def next_ts(self) -> str:
        n = next(self._ts)
        return f"{n // 1_000_000}.{n % 1_000_000:06d}"

    def handle(self, method: str, args: dict[str, Any], headers: dict[str, str], raw: bytes) -> tuple[int, dict]:
        if method == "upload":
            file_id = args["file_id"]
            with self._lock:
                self.uploads[file_id] = raw
            return 200, {"ok": True}
        if method == "response_url":
            return 200, {"ok": True}
        if headers.get("authorization") != f"Bearer {self.token}":
            return 200, {"ok": False, "error": "invalid_auth"}
        api = _API.get(method)
        if api is None:
            return 200, {"ok": False, "error": "unknown_method"}
        with self._lock:
            failure = self._failures.get(method, []).pop(0) if self._failures.get(method) else None
        if failure:
            return 200, {"ok": False, "error": failure}
        return 200, api(self, args)

    def _record(self, call: Call) -> None:
        with self._changed:
            self.calls.append(call)
            self._changed.notify_all()


def _auth_test(slack: FakeSlack, args: dict) -> dict:
    return {"ok": True, "url": "https://fake-team.slack.com/", "team": "Fake Team", "user": "advisor",
            "team_id": TEAM_ID, "user_id": BOT_USER_ID, "bot_id": BOT_ID, "is_enterprise_install": False}


def _post_message(slack: FakeSlack, args: dict) -> dict:
    channel = args.get("channel", "")
    if channel in slack.not_in_channel:
        return {"ok": False, "error": "not_in_channel"}
    if not (args.get("text") or args.get("blocks")):
        return {"ok": False, "error": "no_text"}
    ts = slack.next_ts()
    message = {"type": "message", "user": BOT_USER_ID, "bot_id": BOT_ID, "app_id": APP_ID, "ts": ts,
               "text": args.get("text", ""), "blocks": _blocks(args), "team": TEAM_ID}
    if args.get("thread_ts"):
        message["thread_ts"] = args["thread_ts"]
    return {"ok": True, "channel": channel, "ts": ts, "message": message}


def _update(slack: FakeSlack, args: dict) -> dict:
    if args.get("channel") in slack.not_in_channel:
        return {"ok": False, "error": "not_in_channel"}
    if not args.get("ts"):
        return {"ok": False, "error": "message_not_found"}
    return {"ok": True, "channel": args["channel"], "ts": args["ts"], "text": args.get("text", ""),
            "message": {"text": args.get("text", ""), "blocks": _blocks(args), "user": BOT_USER_ID}}


def _post_ephemeral(slack: FakeSlack, args: dict) -> dict:
    if args.get("channel") in slack.not_in_channel:
        return {"ok": False, "error": "not_in_channel"}
    return {"ok": True, "message_ts": slack.next_ts()}


def _upload_url(slack: FakeSlack, args: dict) -> dict:
    if not args.get("filename") or not str(args.get("length", "")).isdigit():
        return {"ok": False, "error": "invalid_arguments"}
    file_id = f"F{next(slack._file_ids):08d}"
    return {"ok": True, "file_id": file_id, "upload_url": f"{slack.base}/upload/{file_id}"}


def _complete_upload(slack: FakeSlack, args: dict) -> dict:
    files = args.get("files")
    files = json.loads(files) if isinstance(files, str) else files
    channel = args.get("channel_id")
    if channel in slack.not_in_channel:
        return {"ok": False, "error": "not_in_channel"}
    with slack._lock:
        missing = [f["id"] for f in files if f["id"] not in slack.uploads]
    if missing:
        return {"ok": False, "error": "file_not_found"}
    return {"ok": True, "files": [{"id": f["id"], "title": f.get("title"), "channels": [channel]} for f in files]}


def _conversations_info(slack: FakeSlack, args: dict) -> dict:
    channel = args.get("channel", "")
    return {"ok": True, "channel": {"id": channel, "is_member": channel not in slack.not_in_channel}}


_API: dict[str, Callable[[FakeSlack, dict], dict]] = {
    "auth.test": _auth_test,
    "chat.postMessage": _post_message,
    "chat.update": _update,
    "chat.postEphemeral": _post_ephemeral,
    "files.getUploadURLExternal": _upload_url,
    "files.completeUploadExternal": _complete_upload,
    "conversations.info": _conversations_info,
}


def _blocks(args: dict) -> list:
    blocks = args.get("blocks") or []
    return json.loads(blocks) if isinstance(blocks, str) else blocks


def _short(args: dict) -> str:
    return json.dumps(args, default=str)[:200]


def _handler_for(slack: FakeSlack) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            self._serve()

        def do_POST(self) -> None:
            self._serve()

        def _serve(self) -> None:
            url = urlparse(self.path)
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            headers = {k.lower(): v for k, v in self.headers.items()}
            parts = url.path.strip("/").split("/")
            binary = parts[0] == "upload"
            args = {} if binary else _parse_args(url.query, raw, headers.get("content-type", ""))
            if parts[0] == "api" and len(parts) == 2:
                method = parts[1]
            elif parts[0] == "upload" and len(parts) == 2:
                method, args = "upload", {"file_id": parts[1]}
            elif parts[0] == "response" and len(parts) == 2:
                method, args = "response_url", {"name": parts[1], **args}
            else:
                self._reply(404, {"ok": False, "error": "not_found"})
                return
            status, result = slack.handle(method, args, headers, raw)
            slack._record(Call(method, args, headers, time.monotonic(), result))
            self._reply(status, result)

        def _reply(self, status: int, payload: dict) -> None:
            body = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


def _parse_args(query: str, raw: bytes, content_type: str) -> dict[str, Any]:
    args: dict[str, Any] = {k: v[0] for k, v in parse_qs(query).items()}
    if not raw:
        return args
    if "json" in content_type:
        args.update(json.loads(raw.decode()))
    elif "x-www-form-urlencoded" in content_type:
        args.update({k: v[0] for k, v in parse_qs(raw.decode()).items()})
    return args


# --- signing requests as Slack does --------------------------------------------------------------


def sign(body: str, *, secret: str = SIGNING_SECRET, timestamp: int | None = None) -> dict[str, str]:
    """Slack's request signature: v0=HMAC-SHA256(secret, "v0:{ts}:{body}") (Slack docs,
    "Verifying requests from Slack"), double-checked with slack_sdk's own verifier."""
    ts = str(int(time.time()) if timestamp is None else timestamp)
    digest = hmac.new(secret.encode(), f"v0:{ts}:{body}".encode(), hashlib.sha256).hexdigest()
    headers = {"X-Slack-Request-Timestamp": ts, "X-Slack-Signature": f"v0={digest}"}
    if timestamp is None:
        assert SignatureVerifier(secret).is_valid(body, ts, headers["X-Slack-Signature"])
    return headers


def command_body(text: str, *, command: str = "/finetune", channel: str = "CGENERAL", user: str = "UALICE",
                 response_url: str = "http://127.0.0.1:9/response/none") -> tuple[str, str]:
    body = urlencode({
        "token": "legacy-verification-token", "team_id": TEAM_ID, "team_domain": "fake-team",
        "channel_id": channel, "channel_name": "general", "user_id": user, "user_name": "alice",
        "command": command, "text": text, "api_app_id": APP_ID, "is_enterprise_install": "false",
        "response_url": response_url, "trigger_id": f"{time.time_ns()}.trigger",
    })
    return body, "application/x-www-form-urlencoded"


_event_ids = itertools.count(1)


def event_body(event: dict[str, Any], *, event_id: str | None = None) -> tuple[str, str]:
    body = json.dumps({
        "token": "legacy-verification-token", "team_id": TEAM_ID, "api_app_id": APP_ID,
        "event": {"event_ts": event.get("ts"), **event}, "type": "event_callback",
        "event_id": event_id or f"Ev{time.time_ns()}{next(_event_ids)}", "event_time": int(time.time()),
        "authorizations": [{"team_id": TEAM_ID, "user_id": BOT_USER_ID, "is_bot": True}],
    })
    return body, "application/json"


def action_body(action_id: str, value: str, *, channel: str, message_ts: str, thread_ts: str | None = None,
                user: str = "UALICE", response_url: str = "http://127.0.0.1:9/response/none") -> tuple[str, str]:
    payload = {
        "type": "block_actions", "team": {"id": TEAM_ID, "domain": "fake-team"},
        "user": {"id": user, "username": "alice", "team_id": TEAM_ID}, "api_app_id": APP_ID,
        "container": {"type": "message", "message_ts": message_ts, "channel_id": channel,
                      "is_ephemeral": False, **({"thread_ts": thread_ts} if thread_ts else {})},
        "trigger_id": f"{time.time_ns()}.trigger", "channel": {"id": channel, "name": "general"},
        "message": {"type": "message", "ts": message_ts, "user": BOT_USER_ID, "bot_id": BOT_ID,
                    **({"thread_ts": thread_ts} if thread_ts else {})},
        "response_url": response_url,
        "actions": [{"action_id": action_id, "block_id": "actions", "value": value, "type": "button",
                     "action_ts": f"{time.time():.6f}"}],
    }
    return urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded"


# --- the real bot in a subprocess ----------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Reply:
    status: int
    body: str
    seconds: float


class BotProcess:
    """``python -m bot`` in HTTP mode against a FakeSlack, with its own state db and catalog copy."""

    def __init__(self, slack: FakeSlack, workdir: Path, *, env: dict[str, str] | None = None):
        self.slack = slack
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.state_db = self.workdir / "state.db"
        self.catalog = self.workdir / "catalog.db"
        if not self.catalog.exists():
            shutil.copy(ROOT / "catalog.db", self.catalog)
        self.port = free_port()
        self.log = self.workdir / f"bot-{self.port}.log"
        self.extra_env = env or {}
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLACK_")}
        env.update({
            "SLACK_BOT_TOKEN": self.slack.token, "SLACK_SIGNING_SECRET": SIGNING_SECRET,
            "SLACK_API_URL": self.slack.api_url, "PORT": str(self.port),
            "ADVISOR_STATE_DB": str(self.state_db), "ADVISOR_CATALOG": str(self.catalog),
            "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p),
            **self.extra_env,
        })
        return env

    def start(self, timeout: float = 30.0) -> "BotProcess":
        out = self.log.open("ab")
        self.proc = subprocess.Popen([sys.executable, "-m", "bot"], cwd=self.workdir, env=self.env(),
                                     stdout=out, stderr=subprocess.STDOUT)
        out.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"bot exited with {self.proc.returncode}:\n{self.output()}")
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=1) as resp:
                    if resp.status == 200:
                        return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"bot did not become healthy in {timeout}s:\n{self.output()}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)

    def restart(self) -> "BotProcess":
        self.stop()
        self.port = free_port()
        return self.start()

    def wait_remembered(self, channel: str, thread_ts: str, timeout: float = 10.0) -> None:
        """Wait until the bot has stored the thread (it does so right after chat.postMessage
        returns, so a test's follow-up must not overtake it; a person never types that fast)."""
        import sqlite3

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.state_db.exists():
                conn = sqlite3.connect(f"file:{self.state_db}?mode=ro", uri=True, timeout=5)
                try:
                    row = conn.execute("SELECT 1 FROM threads WHERE channel = ? AND thread_ts = ?",
                                       (channel, thread_ts)).fetchone()
                except sqlite3.OperationalError:
                    row = None
                finally:
                    conn.close()
                if row:
                    return
            time.sleep(0.02)
        raise AssertionError(f"the bot did not remember thread {channel}/{thread_ts} within {timeout}s")

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    # --- sending signed requests ----------------------------------------------------------------

    def post(self, body: str, content_type: str, *, headers: dict[str, str] | None = None,
             signed: bool = True, path: str = "/slack/events") -> Reply:
        all_headers = {"Content-Type": content_type, **(sign(body) if signed else {}), **(headers or {})}
        request = urllib.request.Request(self.url + path, data=body.encode(), headers=all_headers, method="POST")
        start = time.perf_counter()
        try:
            with urllib.request.urlopen(request, timeout=10) as resp:
                return Reply(resp.status, resp.read().decode(), time.perf_counter() - start)
        except urllib.error.HTTPError as err:
            return Reply(err.code, err.read().decode(), time.perf_counter() - start)

    def command(self, text: str, **kwargs: Any) -> Reply:
        return self.post(*command_body(text, **kwargs))

    def event(self, event: dict[str, Any], *, event_id: str | None = None, headers: dict[str, str] | None = None) -> Reply:
        return self.post(*event_body(event, event_id=event_id), headers=headers)

    def action(self, action_id: str, value: str, **kwargs: Any) -> Reply:
        return self.post(*action_body(action_id, value, **kwargs))


# --- checking what the bot posts -----------------------------------------------------------------


def assert_valid_blocks(blocks: Any) -> list[dict[str, Any]]:
    """Every rendered message goes through this: it parses back with slack_sdk.models.blocks
    (which enforces text, header and field limits) and keeps Block Kit's limits (50 blocks,
    3000 characters per section text, 10 fields, 150-character header, 2000-character button
    values). Returns the blocks as a list of dicts."""
    from slack_sdk.models.blocks import Block

    from bot.render.blockkit import problems

    blocks = json.loads(blocks) if isinstance(blocks, str) else blocks
    assert isinstance(blocks, list) and blocks, f"no blocks: {blocks!r}"
    assert not problems(blocks), problems(blocks)
    parsed = Block.parse_all(blocks)
    for raw, block in zip(blocks, parsed, strict=True):
        assert block is not None and block.type == raw["type"], raw
        block.validate_json()
        for element in raw.get("elements", []) if raw["type"] == "actions" else []:
            assert len(element.get("value", "")) <= 2000 and len(element["text"]["text"]) <= 75, element
    return blocks


def message_text(blocks: list[dict[str, Any]]) -> str:
    """Every piece of text of a message, joined (for assertions on content)."""
    out: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("text"), str):
                out.append(node["text"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(blocks)
    return "\n".join(out)
