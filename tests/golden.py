"""Golden answers (issue #16): for a small set of questions in both languages, the answer exactly
as `advisor ask` prints it (``<case>_<lang>.txt``) and exactly as the bot posts it
(``<case>_<lang>.blocks.json``: the Block Kit blocks, and the message's text fallback), under
tests/data/golden/. tests/test_golden.py compares every render with these files, byte for byte.

After an intended change of an answer (its layout, its words, its figures), regenerate them and
review the diff:

    python -m tests.golden --write          # rewrite every golden file
    python -m tests.golden                  # exit 1 and print the diff where a render differs

The renders come from the committed catalog (advisor/catalog/data) with no pilot calibration, the
same path as the CLI (advisor.answer.Advisor.ask -> Reply.text) and the bot
(bot.conversation.render -> bot.render.answer.render_answer with the reply's head).
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).parent / "data" / "golden"

# case -> the question in each language (what a team types; the parser reads the language)
CASES: dict[str, dict[str, str]] = {
    "lora8b_dataset": {"en": "lora llama 3.1 8b seq 4096, 100M tokens, 1 epoch",
                       "es": "lora de llama 3.1 8b con secuencia 4096, 100M tokens, 1 época"},
    "qlora70b_seq8192": {"en": "qlora llama-3-70b seq 8192",
                         "es": "qlora de llama-3-70b con secuencia de 8192"},
    "mistral_4090": {"en": "can we LoRA Mistral 7B at 4k with batch 4 on a 4090?",
                     "es": "¿podemos hacer LoRA de Mistral 7B con 4k y lote 4 en una 4090?"},
    "nothing_fits": {"en": "full fine-tune llama 3.1 405b seq 32768",
                     "es": "ajuste fino completo de llama 3.1 405b con secuencia de 32768"},
}


def render(case: str, lang: str, catalog: Any = None) -> dict[str, str]:
    """{file name: content} of one case in one language, as the CLI prints and the bot posts it."""
    from advisor.answer import Advisor
    from advisor.catalog import Catalog
    from bot.render.answer import render_answer

    reply = Advisor(catalog if catalog is not None else Catalog.open()).ask(CASES[case][lang])
    if reply.lang != lang or reply.answer is None:
        raise AssertionError(f"{case}/{lang}: {CASES[case][lang]!r} was answered as {reply.kind}/{reply.lang}: "
                             f"{reply.text[:300]}")
    blocks = render_answer(reply.answer, reply.lang, kind=reply.kind, head=reply.data.get("head"))
    slack = {"text": reply.text, "blocks": blocks}  # what chat.postMessage receives (text: the fallback)
    return {f"{case}_{lang}.txt": reply.text + "\n",
            f"{case}_{lang}.blocks.json": json.dumps(slack, indent=1, ensure_ascii=False) + "\n"}


def renders(catalog: Any = None) -> dict[str, str]:
    out: dict[str, str] = {}
    for case, phrases in CASES.items():
        for lang in phrases:
            out.update(render(case, lang, catalog))
    return out


def diff(name: str, expected: str | None, got: str) -> str:
    """A unified diff of a golden file against the render ('' when they are equal)."""
    if expected == got:
        return ""
    if expected is None:
        return f"{name}: no golden file (tests/data/golden/{name})\n"
    return "".join(difflib.unified_diff(expected.splitlines(keepends=True), got.splitlines(keepends=True),
                                        fromfile=f"golden/{name}", tofile=f"render/{name}"))


REGENERATE = "regenerate with: python -m tests.golden --write (then review the diff)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.golden", description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite the golden files from today's renders")
    args = parser.parse_args(argv)
    got = renders()
    if args.write:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        for stale in set(p.name for p in GOLDEN.glob("*")) - set(got):
            (GOLDEN / stale).unlink()
        for name, content in got.items():
            (GOLDEN / name).write_text(content, encoding="utf-8")
        print(f"wrote {len(got)} golden files under {GOLDEN}")
        return 0
    changed = [diff(n, (GOLDEN / n).read_text(encoding="utf-8") if (GOLDEN / n).exists() else None, c)
               for n, c in got.items()]
    changed = [d for d in changed if d]
    sys.stdout.write("".join(changed))
    print(f"{len(changed)} of {len(got)} golden files differ" + (f"; {REGENERATE}" if changed else ""))
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
