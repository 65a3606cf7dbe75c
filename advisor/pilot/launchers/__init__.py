"""Launchers: local (subprocess) and ray (a detached actor on a Ray cluster)."""

from __future__ import annotations

from pathlib import Path

from advisor.pilot.launchers.base import Launcher, PilotHandle, PilotStatus
from advisor.pilot.launchers.local import LocalLauncher

__all__ = ["Launcher", "PilotHandle", "PilotStatus", "LocalLauncher", "make_launcher"]


def make_launcher(name: str, *, workdir: str | Path, ray_address: str | None = None, **kwargs):
    """The launcher called ``name``; the Ray one is imported only when asked for."""
    if name == "local":
        return LocalLauncher(workdir, **kwargs)
    if name == "ray":
        from advisor.pilot.launchers.ray import RayLauncher

        return RayLauncher(address=ray_address, workdir=workdir, **kwargs)
    raise ValueError(f"unknown launcher {name!r}; use local or ray")
