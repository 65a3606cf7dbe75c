"""A real PostgreSQL server for the test run: ``initdb`` and ``pg_ctl`` in a temporary directory,
listening on 127.0.0.1 only.

PostgreSQL refuses to run as root ("root" execution of the PostgreSQL server is not permitted),
and CI runs as root in a fresh container. So when this process is root, the server runs as an
unprivileged user (``nobody``, or ``postgres`` when it exists) through ``setpriv`` (util-linux)
or ``runuser``, with the data directory owned by that user. The binaries are looked up on PATH,
then in the Debian/Ubuntu layout (/usr/lib/postgresql/<version>/bin), or ``ADVISOR_PG_BIN``.

    server = PostgresServer.start()
    url = server.create_database("t_state")   # postgresql://advisor@127.0.0.1:PORT/t_state
    server.stop()

``unavailable()`` says why a server cannot be started here (no binaries, no way to drop root),
so tests skip with that reason instead of failing.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

USER = "advisor"  # the database superuser initdb creates (trust auth on loopback only)
START_TIMEOUT_S = 120
_names = itertools.count(1)


def _bin_dir() -> Path | None:
    configured = os.environ.get("ADVISOR_PG_BIN")
    if configured and (Path(configured) / "pg_ctl").exists():
        return Path(configured)
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    return Path(candidates[-1]).parent if candidates else None


def _unprivileged() -> str | None:
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    return None


def _as_user(user: str | None) -> list[str]:
    if user is None:
        return []
    if shutil.which("setpriv"):
        entry = pwd.getpwnam(user)
        return ["setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--clear-groups", "--"]
    if shutil.which("runuser"):
        return ["runuser", "-u", user, "--"]
    raise RuntimeError("running as root without setpriv or runuser: cannot start PostgreSQL as another user")


def unavailable() -> str | None:
    """Why a PostgreSQL server cannot be started here, or None when it can."""
    if _bin_dir() is None:
        return "PostgreSQL server binaries (initdb, pg_ctl) not found: install postgresql or set ADVISOR_PG_BIN"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install 'psycopg[binary]')"
    if os.geteuid() == 0:
        if _unprivileged() is None:
            return "running as root and no unprivileged user (postgres, nobody) to run PostgreSQL as"
        if not (shutil.which("setpriv") or shutil.which("runuser")):
            return "running as root without setpriv or runuser to start PostgreSQL as another user"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    def __init__(self, root: Path, port: int, bin_dir: Path, user: str | None):
        self.root, self.port, self.bin, self.user = root, port, bin_dir, user

    @property
    def data(self) -> Path:
        return self.root / "data"

    @classmethod
    def start(cls) -> "PostgresServer":
        reason = unavailable()
        if reason:
            raise RuntimeError(reason)
        bin_dir = _bin_dir()
        user = _unprivileged() if os.geteuid() == 0 else None
        root = Path(tempfile.mkdtemp(prefix="advisor-pg-"))
        if user is not None:
            entry = pwd.getpwnam(user)
            os.chown(root, entry.pw_uid, entry.pw_gid)
        os.chmod(root, 0o700)
        server = cls(root, _free_port(), bin_dir, user)
        server._run([str(bin_dir / "initdb"), "-D", str(server.data), "-U", USER, "--auth=trust", "-E", "UTF8",
                     "--locale=C", "--no-instructions"])
        # Loopback only, a socket directory of its own; no fsync: a test database need not
        # survive a power cut, and fsync on a shared CI disk would only slow every commit.
        options = (f"-h 127.0.0.1 -p {server.port} -k {root} -c fsync=off -c synchronous_commit=off "
                   "-c full_page_writes=off -c max_connections=200 -c shared_buffers=32MB")
        server._run([str(bin_dir / "pg_ctl"), "-D", str(server.data), "-l", str(root / "server.log"), "-w",
                     "-t", str(START_TIMEOUT_S), "-o", options, "start"])
        return server

    def _run(self, cmd: list[str]) -> None:
        out = subprocess.run(_as_user(self.user) + cmd, cwd=self.root, capture_output=True, text=True,
                             timeout=START_TIMEOUT_S + 30)
        if out.returncode != 0:
            log = (self.root / "server.log").read_text(errors="replace")[-2000:] if (self.root / "server.log").exists() else ""
            raise RuntimeError(f"{' '.join(cmd[:2])} failed ({out.returncode}): {out.stderr[-2000:]}\n{log}")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str | None = None) -> str:
        import psycopg

        name = name or f"t_{os.getpid()}_{next(_names)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def sql(self, statement: str, database: str = "postgres") -> None:
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True) as conn:
            conn.execute(statement)

    def stop(self) -> None:
        try:
            self._run([str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"])
        except Exception:
            pass
        for _ in range(50):
            try:
                shutil.rmtree(self.root)
                return
            except OSError:
                time.sleep(0.1)
