"""Finding catalog models, GPUs and regions inside a sentence, in one pass over its words.

Every alias, hub id and display name in the catalog is split into tokens the way message text is
("Llama-3.1-8B-Instruct" -> llama / 3.1 / 8b / instruct). Where the alias had no separator
("rtx4090", "qwen2.5") the text may have none or a hyphen; where it had one ("qwen-2.5-14b") the
text may use any short run of spaces, hyphens, underscores, dots or slashes. Plurals of names
ending in a digit are accepted ("H100s", "4090s"). At each word the longest alias wins.

When no alias matches, a family word followed by a size ("llama 70b", "qwen 7b", "gemma 27b")
picks that family's models of that size (newest first); a family named alone ("mistral", "llama
3.1") lists its candidates so the parser can ask which one.

A matcher is built once per catalog (a few ms) and reused while the catalog's names do not change.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass, field

from advisor.catalog import Catalog
from advisor.catalog.names import normal
from advisor.parse.text import normalize

TOKEN = re.compile(r"[a-z]+|\d+(?:\.\d+)*(?:x\d+(?:\.\d+)?)?[a-z]*")
_NUMERIC = re.compile(r"\d+(?:\.\d+)*")
_SIZE = re.compile(r"(\d+(?:\.\d+)?)([bm])|\d+x\d+(?:\.\d+)?b")
_UNIT_TOKENS = {"b", "m", "gb", "bn"}
_JOIN_GAPS = {"", "-", "_"}
_SEP_GAP = re.compile(r"[ \-_/.:]{0,3}")  # ":" for Ollama tags ("llama3.1:8b", "phi3:mini")
# Aliases that are ordinary words in a sentence ("a tiny model"): matched only as part of a longer alias.
_COMMON_WORD_ALIASES = {"tiny", "test"}
# Families never matched by their word alone (the toy test model).
_NO_FAMILY_MATCH = {"tiny", "test"}
# Country names in Spanish, so "en Francia" finds the region whose country is France.
_COUNTRY_ES = {"France": "francia", "Germany": "alemania", "Spain": "espana", "Netherlands":
               "paises bajos", "Finland": "finlandia", "Sweden": "suecia", "Italy": "italia",
               "United Kingdom": "reino unido", "United States": "estados unidos", "Poland": "polonia"}


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int
    gap: str  # the characters between the previous token and this one


@dataclass(frozen=True)
class NameMatch:
    kind: str  # "model" | "gpu" | "region" | "family"
    ident: str | None  # catalog id; None for an ambiguous family or an unknown size
    start: int
    end: int
    candidates: tuple[str, ...] = ()  # family matches: catalog ids, newest first
    family: str | None = None
    size_b: float | None = None  # family + a size the catalog lacks ("llama 34b")
    sized: bool = False  # the family was named with a size ("llama 70b"), not alone ("mistral")


@dataclass(frozen=True)
class _Alias:
    kind: str
    ident: str
    toks: tuple[str, ...]
    joined: tuple[bool, ...]


@dataclass
class _Family:
    word: str
    models: list[tuple[tuple[int, ...], str, str, tuple[str, ...]]] = field(default_factory=list)
    # (version, size token, id, version strings)


def tokenize(text: str) -> list[Token]:
    """Tokens of normalized text; a number and a unit typed apart ("70 b", "80 GB") become one."""
    out: list[Token] = []
    prev = 0
    for m in TOKEN.finditer(text):
        tok = Token(m.group(), m.start(), m.end(), text[prev:m.start()])
        prev = m.end()
        if (out and tok.text in _UNIT_TOKENS and tok.gap == " "
                and _NUMERIC.fullmatch(out[-1].text)):
            last = out.pop()
            tok = Token(last.text + tok.text, last.start, tok.end, last.gap)
        out.append(tok)
    return out


def _alias(kind: str, ident: str, name: str) -> _Alias | None:
    toks = tokenize(normalize(name))
    if not toks or (len(toks) == 1 and toks[0].text in _COMMON_WORD_ALIASES):
        return None
    return _Alias(kind, ident, tuple(t.text for t in toks),
                  tuple(i > 0 and t.gap == "" for i, t in enumerate(toks)))


def _names(primary: str, *others: str) -> set[str]:
    names = {primary, *others}
    for n in list(names):
        if "/" in n:
            names.add(n.rsplit("/", 1)[1])
    return names | {normal(n) for n in names}


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text))


class Matcher:
    """Every catalog name, indexed by its first token."""

    def __init__(self, catalog: Catalog):
        self._by_first: dict[str, list[_Alias]] = {}
        entries: list[tuple[str, str, set[str]]] = []
        for m in catalog.models():
            entries.append(("model", m.id, _names(m.id, m.display_name, m.hub_id, *m.aliases)))
        for g in catalog.gpus():
            entries.append(("gpu", g.id, _names(g.id, g.display_name, *g.aliases)))
        for r in catalog.regions():
            extra = [_COUNTRY_ES[r.country]] if r.country in _COUNTRY_ES else []
            entries.append(("region", r.id, _names(r.id, r.display_name, r.city, r.country, *r.aliases, *extra)))
        for kind, ident, names in entries:
            for name in names:
                alias = _alias(kind, ident, name)
                if alias is not None:
                    self._by_first.setdefault(alias.toks[0], []).append(alias)
        for aliases in self._by_first.values():
            aliases.sort(key=lambda a: -len(a.toks))
        self._families = self._build_families(catalog)

    @staticmethod
    def _build_families(catalog: Catalog) -> dict[str, _Family]:
        families: dict[str, _Family] = {}
        for m in catalog.models():
            toks = [t.text for t in tokenize(normalize(m.id))]
            if not toks or toks[0] in _NO_FAMILY_MATCH or not toks[0].isalpha():
                continue
            sizes = [t for t in toks[1:] if _SIZE.fullmatch(t)]
            versions = tuple(t for t in toks[1:] if _NUMERIC.fullmatch(t))
            fam = families.setdefault(toks[0], _Family(toks[0]))
            fam.models.append((_version(".".join(versions)), sizes[0] if sizes else "", m.id, versions))
        for fam in families.values():
            fam.models.sort(key=lambda x: x[0], reverse=True)
        return families

    def find(self, text: str) -> list[NameMatch]:
        """Catalog names in ``text`` (normalized), left to right, without overlaps."""
        toks = tokenize(text)
        out: list[NameMatch] = []
        i = 0
        while i < len(toks):
            hit = self._alias_at(toks, i) or self._family_at(toks, i)
            if hit is None:
                i += 1
                continue
            match, used = hit
            if used > 1 and match.kind == "model" and _context_variant(toks[i + used - 1], text):
                used -= 1  # "phi3 mini 128k": the model, then a sequence length (see _context_variant)
                match = NameMatch(match.kind, match.ident, match.start, toks[i + used - 1].end)
            out.append(match)
            i += used
        return out

    def _alias_at(self, toks: list[Token], i: int) -> tuple[NameMatch, int] | None:
        first = toks[i].text
        candidates = self._by_first.get(first, [])
        if len(first) > 1 and first.endswith("s") and first[-2].isdigit():
            candidates = candidates + self._by_first.get(first[:-1], [])
        for alias in candidates:
            n = len(alias.toks)
            if i + n > len(toks):
                continue
            if all(self._token_ok(toks[i + k], alias, k) for k in range(n)):
                return NameMatch(alias.kind, alias.ident, toks[i].start, toks[i + n - 1].end), n
        return None

    @staticmethod
    def _token_ok(tok: Token, alias: _Alias, k: int) -> bool:
        want = alias.toks[k]
        last = k == len(alias.toks) - 1
        if tok.text != want and not (last and want[-1].isdigit() and tok.text == want + "s"):
            return False
        if k == 0:
            return True
        return tok.gap in _JOIN_GAPS if alias.joined[k] else bool(_SEP_GAP.fullmatch(tok.gap))

    def _family_at(self, toks: list[Token], i: int) -> tuple[NameMatch, int] | None:
        fam = self._families.get(toks[i].text)
        if fam is None:
            return None
        j = i + 1
        versions: list[str] = []
        size = None
        while j < len(toks) and _SEP_GAP.fullmatch(toks[j].gap) and len(versions) < 2:
            t = toks[j].text
            if _SIZE.fullmatch(t):
                size = t
                j += 1
                break
            if _NUMERIC.fullmatch(t):
                versions.append(t)
                j += 1
                continue
            break
        if size is None and versions:  # "llama 3 70" is not a size; keep only what reads as one
            j = i + 1 + len(versions)
        wanted = ".".join(versions)
        models = [(v, s, ident) for v, s, ident, vs in fam.models
                  if not wanted or ".".join(vs[: len(versions)]) == wanted
                  or (vs and vs[0].startswith(wanted + "."))]
        if size is not None:
            models = [m for m in models if m[1] == size]
        ids = tuple(m[2] for m in models)
        start, end = toks[i].start, toks[j - 1].end
        if len(ids) == 1:
            return NameMatch("model", ids[0], start, end, candidates=ids, family=fam.word, sized=size is not None), j - i
        if size is not None and not ids:
            m = _SIZE.fullmatch(size)
            size_b = None
            if m and m.group(1):
                size_b = float(m.group(1)) / (1000 if m.group(2) == "m" else 1)
            return NameMatch("family", None, start, end, family=fam.word, size_b=size_b, sized=True), j - i
        return NameMatch("family", None, start, end, candidates=ids, family=fam.word, sized=size is not None), j - i


_CONTEXT_TOKEN = re.compile(r"\d+k")
_SEQ_WORD_AFTER = re.compile(r"[\s-]*(?:context|ctx|seq|sequence|tokens?|contexto|secuencias?|longitud)\b")


def _context_variant(tok: Token, text: str) -> bool:
    """A name ending in a context size ("Phi-3-mini-128k") names the model's long-context variant;
    the size is also the run's sequence length when typed apart from the name ("phi3 mini 128k") or
    followed by a sequence word ("phi-3-mini-128k context"). Inside a hub id ("phi-3-mini-128k-
    instruct") it is only part of the name: this is never the last token there."""
    if not _CONTEXT_TOKEN.fullmatch(tok.text):
        return False
    return " " in tok.gap or _SEQ_WORD_AFTER.match(text, tok.end) is not None


_CACHE: "weakref.WeakKeyDictionary[Catalog, tuple[tuple, Matcher]]" = weakref.WeakKeyDictionary()


def _fingerprint(catalog: Catalog) -> tuple:
    return (tuple((g.id, g.display_name, tuple(g.aliases)) for g in catalog.gpus()),
            tuple((m.id, len(m.aliases)) for m in catalog.models()),
            tuple((r.id, tuple(r.aliases)) for r in catalog.regions()))


def matcher_for(catalog: Catalog) -> Matcher:
    """The matcher for ``catalog``, rebuilt only when its names change (an admin adds a GPU)."""
    fp = _fingerprint(catalog)
    cached = _CACHE.get(catalog)
    if cached is not None and cached[0] == fp:
        return cached[1]
    matcher = Matcher(catalog)
    _CACHE[catalog] = (fp, matcher)
    return matcher
