"""Launch configs for a plan: the files a team runs to train what the advisor recommended.

    plan = choose_plan(request, catalog)                     # the recommendation (or the GPU named)
    config = launch_config(plan, "skypilot", LaunchOptions(tool="trl", cloud="aws"))
    text = render(config)                                    # YAML / shell, plan and caveats as comments

Formats: ``trl`` (``trl sft --config``), ``axolotl``, ``torchtune`` (``tune run``), ``skypilot``
(a task running one of the three) and ``ray`` (a Ray Jobs API submission running one of them).
Pure functions: no Slack, no environment, no network. What a tool cannot express of the plan is
listed in ``LaunchConfig.unexpressed`` and written as comments.
"""

from __future__ import annotations

from advisor.launch.cluster import CLUSTERS
from advisor.launch.config import LaunchConfig, LaunchOptions
from advisor.launch.plan import Plan, choose_plan, plan_from_ranking
from advisor.launch.serialize import render
from advisor.launch.trainers import TRAINERS

FORMATS: tuple[str, ...] = (*TRAINERS, *CLUSTERS)


def launch_config(plan: Plan, fmt: str, options: LaunchOptions | None = None) -> LaunchConfig:
    """The ``fmt`` config for ``plan``. Raises LaunchError when the tool cannot run this plan."""
    options = options or LaunchOptions()
    build = TRAINERS.get(fmt) or CLUSTERS.get(fmt)
    if build is None:
        raise ValueError(f"unknown launch format {fmt!r}; one of {', '.join(FORMATS)}")
    return build(plan, options)


__all__ = ["FORMATS", "LaunchConfig", "LaunchOptions", "Plan", "choose_plan", "launch_config",
           "plan_from_ranking", "render"]
