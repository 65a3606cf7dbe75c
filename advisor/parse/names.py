"""Finding catalog models, GPUs and regions inside a sentence, in one pass over its words.

Every alias, hub id and display name in the catalog is split into tokens the way message text is
("Llama-3.1-8B-Instruct" -> llama / 3.1 / 8b / instruct). Where the alias had no separator
("rtx4090", "qwen2.5") the text may have none or a hyphen; where it had one ("qwen-2.5-14b") the
text may use any short run of spaces, hyphens, underscores, dots or slashes. Plurals of names
ending in a digit are accepted ("H100s", "4090s"). At each word the longest alias wins.

When no alias matches, a family word followed by a size ("llama 70b", "qwen 7b", "gemma 27b"),
or preceded by one ("72b qwen", "405b llama 3.1"), picks that family's models of that size (newest
first); a family named alone ("mistral", "llama 3.1") lists its candidates so the parser can ask
which one.

A word one edit from a model name ("mistrl 7b", "lama 3.1", "fakcon-7b") is read as that name
when that gives a match (``advisor.parse.fuzzy``; the match keeps what was typed, and the answer
says how it was read); two edits away ("mstrl") gives an ``unsure`` match with the models it could
be, and the parser asks "did you mean ...?". A GPU-like token one edit from a GPU we know ("h10",
"a1000", "l40") is always a question: a digit changes the card.

A matcher is built once per catalog (a few ms) and reused while the catalog's names do not change.
"""

from __future__ import annotations

import math
import re
import weakref
from dataclasses import dataclass, field, replace

from advisor.catalog import Catalog
from advisor.catalog.names import normal
from advisor.parse import fuzzy
from advisor.parse.prefilter import ascii_safe, ascii_twin
from advisor.parse.text import normalize

TOKEN = re.compile(r"[a-z]+|\d+(?:\.\d+)*(?:x\d+(?:\.\d+)?)?[a-z]*")
_TOKEN_ASCII = ascii_twin(TOKEN)  # the same tokens on a text of ASCII and placeholders (``prefilter.ascii_safe``)
_NUMERIC = re.compile(r"\d+(?:\.\d+)*")
_SIZE = re.compile(r"(\d+(?:\.\d+)?)([bm])|\d+x\d+(?:\.\d+)?b")
_UNIT_TOKENS = {"b", "m", "gb", "gbs", "gib", "bn"}
_DECIMAL_SIZE = re.compile(r"\d{1,2}[bm]")  # the decimals of a size after a decimal comma ("1,5b": "5b")
# Words that mark a version between a family and its number ("Llama v3.2 1B", "llama-v3.1-8b", "Qwen version 2.5",
# "Gemma versión 2"): the version itself follows (Meta's model cards write "Llama v2"; Hub ids "vicuna-13b-v1.5").
_VERSION_MARKS = {"v", "ver", "version"}
_JOIN_GAPS = {"", "-", "_"}
# ":" for Ollama tags ("llama3.1:8b", "phi3:mini"), "(" for "Llama 3.2 (3B)"; a line break alone, where Slack or a mail
# client wrapped a long message inside a name ("Llama\n3.1 405B", "model Qwen3\n0.6B")
_SEP_GAP = re.compile(r"[ \-_/.:(]{0,3}|[ \t]?\n[ \t]?")
# Aliases that are ordinary words in a sentence ("a tiny model"): matched only as part of a longer alias.
_COMMON_WORD_ALIASES = {"tiny", "test"}
# Vendor and product-line words typed before a GPU name (``advisor.catalog.names`` treats them as noise).
# Every match of _LINK contains one of these ("http:", "https:", "www.", or a top-level domain between "." and
# "/"): a text without any has no link, and _LINK (which tries a word run at every position) is not run.
_LINK_HINT = re.compile(r"https?:|www\.|\.(?:com|org|net|io|ai|dev|co)/")
# Words remembered per vocabulary in ``Matcher.find`` before the memory starts over (a bot reads every message).
_MAX_REMEMBERED = 50_000
_LINK = re.compile(r"\b(?:https?://|www\.)\S+|\b[a-z0-9-]+(?:\.[a-z0-9-]+)+\.(?:com|org|net|io|ai|dev|co)/\S*")
_ALTERNATIVE_WORDS = {"or", "o", "u", "vs", "versus"}  # "A100 40GB or 80GB": what joins a card's other variant
_FORM_WORDS = {"pcie", "sxm", "sxm4", "sxm5", "nvl"}  # the datasheets' form factors, as typed before a name
# The architectures' names are product-line words too, as the vendors write them before a part ("NVIDIA
# Blackwell B200", "Hopper H100", "Ampere A100", "Ada Lovelace L40S"; AMD's "CDNA 3 MI300X").
_ARCH_WORDS = {"blackwell", "hopper", "ampere", "ada", "lovelace", "volta", "turing", "grace", "cdna"}
_VENDOR_WORDS = {"nvidia", "nv", "amd", "geforce", "instinct", "hgx", "dgx", "tesla", "radeon", *_ARCH_WORDS}
# Families never matched by their word alone (the toy test model).
_NO_FAMILY_MATCH = {"tiny", "test"}
# Google Cloud's region ids that are catalog regions (advisor/launch/names.py maps ours to them the other way)
_GCP_REGIONS = {"europe-west9": "eu-west", "europe-west3": "eu-central"}
# Country names in Spanish, so "en Francia" finds the region whose country is France.
_COUNTRY_ES = {"France": "francia", "Germany": "alemania", "Spain": "espana", "Netherlands":
               "paises bajos", "Finland": "finlandia", "Sweden": "suecia", "Italy": "italia",
               "United Kingdom": "reino unido", "United States": "estados unidos", "Poland": "polonia"}


# A region named by its part of Europe in Spanish ("EU West" is "Europa occidental", "UE oeste", "el oeste de Europa";
# "EU Central" "Europa central", "el centro de Europa"), for the region ids "eu-<direction>".
_DIRECTIONS_ES = {"west": ("occidental", "oeste"), "central": ("central", "centro"), "east": ("oriental", "este"),
                  "north": ("norte", "septentrional"), "south": ("sur", "meridional")}


def _region_es(ident: str) -> list[str]:
    area, _, direction = ident.partition("-")
    if area != "eu" or direction not in _DIRECTIONS_ES:
        return []
    return [form for d in _DIRECTIONS_ES[direction]
            for form in (f"europa {d}", f"ue {d}", f"{d} de europa", f"europa del {d}")]


