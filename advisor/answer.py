"""One chat message in, the whole answer out: what the bot posts and `advisor ask` prints.

    advisor = Advisor(catalog)
    reply = advisor.ask("qlora llama-3-70b seq 8192")            # a new request
    reply = advisor.ask("what about 16k?", previous=reply.request)  # a thread follow-up

A ``Reply`` is the chat edge: its ``text`` in the message's language, and for an estimate the
typed ``answer`` (advisor.answer_model.Answer, numbers and codes) whose dump is ``data``, which
the bot stores and renders.

``ask`` never raises for anything a user can type: parse errors, unknown names and impossible
specs become a ``clarify`` answer that says what to fix, in the message's language. Anything else
is a bug and propagates (the boundary logs it with its traceback).

Frequently asked questions are answered from the catalog and the memory and cost model, not
from canned text: "Can I fine-tune on an RTX 4090?" runs the memory model for a ladder of model
sizes and names the largest that fits per method.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from advisor.catalog import Catalog, Gpu
from advisor.catalog.shapes import DEFAULT_MAX_GPUS
from advisor.cost import checkpoint_bytes
from advisor.errors import AdvisorError, ParseError
from advisor.format import gib, usd
from advisor.format import hours as duration
from advisor.i18n import t
from advisor.i18n.numbers import decimal, integer, percent
from advisor.memory import estimate_memory
from advisor.parse import ParseResult, detect_language, parse_message, understood
from advisor.parse.describe import answer_head, number
from advisor.answer_model import Answer, Option
from advisor.fit import FIT_MARGIN, fit_limit, memory_fits
from advisor.recommend import recommend
from advisor.report import model_label, reason_text, render_text, verdict_text
from advisor.resolve import Resolved, resolve_request
from advisor.spec import DEFAULTS, SpecRequest

Kind = Literal["estimate", "followup", "compare", "faq", "clarify", "help", "catalog", "reset"]

# "Can I fine-tune on GPU X?": the ladder of models tried, smallest first (catalog ids of the
# most fine-tuned open models at each size).
FAQ_LADDER = ("llama-3.2-1b", "llama-3.2-3b", "llama-3.1-8b", "qwen2.5-14b", "qwen2.5-32b", "llama-3.1-70b")
# "A100 or H100?" without a job: the comparison job, a typical first LoRA project (LoRA of an
# 8B model at 2k context over 100M trained tokens).
FAQ_REFERENCE_JOB = SpecRequest(method="lora", model="llama-3.1-8b", seq_len=2048, dataset_tokens=100_000_000, epochs=1)


@dataclass(frozen=True)
class Reply:
    """What one chat message gets back."""

    kind: Kind
    lang: str
    text: str  # plain text, in ``lang``
    request: SpecRequest | None = None  # what the thread should remember (None: keep the old one)
    data: dict[str, Any] = field(default_factory=dict)  # Answer.dump() (+ head, understood) or the details
    answer: Answer | None = None  # the numbers, for estimate, followup, compare and a100_or_h100
    resolved: Resolved | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"kind": self.kind, "lang": self.lang, **self.data}
        if "text" not in out:
            out["text"] = self.text
        return out


class Advisor:
    """The advisor behind the bot and `advisor ask`: parse, resolve, rank, say it."""

    def __init__(self, catalog: Catalog, calibration: Any = None, models: Any = None,
                 max_gpus: int = DEFAULT_MAX_GPUS):
        """``models``: where architectures the catalog lacks come from (``advisor.hub.HubReader``:
        Hub ids and pasted config.json); without it such a model is answered with the closest
        catalog matches. ``max_gpus``: the most GPUs a plan proposes (advisor.catalog.shapes;
        the CLI's --max-gpus / ADVISOR_MAX_GPUS, the bot's setting of the same name)."""
        self.catalog = catalog
        self.calibration = calibration
        self.models = models
        self.max_gpus = max_gpus

    # --- the entry point ----------------------------------------------------------------------

    def ask(self, text: str, previous: SpecRequest | None = None, lang_hint: str | None = None) -> Reply:
        """``previous``: the thread's request (follow-ups are deltas against it); ``lang_hint``: the
        thread's language, for messages with no words of either language ("QLoRA 70B 4090")."""
        try:
            parsed = parse_message(text, self.catalog, previous=previous, lang_hint=lang_hint)
        except ParseError as exc:
            lang = _safe_lang(text)
            body = str(exc) + (f"\n{t('answer.try', lang, example=exc.example)}" if exc.example else "")
            return Reply("clarify", lang, body, data={"example": exc.example, "code": exc.code})
        for config in parsed.configs.values():
            if self.models is not None:
                try:
                    self.models.remember_config(config)
                except AdvisorError as exc:  # a config we cannot model: say which fields it lacks
                    return self._problem(exc, parsed.lang, parsed.request)
        handler = getattr(self, f"_{parsed.intent}")
        return handler(parsed)

    def estimate(self, request: SpecRequest, lang: str = "en", kind: Kind = "estimate",
                 parsed: ParseResult | None = None) -> Reply:
        """The ranking for a request (also used by the CLI with flags)."""
        try:
            resolved = resolve_request(request, self.catalog, self.models)
        except AdvisorError as exc:
            return self._problem(exc, lang, request)
        rec = recommend(resolved, self.catalog, calibration=self.calibration, max_gpus=self.max_gpus)
        verdict = verdict_text(rec, lang)
        lines = [verdict] if verdict else []  # the question asked, answered first (issue #16)
        head: list[str] = []
        if parsed is not None:
            head = answer_head(parsed.request, resolved.spec, model_label(resolved.label, lang), resolved.assumed, lang,
                               self.catalog)
            lines += head + [f"! {w}" for w in parsed.warnings]
        goal = parsed.params.get("goal") if parsed is not None else None
        if goal == "speed":  # "anything faster?": the fastest fitting GPU we rent, with its cost
            fastest = max((o for o in rec.options if o.offered and o.fits and o.tokens_per_s),
                          key=lambda o: o.tokens_per_s, default=None)
            if fastest is not None:
                lines.append(t("answer.goal.speed", lang, option=_option_line(fastest, lang).lstrip("- ")))
        elif goal == "cost" and rec.recommended:
            lines.append(t("answer.goal.cost", lang, option=_option_line(rec.option(rec.recommended), lang).lstrip("- ")))
        if resolved.hub is not None:
            lines.append(t("answer.hub_arch", lang, what=resolved.hub.describe(lang)))
        elif resolved.arch_note:
            lines.append(t("answer.inferred_arch", lang, params=decimal(resolved.arch.params_total / 1e9, lang, 1)))
        lines.append(render_text(rec, lang, with_assumed=parsed is None, with_verdict=False))
        data = rec.dump()
        if head:  # "Understood: <method>, <model>, <seq>, <GPUs>" and "Assumed: ...", for every renderer
            data["head"] = {"understood": head[0], "assumed": head[1] if len(head) > 1 else None}
        if resolved.hub is not None:
            data["model_source"] = resolved.hub.to_json()
        if parsed is not None:
            data["understood"] = parsed.to_json()
        return Reply(kind, lang, "\n".join(lines), request=request, data=data, answer=rec, resolved=resolved)

    # --- intents ------------------------------------------------------------------------------

    def _estimate(self, p: ParseResult) -> Reply:
        return self.estimate(p.request, p.lang, "estimate", p)

    def _followup(self, p: ParseResult) -> Reply:
        return self.estimate(p.request, p.lang, "followup", p)

    def _compare(self, p: ParseResult) -> Reply:
        reply = self.estimate(p.request, p.lang, "compare", p)
        if reply.answer is None:
            return reply
        lines = [t("answer.compare.title", p.lang)]
        for gpu_id in p.gpus:
            o = reply.answer.option(gpu_id)
            lines.append(_option_line(o, p.lang))
        lines.append(t("answer.compare.rule", p.lang))
        data = {**reply.data, "compared": list(p.gpus)}
        return Reply("compare", p.lang, "\n".join(lines) + "\n\n" + reply.text, request=p.request,
                      data=data, answer=reply.answer, resolved=reply.resolved)

    def _faq(self, p: ParseResult) -> Reply:
        if p.faq == "can_i_gpu":
            return self._faq_can_i(p)
        if p.faq in ("a100_or_h100", "gpu_choice"):
            return self._faq_choice(p)
        return self._faq_persist(p)

    def _reset(self, p: ParseResult) -> Reply:
        return Reply("reset", p.lang, t("answer.reset", p.lang), request=None)

    def _help(self, p: ParseResult) -> Reply:
        return Reply("help", p.lang, t("answer.help", p.lang))

    def _catalog(self, p: ParseResult) -> Reply:
        gpu_id = p.params.get("gpu")
        gpus = [self.catalog.gpu(gpu_id)] if gpu_id else self.catalog.gpus(offered_only=True)
        lines = [t("answer.catalog.title", p.lang)] + [_gpu_line(g, p.lang) for g in gpus]
        regions = ", ".join(r.display_name for r in self.catalog.regions())
        lines.append(t("answer.catalog.regions", p.lang, regions=regions))
        return Reply("catalog", p.lang, "\n".join(lines), data={"gpus": [g.id for g in gpus]})

    def _clarify(self, p: ParseResult) -> Reply:
        text = p.question or t("answer.clarify.default", p.lang)
        if p.example:
            text += "\n" + t("answer.try", p.lang, example=p.example)
        return Reply("clarify", p.lang, text, request=p.request if p.request.said() else None,
                      data={"example": p.example, "code": p.clarify_code})

    # --- frequently asked questions, computed --------------------------------------------------

    def _faq_can_i(self, p: ParseResult) -> Reply:
        gpu = self.catalog.gpu(p.params["gpu"])
        n = int(p.params.get("num_gpus") or 1)
        named = p.params.get("model") or p.params.get("params_b")
        lines = [t("answer.can_i.title", p.lang, gpu=gpu.display_name, n=n, usable=gib(gpu.usable_memory_bytes, lang=p.lang),
                   limit=gib(fit_limit(gpu.usable_memory_bytes), lang=p.lang), margin=percent(FIT_MARGIN, p.lang))]
        fits_by_method: dict[str, Any] = {}
        for method in ("full", "lora", "qlora"):
            if named:
                request = SpecRequest(method=method, model=p.params.get("model"), params_b=p.params.get("params_b"),
                                      num_gpus=n, sharding="fsdp" if n > 1 else None)
                try:
                    resolved = resolve_request(request, self.catalog, self.models)
                except AdvisorError as exc:
                    return self._problem(exc, p.lang, request)
                mem = estimate_memory(resolved.spec, resolved.arch)
                fits = memory_fits(mem, gpu.usable_memory_bytes)  # the ranking's rule (advisor.fit)
                fits_by_method[method] = {"fits": fits, "device_bytes": mem.device_bytes}
                key = "answer.can_i.model_fits" if fits else "answer.can_i.model_no"
                lines.append(t(key, p.lang, method=t(f"method.{method}", p.lang), model=model_label(resolved.label, p.lang),
                               need=gib(mem.device_bytes, lang=p.lang)))
            else:
                best = self._largest_fitting(method, gpu, n)
                fits_by_method[method] = best
                if best:
                    lines.append(t("answer.can_i.up_to", p.lang, method=t(f"method.{method}", p.lang),
                                   model=best["model"], need=gib(best["device_bytes"], lang=p.lang)))
                else:
                    lines.append(t("answer.can_i.none", p.lang, method=t(f"method.{method}", p.lang)))
        lines.append(t("answer.can_i.assuming", p.lang, seq=DEFAULTS["seq_len"].value,
                       batch=DEFAULTS["micro_batch"].value))
        if not gpu.offered:
            lines.append(t("answer.not_offered", p.lang, gpu=gpu.display_name))
        lines.append(t("answer.can_i.next", p.lang, gpu=gpu.display_name))
        return Reply("faq", p.lang, "\n".join(lines),
                      data={"faq": "can_i_gpu", "gpu": gpu.id, "num_gpus": n, "methods": fits_by_method})

    def _largest_fitting(self, method: str, gpu: Gpu, n: int) -> dict[str, Any] | None:
        best = None
        for model_id in FAQ_LADDER:
            request = SpecRequest(method=method, model=model_id, num_gpus=n, sharding="fsdp" if n > 1 else None)
            resolved = resolve_request(request, self.catalog)
            mem = estimate_memory(resolved.spec, resolved.arch)
            if memory_fits(mem, gpu.usable_memory_bytes):
                best = {"model": resolved.label, "model_id": model_id, "device_bytes": mem.device_bytes}
        return best

    def _faq_choice(self, p: ParseResult) -> Reply:
        request = p.request if (p.request.model or p.request.params_b) else FAQ_REFERENCE_JOB
        try:
            resolved = resolve_request(request, self.catalog, self.models)
        except AdvisorError as exc:
            return self._problem(exc, p.lang, request)
        rec = recommend(resolved, self.catalog, calibration=self.calibration, max_gpus=self.max_gpus)
        gpus = p.gpus or p.params.get("gpus") or ["a100-80gb", "h100-sxm"]
        lines = [t("answer.choice.title", p.lang, job=understood(request, p.lang, self.catalog))]
        lines += [_option_line(rec.option(g), p.lang) for g in gpus]
        lines.append(t("answer.compare.rule", p.lang))
        if request is FAQ_REFERENCE_JOB:
            lines.append(t("answer.choice.yours", p.lang))
        return Reply("faq", p.lang, "\n".join(lines), data={"faq": p.faq, "gpus": list(gpus), **rec.dump()},
                      answer=rec, resolved=resolved)

    def _faq_persist(self, p: ParseResult) -> Reply:
        lines = [t("answer.persist.keep", p.lang), t("answer.persist.drop", p.lang)]
        data: dict[str, Any] = {"faq": "what_persists"}
        request = p.request if (p.request.model or p.request.params_b) else None
        if request is not None:
            try:
                resolved = resolve_request(request, self.catalog, self.models)
            except AdvisorError:
                resolved = None
            if resolved is not None:
                size = checkpoint_bytes(resolved.spec, resolved.arch)
                price = self.catalog.storage_price(resolved.spec.region)
                monthly = size / 1e9 * price
                lines.append(t("answer.persist.size", p.lang, model=model_label(resolved.label, p.lang), size=gib(size, lang=p.lang),
                               price=usd(monthly, p.lang), per_gb=usd(price, p.lang)))
                data.update(checkpoint_bytes=size, storage_usd_per_month=monthly)
        return Reply("faq", p.lang, "\n".join(lines), data=data)

    # --- problems -------------------------------------------------------------------------------

    def _problem(self, exc: AdvisorError, lang: str, request: SpecRequest) -> Reply:
        suggestions = getattr(exc, "suggestions", None)
        text = t("answer.problem", lang, problem=str(exc))
        return Reply("clarify", lang, text, request=None,
                      data={"problem": str(exc), "suggestions": suggestions or []})


