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


# How many strings ``starts`` may return before it gives up (a pattern opening with a long alternation of
# optional parts multiplies its branches); beyond it the rule is scanned position by position, as before.
MAX_STARTS = 256


@functools.lru_cache(maxsize=None)
def starts(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """Strings one of which every match of ``pattern`` begins with, or None when it cannot say.

    Read from the pattern's syntax tree, as ``needs`` is: zero-width items before the first character
    (``\\b``, ``^``, look-arounds) are skipped, a group or an alternation is looked into (every branch must
    open with a literal), an optional item adds what follows it, a run of literal characters is taken
    whole, a class of a few literal characters gives each of them; anything else (``\\d``, ``.``, a range)
    gives None. A pattern that may match the empty string has no start (None).

    What it is for: Python's ``re`` tries a pattern that opens with ``\\b`` or a group at every position of
    the text (``_compile_info`` in ``re/_compiler.py`` takes a literal prefix or a first-character set only
    when the pattern opens with a literal, a class or a plain alternation: an ``AT`` code stops both), which
    costs a full match attempt per character. A pattern made of these strings alone has a first-character
    set, so ``re`` skips to the next place a match could begin; the rule is then matched there only
    (``scan.anchored_finditer``). Exact by construction: no match can begin anywhere else."""
    if pattern.flags & re.IGNORECASE:
        return None
    try:
        tree = _p.parse(pattern.pattern, pattern.flags)
    except Exception:  # noqa: BLE001 - an unusual pattern: scanned position by position
        return None
    try:
        found = _starts(list(tree), 0)
    except _TooMany:
        return None
    return tuple(sorted(found)) if found else None


class _TooMany(Exception):
    pass


_REPEATS = tuple(op for op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)) if op is not None)
_ZERO_WIDTH = (_c.AT, _c.ASSERT, _c.ASSERT_NOT)
_ATOMIC = getattr(_c, "ATOMIC_GROUP", object())  # Python 3.11+


def _starts(items: list, depth: int) -> set[str] | None:
    """Strings one of which every match of the sequence ``items`` begins with (None: unknown, or the
    sequence may match the empty string)."""
    if depth > 40:
        raise _TooMany
    for k, (op, arg) in enumerate(items):
        rest = items[k + 1:]
        if op in _ZERO_WIDTH:
            continue
        if op is _c.LITERAL:
            run = ""
            for op2, arg2 in items[k:]:
                if op2 is not _c.LITERAL:
                    break
                run += chr(arg2)
            return {run}
        if op is _c.SUBPATTERN:
            _group, add_flags, _del_flags, sub = arg
            if add_flags & re.IGNORECASE:
                return None
            return _starts(list(sub) + rest, depth + 1)
        if op is _ATOMIC:  # (?>...), matched once like a group
            return _starts(list(arg) + rest, depth + 1)
        if op is _c.BRANCH:
            out: set[str] = set()
            for alt in arg[1]:
                found = _starts(list(alt) + rest, depth + 1)
                if not found:
                    return None
                out |= found
                if len(out) > MAX_STARTS:
                    raise _TooMany
            return out
        if op in _REPEATS:
            low, high, sub = arg
            # at most once ("?", "{1}"): the item then what follows, one after the other; more: a match opens
            # with the item's first repeat, whatever follows it (another repeat, not ``rest``: "(?:ab|c)+d"
            # matches "abcd", which opens with "ab", not with "abd")
            first = _starts(list(sub) + rest if high == 1 else list(sub), depth + 1)
            if not first:
                return None
            if low >= 1:
                return first
            after = _starts(rest, depth + 1)
            if not after:
                return None
            if len(first | after) > MAX_STARTS:
                raise _TooMany
            return first | after
        if op is _c.IN:
            chars = set()
            for op2, arg2 in arg:
                if op2 is not _c.LITERAL:
                    return None
                chars.add(chr(arg2))
            return chars if len(chars) <= 8 else None
        return None
    return None  # the sequence may end here without a character: it can match the empty string


# The characters on which ``re``'s ASCII classes and its Unicode ones agree: ``\w``, ``\d``, ``\s`` and ``\b`` read
# an ASCII character alike either way (re/_constants.py's SRE_FLAG_ASCII; Modules/_sre/sre.c ``sre_category``: the
# Unicode forms call Py_UNICODE_ISALNUM / ISDECIMAL / ISSPACE), except the four separators \x1c-\x1f, which
# Unicode counts as spaces and ASCII does not; and the placeholders' "§" (U+00A7, punctuation) is neither a word
# character, a digit nor a space in either. The text the rules read is ``normalize``d ASCII plus placeholders.
_ASCII_SAFE = re.compile(r"[\x00-\x1b\x20-\x7f\u00a7]*")


def ascii_safe(text: str) -> bool:
    """Whether every pattern matches ``text`` exactly as its ``ascii_twin`` does: ``_ASCII_SAFE.fullmatch(text)``,
    answered with ``str`` methods (``isascii`` reads a flag of the string's storage, ``in`` is a memchr) instead of the
    regex's walk of every character; the parser asks it of the same long text a dozen times a message."""
    if not text.isascii():
        text = text.replace("\u00a7", "")  # the placeholders' one non-ASCII character
        if not text.isascii():
            return False
    return "\x1c" not in text and "\x1d" not in text and "\x1e" not in text and "\x1f" not in text


