"""The launch config posted in a thread (the answer's "Launch config" button): a title, how to
run it, the config as a code block, and buttons for the same plan in the other formats.

A section's text holds at most 3000 characters (Block Kit reference, "Section block": ``text``
"Maximum length for the text in this field is 3000 characters"; bot.render.blockkit
MAX_SECTION_TEXT): a config whose code block does not fit is uploaded as a snippet file instead
(``fits_in_message``; bot.listeners.actions.launch posts it with bot.delivery.upload_once)."""

from __future__ import annotations

from typing import Any

from advisor.i18n import t
from advisor.launch import FORMATS, LaunchConfig, Plan, render
from bot.render import blockkit as bk

ACTION_LAUNCH_FORMAT = "launch_config_format"  # value: {"answer": answer ts, "gpu", "num_gpus", "fmt"}
TOOL_NAMES = {"trl": "TRL", "axolotl": "axolotl", "torchtune": "torchtune", "skypilot": "SkyPilot", "ray": "Ray job"}


def code_block(text: str) -> str:
    return "```\n" + bk.mrkdwn_escape(text.rstrip("\n")) + "\n```"


def fits_in_message(config: LaunchConfig) -> bool:
    text = render(config)
    return "```" not in text and len(code_block(text)) <= bk.MAX_SECTION_TEXT


def title(plan: Plan, config: LaunchConfig, lang: str) -> str:
    return t("bot.launch.title", lang, tool=TOOL_NAMES.get(config.tool, config.tool), model=plan.model_label,
             method=t(f"method.{plan.spec.method}", lang), n=plan.num_gpus, gpu=plan.gpu.display_name)


def format_buttons(plan_value: dict[str, Any], current: str, lang: str) -> bk.Block:
    """The same plan in every other format (one button each)."""
    return bk.actions(*(bk.button(TOOL_NAMES[f], ACTION_LAUNCH_FORMAT, {**plan_value, "fmt": f})
                        for f in FORMATS if f != current), block_id=f"launch_formats_{current}")


def launch_message(plan: Plan, config: LaunchConfig, plan_value: dict[str, Any], lang: str,
                   *, in_file: bool = False) -> tuple[str, list[bk.Block]]:
    """(notification text, blocks): the config inline, or a pointer to the uploaded file."""
    head = title(plan, config, lang)
    run = t("bot.launch.run", lang, filename=f"`{config.filename}`", command=f"`{bk.mrkdwn_escape(config.command)}`")
    blocks = [bk.section(f"*{bk.mrkdwn_escape(head)}*\n{run}")]
    if in_file:
        blocks.append(bk.context(t("bot.launch.in_file", lang, filename=f"`{config.filename}`")))
    else:
        blocks.append(bk.section(code_block(render(config))))
    if config.unexpressed:
        blocks.append(bk.context(t("bot.launch.unexpressed", lang, tool=config.tool,
                                   items="; ".join(bk.mrkdwn_escape(u) for u in config.unexpressed))))
    blocks += [bk.context(t("bot.launch.other", lang)), format_buttons(plan_value, config.tool, lang)]
    return head, blocks
