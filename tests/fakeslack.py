"""A fake Slack for end-to-end tests: a real HTTP server on 127.0.0.1 that speaks the Web API
methods the bot calls, keeps the conversations it was sent, misbehaves on command the way Slack
does, and the helpers to sign requests exactly as Slack signs them and to run the real bot
(``python -m bot``, gunicorn and all) against it.

Modelled on slack-bolt's own offline tests (slackapi/bolt-python, tests/mock_web_api_server/): a
``http.server`` handler answering realistic payloads. Here the server is threaded and:

- keeps every call (``calls``, ``wait_for``) and every message per channel, with its thread and
  its metadata, and answers ``conversations.history`` and ``conversations.replies`` from them
  (``include_all_metadata`` as Slack does: metadata only when asked), so the bot's "was this
  already posted?" look-up (bot/delivery.py) runs here as it would against Slack;
- gives each message a ``ts`` from the wall clock (unique, increasing), as Slack does;
- answers ``not_in_channel`` for channels configured so, implements the three-step
  ``files_upload_v2`` (``files.getUploadURLExternal``, the upload URL,
  ``files.completeUploadExternal``, which posts a message sharing the file) and records
  ``response_url`` posts;
- injects faults on command (``fault``): HTTP 429 with ``Retry-After`` (Slack docs, "Rate
  limits"), 5xx, slow answers, dropped connections, an ``ok: false`` error; each either before
  the call is processed or after it (the post was made but its answer is lost: the case that
  duplicates messages when a client simply retries).

    with FakeSlack(not_in_channel={"CPRIVATE"}) as slack:
        slack.fault("chat.postMessage", "ratelimited", retry_after=1)
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
import base64
import collections
import shutil
import signal
import socket
import socketserver
import struct
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
FAULTS = ("ratelimited", "server_error", "slow", "drop", "error")


@dataclass
class Call:
    method: str  # Web API method ("chat.postMessage"), "upload", or "response_url"
    args: dict[str, Any]
    headers: dict[str, str]
    at: float
    result: dict[str, Any] = field(default_factory=dict)
    fault: str | None = None  # the fault injected on this call, if any
    processed: bool = True  # False: refused before doing anything (429, 5xx or a drop before)


@dataclass
class Fault:
    method: str
    kind: str
    times: int
    where: Callable[[dict], bool] | None
    after: bool
    status: int
    retry_after: int
    delay: float
    error: str


class _BurstServer(ThreadingHTTPServer):
    # a burst (benchmarks/load.py) opens many connections at once; the default queue of 5 resets them
    request_queue_size = 256
    daemon_threads = True


class _SocketModeServer(socketserver.ThreadingTCPServer):
    """Slack's Socket Mode WebSocket endpoint (the URL apps.connections.open hands out): the
    RFC 6455 handshake, a "hello", envelopes sent on command, acks recorded, pings answered."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, slack: "FakeSlack"):
        self.slack = slack
        super().__init__(("127.0.0.1", 0), _SocketModeHandler)


def _ws_frame(opcode: int, payload: bytes) -> bytes:
    head = bytes([0x80 | opcode])
    n = len(payload)
    if n < 126:
        head += bytes([n])
    elif n < 65536:
        head += bytes([126]) + struct.pack("!H", n)
    else:
        head += bytes([127]) + struct.pack("!Q", n)
    return head + payload


class _SocketModeHandler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        slack: FakeSlack = self.server.slack  # type: ignore[attr-defined]
        key = None
        while True:
            line = self.rfile.readline().decode("latin-1")
            if not line or line in ("\r\n", "\n"):
                break
            if line.lower().startswith("sec-websocket-key:"):
                key = line.split(":", 1)[1].strip()
        if key is None:
            return
        accept = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest()).decode()
        self.wfile.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          f"Sec-WebSocket-Accept: {accept}\r\n\r\n").encode())
        lock = threading.Lock()

        def send(opcode: int, payload: bytes) -> None:
            with lock:
                self.wfile.write(_ws_frame(opcode, payload))
                self.wfile.flush()

        send(1, json.dumps({"type": "hello", "num_connections": 1,
                            "connection_info": {"app_id": APP_ID}, "debug_info": {"host": "fake"}}).encode())
        with slack._changed:
            slack._sockets.append(send)
            slack._changed.notify_all()
        try:
            while True:
                head = self.rfile.read(2)
                if len(head) < 2:
                    return
                opcode, n = head[0] & 0x0F, head[1] & 0x7F
                if n == 126:
                    n = struct.unpack("!H", self.rfile.read(2))[0]
                elif n == 127:
                    n = struct.unpack("!Q", self.rfile.read(8))[0]
                mask = self.rfile.read(4) if head[1] & 0x80 else b"\0\0\0\0"
                data = bytes(b ^ mask[i % 4] for i, b in enumerate(self.rfile.read(n)))
                if opcode == 8:  # close
                    return
                if opcode == 9:  # ping: pong with the same payload (the client checks it)
                    send(10, data)
                elif opcode == 1:
                    ack = json.loads(data.decode())
                    with slack._changed:
                        slack.socket_acks.append(ack)
                        slack._changed.notify_all()
        except OSError:
            return
        finally:
            with slack._changed:
                if send in slack._sockets:
                    slack._sockets.remove(send)


