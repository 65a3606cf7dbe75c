"""A launch config: what one tool reads, how to run it, and what of the plan it cannot say."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Syntax = Literal["yaml", "json", "shell"]


@dataclass(frozen=True)
class LaunchOptions:
    """Choices a plan does not make: the data, where results go, which cloud, which trainer."""

    dataset: str | None = None  # Hub dataset id or local path; None: the user has not said
    dataset_format: Literal["messages", "instruction", "text"] = "messages"
    output_dir: str | None = None  # None: ./outputs/<model>-<method>
    tool: Literal["trl", "axolotl", "torchtune"] = "trl"  # the trainer a SkyPilot task or Ray job runs
    cloud: str | None = None  # SkyPilot cloud (advisor.launch.names.CLOUDS); None: SkyPilot picks
    job_name: str | None = None


@dataclass(frozen=True)
class LaunchConfig:
    tool: str  # trl, axolotl, torchtune, skypilot, ray
    body: dict[str, Any]  # exactly what the tool parses
    syntax: Syntax  # how ``render`` writes it
    filename: str  # the file name the command expects
    command: str  # how to run it
    header: list[str] = field(default_factory=list)  # the plan, in a few lines
    unexpressed: list[str] = field(default_factory=list)  # plan fields this tool cannot express
    inner: "LaunchConfig | None" = None  # the trainer config a SkyPilot task or Ray job carries

    def to_json(self) -> dict[str, Any]:
        out = {"tool": self.tool, "filename": self.filename, "command": self.command, "config": self.body,
               "header": list(self.header), "unexpressed": list(self.unexpressed)}
        if self.inner is not None:
            out["inner"] = self.inner.to_json()
        return out