@functools.lru_cache(maxsize=None)
def ascii_twin(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """``pattern`` compiled with ``re.ASCII``: on an ``ascii_safe`` text the same matches, spans and groups,
    found faster (profiled with callgrind on the benchmark's slowest messages: the Unicode character tests,
    ``_PyUnicode_IsAlpha`` and its kin behind every ``\\w`` and ``\\b``, were a tenth of a parse's instructions).
    A pattern that folds case, or that cannot be compiled so, is its own twin."""
    if pattern.flags & re.IGNORECASE:
        return pattern
    try:
        return re.compile(pattern.pattern, (pattern.flags & ~re.UNICODE) | re.ASCII)
    except (ValueError, re.error):  # an inline (?u), say
        return pattern


@functools.lru_cache(maxsize=None)
def finder(pattern: re.Pattern[str]) -> tuple[re.Pattern[str], bool] | None:
    """A pattern of the strings every match of ``pattern`` begins with (``prefilter.starts``), and whether
    one of them can begin inside another's occurrence ("ab" and "ba" in "aba"); None when there are none.
    Made of literals only, the pattern has a first-character set or a literal prefix, so ``re`` skips to
    where one of them stands instead of trying every position."""
    found = starts(pattern)
    if not found or _at_start(pattern):
        return None
    overlap = any(a[i:].startswith(b) or b.startswith(a[i:]) for a in found for b in found for i in range(1, len(a)))
    return re.compile("|".join(re.escape(s) for s in sorted(found, key=lambda s: (-len(s), s)))), overlap


# A place where ``finder`` found a start but the rule did not match costs a call (measured on the benchmark's
# slowest messages: about 0.3-0.5 us, against 20-30 ns per character for ``re``'s scan position by position).
# Past this many misses per character of text, the rest is scanned by ``finditer`` itself.
MISSES_PER_CHAR = 1 / 32


def anchored_finditer(pattern: re.Pattern[str], text: str,
                      find: tuple[re.Pattern[str], bool] | None) -> list[re.Match[str]]:
    """``list(pattern.finditer(text))``, the same matches, tried only where a match can begin.

    ``find`` (``finder``) finds the places where one of the strings every match begins with stands: no
    match can begin anywhere else, so ``pattern.match`` at each place in turn (skipping those inside the
    last match), on from a match's end (a match is never empty: it begins with a string), is what
    ``finditer`` does position by position (``match`` at a position sees the text before it: look-behinds
    and ``\b`` read it, as in ``finditer``). The places come from ``find.finditer`` when no two of the strings
    can overlap (its matches never do), else from ``find.search`` at each next position. When the places that
    fail are many, the rest of the text is left to ``finditer`` from the first position not yet tried."""
    if find is None:
        return list(pattern.finditer(text))
    find_pattern, overlap = find
    out: list[re.Match[str]] = []
    match = pattern.match
    pos = 0
    misses = 0
    budget = len(text) * MISSES_PER_CHAR
    if not overlap:
        for c in find_pattern.finditer(text):
            at = c.start()
            if at < pos:
                continue
            m = match(text, at)
            if m is not None:
                out.append(m)
                pos = m.end()
                continue
            pos = at + 1
            misses += 1
            if misses > budget:
                out += pattern.finditer(text, pos)
                break
        return out
    search = find_pattern.search
    while True:
        c = search(text, pos)
        if c is None:
            return out
        at = c.start()
        m = match(text, at)
        if m is not None:
            out.append(m)
            pos = m.end()
            continue
        pos = at + 1
        misses += 1
        if misses > budget:
            out += pattern.finditer(text, pos)
            return out


def _at_start(pattern: re.Pattern[str]) -> bool:
    """The pattern opens with ``^`` (not MULTILINE) or ``\\A``: ``re`` tries it at the start only (sre_lib.h's
    ``SRE(search)`` checks for that ``AT`` code first), faster than any look for its strings."""
    try:
        tree = list(_p.parse(pattern.pattern, pattern.flags))
    except Exception:  # noqa: BLE001
        return False
    return bool(tree) and tree[0][0] is _c.AT and tree[0][1] in (_c.AT_BEGINNING, _c.AT_BEGINNING_STRING) \
        and not pattern.flags & re.MULTILINE


def anchored_search(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """``pattern.search(text)``, the same match: ``pattern``'s ASCII twin on a safe text, tried only where a
    match can begin (``finder``; the first of ``anchored_finditer``'s matches, by the same argument)."""
    run = ascii_twin(pattern) if ascii_safe(text) else pattern
    find = finder(pattern)
    if find is None:
        return run.search(text)
    find_pattern, overlap = find
    match = run.match
    budget = len(text) * MISSES_PER_CHAR
    misses = 0
    if not overlap:
        for c in find_pattern.finditer(text):
            m = match(text, c.start())
            if m is not None:
                return m
            misses += 1
            if misses > budget:
                return run.search(text, c.start() + 1)
        return None
    search = find_pattern.search
    pos = 0
    while True:
        c = search(text, pos)
        if c is None:
            return None
        m = match(text, c.start())
        if m is not None:
            return m
        pos = c.start() + 1
        misses += 1
        if misses > budget:
            return run.search(text, pos)


class Anchored:
    """A compiled pattern whose ``search(text)`` is ``anchored_search`` (the same match, found faster); anything
    else is the pattern's own. For module constants only searched whole texts (``advisor.parse.intents``)."""

    __slots__ = ("_pattern",)

    def __init__(self, pattern: str | re.Pattern[str], flags: int = 0):
        self._pattern = re.compile(pattern, flags) if isinstance(pattern, str) else pattern

    def search(self, text: str, *args: int) -> re.Match[str] | None:
        return anchored_search(self._pattern, text) if not args else self._pattern.search(text, *args)

    def __getattr__(self, name: str):
        return getattr(self._pattern, name)
