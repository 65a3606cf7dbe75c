"""Launchers: local (a subprocess) and ray (a Ray job through the Ray Jobs API)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from advisor.pilot.launchers.base import Launcher, PilotHandle, PilotStatus
from advisor.pilot.launchers.env import DEFAULT_DENY, child_environment
from advisor.pilot.launchers.local import LocalLauncher

__all__ = ["Launcher", "PilotHandle", "PilotStatus", "LocalLauncher", "make_launcher", "child_environment"]


def make_launcher(name: str, *, workdir: str | Path, env: Mapping[str, str], ray_address: str | None = None,
                  env_deny: Iterable[str] = DEFAULT_DENY, **kwargs):
    """The launcher called ``name``; the Ray one is imported only when asked for. ``env`` is the
    runner's whole environment (``child_environment(...)`` of the caller's): explicit, never
    inherited."""
    if name == "local":
        return LocalLauncher(workdir, env=env, **kwargs)
    if name == "ray":
        from advisor.pilot.launchers.ray import RayLauncher

        return RayLauncher(address=ray_address, workdir=workdir, env=env, env_deny=env_deny, **kwargs)
    raise ValueError(f"unknown launcher {name!r}; use local or ray")
