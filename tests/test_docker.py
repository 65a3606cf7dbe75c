"""The container image: built from the Dockerfile, run in the roles the README names against the
fake Slack on this machine's loopback (``--network host``). Runs where a Docker daemon answers
(CI machines with docker); skipped, with the reason, elsewhere. The build needs the network to
pull python:3.11-slim and the packages from PyPI."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import urllib.request

import pytest

from tests.conftest import ROOT
from tests.fakeslack import BOT_TOKEN, SIGNING_SECRET, command_body, free_port, sign

IMAGE = "finetune-advisor:test"


def docker_unavailable() -> str | None:
    if shutil.which("docker") is None:
        return "docker is not installed"
    info = subprocess.run(["docker", "info", "--format", "{{.ServerVersion}}"], capture_output=True, text=True)
    if info.returncode != 0:
        return f"no Docker daemon answers ({(info.stderr or info.stdout).strip().splitlines()[-1][:200]})"
    return None


pytestmark = [pytest.mark.slow, pytest.mark.skipif(docker_unavailable() is not None,
                                                   reason=f"container smoke test: {docker_unavailable()}")]


@pytest.fixture(scope="module")
def image():
    build = subprocess.run(["docker", "build", "-t", IMAGE, str(ROOT)], capture_output=True, text=True, timeout=1800)
    assert build.returncode == 0, build.stderr[-3000:]
    return IMAGE


def run(image: str, *args: str, env: dict[str, str], detach: bool = False, timeout: float = 120):
    cmd = ["docker", "run", "--rm", "--network", "host"] + [f"-e{k}={v}" for k, v in env.items()]
    cmd += (["-d"] if detach else []) + [image, *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def test_the_image_answers_a_signed_command_in_http_mode(image, slack):
    port = free_port()
    env = {"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET, "SLACK_API_URL": slack.api_url,
           "PORT": str(port), "ADVISOR_WEB_WORKERS": "1"}
    started = run(image, "all", env=env, detach=True)
    assert started.returncode == 0, started.stderr
    container = started.stdout.strip()
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as resp:
                    report = json.loads(resp.read())
                    break
            except OSError:
                assert time.monotonic() < deadline, subprocess.run(["docker", "logs", container], capture_output=True,
                                                                   text=True).stdout[-3000:]
                time.sleep(0.5)
        assert report["ok"] and report["state"]["writable"]
        body, ctype = command_body("qlora llama-3-70b seq 8192", channel="CDOCKER")
        request = urllib.request.Request(f"http://127.0.0.1:{port}/slack/events", data=body.encode(),
                                         headers={"Content-Type": ctype, **sign(body)}, method="POST")
        with urllib.request.urlopen(request, timeout=10) as resp:
            assert resp.status == 200
        [answer] = slack.wait_for("chat.postMessage", lambda c: c.args.get("channel") == "CDOCKER", timeout=60)
        assert "Llama 3 70B" in json.dumps(answer.args["blocks"])
    finally:
        subprocess.run(["docker", "stop", "-t", "10", container], capture_output=True, timeout=60)


def test_the_image_says_plainly_what_socket_mode_needs(image, slack):
    out = run(image, "socket", env={"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET,
                                    "SLACK_API_URL": slack.api_url})
    assert out.returncode == 2 and "SLACK_APP_TOKEN" in out.stderr and "Traceback" not in out.stderr