# A GPU architecture's name, said between the card and its memory ("A100 Ampere 40 GB", NVIDIA's own product pages)
_ARCH_WORDS = frozenset({"ampere", "hopper", "ada", "lovelace", "blackwell", "volta", "turing"})
# Nouns a count stands before ("6 vueltas", "3 epochs", "8 GPUs"): the number before one is that count.
_COUNT_NOUNS = frozenset({"epochs", "epoch", "epocas", "epoca", "vueltas", "vuelta", "passes", "pasadas", "gpus", "gpu",
                          "cards", "tarjetas", "nodes", "nodos", "steps", "pasos", "examples", "ejemplos", "samples",
                          "muestras", "runs", "corridas"})


@dataclass(slots=True)  # built for every word of every message: a frozen dataclass's __init__ costs about 4x as much
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
    typed: str | None = None  # the word as typed when a typo was read as a name ("mistrl")
    word: str | None = None  # what the typo was read as ("mistral")


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
    for m in (_TOKEN_ASCII if ascii_safe(text) else TOKEN).finditer(text):
        start, end = m.span()
        tok = Token(m.group(), start, end, text[prev:start])
        prev = end
        if (out and tok.text in _UNIT_TOKENS and tok.gap == " "
                and _NUMERIC.fullmatch(out[-1].text) and not text[m.end():m.end() + 1].isdigit()):
            last = out.pop()
            tok = Token(last.text + tok.text, last.start, tok.end, last.gap)
        elif tok.gap == "," and out and _DECIMAL_SIZE.fullmatch(tok.text) and out[-1].text.isdigit() \
                and len(out[-1].text) <= 3 and not text[m.end():m.end() + 1].isdigit():
            # a size with a decimal comma ("1,5B", "smollm2 de 1,7B": Spanish and most of Europe write the decimal
            # point as a comma, CLDR's es/de/fr decimal symbol) is one size, the catalog's "1.5b"; never a
            # thousands group, which has three digits after the comma ("3,000 tokens")
            last = out.pop()
            tok = Token(f"{last.text}.{tok.text}", last.start, tok.end, last.gap)
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
            extra += _region_es(r.id)
            entries.append(("region", r.id, _names(r.id, r.display_name, r.city, r.country, *r.aliases, *extra)))
        for kind, ident, names in entries:
            for name in names:
                alias = _alias(kind, ident, name)
                if alias is not None:
                    self._by_first.setdefault(alias.toks[0], []).append(alias)
        for aliases in self._by_first.values():
            aliases.sort(key=lambda a: -len(a.toks))
        # The same lists narrowed by the second token: an alias of three tokens or more is only tried where the
        # text's second token is its own (``_alias_at`` checks exactly that first), so "qwen" (114 aliases) is
        # not walked alias by alias at every "qwen" of a pasted config. The lists are sorted longest first, so
        # the aliases of one or two tokens come after all the others: ``by_second[t] + short`` keeps the order.
        self._by_second: dict[str, tuple[dict[str, list[_Alias]], list[_Alias]]] = {}
        for first, aliases in self._by_first.items():
            by_second: dict[str, list[_Alias]] = {}
            for a in aliases:
                if len(a.toks) > 2:
                    by_second.setdefault(a.toks[1], []).append(a)
            self._by_second[first] = (by_second, [a for a in aliases if len(a.toks) <= 2])
        self._longest = max((len(a.toks) for aliases in self._by_first.values() for a in aliases), default=1)
        self._families = self._build_families(catalog)
        # per ``known`` vocabulary, whether a word can start no name (``find``'s first look, the same for the
        # same word: the matcher's tables do not change), remembered across messages (a chat repeats its words)
        self._skips: dict[frozenset[str], dict[str, bool]] = {}
        self._own_words: dict[str, frozenset[str]] = {}  # a family's own name words (_family_words)
        self._known_tokens = frozenset(self._by_first) | frozenset(
            t for aliases in self._by_first.values() for a in aliases for t in a.toks)
        self._model_words = frozenset(
            w for w, aliases in self._by_first.items() if w.isalpha() and len(w) >= 4
            and any(a.kind == "model" for a in aliases)) | frozenset(
            w for w in self._families if len(w) >= 4)
        self._sizes = [(m.id, m.params_total / 1e9) for m in catalog.models() if m.id != "tiny-test" and m.params_total]
        self._gpu_memory = {g.id: float(g.memory_gb) for g in catalog.gpus()}
        # GPUs whose form factor is SXM (the datasheet's form_factor), so "SXM" after their name describes them
        self._sxm = {g.id for g in catalog.gpus() if "sxm" in (g.form_factor or "").lower() or "sxm" in g.id}
        # each GPU's own form-factor word (the datasheet's form_factor: "OAM" for the MI300X, "SXM5", "PCIe"):
        # typed after its name it describes the card ("MI300X OAM x4"), and a count after it is the name's
        self._form = {g.id: re.sub(r"\d+$", "", (g.form_factor or "").split()[0].lower()) for g in catalog.gpus()
                      if g.form_factor}
        self._gpu_compact = {}
        for g in catalog.gpus():
            for name in _names(g.id, g.display_name, *g.aliases):
                compact = re.sub(r"[^a-z0-9]", "", normalize(name))
                if re.fullmatch(r"[a-z]{1,3}\d{1,4}[a-z]{0,2}", compact):
                    self._gpu_compact.setdefault(compact, g.id)

    @property
    def known_tokens(self) -> frozenset[str]:
        """Every token of every catalog name (never a typo of a method word)."""
        return self._known_tokens

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

    def find(self, text: str, known: frozenset[str] = frozenset(),
             capitalized: frozenset[str] = frozenset()) -> list[NameMatch]:
        """Catalog names in ``text`` (normalized), left to right, without overlaps. ``known``:
        words that are never a typo of a name (the parser's own vocabulary); ``capitalized``: words
        the message capitalized (a name we do not know is asked about when typed like a name)."""
        toks = tokenize(text)
        out: list[NameMatch] = []
        i = 0
        by_first, families = self._by_first, self._families
        # a link's path names a page, no card: "wiki.example.com/runs/4090" is no RTX 4090
        links = [m.span() for m in _LINK.finditer(text)] if "/" in text and _LINK_HINT.search(text) else []
        skips = self._skips.get(known)
        if skips is None or len(skips) > _MAX_REMEMBERED:
            if len(self._skips) >= 8:  # a caller with vocabularies of its own: remember the latest only
                self._skips.clear()
            skips = self._skips[known] = {}
        while i < len(toks):
            t = toks[i].text
            skip = skips.get(t)
            if skip is None:
                skip = skips[t] = (t not in by_first and t not in families and not (t[-1] == "s" and t[:-1] in by_first)
                                   and not _SIZE.fullmatch(t) and not self._may_be_typo(t, known)
                                   and self._short_family_typo(t, known) is None)
            if skip:
                i += 1  # most words of a message start no name: one look, not four (remembered per word)
                continue
            hit = self._alias_at(toks, i) or self._family_at(toks, i) or self._size_first(toks, i)
            if hit is None:
                hit = self._typo_at(toks, i, known, capitalized)
            if hit is None:
                i += 1
                continue
            match, used = hit
            if used > 1 and match.kind == "model" and _context_variant(toks[i + used - 1], text):
                used -= 1  # "phi3 mini 128k": the model, then a sequence length (see _context_variant)
                match = NameMatch(match.kind, match.ident, match.start, toks[i + used - 1].end)
            if match.family is not None and match.kind in ("model", "family") and i + used < len(toks):
                match, used = self._version_in_parens(toks, i, used, match, text)
            if match.kind == "gpu":
                match = self._form_before(toks, i, used, match, out)
                first = next(k for k in range(i, -1, -1) if toks[k].start == match.start)
                match = self._with_vendor(toks, first, match, out)
                used += self._own_memory(toks, i + used, match)
                if i + used + 1 < len(toks) and toks[i + used].text in _ARCH_WORDS:
                    match, used = self._memory_past_arch(toks, i, used, match)
                if i + used < len(toks) and toks[i + used].text in _FORM_WORDS:
                    match, used = self._form_after_memory(toks, i, used, match)
                    if i + used < len(toks) and toks[i + used].text in _FORM_WORDS:
                        match, used = self._other_form(toks, i, used, match)
                if used and toks[i + used - 1].end > match.end:
                    match = NameMatch(match.kind, match.ident, match.start, toks[i + used - 1].end)
            if match.kind == "gpu" and links and any(a <= match.start < b for a, b in links):
                i += used
                continue
            if match.kind == "region" and text[match.end:match.end + 1].isdigit():
                # a cloud's own region id glued to its number ("--zone=europe-west4-a"): GCP numbers its regions,
                # and europe-west4 is the Netherlands, no "Europe West" of ours; the ids that are ours are read as
                # such (cloud.google.com/compute/docs/regions-zones: europe-west9 Paris, europe-west3 Frankfurt)
                digits = re.match(r"\d+", text[match.end:]).group(0)
                ident = _GCP_REGIONS.get(re.sub(r"[\s_-]+", "-", text[match.start:match.end]) + digits)
                if ident is None:
                    i += used
                    continue
                match = NameMatch(match.kind, ident, match.start, match.end + len(digits))
            if "(" in toks[i + used - 1].gap and text.startswith(")", match.end):
                match = NameMatch(match.kind, match.ident, match.start, match.end + 1, match.candidates, match.family,
                                  match.size_b, match.sized, match.typed, match.word)  # "Llama 3.2 (3B)": the ")" too
            out.append(match)
            i += used
            if match.kind == "gpu" and i < len(toks) and toks[i].text in _ALTERNATIVE_WORDS:
                other = self._other_variant(toks, i - used, used, match)
                if other is not None:
                    out.append(other[0])
                    i += other[1]
        return out + self._gpu_typos(text, out, known)

    def _other_variant(self, toks: list[Token], i: int, used: int, match: NameMatch) -> tuple[NameMatch, int] | None:
        """"¿A100 de 40GB o de 80GB?", "A100 40GB or 80GB", "H100 PCIe or SXM": after "or" a memory size or a form
        factor alone names the other variant of the same card (the name is looked up with that word in place of the
        card's own), a second card to compare; the "or" and the word are returned with their token count. A word
        that names no variant of that card ("A100 or 24GB") is left as it is."""
        j = i + used + 1  # past the "or"
        if j < len(toks) and toks[j].text in ("de", "the", "la", "el") and toks[j].gap == " ":
            j += 1
        if j >= len(toks) or toks[j].gap.strip() != "" or not (_MEMORY.fullmatch(toks[j].text) or toks[j].text in _FORM_WORDS):
            return None
        if j + 1 < len(toks) and toks[j + 1].gap.strip() == "" and (toks[j + 1].text in self._by_first
                                                                  or _MEMORY.fullmatch(toks[j + 1].text)):
            return None  # "40GB or 80GB A100": a name of its own follows
        name = [t for t in toks[i:i + used] if not (_MEMORY.fullmatch(t.text) or t.text in _FORM_WORDS or t.text == "de")]
        if not name:
            return None
        last = name[-1]
        moved = [*name, Token(toks[j].text, last.end, last.end, " ")]
        hit = self._alias_at(moved, 0)
        if hit is None or hit[0].kind != "gpu" or hit[1] != len(moved) or hit[0].ident == match.ident:
            return None
        return NameMatch("gpu", hit[0].ident, toks[i + used + 1].start, toks[j].end), j - (i + used) + 1

    def _form_before(self, toks: list[Token], i: int, used: int, match: NameMatch, found: list[NameMatch]) -> NameMatch:
        """"PCIe H100", "SXM H100s", "40GB A100": a form factor or a memory size typed before the GPU's
        name names the same variant as after it ("H100 PCIe", "A100 40GB"): the name is looked up with the
        word moved after it, and
        the word is part of the match (so a count before it, "2 SXM H100s", is next to the name)."""
        j, word = i - 1, toks[i - 1].text if i else ""
        if i >= 2 and word.isdigit() and toks[i - 1].gap == "" and toks[i - 2].text == "sxm":
            j, word = i - 2, "sxm" + word  # "SXM5 H100": the tokens split letters from digits
        if i >= 3 and word == "factor" and toks[i - 2].text == "form" and toks[i - 3].text in _FORM_WORDS \
                and toks[i - 2].gap.strip(" -") == "" and toks[i - 1].gap.strip(" -") == "":
            j, word = i - 3, toks[i - 3].text  # "PCIe-form-factor H100", "SXM form factor H100": the datasheet's phrase
        if i == 0 or not (word in _FORM_WORDS or _MEMORY.fullmatch(word)) or toks[i].gap.strip(" -") != "" \
                or any(m.start <= toks[j].start < m.end for m in found):
            return match
        last = toks[i + used - 1]
        moved = [*toks[i:i + used], Token(word, last.end, last.end, " ")]
        hit = self._alias_at(moved, 0)
        if (hit is None or hit[1] != used + 1) and last.text.endswith("s"):  # "2 of the 40GB A100s"
            moved[used - 1] = Token(last.text[:-1], last.start, last.end, last.gap)
            hit = self._alias_at(moved, 0)
        if hit is not None and hit[0].kind == "gpu" and hit[1] == used + 1:
            ident = hit[0].ident
        elif word.startswith("sxm") and match.ident in self._sxm:
            ident = match.ident
        else:
            return match
        return NameMatch(match.kind, ident, toks[j].start, match.end, match.candidates, match.family,
                         match.size_b, match.sized, match.typed, match.word)

    @staticmethod
    def _with_vendor(toks: list[Token], i: int, match: NameMatch, found: list[NameMatch]) -> NameMatch:
        """"4 NVIDIA L40S", "8 GeForce 4090s", "AMD MI300X", "HGX B200": the vendor and product-line
        words before a GPU name are part of it (``catalog.names`` drops them when it looks a name up),
        so what stands before the name (a count) is read next to it."""
        j = i
        while j > 0 and toks[j - 1].text in _VENDOR_WORDS and toks[j].gap.strip(" -") == "" \
                and not any(m.start <= toks[j - 1].start < m.end for m in found):
            j -= 1
        if j == i:
            return match
        return NameMatch(match.kind, match.ident, toks[j].start, match.end, match.candidates, match.family,
                         match.size_b, match.sized, match.typed, match.word)

    def _version_in_parens(self, toks: list[Token], i: int, used: int, match: NameMatch,
                           text: str) -> tuple[NameMatch, int]:
        """"a 1B Llama (3.2)", "llama 8b (3.1)", "el llama de 70b (v3.3)": the family's version in a parenthesis after
        it names that release, and the parenthesis is part of the name (its number is no setting)."""
        j = i + used
        if toks[j].text in _VERSION_MARKS and j + 1 < len(toks) and toks[j + 1].gap in ("", " ", "."):
            j += 1  # "(v3.3)"
        tok = toks[j]
        if "(" not in toks[i + used].gap or not _NUMERIC.fullmatch(tok.text) or not text.startswith(")", tok.end):
            return match, used
        if toks[i + used].gap.replace(" ", "") != "(" or any(_NUMERIC.fullmatch(t.text) for t in toks[i:i + used]):
            # only a parenthesis right after the name, on a name that said no version of its own: "Llama 3.1 13B,
            # (2) A10G" is a count of cards after a family_size question, never Llama 2 13B
            return match, used
        fam = self._families.get(match.family)
        if fam is None:
            return match, used
        pool = set(match.candidates) if match.candidates else {m[2] for m in fam.models}
        if match.ident is not None:
            pool = {match.ident}
        ids = [m[2] for m in self._versioned(fam, [tok.text], None) if m[2] in pool]
        if not ids:
            return match, used
        taken = j - i + 1
        if len(ids) == 1:
            return NameMatch("model", ids[0], match.start, tok.end + 1, candidates=(ids[0],), family=match.family,
                             sized=match.sized), taken
        return NameMatch("family", None, match.start, tok.end + 1, candidates=tuple(ids), family=match.family,
                         sized=match.sized), taken

    def _form_after_memory(self, toks: list[Token], i: int, used: int, match: NameMatch) -> tuple[NameMatch, int]:
        """"H100 80GB PCIe", "H100 80 GB NVL": a form factor after the card's memory names the variant, as it does
        right after the name ("H100 PCIe"): the name is looked up with the memory left out. (Both H100 parts have
        80 GB, so the memory alone says neither.)"""
        j = i + used
        name = [t for t in toks[i:j] if not _MEMORY.fullmatch(t.text)]
        if toks[j].gap.strip(" ()-,\n\t") != "" or len(name) == used:
            return match, used
        moved = [*name, Token(toks[j].text, toks[j].start, toks[j].end, " ")]
        hit = self._alias_at(moved, 0)
        if hit is None or hit[0].kind != "gpu" or hit[1] != len(moved):
            return match, used
        return NameMatch("gpu", hit[0].ident, match.start, toks[j].end, match.candidates, match.family,
                         match.size_b, match.sized, match.typed, match.word), used + 1

    def _other_form(self, toks: list[Token], i: int, used: int, match: NameMatch) -> tuple[NameMatch, int]:
        """"H100 NVL", "A100 PCIe", "H200 NVL": a form factor after the name that neither this card nor any part of
        its name in the catalog has is a variant we do not list: a question with the parts we do ("did you mean
        H100 SXM or H100 PCIe?"), never the other part sized silently."""
        form = toks[i + used]
        if form.gap.strip(" ()-,\n\t") != "" or match.ident is None:
            return match, used
        if form.text == self._form.get(match.ident) or (form.text.startswith("sxm") and match.ident in self._sxm):
            # the card's own form, typed over a line break ("8 B200\nSXM GPUs"): part of its name
            return NameMatch(match.kind, match.ident, match.start, form.end, match.candidates, match.family,
                             match.size_b, match.sized, match.typed, match.word), used + 1
        name = [t.text for t in toks[i:i + used] if not _MEMORY.fullmatch(t.text) and t.text not in _FORM_WORDS]
        parts = sorted({a.ident for a in self._by_first.get(name[0], []) if a.kind == "gpu"
                        and list(a.toks[:len(name)]) == name}) if name else []
        if not parts:
            return match, used
        return NameMatch("unsure", None, match.start, form.end, tuple(parts),
                         typed=f"{' '.join(name)} {form.text}", word="gpu"), used + 1

    def _memory_past_arch(self, toks: list[Token], i: int, used: int, match: NameMatch) -> tuple[NameMatch, int]:
        """"A100 Ampere 40 GB", "A100 Ampere 80GB": the architecture between the card's name and its memory, which
        names the variant as it does right after the name ("A100 40GB"): the name is looked up with the memory
        after it, and both words are the match's (else the 40 GB part was read as the 80 GB one, its default)."""
        mem = toks[i + used + 1]
        if not _MEMORY.fullmatch(mem.text) or mem.gap.strip(" ()/-,") != "":
            return match, used
        hit = self._alias_at([*toks[i:i + used], Token(mem.text, mem.start, mem.end, " ")], 0)
        if hit is None or hit[0].kind != "gpu" or hit[1] != used + 1:
            return match, used
        return replace(match, ident=hit[0].ident, end=mem.end), used + 2

    def _own_memory(self, toks: list[Token], j: int, match: NameMatch) -> int:
        """"RTX 4090 24GB", "L40S (48 GB)", "H100 80GB SXM": the card's own memory (and form factor)
        typed after its name describe it; they are part of the name, so a count after them ("24GBx4")
        is read next to the name. Another memory size ("A100 40GB" read as the 80 GB A100) is left."""
        used = 0
        while j + used < len(toks):
            tok = toks[j + used]
            mem = _MEMORY.fullmatch(tok.text)
            if mem and float(mem.group(1)) == self._gpu_memory.get(match.ident) and tok.gap.strip(" ()/-") == "":
                used += 1
                continue
            if tok.text.isdigit() and tok.gap == "-" and float(tok.text) == self._gpu_memory.get(match.ident):
                used += 1  # "a100-80": the 80 GB A100
                continue
            if tok.text in ("hbm", "gddr") and tok.gap.strip(" ()/-") == "":
                used += 1  # "H100 80GB HBM3", "RTX 4090 GDDR6X": the card's memory technology, as datasheets write it
                while j + used < len(toks) and toks[j + used].gap == "" and re.fullmatch(r"\d[a-z]?|[a-z]{1,2}", toks[j + used].text):
                    used += 1  # the generation the tokens split off ("hbm" "3", "hbm" "2" "e", "gddr" "6" "x")
                continue
            if tok.text in ("generation", "gen") and tok.gap == " ":
                used += 1  # "RTX 6000 Ada Generation": NVIDIA's full product name
                continue
            if tok.text not in ("sxm", "sxm4", "sxm5") and tok.text.isalpha() and tok.text == self._form.get(match.ident) \
                    and tok.gap.strip(" ()-") == "":
                used += 1  # "MI300X OAM", "L4 PCIe": the card's own form factor
                continue
            if tok.text in ("sxm", "sxm4", "sxm5") and match.ident in self._sxm and tok.gap.strip(" ()-") == "":
                used += 1
                nxt = toks[j + used] if j + used < len(toks) else None
                if nxt is not None and nxt.text in ("4", "5") and nxt.gap == "":
                    used += 1  # "A100-SXM4-80GB": the tokens split "sxm4"
                continue
            break
        return used

    def _size_first(self, toks: list[Token], i: int) -> tuple[NameMatch, int] | None:
        """"72b qwen", "405b llama 3.1": a size typed before the family word."""
        if i + 1 >= len(toks) or not _SIZE.fullmatch(toks[i].text) or toks[i + 1].gap not in (" ", "-", "_"):
            return None
        if toks[i + 1].text in ("de", "of") and toks[i + 1].gap == " " and i + 2 < len(toks) and toks[i + 2].gap == " " \
                and toks[i + 2].text in self._families and i and toks[i - 1].text in ("el", "del", "al", "the", "un"):
            # "el 8B de Qwen3", "qlora del 8b de qwen3", "the 70b of llama 3": the family's model of that size, said
            # with the possessive (after an article, so "8b de datos" or "a 7b of qwen-like size" stays as typed)
            hit = self._size_first(toks[:i + 1] + toks[i + 2:], i)
            if hit is not None:
                match, used = hit
                return NameMatch(match.kind, match.ident, match.start, match.end, match.candidates, match.family,
                                 match.size_b, match.sized, match.typed, match.word), used + 1
        if toks[i + 1].text in ("param", "params", "parameter", "parameters") and i + 2 < len(toks) \
                and toks[i + 2].gap in (" ", "-", "_") and toks[i + 2].text in self._families:
            # "8B-param Qwen3", "70B-parameter Llama 2": the size, its unit word, then the family
            hit = self._size_first(toks[:i + 1] + toks[i + 2:], i)
            if hit is not None:
                match, used = hit
                return NameMatch(match.kind, match.ident, toks[i].start, match.end, match.candidates, match.family,
                                 match.size_b, match.sized, match.typed, match.word), used + 1
            return None
        fam = self._families.get(toks[i + 1].text)
        typed = None
        if fam is None:  # "7b fakcon": a one-edit typo of a family word after the size
            word = toks[i + 1].text
            found = fuzzy.closest(word, frozenset(self._families), max_distance=1) if len(word) >= 4 else None
            if found is None or not found.sure or word in fuzzy.KNOWN:
                return None
            typed = word
            toks = toks[:i + 1] + [Token(found.words[0], toks[i + 1].start, toks[i + 1].end, toks[i + 1].gap)] + toks[i + 2:]
        hit = self._family_at(toks, i + 1, size=toks[i].text)
        if hit is None or hit[0].kind == "family" and not hit[0].sized:
            return None
        match, used = hit
        return NameMatch(match.kind, match.ident, toks[i].start, match.end, match.candidates, match.family,
                         match.size_b, True, typed=typed, word=toks[i + 1].text if typed else None), used + 1

    def _may_be_typo(self, word: str, known: frozenset[str]) -> bool:
        return not (not word.isalpha() or len(word) < 4 or word in self._known_tokens or word in fuzzy.KNOWN
                    or word in known or word in fuzzy.METHOD_WORDS)

    def _typo_at(self, toks: list[Token], i: int, known: frozenset[str],
                 capitalized: frozenset[str] = frozenset()) -> tuple[NameMatch, int] | None:
        """A model word typed with one edit ("mistrl 7b") is read as the name; two edits ask."""
        word = toks[i].text
        if not self._may_be_typo(word, known):
            return self._short_typo_at(toks, i, known, capitalized)
        found = fuzzy.closest(word, self._model_words, max_distance=2)
        if found is None and len(word) == 4 and i + 1 < len(toks) and _SIZE.fullmatch(toks[i + 1].text):
            # a short word right before a size, two edits from a family ("flon 40b"): too short to read as
            # that name, close enough to ask about (never answered as a generic model of that size)
            near = sorted(w for w in self._model_words if w[0] == word[0] and fuzzy.damerau(word, w, 2) <= 2)
            if near:
                found = fuzzy.Match(word, tuple(near), 2)
        if found is None:
            return self._unknown_name(toks, i, capitalized=capitalized)
        hits = []
        for cand in found.words:
            fixed = toks[:i] + [Token(cand, toks[i].start, toks[i].end, toks[i].gap)] + toks[i + 1:]
            hit = self._alias_at(fixed, i) or self._family_at(fixed, i)
            if hit is not None and (hit[1] >= 2 or len(word) >= 5):
                hits.append((cand, hit))
        if not hits:
            return self._unknown_name(toks, i, capitalized=capitalized)
        if found.sure and len(hits) == 1:
            cand, (match, used) = hits[0]
            return NameMatch(match.kind, match.ident, match.start, match.end, match.candidates, match.family,
                             match.size_b, match.sized, typed=word, word=cand), used
        if len(word) < 6:
            return self._unknown_name(toks, i, [m for _, (m, _u) in hits], capitalized)
        ids: list[str] = []
        for _, (match, _used) in hits:
            for ident in ([match.ident] if match.ident else list(match.candidates)):
                if ident not in ids:
                    ids.append(ident)
        used = max(u for _, (_, u) in hits)
        return NameMatch("unsure", None, toks[i].start, toks[i + used - 1].end, tuple(ids[:6]),
                         typed=word, word="/".join(c for c, _ in hits)), used

    def _short_family_typo(self, word: str, known: frozenset[str]) -> str | None:
        """The four-letter family word a three-letter word is with one letter missing ("qwn", "olm"): too short to
        read alone (``fuzzy`` reads no word of four letters or fewer but a swap), so ``_short_typo_at`` reads it only
        with a version glued to it, the way the family's own names are typed ("qwn3" as "qwen3")."""
        if len(word) != 3 or not word.isalpha() or word in self._known_tokens or word in fuzzy.KNOWN \
                or word in known or word in fuzzy.METHOD_WORDS or word in self._families:
            return None
        near = [f for f in self._families if len(f) == 4 and f[0] == word[0] and fuzzy.damerau(word, f, 1) == 1]
        return near[0] if len(near) == 1 else None

    def _short_typo_at(self, toks: list[Token], i: int, known: frozenset[str],
                       capitalized: frozenset[str] = frozenset()) -> tuple[NameMatch, int] | None:
        """"qwn3 32b", "Qwn3 0.6B": a four-letter family word with a letter missing and its version glued on is that
        family's model, read as typed one edit off (as "mistrl 7b", "lama3 8b" are), and said so; the same word
        before a size without a glued version ("qwn 32b") is asked about, never answered as a bare size."""
        word = toks[i].text
        fam = self._short_family_typo(word, known)
        if fam is None or i + 1 >= len(toks):
            return None
        nxt = toks[i + 1]
        if nxt.gap == "" and _NUMERIC.fullmatch(nxt.text):
            fixed = toks[:i] + [Token(fam, toks[i].start, toks[i].end, toks[i].gap)] + toks[i + 1:]
            hit = self._alias_at(fixed, i) or self._family_at(fixed, i)
            if hit is None or hit[1] < 2:
                return None
            match, used = hit
            if match.kind == "model":
                return NameMatch(match.kind, match.ident, match.start, match.end, match.candidates, match.family,
                                 match.size_b, match.sized, typed=word, word=fam), used
            return NameMatch("unsure", None, match.start, match.end, tuple(([match.ident] if match.ident else
                                                                          list(match.candidates))[:6]),
                             typed=word, word=fam), used
        if _SIZE.fullmatch(nxt.text) or _NUMERIC.fullmatch(nxt.text):
            fixed = toks[:i] + [Token(fam, toks[i].start, toks[i].end, toks[i].gap)] + toks[i + 1:]
            hit = self._alias_at(fixed, i) or self._family_at(fixed, i)
            return self._unknown_name(toks, i, [hit[0]] if hit else None, capitalized)
        return None

    def _unknown_name(self, toks: list[Token], i: int, near: list[NameMatch] | None = None,
                      capitalized: frozenset[str] = frozenset()) -> tuple[NameMatch, int] | None:
        """A word we do not know right before a size ("pythia 12b", "mstrl 7b") names a model we
        do not have: ask, with the closest catalog models (by name when one is near, else by size)."""
        j = i + 1
        while j < len(toks) and j <= i + 3 and not _SIZE.fullmatch(toks[j].text) and (
                _NUMERIC.fullmatch(toks[j].text) and toks[j].gap in ("", " ", "-", "_", ".")
                # a hyphenated id's inner parts ("Starling-LM-7B-alpha", "OpenHermes-2.5-Mistral-7B"): one name
                or toks[j].gap in ("-", "_") and toks[j].text.isalnum() and len(toks[j].text) <= 12):
            j += 1  # a version between the name and its size ("smll2 135m", "lama 3.1 8b")
        if j >= len(toks) or toks[j].gap not in ("", " ", "-", "_") or not _SIZE.fullmatch(toks[j].text):
            return None
        size = _SIZE.fullmatch(toks[j].text)
        # Only what reads as a name: near one of ours ("mstrl"), joined to its size ("pythia-12b"),
        # or capitalized ("Pythia 12B"), or spelled as no English or Spanish word is (no vowel: "xqzlm 13b");
        # an ordinary word before a size ("wants 33b", "lora against 34b yi") is not.
        if not (near or toks[i + 1].gap in ("", "-", "_") or toks[i].text in capitalized
                or _no_vowel(toks[i].text)):
            return None
        ids: list[str] = []
        for match in near or []:
            ids += [c for c in ([match.ident] if match.ident else list(match.candidates)) if c not in ids]
        billions = float(size.group(1)) / (1000 if size.group(2) == "m" else 1) if size and size.group(1) else 0.0
        if billions > 0:
            by_size = sorted(self._sizes, key=lambda item: abs(math.log(item[1] / billions)))
            ids += [ident for ident, _ in by_size if ident not in ids][: max(0, 4 - len(ids))]
        return NameMatch("unsure", None, toks[i].start, toks[j].end, tuple(ids[:6]), typed=toks[i].text,
                         word="unknown"), j - i + 1

    def _gpu_typos(self, text: str, found: list[NameMatch], known: frozenset[str]) -> list[NameMatch]:
        """"h10", "a1000", "l40": one edit from a GPU we know, outside every name found: ask."""
        out = []
        taken = [(m.start, m.end) for m in found]
        for m in (_GPU_SHAPED_ASCII if ascii_safe(text) else _GPU_SHAPED).finditer(text):
            token = m.group(1)
            if (token in self._gpu_compact or token in known or token in _NOT_GPUS or _NOT_GPU_SHAPE.fullmatch(token)
                    or any(a <= m.start() < b for a, b in taken)):
                continue
            ids = sorted({self._gpu_compact[c] for c in self._gpu_compact
                          if c[0] == token[0] and fuzzy.damerau(token, c, 1) <= 1})
            if ids:
                out.append(NameMatch("unsure", None, m.start(), m.end(), tuple(ids), typed=token, word="gpu"))
        return sorted(out, key=lambda n: n.start) if out else []

    def _narrowed(self, first: str, texts: list[str]) -> list[_Alias]:
        """The aliases of ``_by_first[first]``, in order, less those of three tokens or more whose second
        token is not ``texts[1]`` (``_alias_at`` would skip each of them at its first look)."""
        by_second, short = self._by_second.get(first, _NO_ALIASES)
        if len(texts) < 2:
            return short
        longer = by_second.get(texts[1])
        return longer + short if longer else short

    def _alias_at(self, toks: list[Token], i: int) -> tuple[NameMatch, int] | None:
        first = toks[i].text
        if first not in self._by_first and not (first.endswith("s") and first[:-1] in self._by_first):
            return None
        texts = [t.text for t in toks[i:i + self._longest]]
        candidates = self._narrowed(first, texts)
        if len(first) > 1 and first.endswith("s"):
            candidates = [*candidates, *(a for a in self._narrowed(first[:-1], texts) if first[-2].isdigit() or a.kind == "gpu")]
        for alias in candidates:
            n = len(alias.toks)
            if n > len(texts):
                continue
            if n > 1 and (texts[1] != alias.toks[1] and n > 2 or tuple(texts[2:n - 1]) != alias.toks[2:n - 1]):
                continue  # a cheap look at the middle words before the full check
            if all(self._token_ok(toks[i + k], alias, k) for k in range(n)):
                return NameMatch(alias.kind, alias.ident, toks[i].start, toks[i + n - 1].end), n
        return None

    @staticmethod
    def _token_ok(tok: Token, alias: _Alias, k: int) -> bool:
        want = alias.toks[k]
        last = k == len(alias.toks) - 1
        if tok.text != want and not (last and (want[-1].isdigit() or alias.kind == "gpu") and tok.text == want + "s"):
            return False
        if k == 0:
            return True
        if "(" in tok.gap and not _SIZE.fullmatch(want):
            return False  # "(" only opens a size: "Llama 3.2 (3B)"
        return tok.gap in _JOIN_GAPS if alias.joined[k] else bool(_SEP_GAP.fullmatch(tok.gap))

    def _family_at(self, toks: list[Token], i: int, size: str | None = None) -> tuple[NameMatch, int] | None:
        fam = self._families.get(toks[i].text)
        if fam is None:
            return None
        j = i + 1
        versions: list[str] = []
        preset = size
        marked = 0  # a version's mark skipped ("v" in "Llama v3.2")
        while j < len(toks) and _SEP_GAP.fullmatch(toks[j].gap):
            t = toks[j].text
            if "(" in toks[j].gap and not _SIZE.fullmatch(t):
                break  # "(" only opens a size: "yi (3 passes" is not Yi 3
            if t == "de" and preset is None and toks[j].gap == " " and j + 1 < len(toks) and toks[j + 1].gap == " " \
                    and _SIZE.fullmatch(toks[j + 1].text) and not (j + 2 < len(toks) and toks[j + 2].text.startswith("token")):
                j += 1  # "un qwen de 72b", "el llama 3.1 de 405b": Spanish links the family to its size with "de"
                continue
            if t in _VERSION_MARKS and not versions and j + 1 < len(toks) and _NUMERIC.fullmatch(toks[j + 1].text) \
                    and toks[j + 1].gap in ("", " ", ".") and not (j + 2 < len(toks) and toks[j + 2].gap == " "
                                                                  and toks[j + 2].text in _COUNT_NOUNS):
                j += 1  # "Llama v3.2 1B", "llama-v3.1-8b": the version's mark, then the version
                marked = 1
                continue
            if _SIZE.fullmatch(t):
                if preset is not None:
                    break  # "70b llama 3 8b": the size before belongs to something else
                size = t
                j += 1
                break
            # "llama 3.1" (one token), torchtune's "llama3_1" (two joined by "_"); "llama 2 8 sequences"
            # is version 2, then a number of something else
            if _NUMERIC.fullmatch(t) and j + 1 < len(toks) and toks[j + 1].text in ("bit", "bits") \
                    and toks[j + 1].gap in ("", "-", " "):
                break  # "Falcon / 4-bit adapters", "Yi 4 bits": a quantization width, never the family's version
            if _NUMERIC.fullmatch(t) and j + 1 < len(toks) and toks[j + 1].gap == " " and toks[j + 1].text in _COUNT_NOUNS:
                break  # "de Yi 6 vueltas", "Mistral 3 epochs": a count of something else, never the family's version
            if t.isdigit() and not versions and j + 2 < len(toks) and toks[j + 1].gap == "," \
                    and len(toks[j + 1].text) == 1 and toks[j + 1].text.isdigit() \
                    and (_SIZE.fullmatch(toks[j + 2].text) or toks[j + 2].text == "de") \
                    and _SEP_GAP.fullmatch(toks[j + 2].gap):
                versions.append(f"{t}.{toks[j + 1].text}")  # "Qwen 2,5 7B", "llama 3,1 8b": a version's decimal comma
                j += 2
                marked += 1
                continue
            if _NUMERIC.fullmatch(t) and (not versions or len(versions) < 2 and toks[j].gap == "_"):
                versions.append(t)
                j += 1
                continue
            break
        if size is None and versions:  # "llama 3 70" is not a size; keep only what reads as one
            j = i + 1 + marked + len(versions)
        if preset is not None and j < len(toks) and _SIZE.fullmatch(toks[j].text) and _SEP_GAP.fullmatch(toks[j].gap) \
                and "(" not in toks[j].gap:
            return None  # "70b llama 3 8b": two sizes; "8B Llama 3 (200M tokens": a parenthesis of its own
        if size is None and preset is None:
            # "Qwen2.5-Coder-7B", "llama-guard-8b": the family, a variant word we do not know, then a size, all one
            # hyphenated id: a model the catalog lacks, asked about with the family's models near it (never sized
            # as a generic model of that size without a word)
            k = j
            own = self._family_words(fam)
            while k < len(toks) and k <= j + 2 and toks[k].gap in ("-", "_", " ") and toks[k].text in own:
                k += 1
            if j < k < len(toks) and _SEP_GAP.fullmatch(toks[k].gap) and "(" not in toks[k].gap \
                    and _SIZE.fullmatch(toks[k].text) and not self._versioned(fam, versions, toks[k].text):
                # "deepseek-llm 33b", "deepseek llm 33B": the family, a word of its own names ("llm" of
                # deepseek-llm-7b), then a size none of them has: the family's size question, as "deepseek 33b" is
                # (never a generic 33B model); a size one of them has is that model's name (_alias_at)
                m = _SIZE.fullmatch(toks[k].text)
                size_b = float(m.group(1)) / (1000 if m.group(2) == "m" else 1) if m.group(1) else None
                return NameMatch("family", None, toks[i].start, toks[k].end, family=fam.word, size_b=size_b,
                                 sized=True), k - i + 1
            k = j
            while k < len(toks) and k <= j + 2 and toks[k].gap in ("-", "_") and toks[k].text.isalpha():
                k += 1
            if j < k < len(toks) and toks[k].gap in ("-", "_") and _SIZE.fullmatch(toks[k].text):
                near = self._versioned(fam, versions, toks[k].text) or self._versioned(fam, versions, None)
                ids = tuple(dict.fromkeys(m[2] for m in near))[:6]
                return NameMatch("unsure", None, toks[i].start, toks[k].end, ids, typed=toks[i].text,
                                 word="unknown"), k - i + 1
        models = self._versioned(fam, versions, size)
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


    def _family_words(self, fam: _Family) -> frozenset[str]:
        """The words of a family's own catalog names past the family word ("llm" of deepseek-llm-7b, "instruct"),
        never a number, a size or the family word itself: remembered per family."""
        words = self._own_words.get(fam.word)
        if words is None:
            words = self._own_words[fam.word] = frozenset(
                t.text for m in fam.models for t in tokenize(normalize(m[2]))
                if t.text.isalpha() and t.text != fam.word and len(t.text) >= 2)
        return words

    @staticmethod
    def _versioned(fam: _Family, versions: list[str], size: str | None) -> list[tuple[tuple[int, ...], str, str]]:
        """The family's models of that version (and size). A version names its own models first: "70b
        llama 3" is Llama 3 70B, not the newer 3.3, when the catalog has both; only where no model
        has exactly that version does it name the newest of its point releases ("405b llama 3" is
        Llama 3.1 405B). Without a size, the version's own models come first in the list to ask from."""
        wanted = ".".join(versions)
        models = [(v, s, ident, vs) for v, s, ident, vs in fam.models
                  if not wanted or ".".join(vs[: len(versions)]) == wanted
                  or (vs and vs[0].startswith(wanted + "."))]
        if size is not None:
            models = [m for m in models if m[1] == size]
        exact = [m for m in models if ".".join(m[3]) == wanted]
        if wanted and exact:  # with a size, the exact version only; alone, its models first ("llama 3": which one?)
            models = exact if size is not None else exact + [m for m in models if m not in exact]
        return [(v, s, ident) for v, s, ident, _vs in models]


