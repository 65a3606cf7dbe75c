"""Block Kit building blocks that stay inside Slack's limits by construction, and the check that
proves it (used before every post and by every test).

Limits (Slack docs, "Block Kit" reference pages, checked 2025): a message holds at most 50
blocks; a section's text at most 3000 characters and at most 10 fields of 2000 characters each; a
header's plain text at most 150 characters; a context at most 10 elements; an actions block at
most 25 elements; a button's text at most 75 characters, its value at most 2000 and its
action_id at most 255; a block_id at most 255. ``slack_sdk.models.blocks`` parses the blocks back
and enforces the same limits on its side.
"""

from __future__ import annotations

import json
from typing import Any

MAX_BLOCKS = 50
MAX_SECTION_TEXT = 3000
MAX_FIELDS = 10
MAX_FIELD_TEXT = 2000
MAX_HEADER_TEXT = 150
MAX_CONTEXT_ELEMENTS = 10
MAX_ACTIONS_ELEMENTS = 25
MAX_BUTTON_TEXT = 75
MAX_BUTTON_VALUE = 2000
MAX_ID = 255
# The table block (docs.slack.dev/reference/block-kit/blocks/table-block, "Fields"): at most 100
# rows, 20 cells per row and 20 column_settings; cells are raw_text (or rich_text/raw_number);
# align is left, center or right. Slack accepts one table per message: a second is refused with
# ``invalid_attachments`` / ``only_one_table_allowed`` (Slack renders the table as the message's
# attachment). slack_sdk 3.48's TableBlock model (slack_sdk/models/blocks/blocks.py) only checks
# that rows is non-empty, so ``table_problems`` checks the rest.
MAX_TABLE_ROWS = 100
MAX_TABLE_CELLS = 20
MAX_TABLE_COLUMN_SETTINGS = 20
MAX_TABLES = 1
TABLE_ALIGNS = ("left", "center", "right")
TABLE_CELL_TYPES = ("raw_text", "rich_text", "raw_number")
# chat.postMessage's top-level text is truncated by Slack beyond 40,000 characters; we keep the
# notification fallback short (it is what a phone notification and screen readers show).
MAX_FALLBACK_TEXT = 3000
ELLIPSIS = "…"

Block = dict[str, Any]


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, ending with an ellipsis when it was cut."""
    return text if len(text) <= limit else text[: limit - len(ELLIPSIS)] + ELLIPSIS


def mrkdwn_escape(text: str) -> str:
    """Escape the three characters Slack's mrkdwn treats as control characters."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def header(text: str) -> Block:
    return {"type": "header", "text": {"type": "plain_text", "text": clip(text, MAX_HEADER_TEXT), "emoji": True}}


def section(text: str, *, block_id: str | None = None, fields: list[str] | None = None) -> Block:
    block: Block = {"type": "section", "text": {"type": "mrkdwn", "text": clip(text, MAX_SECTION_TEXT)}}
    if fields:
        block["fields"] = [{"type": "mrkdwn", "text": clip(f, MAX_FIELD_TEXT)} for f in fields[:MAX_FIELDS]]
    if block_id:
        block["block_id"] = block_id[:MAX_ID]
    return block


def sections(text: str) -> list[Block]:
    """Long mrkdwn text as as many sections as it needs, split at line ends."""
    blocks, chunk = [], ""
    for line in text.splitlines(keepends=True):
        while len(line) > MAX_SECTION_TEXT:  # a single enormous line: hard split
            if chunk:
                blocks.append(section(chunk.rstrip("\n")))
                chunk = ""
            blocks.append(section(line[:MAX_SECTION_TEXT]))
            line = line[MAX_SECTION_TEXT:]
        if len(chunk) + len(line) > MAX_SECTION_TEXT:
            blocks.append(section(chunk.rstrip("\n")))
            chunk = ""
        chunk += line
    if chunk.strip():
        blocks.append(section(chunk.rstrip("\n")))
    return blocks


def code_sections(lines: list[str], *, title: str | None = None) -> list[Block]:
    """Monospace lines (a table) in ``` fences, split across sections so each stays under the
    limit and every fence is closed."""
    fence = "```"
    budget = MAX_SECTION_TEXT - 2 * len(fence) - 2 - (len(title) + 1 if title else 0)
    blocks, chunk = [], []
    for line in lines:
        line = clip(line, budget)
        if chunk and sum(len(x) + 1 for x in chunk) + len(line) > budget:
            blocks.append(_code(chunk, title if not blocks else None))
            chunk = []
        chunk.append(line)
    if chunk:
        blocks.append(_code(chunk, title if not blocks else None))
    return blocks


def _code(lines: list[str], title: str | None) -> Block:
    body = "```\n" + "\n".join(lines) + "\n```"
    return section(f"{title}\n{body}" if title else body)


def context(*texts: str) -> Block:
    return {"type": "context",
            "elements": [{"type": "mrkdwn", "text": clip(t, MAX_SECTION_TEXT)} for t in texts[:MAX_CONTEXT_ELEMENTS] if t]}


def table(rows: list[list[str]], *, align: tuple[str, ...] | None = None, block_id: str | None = None) -> Block:
    """Slack's table block from rows of strings (the first row the header): raw_text cells, at
    most MAX_TABLE_ROWS rows and MAX_TABLE_CELLS cells each; an empty cell reads "-" (a raw_text
    must have text)."""
    block: Block = {"type": "table",
                    "rows": [[{"type": "raw_text", "text": c or "-"} for c in row[:MAX_TABLE_CELLS]]
                             for row in rows[:MAX_TABLE_ROWS]]}
    if align:
        block["column_settings"] = [{"align": a} for a in align[:MAX_TABLE_COLUMN_SETTINGS]]
    if block_id:
        block["block_id"] = block_id[:MAX_ID]
    return block


