"""tests/rayhead.py, the Ray head the Ray tests share, against the condition that made a parallel
pair of CI runs lose (a74f42a): a second Ray on the machine holding Ray's default ports."""

from __future__ import annotations

import socket
from contextlib import ExitStack

import pytest

from tests.conftest import have
from tests.rayhead import RayHead

pytestmark = [pytest.mark.ray, pytest.mark.slow, pytest.mark.skipif(not have("ray"), reason="needs the ray extra")]

# Ray's fixed defaults (ray/_private/ray_constants.py): the dashboard agent's HTTP port, the GCS,
# the client server, the dashboard.
RAY_DEFAULT_PORTS = (52365, 6379, 10001, 8265)


def _hold(stack: ExitStack, port: int) -> socket.socket | None:
    """Listen on 0.0.0.0:port as another Ray would; None when something already does (the same
    condition)."""
    s = stack.enter_context(socket.socket())
    try:
        s.bind(("0.0.0.0", port))
    except OSError:
        return None
    s.listen()
    return s


def test_a_head_takes_a_job_while_another_holds_rays_default_ports():
    from ray.job_submission import JobSubmissionClient

    with ExitStack() as stack:
        for port in RAY_DEFAULT_PORTS:
            _hold(stack, port)
        with RayHead(num_cpus=1, num_gpus=0) as head:  # one job run, or the test fails with the reason
            probes = [j for j in JobSubmissionClient(head.address).list_jobs()
                      if (j.metadata or {}).get("advisor") == "agent-probe"]
            assert [j.status.value for j in probes] == ["SUCCEEDED"]


def test_an_agent_that_cannot_serve_ends_the_wait_with_its_own_reason():
    """Its HTTP port taken, the agent stays up without HTTP (ray/dashboard/agent.py) and the job
    head would refuse jobs for good: the wait stops on the agent's log line, not on the clock."""
    with ExitStack() as stack:
        held = _hold(stack, 0)
        port = held.getsockname()[1]
        head = RayHead(num_cpus=1, num_gpus=0, agent_port=port, start_timeout_s=600)
        with pytest.raises(pytest.fail.Exception) as failed, head:
            pass
        assert "Failed to start HTTP server" in str(failed.value) or "failed to bind after" in str(failed.value)
        assert head.head.poll() is not None  # the failed wait stopped the head
