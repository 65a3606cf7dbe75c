"""Print one of the README's quickstart commands (`run` or `test`), the line after its marker."""

import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def command(kind: str) -> str:
    text = README.read_text(encoding="utf-8")
    match = re.search(rf"<!-- {kind}-command -->\s*```sh\n(.+?)\n```", text, re.S)
    if not match:
        raise SystemExit(f"README.md has no '<!-- {kind}-command -->' block")
    return match.group(1).strip()


if __name__ == "__main__":
    print(command(sys.argv[1] if len(sys.argv) > 1 else "test"))
