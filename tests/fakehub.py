"""A fake Hugging Face Hub on 127.0.0.1 that serves files the way the Hub's HTTP API does for
``huggingface_hub.hf_hub_download`` (huggingface_hub 2.4, ``file_download.py``,
``_get_metadata_or_catch_error`` and ``utils/_http.py``, ``hf_raise_for_status``):

- ``HEAD``/``GET /{org}/{name}/resolve/{revision}/{file}``: for a branch or tag, a 307 to the same
  host at ``/api/resolve-cache/models/{org}/{name}/{commit}/{file}`` carrying ``X-Repo-Commit``
  (the Hub's own redirect to its resolve cache); for a commit, the file itself;
- the file: 200 with ``ETag`` (the git blob sha1 of a file kept in git, like config.json),
  ``X-Repo-Commit`` and ``Content-Length``; the body on ``GET``;
- errors with the Hub's ``X-Error-Code`` header: ``RepoNotFound`` (404), ``RevisionNotFound``
  (404), ``EntryNotFound`` (404, with ``X-Repo-Commit``), ``GatedRepo`` (403).

Every request is recorded (``requests``: method and path), so a test can check that nothing but
config.json was ever asked for.

    with FakeHub({"Qwen/Qwen3-4B": {"config.json": {...}}}) as hub:
        HubReader(endpoint=hub.url, cache_dir=tmp).model("Qwen/Qwen3-4B")
"""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit


def git_blob_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class FakeHub:
    def __init__(self, repos: dict[str, dict[str, Any]], *, gated: set[str] | None = None):
        """``repos``: repo id -> {file name: JSON object or bytes}."""
        self.files: dict[str, dict[str, bytes]] = {}
        self.commits: dict[str, str] = {}
        for repo, files in repos.items():
            self.add(repo, files)
        self.gated = set(gated or ())
        self.requests: list[tuple[str, str]] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def add(self, repo: str, files: dict[str, Any]) -> None:
        encoded = {name: body if isinstance(body, bytes) else json.dumps(body, indent=2).encode()
                   for name, body in files.items()}
        self.files[repo] = encoded
        digest = hashlib.sha1(repr(sorted((k, v) for k, v in encoded.items())).encode()).hexdigest()
        self.commits[repo] = digest  # a 40-hex commit that changes when the files do

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def paths(self) -> list[str]:
        with self._lock:
            return [p for _, p in self.requests]

    def __enter__(self) -> "FakeHub":
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_HEAD(self) -> None:
                hub._serve(self, body=False)

            def do_GET(self) -> None:
                hub._serve(self, body=True)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    # --- the protocol ---

    def _serve(self, h: BaseHTTPRequestHandler, *, body: bool) -> None:
        path = unquote(urlsplit(h.path).path)
        with self._lock:
            self.requests.append((h.command, path))
        parts = path.strip("/").split("/")
        if len(parts) >= 7 and parts[:3] == ["api", "resolve-cache", "models"]:
            repo, commit, name = f"{parts[3]}/{parts[4]}", parts[5], "/".join(parts[6:])
            return self._file(h, repo, commit, name, body)
        if len(parts) >= 5 and parts[2] == "resolve":
            repo, revision, name = f"{parts[0]}/{parts[1]}", parts[3], "/".join(parts[4:])
            if repo not in self.files:
                return self._error(h, 404, "RepoNotFound", "Repository not found")
            if repo in self.gated:
                return self._error(h, 403, "GatedRepo", "Access to model is restricted")
            commit = self.commits[repo]
            if revision == commit:
                return self._file(h, repo, commit, name, body)
            if revision not in ("main",):
                return self._error(h, 404, "RevisionNotFound", "Invalid rev id")
            h.send_response(307)
            h.send_header("Location", f"/api/resolve-cache/models/{repo}/{commit}/{name}")
            h.send_header("X-Repo-Commit", commit)
            h.send_header("Content-Length", "0")
            h.end_headers()
            return None
        return self._error(h, 404, None, "Not found")

    def _file(self, h: BaseHTTPRequestHandler, repo: str, commit: str, name: str, body: bool) -> None:
        if repo not in self.files or commit != self.commits[repo]:
            return self._error(h, 404, "RevisionNotFound", "Invalid rev id")
        data = self.files[repo].get(name)
        if data is None:
            return self._error(h, 404, "EntryNotFound", "Entry not found", commit=commit)
        h.send_response(200)
        h.send_header("ETag", f'"{git_blob_sha1(data)}"')
        h.send_header("X-Repo-Commit", commit)
        h.send_header("Content-Type", "application/json" if name.endswith(".json") else "application/octet-stream")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        if body:
            h.wfile.write(data)
        return None

    def _error(self, h: BaseHTTPRequestHandler, status: int, code: str | None, message: str,
               commit: str | None = None) -> None:
        payload = json.dumps({"error": message}).encode()
        h.send_response(status)
        if code:
            h.send_header("X-Error-Code", code)
        h.send_header("X-Error-Message", message)
        if commit:
            h.send_header("X-Repo-Commit", commit)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(payload)))
        h.end_headers()
        if h.command != "HEAD":
            h.wfile.write(payload)
        return None