def table_problems(block: Block) -> list[str]:
    """Every limit of Slack's table block that ``block`` breaks (empty when it is fine)."""
    found = []
    rows = block.get("rows")
    if not isinstance(rows, list) or not rows:
        return ["table without rows"]
    if len(rows) > MAX_TABLE_ROWS:
        found.append(f"table with {len(rows)} rows (limit {MAX_TABLE_ROWS})")
    for i, row in enumerate(rows):
        if not isinstance(row, list) or not row:
            found.append(f"table row {i} is not a non-empty list of cells")
            continue
        if len(row) > MAX_TABLE_CELLS:
            found.append(f"table row {i}: {len(row)} cells (limit {MAX_TABLE_CELLS})")
        for j, cell in enumerate(row):
            kind = cell.get("type") if isinstance(cell, dict) else None
            if kind not in TABLE_CELL_TYPES:
                found.append(f"table cell {i},{j}: type {kind!r}")
            elif kind in ("raw_text", "raw_number") and not str(cell.get("text") or ""):
                found.append(f"table cell {i},{j}: empty text")
    settings = block.get("column_settings") or []
    if len(settings) > MAX_TABLE_COLUMN_SETTINGS:
        found.append(f"table with {len(settings)} column_settings (limit {MAX_TABLE_COLUMN_SETTINGS})")
    for j, setting in enumerate(settings):
        if setting is not None and setting.get("align", "left") not in TABLE_ALIGNS:
            found.append(f"table column {j}: align {setting.get('align')!r}")
    return found


def divider() -> Block:
    return {"type": "divider"}


def button(text: str, action_id: str, value: str | dict[str, Any], *, style: str | None = None) -> Block:
    raw = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    if len(raw) > MAX_BUTTON_VALUE:
        raise ValueError(f"button value for {action_id} is {len(raw)} characters (limit {MAX_BUTTON_VALUE})")
    element: Block = {"type": "button", "text": {"type": "plain_text", "text": clip(text, MAX_BUTTON_TEXT), "emoji": True},
                      "action_id": action_id, "value": raw}
    if style:
        element["style"] = style
    return element


def actions(*elements: Block, block_id: str = "actions") -> Block:
    return {"type": "actions", "block_id": block_id, "elements": list(elements[:MAX_ACTIONS_ELEMENTS])}


def fit(blocks: list[Block], overflow_note: str) -> list[Block]:
    """At most MAX_BLOCKS blocks: keep the first ones and the final actions block, and say that
    something was left out."""
    if len(blocks) <= MAX_BLOCKS:
        return blocks
    tail = [blocks[-1]] if blocks[-1].get("type") == "actions" else []
    keep = MAX_BLOCKS - len(tail) - 1
    return blocks[:keep] + [context(overflow_note)] + tail


def problems(blocks: list[Block]) -> list[str]:
    """Every Block Kit limit a message breaks (empty when it is fine)."""
    found = []
    if len(blocks) > MAX_BLOCKS:
        found.append(f"{len(blocks)} blocks (limit {MAX_BLOCKS})")
    tables = sum(1 for b in blocks if b.get("type") == "table")
    if tables > MAX_TABLES:
        found.append(f"{tables} table blocks (Slack allows {MAX_TABLES} per message: only_one_table_allowed)")
    for i, block in enumerate(blocks):
        kind = block.get("type")
        if len(block.get("block_id", "")) > MAX_ID:
            found.append(f"block {i}: block_id too long")
        if kind == "section":
            text = block.get("text", {}).get("text", "")
            if len(text) > MAX_SECTION_TEXT:
                found.append(f"block {i}: section text {len(text)} chars")
            fields = block.get("fields", [])
            if len(fields) > MAX_FIELDS:
                found.append(f"block {i}: {len(fields)} fields")
            found += [f"block {i}: field {j} {len(f['text'])} chars" for j, f in enumerate(fields)
                      if len(f["text"]) > MAX_FIELD_TEXT]
            if not text and not fields:
                found.append(f"block {i}: empty section")
        elif kind == "table":
            found += [f"block {i}: {p}" for p in table_problems(block)]
        elif kind == "header":
            if len(block["text"]["text"]) > MAX_HEADER_TEXT:
                found.append(f"block {i}: header {len(block['text']['text'])} chars")
        elif kind == "context":
            if not 1 <= len(block.get("elements", [])) <= MAX_CONTEXT_ELEMENTS:
                found.append(f"block {i}: context with {len(block.get('elements', []))} elements")
        elif kind == "actions":
            elements = block.get("elements", [])
            if not 1 <= len(elements) <= MAX_ACTIONS_ELEMENTS:
                found.append(f"block {i}: actions with {len(elements)} elements")
            for e in elements:
                if len(e.get("value", "")) > MAX_BUTTON_VALUE:
                    found.append(f"block {i}: button {e.get('action_id')} value {len(e['value'])} chars")
                if len(e.get("text", {}).get("text", "")) > MAX_BUTTON_TEXT:
                    found.append(f"block {i}: button {e.get('action_id')} text too long")
                if len(e.get("action_id", "")) > MAX_ID:
                    found.append(f"block {i}: action_id too long")
    return found