# Tokens shaped like a GPU name that are something else: precisions, quantization, attention
# kernels, LoRA ranks, counts, versions, DeepSpeed stages, model families with a version.
_NOT_GPUS = {"fp16", "bf16", "fp32", "fp8", "fp4", "tf32", "int8", "int4", "nf4", "fa2", "fa3", "mi300x"}
_NOT_GPU_SHAPE = re.compile(r"r\d+|x\d+|v\d+|zero\d|z\d|gpt\d+|qwen\d+|llama\d+|phi\d+|gemma\d+|yi\d+|smollm\d+"
                            r"|olmo\d+|sm\d+|cuda\d+|py\d+|e\d+|ep\d+|bs\d+|mbs\d+|lr\d+|top\d+|rtx\d{4}|q\d+[a-z]*")

# A token shaped like a GPU name ("h10", "a1000", "l40s"), for ``_gpu_typos``; its ASCII twin on an ASCII text.
_GPU_SHAPED = re.compile(r"(?<![\w.-])([a-z]{1,3}\d{2,4}[a-z]{0,2}?)s?(?![\w-])")
_GPU_SHAPED_ASCII = ascii_twin(_GPU_SHAPED)
_CONTEXT_TOKEN = re.compile(r"\d+k")
_MEMORY = re.compile(r"(\d{2,3})(?:gb|g|gib)s?")
_SEQ_WORD_AFTER = re.compile(r"[\s-]*(?:context|ctx|seq|sequence|tokens?|contexto|secuencias?|longitud)\b")


