"""A cheap test before a regex: the literal strings one of which every match must contain.

Python's ``re`` tries a pattern like ``\\b(?:paged)[\\s_-]*adam...`` at every position of the
text; with some sixty rules over a pasted config, that is most of a parse's time. Most rules can
only match where some word is present ("paged", "adam", "checkpoint"), and ``str.__contains__``
answers that in nanoseconds. ``needs(pattern)`` reads the pattern's own syntax tree (``re._parser``,
the parser ``re.compile`` uses) and returns strings such that every match of the pattern contains
at least one of them, or None when it cannot say (the rule then always runs). It is exact by
construction: only literal runs that every match must go through are taken.
"""

from __future__ import annotations

import functools
import re

try:
    from re import _constants as _c  # Python 3.11+
    from re import _parser as _p
except ImportError:  # pragma: no cover - Python < 3.11
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _p  # type: ignore[no-redef]

MIN_LEN = 2


@functools.lru_cache(maxsize=None)
def needs(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    if pattern.flags & re.IGNORECASE:
        return None
    try:
        tree = _p.parse(pattern.pattern, pattern.flags)
    except Exception:  # noqa: BLE001 - an unusual pattern: no prefilter, the rule always runs
        return None
    found = _seq(list(tree))
    return tuple(sorted(found)) if found else None


def _seq(items: list) -> set[str] | None:
    """Strings one of which a match of this sequence must contain (None: unknown)."""
    best: set[str] | None = None
    run = ""

    def offer(candidate: set[str] | None) -> None:
        nonlocal best
        if candidate and min(len(s) for s in candidate) >= MIN_LEN:
            if best is None or min(len(s) for s in candidate) > min(len(s) for s in best):
                best = candidate

    for op, arg in items:
        if op is _c.LITERAL:
            run += chr(arg)
            continue
        if op is _c.AT:  # \b, ^, $: zero width, a run goes on across it
            continue
        offer({run} if run else None)
        run = ""
        if op is _c.SUBPATTERN:
            offer(_seq(list(arg[-1])))
        elif op is _c.BRANCH:
            offer(_branch(arg[1]))
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)):
            low, _high, sub = arg
            if low >= 1:
                offer(_seq(list(sub)))
    offer({run} if run else None)
    return best


def _branch(alternatives: list) -> set[str] | None:
    out: set[str] = set()
    for alt in alternatives:
        found = _seq(list(alt))
        if not found:
            return None
        out |= found
    return out