def _safe_lang(text: str) -> str:
    try:
        return detect_language(text[:2000])
    except Exception:  # noqa: BLE001 - the language of an unparseable message is a best effort
        return "en"


def _gpu_line(g: Gpu, lang: str) -> str:
    price = usd(g.price_usd_per_hour, lang) if g.price_usd_per_hour is not None else "-"
    return t("answer.catalog.gpu", lang, name=g.display_name, memory=gib(g.usable_memory_bytes, lang=lang),
             tflops=integer(g.bf16_tflops, lang), price=price, regions=", ".join(g.regions) or "-",
             good_for=g.good_for)


def _option_line(o: Option, lang: str) -> str:
    if not o.fits:
        return t("answer.option.no", lang, gpu=o.gpu_name, reason=reason_text(o.reason, lang))
    money = usd(o.cost_usd, lang) if o.cost_usd is not None else (
        t("answer.per_million", lang, price=usd(o.price_per_million_tokens, lang)) if o.price_per_million_tokens else "-")
    hours = duration(o.hours, lang)
    return t("answer.option.yes", lang, gpu=o.gpu_name, n=o.num_gpus, memory=gib(o.device_bytes, lang=lang),
             tps=number(round(o.tokens_per_s), lang) if o.tokens_per_s else "-", hours=hours, money=money)