def _context_variant(tok: Token, text: str) -> bool:
    """A name ending in a context size ("Phi-3-mini-128k") names the model's long-context variant;
    the size is also the run's sequence length when typed apart from the name ("phi3 mini 128k") or
    followed by a sequence word ("phi-3-mini-128k context"). Inside a hub id ("phi-3-mini-128k-
    instruct") it is only part of the name: this is never the last token there."""
    if not _CONTEXT_TOKEN.fullmatch(tok.text):
        return False
    return " " in tok.gap or _SEQ_WORD_AFTER.match(text, tok.end) is not None


_NO_ALIASES: tuple[dict[str, list[_Alias]], list[_Alias]] = ({}, [])

_CACHE: "weakref.WeakKeyDictionary[Catalog, tuple[int, Matcher]]" = weakref.WeakKeyDictionary()


def matcher_for(catalog: Catalog) -> Matcher:
    """The matcher for ``catalog``, rebuilt only when it reloads its tables (an admin adds a GPU):
    ``Catalog.version`` counts the loads."""
    cached = _CACHE.get(catalog)
    if cached is not None and cached[0] == catalog.version:
        return cached[1]
    matcher = Matcher(catalog)
    _CACHE[catalog] = (catalog.version, matcher)
    # The torchtune builder table (advisor/parse/pasted.py's ``_builders``) imports advisor.launch, and with
    # it PyYAML: about 49 ms of CPU measured on the first message that pasted a torchtune config (the
    # benchmark's slowest call, 332-474 ms wall on the loaded machine). Filled here, with the matcher, the
    # one-time cost of the first parse; the table is the same whatever the message, so no parse changes.
    # Likewise the message tables (advisor.i18n imports its 16 modules on the first ``t()``: 52 ms of the first
    # message whose answer names options, "I want to qlora llama 70b" in the benchmark, profiled).
    from advisor.i18n import messages
    from advisor.parse.pasted import _builders

    _builders()
    messages()
    return matcher


# Every English and Spanish word is spelled with a vowel (y counted as one: "rhythm"); a word of four letters or
# more without any ("xqzlm", "brtx") is a name or an id, never an ordinary word before a size.
_VOWELS = frozenset("aeiouyáéíóúü")


def _no_vowel(word: str) -> bool:
    return word.isalpha() and _VOWELS.isdisjoint(word)