class FakeSlack:
    """The Web API on 127.0.0.1:<random port>. Thread-safe; use as a context manager."""

    def __init__(self, *, not_in_channel: set[str] | frozenset[str] = frozenset(), token: str = BOT_TOKEN,
                 home_tab_enabled: bool = True):
        self.not_in_channel = set(not_in_channel)
        self.token = token
        self.home_tab_enabled = home_tab_enabled  # the app's features.app_home.home_tab_enabled
        self.home_views: dict[str, dict[str, Any]] = {}  # user id -> the Home view published for them
        self.calls: list[Call] = []
        self.uploads: dict[str, bytes] = {}
        self.messages: dict[str, list[dict[str, Any]]] = {}  # channel -> messages, oldest first
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._last_ts = 0
        self._file_ids = itertools.count(1)
        self._faults: list[Fault] = []
        self._server = _BurstServer(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        self.socket_acks: list[dict[str, Any]] = []
        self._sockets: list[Callable[[int, bytes], None]] = []
        self._socket_server = _SocketModeServer(self)
        self._socket_thread = threading.Thread(target=self._socket_server.serve_forever, args=(0.05,), daemon=True)

    # --- lifecycle -----------------------------------------------------------------------------

    def start(self) -> "FakeSlack":
        self._thread.start()
        self._socket_thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._socket_server.shutdown()
        self._socket_server.server_close()

    def posts_per_key(self) -> "collections.Counter[str]":
        """How many messages exist per idempotency key (the bot's message metadata), across every
        conversation: the exactly-once checks of the fault tests and benchmarks/load.py."""
        counts: collections.Counter = collections.Counter()
        with self._lock:
            for msgs in self.messages.values():
                for m in msgs:
                    key = ((m.get("metadata") or {}).get("event_payload") or {}).get("key")
                    if key:
                        counts[key] += 1
        return counts

    # --- Socket Mode ---------------------------------------------------------------------------

    @property
    def socket_url(self) -> str:
        host, port = self._socket_server.server_address[:2]
        return f"ws://{host}:{port}/link/?ticket=fake"

    def socket_send(self, envelope: dict[str, Any], timeout: float = 30.0) -> None:
        """Send an envelope (slash_commands, events_api, interactive) to a connected client."""
        with self._changed:
            deadline = time.monotonic() + timeout
            while not self._sockets:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("no Socket Mode client connected")
                self._changed.wait(left)
            send = self._sockets[-1]
        send(1, json.dumps(envelope).encode())

    def wait_socket_ack(self, envelope_id: str, timeout: float = 30.0) -> dict[str, Any]:
        with self._changed:
            deadline = time.monotonic() + timeout
            while True:
                found = [a for a in self.socket_acks if a.get("envelope_id") == envelope_id]
                if found:
                    return found[0]
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no ack for envelope {envelope_id} within {timeout}s")
                self._changed.wait(left)

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

    def calls_to(self, method: str, where: Callable[[Call], bool] | None = None, *,
                 processed_only: bool = True) -> list[Call]:
        """Calls to ``method`` (by default only those the fake carried out, not the ones a fault
        refused before doing anything)."""
        with self._lock:
            return [c for c in self.calls if c.method == method and (c.processed or not processed_only)
                    and (where is None or where(c))]

    def wait_for(self, method: str, where: Callable[[Call], bool] | None = None, *, count: int = 1,
                 timeout: float = 15.0, processed_only: bool = True) -> list[Call]:
        """The first ``count`` calls to ``method`` matching ``where``, waiting up to ``timeout``."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                found = [c for c in self.calls if c.method == method and (c.processed or not processed_only)
                         and (where is None or where(c))]
                if len(found) >= count:
                    return found[:count]
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = [(c.method, c.fault, _short(c.args)) for c in self.calls[-10:]]
                    raise AssertionError(f"no {count} x {method} within {timeout}s; last calls: {seen}")
                self._changed.wait(left)

    def in_conversation(self, channel: str, thread_ts: str | None = None) -> list[dict[str, Any]]:
        """Messages that exist in ``channel`` (in the thread ``thread_ts`` when given), oldest first."""
        with self._lock:
            msgs = list(self.messages.get(channel, []))
        if thread_ts is None:
            return msgs
        return [m for m in msgs if m.get("thread_ts") == thread_ts or m["ts"] == thread_ts]

    def fault(self, method: str, kind: str, *, times: int = 1, where: Callable[[dict], bool] | None = None,
              after: bool = False, status: int = 500, retry_after: int = 1, delay: float = 0.0,
              error: str = "fatal_error") -> None:
        """Misbehave on the next ``times`` calls to ``method`` whose arguments ``where`` accepts:

        ``ratelimited``   HTTP 429 ``{"ok": false, "error": "ratelimited"}`` with ``Retry-After``
        ``server_error``  HTTP ``status`` (500, 503) with ``{"ok": false, "error": "internal_error"}``
        ``slow``          the answer comes ``delay`` seconds late (the call is carried out first)
        ``drop``          the connection is closed without an answer
        ``error``         ``{"ok": false, "error": error}`` (HTTP 200, as Slack answers errors)

        ``after=True``: the call is carried out (the message posted) before the 5xx or the drop."""
        assert kind in FAULTS, kind
        with self._lock:
            self._faults.append(Fault(method, kind, times, where, after, status, retry_after, delay, error))

    def fail_next(self, method: str, error: str = "fatal_error") -> None:
        """The next call to ``method`` answers ok=false with ``error`` (Slack's own codes)."""
        self.fault(method, "error", error=error)

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def _take_fault(self, method: str, args: dict) -> Fault | None:
        with self._lock:
            for f in self._faults:
                if f.method == method and (f.where is None or f.where(args)):
                    f.times -= 1
                    if f.times <= 0:
                        self._faults.remove(f)
                    return f
        return None

    def reset(self) -> None:
        with self._lock:
            self.calls.clear()
            self.uploads.clear()
            self.messages.clear()
            self.home_views.clear()

    # --- the Web API ---------------------------------------------------------------------------

    def next_ts(self) -> str:
        """Slack-like ts: seconds.microseconds of the wall clock, unique and increasing."""
        with self._lock:
            n = max(self._last_ts + 1, int(time.time() * 1_000_000))
            self._last_ts = n
        return f"{n // 1_000_000}.{n % 1_000_000:06d}"

    def handle(self, method: str, args: dict[str, Any], headers: dict[str, str], raw: bytes) -> tuple[int, dict]:
        if method == "upload":
            with self._lock:
                self.uploads[args["file_id"]] = raw
            return 200, {"ok": True}
        if method == "response_url":
            return 200, {"ok": True}
        if method == "api.test":
            return 200, {"ok": True, "args": {}}
        if method == "apps.connections.open":
            if not (headers.get("authorization") or "").startswith("Bearer xapp-"):
                return 200, {"ok": False, "error": "not_allowed_token_type"}
            return 200, {"ok": True, "url": self.socket_url}
        if headers.get("authorization") != f"Bearer {self.token}":
            return 200, {"ok": False, "error": "not_authed" if not headers.get("authorization") else "invalid_auth"}
        api = _API.get(method)
        if api is None:
            return 200, {"ok": False, "error": "unknown_method"}
        return 200, api(self, args)

    def _record(self, call: Call) -> None:
        with self._changed:
            self.calls.append(call)
            self._changed.notify_all()

    def _store(self, channel: str, message: dict[str, Any]) -> None:
        with self._lock:
            self.messages.setdefault(channel, []).append(message)


def _auth_test(slack: FakeSlack, args: dict) -> dict:
    return {"ok": True, "url": "https://fake-team.slack.com/", "team": "Fake Team", "user": "advisor",
            "team_id": TEAM_ID, "user_id": BOT_USER_ID, "bot_id": BOT_ID, "is_enterprise_install": False}


def _json_arg(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) and value[:1] in "[{" else value


def _post_message(slack: FakeSlack, args: dict) -> dict:
    channel = args.get("channel", "")
    if channel in slack.not_in_channel:
        return {"ok": False, "error": "not_in_channel"}
    if not (args.get("text") or args.get("blocks")):
        return {"ok": False, "error": "no_text"}
    if _tables(args) > 1:
        return ONE_TABLE_ONLY
    ts = slack.next_ts()
    message = {"type": "message", "user": BOT_USER_ID, "bot_id": BOT_ID, "app_id": APP_ID, "ts": ts,
               "text": args.get("text", ""), "blocks": _blocks(args), "team": TEAM_ID}
    if args.get("thread_ts"):
        message["thread_ts"] = args["thread_ts"]
    if args.get("metadata"):
        message["metadata"] = _json_arg(args["metadata"])
    slack._store(channel, message)
    public = {k: v for k, v in message.items() if k != "metadata"}
    return {"ok": True, "channel": channel, "ts": ts, "message": public}


def _tables(args: dict) -> int:
    return sum(1 for b in _blocks(args) or [] if isinstance(b, dict) and b.get("type") == "table")


# Slack refuses a message with more than one table block (docs.slack.dev, table block: one table
# per message); the error names it in response_metadata.
ONE_TABLE_ONLY = {"ok": False, "error": "invalid_attachments",
                  "response_metadata": {"messages": ["only_one_table_allowed"]}}


def _update(slack: FakeSlack, args: dict) -> dict:
    if args.get("channel") in slack.not_in_channel:
        return {"ok": False, "error": "not_in_channel"}
    if _tables(args) > 1:
        return ONE_TABLE_ONLY
    if not args.get("ts"):
        return {"ok": False, "error": "message_not_found"}
    with slack._lock:
        for m in slack.messages.get(args["channel"], []):
            if m["ts"] == args["ts"]:
                m.update(text=args.get("text", m.get("text", "")), blocks=_blocks(args) or m.get("blocks"), edited=True)
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
    with slack._lock:
        slack.uploads.setdefault(f"name:{file_id}", args["filename"].encode())
    return {"ok": True, "file_id": file_id, "upload_url": f"{slack.base}/upload/{file_id}"}


def _complete_upload(slack: FakeSlack, args: dict) -> dict:
    files = _json_arg(args.get("files")) or []
    channel = args.get("channel_id")
    if channel in slack.not_in_channel:
        return {"ok": False, "error": "not_in_channel"}
    with slack._lock:
        missing = [f["id"] for f in files if f["id"] not in slack.uploads]
        names = {f["id"]: slack.uploads.get(f"name:{f['id']}", b"").decode() for f in files}
    if missing:
        return {"ok": False, "error": "file_not_found"}
    shared = [{"id": f["id"], "title": f.get("title"), "name": names[f["id"]]} for f in files]
    if channel:
        message = {"type": "message", "user": BOT_USER_ID, "bot_id": BOT_ID, "ts": slack.next_ts(),
                   "text": args.get("initial_comment") or "", "files": shared, "upload": True}
        if args.get("thread_ts"):
            message["thread_ts"] = args["thread_ts"]
        slack._store(channel, message)
    return {"ok": True, "files": [{"id": f["id"], "title": f.get("title"), "channels": [channel]} for f in files]}


def _page(messages: list[dict], args: dict) -> dict:
    """One page of messages, with Slack's cursor paging and its metadata rule."""
    with_meta = str(args.get("include_all_metadata", "")).lower() in ("true", "1")
    oldest = float(args.get("oldest") or 0)
    messages = [m for m in messages if float(m["ts"]) > oldest or args.get("inclusive") and float(m["ts"]) >= oldest]
    start = int(args.get("cursor") or 0)
    limit = int(args.get("limit") or 100)
    page = messages[start:start + limit]
    out = [m if with_meta else {k: v for k, v in m.items() if k != "metadata"} for m in page]
    more = start + limit < len(messages)
    return {"ok": True, "messages": out, "has_more": more,
            "response_metadata": {"next_cursor": str(start + limit) if more else ""}}


def _history(slack: FakeSlack, args: dict) -> dict:
    channel = args.get("channel", "")
    with slack._lock:
        top = [m for m in slack.messages.get(channel, []) if not m.get("thread_ts") or m["thread_ts"] == m["ts"]]
    return _page(list(reversed(top)), args)  # newest first, as Slack returns history


def _replies(slack: FakeSlack, args: dict) -> dict:
    channel, ts = args.get("channel", ""), args.get("ts", "")
    with slack._lock:
        thread = [m for m in slack.messages.get(channel, []) if m["ts"] == ts or m.get("thread_ts") == ts]
    return _page(thread, args)  # the parent (when the fake knows it) and its replies, oldest first


def _conversations_info(slack: FakeSlack, args: dict) -> dict:
    channel = args.get("channel", "")
    return {"ok": True, "channel": {"id": channel, "is_member": channel not in slack.not_in_channel}}


def _usergroup_users(slack: FakeSlack, args: dict) -> dict:
    return {"ok": True, "users": []}


def _permalink(slack: FakeSlack, args: dict) -> dict:
    """chat.getPermalink: ``https://<team>.slack.com/archives/<channel>/p<ts without the dot>``,
    with ``?thread_ts=<parent>&cid=<channel>`` for a reply (Slack docs, chat.getPermalink)."""
    channel, ts = args.get("channel", ""), args.get("message_ts", "")
    with slack._lock:
        if channel not in slack.messages:
            return {"ok": False, "error": "channel_not_found"}
        message = next((m for m in slack.messages[channel] if m["ts"] == ts), None)
    if message is None:
        return {"ok": False, "error": "message_not_found"}
    link = f"https://fake-team.slack.com/archives/{channel}/p{ts.replace('.', '')}"
    if message.get("thread_ts") and message["thread_ts"] != ts:
        link += f"?thread_ts={message['thread_ts']}&cid={channel}"
    return {"ok": True, "channel": channel, "permalink": link}


# Slack docs, views.publish and "Block Kit: surfaces": a Home tab view holds at most 100 blocks;
# a view payload over 250 kB is refused as view_too_large.
MAX_VIEW_BLOCKS = 100
MAX_VIEW_BYTES = 250_000


def _views_publish(slack: FakeSlack, args: dict) -> dict:
    """views.publish as Slack answers it: the published view (id, hash, blocks, ...) or one of its
    errors: invalid_arguments (with response_metadata.messages), not_enabled, view_too_large,
    hash_conflict."""
    from slack_sdk.models.blocks import Block

    user, view = args.get("user_id"), _json_arg(args.get("view"))
    if not user or not isinstance(view, dict):
        return {"ok": False, "error": "invalid_arguments",
                "response_metadata": {"messages": ["[ERROR] missing required field: " + ("user_id" if not user else "view")]}}
    if view.get("type") != "home":
        return {"ok": False, "error": "invalid_arguments",
                "response_metadata": {"messages": ["[ERROR] must be one of: home [json-pointer:/view/type]"]}}
    if not slack.home_tab_enabled:
        return {"ok": False, "error": "not_enabled"}
    if len(json.dumps(view)) > MAX_VIEW_BYTES:
        return {"ok": False, "error": "view_too_large"}
    blocks = view.get("blocks") or []
    if not isinstance(blocks, list) or len(blocks) > MAX_VIEW_BLOCKS:
        return {"ok": False, "error": "invalid_arguments", "response_metadata": {
            "messages": [f"[ERROR] no more than {MAX_VIEW_BLOCKS} items allowed [json-pointer:/view/blocks]"]}}
    try:
        for raw, block in zip(blocks, Block.parse_all(blocks), strict=True):
            if block is None or block.type != raw.get("type"):
                raise ValueError(f"unknown block {raw.get('type')!r}")
            block.validate_json()
    except Exception as exc:  # what Slack reports for a block it cannot read
        return {"ok": False, "error": "invalid_arguments",
                "response_metadata": {"messages": [f"[ERROR] invalid block: {exc} [json-pointer:/view/blocks]"]}}
    with slack._lock:
        previous = slack.home_views.get(user)
        if args.get("hash") and previous is not None and args["hash"] != previous["hash"]:
            return {"ok": False, "error": "hash_conflict"}
        view_id = previous["id"] if previous else f"V{len(slack.home_views) + 1:010d}"
        published = {"id": view_id, "team_id": TEAM_ID, "type": "home", "blocks": blocks,
                     "private_metadata": view.get("private_metadata", ""), "callback_id": view.get("callback_id", ""),
                     "state": {"values": {}}, "hash": f"{time.time():.6f}.{hashlib.sha256(json.dumps(view).encode()).hexdigest()[:8]}",
                     "title": {"type": "plain_text", "text": "View Title"}, "clear_on_close": False,
                     "notify_on_close": False, "close": None, "submit": None, "previous_view_id": None,
                     "root_view_id": view_id, "app_id": APP_ID, "external_id": view.get("external_id", ""),
                     "app_installed_team_id": TEAM_ID, "bot_id": BOT_ID}
        slack.home_views[user] = published
    return {"ok": True, "view": published}


_API: dict[str, Callable[[FakeSlack, dict], dict]] = {
    "auth.test": _auth_test,
    "chat.postMessage": _post_message,
    "chat.update": _update,
    "chat.postEphemeral": _post_ephemeral,
    "files.getUploadURLExternal": _upload_url,
    "files.completeUploadExternal": _complete_upload,
    "conversations.info": _conversations_info,
    "conversations.history": _history,
    "conversations.replies": _replies,
    "usergroups.users.list": _usergroup_users,
    "chat.getPermalink": _permalink,
    "views.publish": _views_publish,
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
            fault = slack._take_fault(method, args)
            kind = fault.kind if fault else None
            processed = kind in (None, "slow", "error") or bool(fault and fault.after)
            status, result = 200, {}
            if kind == "error":
                result = {"ok": False, "error": fault.error}
            elif processed:
                status, result = slack.handle(method, args, headers, raw)
            slack._record(Call(method, args, headers, time.monotonic(), result, kind, processed and kind != "error"))
            if kind == "ratelimited":
                self._reply(429, {"ok": False, "error": "ratelimited"}, {"Retry-After": str(fault.retry_after)})
            elif kind == "server_error":
                self._reply(fault.status, {"ok": False, "error": "internal_error"})
            elif kind == "drop":
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            else:
                if kind == "slow":
                    time.sleep(fault.delay)
                self._reply(status, result)

        def _reply(self, status: int, payload: dict, extra: dict[str, str] | None = None) -> None:
            body = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                for k, v in (extra or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)
            except OSError:  # the client gave up (a timeout of its own): nothing to answer
                self.close_connection = True

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


_triggers = itertools.count(1)


def command_body(text: str, *, command: str = "/finetune", channel: str = "CGENERAL", user: str = "UALICE",
                 response_url: str = "http://127.0.0.1:9/response/none") -> tuple[str, str]:
    body = urlencode({
        "token": "legacy-verification-token", "team_id": TEAM_ID, "team_domain": "fake-team",
        "channel_id": channel, "channel_name": "general", "user_id": user, "user_name": "alice",
        "command": command, "text": text, "api_app_id": APP_ID, "is_enterprise_install": "false",
        "response_url": response_url, "trigger_id": f"{time.time_ns()}.{next(_triggers)}.trigger",
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
        "trigger_id": f"{time.time_ns()}.{next(_triggers)}.trigger", "channel": {"id": channel, "name": "general"},
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


# Outbox leases of the bots the tests start: a kill -9'd worker's jobs are taken over this late.
TEST_LEASE_S = "3"


class BotProcess:
    """``python -m bot`` (gunicorn in HTTP mode) against a FakeSlack, with its own state database
    (a SQLite file, or ``state_url``: PostgreSQL shared with other BotProcesses) and catalog copy."""

    def __init__(self, slack: FakeSlack, workdir: Path, *, env: dict[str, str] | None = None,
                 state_url: str | None = None, role: str = "all", web_workers: int = 1):
        self.slack = slack
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.state_db = self.workdir / "state.db"
        self.state_url = state_url
        self.catalog = self.workdir / "catalog.db"
        if not self.catalog.exists():
            shutil.copy(ROOT / "catalog.db", self.catalog)
        self.port = free_port()
        self.role = role
        self.web_workers = web_workers
        self.log = self.workdir / f"bot-{role}-{self.port}.log"
        self.extra_env = env or {}
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def state(self) -> str:
        """The state database this bot uses (what advisor.statedb.StateDB.open takes)."""
        return self.state_url or str(self.state_db)

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "ADVISOR_"))}
        env.update({
            "SLACK_BOT_TOKEN": self.slack.token, "SLACK_SIGNING_SECRET": SIGNING_SECRET,
            "SLACK_API_URL": self.slack.api_url, "PORT": str(self.port),
            "ADVISOR_STATE_DB": str(self.state_db), "ADVISOR_CATALOG": str(self.catalog),
            "ADVISOR_WEB_WORKERS": str(self.web_workers), "ADVISOR_OUTBOX_LEASE_S": TEST_LEASE_S,
            "ADVISOR_OUTBOX_POLL_S": "0.2", "ADVISOR_SLACK_RETRY_S": "20", "ADVISOR_STARTUP_RETRY_S": "20",
            "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p),
            **({"ADVISOR_STATE_URL": self.state_url} if self.state_url else {}),
            **self.extra_env,
        })
        return env

    def start(self, timeout: float = 90.0, *, wait: bool = True) -> "BotProcess":
        out = self.log.open("ab")
        args = [sys.executable, "-m", "bot"] + ([self.role] if self.role != "all" else [])
        self.proc = subprocess.Popen(args, cwd=self.workdir, env=self.env(), stdout=out, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        out.close()
        if wait:
            self.wait_healthy(timeout)
        return self

    def wait_healthy(self, timeout: float = 90.0) -> "BotProcess":
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"bot exited with {self.proc.returncode}:\n{self.output()[-4000:]}")
            if self.role in ("worker", "socket"):  # no port: its log says when it is ready
                if f"{self.role} process" in self.output() and " ready:" in self.output():
                    return self
                time.sleep(0.1)
                continue
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=5) as resp:
                    if resp.status == 200 and self.output().count(" ready:") >= self.web_workers:
                        return self
            except OSError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"bot did not become healthy in {timeout}s:\n{self.output()[-4000:]}")

    def health(self) -> tuple[int, dict]:
        try:
            with urllib.request.urlopen(f"{self.url}/healthz", timeout=10) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read() or b"{}")

    def workers(self) -> list[int]:
        """Pids of the gunicorn worker processes (children of the master)."""
        if self.proc is None:
            return []
        out = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == self.proc.pid:
                out.append(int(stat.parent.name))
        return sorted(out)

    def kill_9(self) -> None:
        """kill -9 of the whole bot: the master and every worker (its process group)."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        if self.proc is not None:
            try:  # workers the master did not take down (it was killed) go with the group
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def restart(self) -> "BotProcess":
        self.stop()
        self.port = free_port()
        return self.start()

    def query(self, sql: str, params: tuple = ()) -> list[dict]:
        """Read the bot's state database (SQLite file or PostgreSQL) as the bot sees it."""
        from advisor.statedb import StateDB

        return StateDB.open(self.state).query(sql, params)

    def wait_remembered(self, channel: str, thread_ts: str, timeout: float = 20.0) -> None:
        """Wait until the bot has stored the thread (it does so in the transaction that records
        the answer's delivery, right after chat.postMessage returns, so a test's follow-up must
        not overtake it; a person never types that fast)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if self.query("SELECT 1 AS x FROM threads WHERE channel = ? AND thread_ts = ?", (channel, thread_ts)):
                    return
            except Exception:  # the tables may not exist yet
                pass
            time.sleep(0.02)
        raise AssertionError(f"the bot did not remember thread {channel}/{thread_ts} within {timeout}s")

    def wait_jobs_done(self, timeout: float = 60.0) -> None:
        """Until the outbox has nothing pending or running (every acked request delivered)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.query("SELECT 1 AS x FROM outbox WHERE state IN ('pending', 'running')"):
                return
            time.sleep(0.05)
        left = self.query("SELECT key, kind, state, attempts, error FROM outbox WHERE state IN ('pending', 'running')")
        raise AssertionError(f"outbox not drained within {timeout}s: {left[:10]}")

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    # --- sending signed requests ----------------------------------------------------------------

    def post(self, body: str, content_type: str, *, headers: dict[str, str] | None = None,
             signed: bool = True, path: str = "/slack/events") -> Reply:
        all_headers = {"Content-Type": content_type, **(sign(body) if signed else {}), **(headers or {})}
        request = urllib.request.Request(self.url + path, data=body.encode(), headers=all_headers, method="POST")
        start = time.perf_counter()
        try:
            with urllib.request.urlopen(request, timeout=20) as resp:
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
