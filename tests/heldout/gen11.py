"""Round 11's generated blind split: an independent generator of labelled chat messages (issue #13).

    from tests.heldout import gen11
    entries = gen11.generate(3000, catalog=catalog, seed=11)
    verdict = tests.phrasegen.judge(entry, parse_message(entry["text"], catalog, previous=...))

Written for issue #13's final held-out measurement by someone who did not read the parser
(``advisor/parse/`` beyond ``result.py``'s field names and ``advisor/i18n/parse.py``'s clarify codes)
and did not run it while writing. It shares only its label format and ``judge`` with
``tests/phrasegen.py`` and ``tests/heldout/gen9.py``: every vocabulary form, frame, noise and config
shape below was checked absent from both files (``grep -ci`` of each form) before it was added; the
plain method words every message needs ("QLoRA", "LoRA", "full fine-tune", "ajuste completo") and a
catalog model's display name ("Qwen2.5 7B") are the only shared forms, as in real traffic.
It was committed ("freeze round-11 blind sets ... before any parser run") before
``benchmarks/parse_blind.py`` existed; nobody tunes the parser on it. One frame was then fixed (the no-model
question read "on on <GPU> hardware", ac338b2), before anyone had seen a count on the split.

Entries are shaped like gen9's: ``text``, ``lang``, ``expected`` (the ``SpecRequest`` fields the
message itself states, ``intent`` when it is not "estimate", ``clarify_code`` where the right answer is
a question back), ``previous`` for a thread follow-up (its ``expected`` is only what the message
changes), ``noise`` (what was done to the text; its presence makes ``judge`` compare the parse's
delta), ``split`` ("gen11") and ``kind`` (``KINDS``).

What is new here:

- models: "<org>'s <Hub name>" ("meta-llama's Llama-3.1-8B"), Spanish "el <Hub name> de <org>",
  "<display> [<hub id>]", "https://huggingface.co/<id>/tree/main", "<display> (HF: <Hub name>)",
  "Llama v3.1 8B"; community fine-tunes the catalog does not know (Starling, Notus, Vicuna, Dolly,
  neural-chat, MPT, BLOOM, WizardLM), labelled by Hub id; sizes as "a model in the {s}B class",
  "some {s}B-param checkpoint", Spanish "un modelo de {s}.000 millones de parámetros" and "un modelo de
  la clase {s}B";
- method words: "bitsandbytes-4bit QLoRA", "QLoRA, frozen 4-bit weights", "LoRA adapters only, base
  frozen", "rank-decomposition adapters (LoRA)", "updating all weights (full FT)", "a no-adapter full
  fine-tune", Spanish "QLoRA con la base congelada en 4 bits", "LoRA con la base congelada",
  "actualizando todos los pesos (completo)", "completo, todos los parámetros entrenables";
- GPUs as "H100-SXM (80 GB HBM3)", "A100 SXM 80 GB", "Ada-gen L40S", "4090 (Ada, 24 GB)", "H200 (141 GB
  HBM3e)", "B200 SXM", "H100 80GB PCIe", "L4, 24 GB VRAM", "AWS A10G"; counts as "one box with {c} <GPU> GPUs",
  "{c} ranks on <GPU>", "data-parallel on {c} <GPU>", "just the one <GPU>", "on <GPU> hardware" (no count),
  Spanish "{c} <GPU> en la misma máquina", "paralelismo de datos en {c} <GPU>", "una <GPU> y ninguna
  más", "sobre hardware <GPU>";
- lengths as "{n}-token blocks", "seq≤{n}", Spanish "bloques de {n} tokens", "secuencia≤{n}"; micro-batches
  as "{b} samples on each device", Spanish "{b} muestras en cada dispositivo"; ranks as "LoRA (r {r}, α {a})",
  "rank {r} LoRA weights", Spanish "pesos LoRA de rango {r}"; epochs as "ep={e}", "{e} sweeps over the
  data", Spanish "{e} recorridos del dataset"; dataset sizes as "{D} tokens across all shards", Spanish
  "{D} de tokens entre todos los archivos"; gradient checkpointing as "grad ckpt ✓" / "✗"; precision as
  "weights fp32, compute bf16", "fp32 (AMP off)", Spanish "pesos en fp32 y cómputo en bf16", "fp32 (sin
  AMP)"; optimizers as "AdamW in 8 bits (bnb)", "plain AdamW, fp32 states", "SGD with momentum"; regions
  as "Paris-based nodes", "nodos en Fráncfort"; sharding as "ZeRO stage-3 sharding", Spanish "ZeRO fase 3";
- frames: "Status: planning. Job: ... Params: ...", "... | ... | any red flags?", "Q for the bot — ...;
  ...", "... The job: ...", Spanish "Estado: planificando. Trabajo: ... Parámetros: ...", "resumiendo:
  ...", "a ver si me cuadra: ...", "... | ... | ¿algo raro?";
- corrections: "... (typo above: seq {new})", "... Wait, seq {new}, not {old}", Spanish "... (errata:
  secuencia {new})", "... Perdón, secuencia {new}, no {old}" (labelled with the corrected value); two values as "either {a} or {b}" /
  "o bien {a} o bien {b}" (a "conflict" question); follow-ups "{slot}, otherwise unchanged", "keep
  everything, just {slot}", "what changes with {slot}?", Spanish "{slot}, lo demás igual", "deja todo
  igual, solo {slot}", "¿qué cambia con {slot}?"; relative changes "add 2 more GPUs", "halve the
  context" (a "relative" question when the thread has no such value); vague values "seq: still
  deciding", "rank: dealer's choice", "epochs: until it converges", "batch: auto-tuned";
- distractor numbers that are no spec field: job ids, budgets in EUR, p95 latencies, Python versions,
  last run's GPU utilisation, team sizes;
- noise: a no-break space between a number and its unit, a message wrapped over short lines, an
  ":eyes:" opener, a trailing "(ping @oncall)", Spanish without its opening "¿" / "¡", doubled spaces;
- config shapes: a Modal function (``@app.function(gpu="H100:2")``), a ``docker run --gpus`` line, an
  Oumi training YAML, an OpenRLHF ``train_sft`` command, a CSV row of settings, a Lightning Fabric
  constructor, and NeMo's ``megatron_gpt_finetuning.py`` overrides (``trainer.devices`` x
  ``trainer.num_nodes`` GPUs).

Labelling conventions are the earlier sets' (tests/phrasegen.py's docstring, tests/heldout/table3.py):
k = 1024 in a sequence length, decimal token counts, "on an H100" no count, "just the one" a count of 1,
"H100" the SXM part, a catalog model by its catalog id and never with a size, a Hub id the catalog does
not know by the id; torchtune / Trainer precision as there; a tool's name states its stack only where it
is named (none of the shapes here runs through a named Trainer-based tool, so none labels ``stack``).
Config shapes cite the real keys: Modal's ``gpu="H100:2"`` string (modal.com/docs/guide/gpu), Docker's
``--gpus '"device=0,1"'`` (docs.docker.com, "Access an NVIDIA GPU"), Oumi's ``model.model_max_length`` /
``training.use_peft`` / ``peft.lora_r`` / ``peft.q_lora`` (oumi configs/recipes/*/sft/*_lora/train.yaml),
OpenRLHF's ``--pretrain --max_len --micro_train_batch_size --zero_stage --lora_rank --load_in_4bit``
(openrlhf/cli/train_sft.py), Lightning's ``Fabric(devices=, strategy="fsdp", precision="bf16-mixed")``,
NeMo 1's ``trainer.devices`` / ``trainer.num_nodes`` / ``model.micro_batch_size`` /
``model.data.train_ds.max_seq_length`` / ``model.peft.peft_scheme`` (examples/nlp/language_modeling/
tuning/conf/megatron_gpt_finetuning_config.yaml).
"""

from __future__ import annotations

import random
import re
from typing import Any

from advisor.catalog import Catalog

SPLIT = "gen11"
N_DEFAULT = 3000
KINDS = ("estimate", "config", "followup", "no_model", "unreadable", "conflict", "correction", "relative")

# --- vocabularies -------------------------------------------------------------------------------

METHOD = {
    "en": {"qlora": [("bitsandbytes-4bit QLoRA", {}), ("QLoRA, frozen 4-bit weights", {}), ("QLoRA", {})],
           "lora": [("LoRA adapters only, base frozen", {}), ("rank-decomposition adapters (LoRA)", {}), ("LoRA", {})],
           "full": [("updating all weights (full FT)", {}), ("a no-adapter full fine-tune", {}), ("full fine-tune", {})]},
    "es": {"qlora": [("QLoRA con la base congelada en 4 bits", {}), ("QLoRA", {})],
           "lora": [("LoRA con la base congelada", {}), ("LoRA", {})],
           "full": [("actualizando todos los pesos (completo)", {}), ("completo, todos los parámetros entrenables", {}),
                    ("ajuste completo", {})]},
}
# Community fine-tunes on the Hub that the catalog does not know (checked with Catalog.find_model).
FOREIGN = ("Nexusflow/Starling-LM-7B-beta", "argilla/notus-7b-v1", "lmsys/vicuna-13b-v1.5", "databricks/dolly-v2-12b",
           "Intel/neural-chat-7b-v3-1", "mosaicml/mpt-7b", "bigscience/bloom-7b1", "WizardLMTeam/WizardLM-13B-V1.2")
SIZES = (1, 2, 3, 7, 13, 20, 30, 40, 70)
SIZE_FORMS = {"en": ["a model in the {s}B class", "some {s}B-param checkpoint"],
              "es": ["un modelo de {s}.000 millones de parámetros", "un modelo de la clase {s}B"]}
SEQ_VALUES = (1024, 2048, 3072, 4096, 8192, 16384, 32768)
SEQ = {"en": ["{n}-token blocks", "seq≤{n}"], "es": ["bloques de {n} tokens", "secuencia≤{n}"]}
BATCH = {"en": ["{b} samples on each device"], "es": ["{b} muestras en cada dispositivo"]}
RANK = {"en": ["LoRA (r {r}, α {a})", "rank {r} LoRA weights"], "es": ["LoRA (r {r}, α {a})", "pesos LoRA de rango {r}"]}
EPOCHS = {"en": ["ep={e}", "{e} sweeps over the data"], "es": ["ep={e}", "{e} recorridos del dataset"]}
DATASET = {"en": ["{D} tokens across all shards"], "es": ["{D} de tokens entre todos los archivos"]}
DATASET_VALUES = ((6_000_000, "6M", "6 millones"), (40_000_000, "40M", "40 millones"),
                  (90_000_000, "90M", "90 millones"), (300_000_000, "300M", "300 millones"),
                  (3_000_000_000, "3B", "3.000 millones"))
GPU_FORMS = {"h100-sxm": ["H100-SXM (80 GB HBM3)"], "a100-80gb": ["A100 SXM 80 GB"], "l40s": ["Ada-gen L40S"],
             "rtx-4090": ["4090 (Ada, 24 GB)"], "h200": ["H200 (141 GB HBM3e)"], "b200": ["B200 SXM"],
             "h100-pcie": ["H100 80GB PCIe"], "l4": ["L4, 24 GB VRAM"], "a10g": ["AWS A10G"]}
# (form, count): "c" the drawn count, 1 a single GPU, 0 no count
GPU_SLOT = {"en": [("one box with {c} {g} GPUs", "c"), ("{c} ranks on {g}", "c"), ("data-parallel on {c} {g}", "c"),
                   ("just the one {g}", 1), ("on {g} hardware", 0)],
            "es": [("{c} {g} en la misma máquina", "c"), ("paralelismo de datos en {c} {g}", "c"),
                   ("una {g} y ninguna más", 1), ("sobre hardware {g}", 0)]}
GC = {"en": [("grad ckpt ✓", True), ("grad ckpt ✗", False)], "es": [("checkpointing ✓", True), ("checkpointing ✗", False)]}
PRECISION = {"en": [("weights fp32, compute bf16", "bf16-mixed"), ("fp32 (AMP off)", "fp32")],
             "es": [("pesos en fp32 y cómputo en bf16", "bf16-mixed"), ("fp32 (sin AMP)", "fp32")]}
OPTIMIZER = {"en": [("AdamW in 8 bits (bnb)", "adamw-8bit"), ("plain AdamW, fp32 states", "adamw"),
                    ("SGD with momentum", "sgd")],
             "es": [("AdamW en 8 bits (bnb)", "adamw-8bit"), ("AdamW normal, estados fp32", "adamw"),
                    ("SGD con momentum", "sgd")]}
SHARDING = {"en": [("ZeRO stage-3 sharding", "zero3")], "es": [("ZeRO fase 3", "zero3")]}
REGION = {"en": [("Paris-based nodes", "eu-west"), ("Frankfurt-based nodes", "eu-central")],
          "es": [("nodos en París", "eu-west"), ("nodos en Fráncfort", "eu-central")]}
DISTRACTORS = {"en": ["job 88213", "budget ~3k EUR", "p95 latency 120 ms", "python 3.11", "GPU util was 63% last time",
                      "for a 12-person team"],
               "es": ["job 88213", "presupuesto ~3k EUR", "latencia p95 de 120 ms", "python 3.11",
                      "la utilización fue del 63% la última vez", "para un equipo de 12 personas"]}
TEMPLATES = {"en": ["Status: planning. Job: {core}. Params: {rest}.", "{core} | {rest} | any red flags?",
                    "Q for the bot — {core}; {rest}", "{rest}. The job: {core}."],
             "es": ["Estado: planificando. Trabajo: {core}. Parámetros: {rest}.", "{core} | {rest} | ¿algo raro?",
                    "resumiendo: {core}, {rest}", "a ver si me cuadra: {core}; {rest}", "{rest}. El trabajo: {core}."]}
CORES = {"en": ["{model} ← {method}", "{method}, target {model}", "{method}; model {model}"],
         "es": ["{model} ← {method}", "{method}, objetivo {model}", "{method}; modelo {model}"]}
CORRECTION = {"en": ["{text} (typo above: seq {new})", "{text} Wait, seq {new}, not {old}."],
              "es": ["{text} (errata: secuencia {new})", "{text} Perdón, secuencia {new}, no {old}."]}
CONFLICT = {"en": "either {a} or {b}", "es": "o bien {a} o bien {b}"}
FOLLOWUP = {"en": ["{slot}, otherwise unchanged", "keep everything, just {slot}", "what changes with {slot}?"],
            "es": ["{slot}, lo demás igual", "deja todo igual, solo {slot}", "¿qué cambia con {slot}?"]}
RELATIVE = {"en": [("add 2 more GPUs", "num_gpus", "+2"), ("halve the context", "seq_len", "/2")],
            "es": [("añade 2 GPUs más", "num_gpus", "+2"), ("reduce el contexto a la mitad", "seq_len", "/2")]}
NO_MODEL = {"en": ["{method} with {seq}, {gpu}: what's the biggest model that fits?"],
            "es": ["{method} con {seq}, {gpu}: ¿cuál es el modelo más grande que entra?"]}
UNREADABLE = {"en": [("seq: still deciding", "seq_len"), ("rank: dealer's choice", "lora_rank"),
                     ("epochs: until it converges", "epochs"), ("batch: auto-tuned", "micro_batch")],
              "es": [("secuencia: aún lo decidimos", "seq_len"), ("rango: elige tú", "lora_rank"),
                     ("épocas: hasta que converja", "epochs"), ("lote: lo ajusta solo", "micro_batch")]}
UNITS = ("tokens", "GPUs", "samples", "muestras", "recorridos", "sweeps")
# Modal's GPU strings (modal.com/docs/guide/gpu: "H100", "A100-80GB", "L40S", "L4", "A10G", "H200", "B200").
MODAL_GPU = {"h100-sxm": "H100", "a100-80gb": "A100-80GB", "l40s": "L40S", "l4": "L4", "a10g": "A10G", "h200": "H200",
             "b200": "B200"}
WORD = {"en": {"full": "full fine-tune", "lora": "LoRA", "qlora": "QLoRA"},
        "es": {"full": "ajuste completo", "lora": "LoRA", "qlora": "QLoRA"}}


class _Gen:
    def __init__(self, rng: random.Random, catalog: Catalog):
        self.rng = rng
        self.models = [m for m in catalog.models() if m.id != "tiny-test"]

    def pick(self, seq):
        return self.rng.choice(list(seq))

    # --- slots: each returns (text, fields) -------------------------------------------------------
    def model(self, lang: str) -> tuple[str, dict[str, Any]]:
        r = self.rng.random()
        if r < 0.08:
            hub = self.pick(FOREIGN)
            return self.pick([hub, f"{hub} (community fine-tune)"]), {"model": hub}
        if r < 0.16:
            s = self.pick(SIZES)
            return self.pick(SIZE_FORMS[lang]).format(s=s), {"params_b": float(s)}
        m = self.pick(self.models)
        org, _, name = m.hub_id.partition("/")
        display = m.display_name
        forms = [f"{display} [{m.hub_id}]", f"https://huggingface.co/{m.hub_id}/tree/main", f"{display} (HF: {name})",
                 {"en": f"{org}'s {name}", "es": f"el {name} de {org}"}[lang], display]
        version = re.fullmatch(r"Llama (\d(?:\.\d)?) (\d+B)", display)
        if version:
            forms.append(f"Llama v{version.group(1)} {version.group(2)}")
        return self.pick(forms), {"model": m.id}

    def seq(self, lang: str) -> tuple[str, dict[str, Any]]:
        n = self.pick(SEQ_VALUES)
        return self.pick(SEQ[lang]).format(n=n), {"seq_len": n}

    def batch(self, lang: str) -> tuple[str, dict[str, Any]]:
        b = self.pick((1, 2, 4, 8, 16))
        return self.pick(BATCH[lang]).format(b=b), {"micro_batch": b}

    def rank(self, lang: str) -> tuple[str, dict[str, Any]]:
        r = self.pick((8, 16, 32, 64))
        a = r * self.pick((1, 2, 4))
        form = self.pick(RANK[lang])
        fields: dict[str, Any] = {"lora_rank": r}
        if "{a}" in form:
            fields["lora_alpha"] = float(a)
        return form.format(r=r, a=a), fields

    def epochs(self, lang: str) -> tuple[str, dict[str, Any]]:
        e = self.pick((1, 2, 3, 5))
        return self.pick(EPOCHS[lang]).format(e=e), {"epochs": float(e)}

    def dataset(self, lang: str) -> tuple[str, dict[str, Any]]:
        value, en, es = self.pick(DATASET_VALUES)
        return self.pick(DATASET[lang]).format(D=en if lang == "en" else es), {"dataset_tokens": value}

    def gpu(self, lang: str, *, bare: bool = False) -> tuple[str, dict[str, Any]]:
        ident = self.pick(GPU_FORMS)
        g = self.pick(GPU_FORMS[ident])
        form, count = self.pick(GPU_SLOT[lang])
        c = self.pick((2, 3, 4, 8))
        fields: dict[str, Any] = {"gpu": ident}
        if count == "c":
            fields["num_gpus"] = c
        elif count == 1:
            fields["num_gpus"] = 1
        return form.format(c=c, g=g), fields

    def pair(self, table: dict, lang: str, field: str) -> tuple[str, dict[str, Any]]:
        text, value = self.pick(table[lang])
        return text, {field: value}

    # --- messages ---------------------------------------------------------------------------------
    def method(self, lang: str) -> tuple[str, str, dict[str, Any]]:
        method = self.pick(("qlora", "lora", "full"))
        text, extra = self.pick(METHOD[lang][method])
        return method, text, {"method": method, **extra}

    def core(self, lang: str) -> tuple[str, str, dict[str, Any]]:
        method, mtext, expected = self.method(lang)
        mod, mfields = self.model(lang)
        expected.update(mfields)
        return method, self.pick(CORES[lang]).format(method=mtext, model=mod), expected

    def rest(self, lang: str, method: str, *, with_seq: bool = True) -> tuple[list[tuple[str, dict]], list[str]]:
        slots = [self.seq(lang)] if with_seq else []
        noise: list[str] = []
        optional = [self.gpu, self.batch, self.epochs, self.dataset,
                    lambda l: self.pair(GC, l, "gradient_checkpointing"),
                    lambda l: self.pair(PRECISION, l, "precision"), lambda l: self.pair(OPTIMIZER, l, "optimizer"),
                    lambda l: self.pair(REGION, l, "region")]
        if method != "full":
            optional.append(self.rank)
        for slot in self.rng.sample(optional, self.rng.choice((1, 2, 2, 3))):
            slots.append(slot(lang))
        if any(f.get("num_gpus", 0) > 1 for _, f in slots) and self.rng.random() < 0.3:
            slots.append(self.pair(SHARDING, lang, "sharding"))
        self.rng.shuffle(slots)
        if self.rng.random() < 0.2:
            slots.insert(self.rng.randrange(len(slots) + 1), (self.pick(DISTRACTORS[lang]), {}))
            noise.append("distractor")
        return slots, noise

    def _frame(self, lang: str, core: str, slots: list[tuple[str, dict]]) -> str:
        return self.pick(TEMPLATES[lang]).format(core=core, rest=", ".join(t for t, _ in slots))

    def estimate(self, lang: str) -> dict[str, Any]:
        method, core, expected = self.core(lang)
        slots, noise = self.rest(lang, method)
        for _, fields in slots:
            expected.update(fields)
        return self._entry(self._frame(lang, core, slots), lang, expected, noise, "estimate")

    def correction(self, lang: str) -> dict[str, Any]:
        """A sequence length said, then corrected in the same message: the correction counts."""
        method, core, expected = self.core(lang)
        slots, noise = self.rest(lang, method)
        for _, fields in slots:
            expected.update(fields)
        old = expected["seq_len"]
        new = self.pick([n for n in SEQ_VALUES if n != old])
        expected["seq_len"] = new
        text = self.pick(CORRECTION[lang]).format(text=self._frame(lang, core, slots), new=new, old=old)
        return self._entry(text, lang, expected, noise + ["correction"], "correction")

    def conflict(self, lang: str) -> dict[str, Any]:
        method, core, expected = self.core(lang)
        a, b = self.rng.sample((1024, 2048, 4096, 8192, 16384), 2)
        seq = {"en": "seq ", "es": "secuencia "}[lang] + CONFLICT[lang].format(a=a, b=b)
        slots, noise = self.rest(lang, method, with_seq=False)
        for _, fields in slots:
            expected.update(fields)
        slots.append((seq, {}))
        return self._entry(self._frame(lang, core, slots), lang,
                           {**expected, "intent": "clarify", "clarify_code": "conflict"}, noise, "conflict")

    def unreadable(self, lang: str) -> dict[str, Any]:
        method, core, expected = self.core(lang)
        form, field = self.pick(UNREADABLE[lang])
        if field == "lora_rank" and method == "full":
            form, field = UNREADABLE[lang][0]
        slots = [] if field == "seq_len" else [self.seq(lang)]
        for _, f in slots:
            expected.update(f)
        slots.append((form, {}))
        return self._entry(self._frame(lang, core, slots), lang,
                           {**expected, "intent": "clarify", "clarify_code": "unreadable"}, [], "unreadable")

    def no_model(self, lang: str) -> dict[str, Any]:
        method, mtext, expected = self.method(lang)
        seq_t, seq_f = self.seq(lang)
        gpu_t, gpu_f = self.gpu(lang)
        text = self.pick(NO_MODEL[lang]).format(method=mtext, seq=seq_t, gpu=gpu_t)
        return self._entry(text, lang, {**expected, **seq_f, **gpu_f, "intent": "clarify", "clarify_code": "model"},
                           [], "no_model")

    def _previous(self) -> dict[str, Any]:
        m = self.pick(self.models)
        previous = {"method": self.pick(("lora", "qlora", "full")), "model": m.id,
                    "seq_len": self.pick((2048, 4096, 8192))}
        if self.rng.random() < 0.5:
            previous.update(gpu=self.pick(("h100-sxm", "a100-80gb", "l40s", "rtx-4090")), num_gpus=self.pick((1, 2, 4)))
        return previous

    def followup(self, lang: str) -> dict[str, Any]:
        previous = self._previous()
        slot = self.pick((self.seq, self.batch, self.gpu, self.epochs, self.rank, self.dataset,
                          lambda l: self.pair(PRECISION, l, "precision")))
        text, fields = slot(lang)
        if "lora_rank" in fields and previous["method"] == "full":
            previous["method"] = "lora"
        if all(previous.get(k) == v for k, v in fields.items()):
            text, fields = self.batch(lang)
        message = self.pick(FOLLOWUP[lang]).format(slot=text)
        return self._entry(message, lang, {**fields, "intent": "followup"}, [], "followup", previous)

    def relative(self, lang: str) -> dict[str, Any]:
        previous = self._previous()
        form, field, change = self.pick(RELATIVE[lang])
        if field not in previous:
            return self._entry(form, lang, {"intent": "clarify", "clarify_code": "relative"}, [], "relative", previous)
        value = previous[field] + 2 if change == "+2" else previous[field] // 2
        return self._entry(form, lang, {field: value, "intent": "followup"}, [], "relative", previous)

    # --- config shapes ----------------------------------------------------------------------------
    def config(self, lang: str) -> dict[str, Any]:
        writer = self.pick((self._modal, self._docker, self._oumi, self._openrlhf, self._csv, self._fabric, self._nemo))
        text, expected, shape = writer(lang)
        return self._entry(text, lang, expected, [f"config:{shape}"], "config")

    def _head(self, lang: str, method: str) -> str:
        word = WORD[lang][method]
        return self.pick({"en": [f"{word} run, sizing please:", f"can you cost this {word}?"],
                          "es": [f"{word}, ¿me lo dimensionas?", f"¿cuánto costaría este {word}?"]}[lang])

    def _modal(self, lang):
        m, method = self.pick(self.models), self.pick(("lora", "qlora", "full"))
        gpu, n = self.pick(MODAL_GPU), self.pick((1, 2, 4, 8))
        seq, b = self.pick((1024, 2048, 4096, 8192)), self.pick((1, 2, 4))
        expected: dict[str, Any] = {"method": method, "model": m.id, "gpu": gpu, "num_gpus": n, "seq_len": seq,
                                    "micro_batch": b}
        call = [f'model_id="{m.hub_id}"', f"max_seq_len={seq}", f"per_device_batch={b}"]
        if method != "full":
            r = self.pick((8, 16, 32))
            call.append(f"lora_r={r}")
            expected["lora_rank"] = r
        if method == "qlora":
            call.append("load_in_4bit=True")
        spec = MODAL_GPU[gpu] + (f":{n}" if n > 1 else "")
        text = (f"{self._head(lang, method)}\n```python\n@app.function(gpu=\"{spec}\", timeout=86400)\ndef train():\n"
                f"    run_sft({', '.join(call)})\n```")
        if n == 1 and self.rng.random() < 0.5:
            expected.pop("num_gpus")  # gpu="H100" alone: Modal's default count of one is not said
        elif n == 1:
            text = text.replace(f'gpu="{spec}"', f'gpu="{spec}:1"')
        return text, expected, "modal"

    def _docker(self, lang):
        m, method = self.pick(self.models), self.pick(("lora", "qlora", "full"))
        n = self.pick((1, 2, 4, 8))
        seq = self.pick((2048, 4096, 8192))
        expected = {"method": method, "model": m.id, "num_gpus": n, "seq_len": seq}
        devices = ",".join(str(i) for i in range(n))
        gpus = self.pick([f"'\"device={devices}\"'", str(n)])
        flag = {"full": "full", "lora": "lora", "qlora": "qlora"}[method]
        line = (f"docker run --rm --gpus {gpus} -v /data:/data ghcr.io/acme/sft-runner:1.4.2 "
                f"--model {m.hub_id} --method {flag} --seq-len {seq}")
        return f"{self._head(lang, method)}\n```\n{line}\n```", expected, "docker"

    def _oumi(self, lang):
        m, method = self.pick(self.models), self.pick(("lora", "qlora", "full"))
        seq, b, e = self.pick((2048, 4096, 8192)), self.pick((1, 2, 4, 8)), self.pick((1, 2, 3))
        expected: dict[str, Any] = {"method": method, "model": m.id, "seq_len": seq, "micro_batch": b, "epochs": float(e)}
        lines = ["model:", f'  model_name: "{m.hub_id}"', f"  model_max_length: {seq}", "training:",
                 f"  per_device_train_batch_size: {b}", f"  num_train_epochs: {e}",
                 f"  use_peft: {'False' if method == 'full' else 'True'}"]
        if method != "full":
            r = self.pick((8, 16, 32))
            lines += ["peft:", f"  lora_r: {r}", f"  q_lora: {'True' if method == 'qlora' else 'False'}"]
            expected["lora_rank"] = r
        where = {"en": "oumi train -c this:", "es": "oumi train -c con esto:"}[lang]
        return f"{where}\n```yaml\n" + "\n".join(lines) + "\n```", expected, "oumi"

    def _openrlhf(self, lang):
        m, method = self.pick(self.models), self.pick(("lora", "qlora", "full"))
        seq, b, z = self.pick((2048, 4096, 8192)), self.pick((1, 2, 4)), self.pick((2, 3))
        expected: dict[str, Any] = {"method": method, "model": m.id, "seq_len": seq, "micro_batch": b,
                                    "sharding": f"zero{z}", "precision": "bf16-mixed"}
        args = [f"--pretrain {m.hub_id}", f"--max_len {seq}", f"--micro_train_batch_size {b}", f"--zero_stage {z}", "--bf16"]
        if method != "full":
            r = self.pick((8, 16, 64))
            args.append(f"--lora_rank {r}")
            expected["lora_rank"] = r
        if method == "qlora":
            args.append("--load_in_4bit")
        line = "deepspeed --module openrlhf.cli.train_sft " + " ".join(args)
        tail = ""
        if self.rng.random() < 0.5:
            g = self.pick(("h100-sxm", "a100-80gb"))
            n = self.pick((2, 4, 8))
            tail = {"en": f"\n(on {n} {'H100' if g == 'h100-sxm' else 'A100'}s)",
                    "es": f"\n(en {n} {'H100' if g == 'h100-sxm' else 'A100'})"}[lang]
            expected.update(gpu=g, num_gpus=n)
        return f"```\n{line}\n```{tail}", expected, "openrlhf"

    def _csv(self, lang):
        m, method = self.pick(self.models), self.pick(("lora", "qlora", "full"))
        seq, n = self.pick((1024, 2048, 4096, 8192)), self.pick((1, 2, 4, 8))
        gpu = self.pick(("h100-sxm", "a100-80gb", "l40s", "rtx-4090", "h200"))
        shown = {"h100-sxm": "H100", "a100-80gb": "A100-80GB", "l40s": "L40S", "rtx-4090": "RTX4090", "h200": "H200"}[gpu]
        expected = {"method": method, "model": m.id, "seq_len": seq, "num_gpus": n, "gpu": gpu}
        head = {"en": "row from our planning sheet:", "es": "fila de nuestra hoja de planificación:"}[lang]
        return (f"{head}\n```\nmodel,method,seq_len,num_gpus,gpu_type\n{m.hub_id},{method},{seq},{n},{shown}\n```",
                expected, "csv")

    def _fabric(self, lang):
        method, core, expected = self.core(lang)
        n = self.pick((2, 4, 8))
        seq_t, seq_f = self.seq(lang)
        expected.update(seq_f, num_gpus=n, sharding="fsdp", precision="bf16-mixed")
        code = f'fabric = L.Fabric(accelerator="cuda", devices={n}, strategy="fsdp", precision="bf16-mixed")'
        return f"{core}, {seq_t}\n```python\n{code}\n```", expected, "fabric"

    def _nemo(self, lang):
        method, core, expected = self.core(lang)
        while method == "qlora":  # NeMo 1's peft_scheme has no QLoRA (none, lora, ptuning, ia3, adapter)
            method, core, expected = self.core(lang)
        devices, nodes = self.pick((2, 4, 8)), self.pick((1, 2))
        seq, b = self.pick((2048, 4096, 8192)), self.pick((1, 2, 4))
        scheme = {"full": "none", "lora": "lora"}[method]
        expected.update(num_gpus=devices * nodes, micro_batch=b, seq_len=seq)
        line = (f"python megatron_gpt_finetuning.py trainer.devices={devices} trainer.num_nodes={nodes} "
                f"model.micro_batch_size={b} model.data.train_ds.max_seq_length={seq} model.peft.peft_scheme={scheme}")
        return f"{core}\n```\n{line}\n```", expected, "nemo"

    # --- noise and the entry ------------------------------------------------------------------------
    def _entry(self, text: str, lang: str, expected: dict, noise: list[str], kind: str,
               previous: dict | None = None) -> dict[str, Any]:
        rng = self.rng
        noise = list(noise)
        if "```" not in text:
            if rng.random() < 0.15:
                unit = "|".join(UNITS)
                new = re.sub(rf"(\d) ({unit})\b", "\\1\u00a0\\2", text, count=1)
                if new != text:
                    text = new
                    noise.append("nbsp")
            if rng.random() < 0.1 and len(text) > 60:
                words, lines, line = text.split(" "), [], ""
                for w in words:
                    if line and len(line) + len(w) > 40:
                        lines.append(line)
                        line = w
                    else:
                        line = f"{line} {w}" if line else w
                text = "\n".join(lines + [line])
                noise.append("wrapped")
            if rng.random() < 0.1:
                text = text.replace(", ", ",  ", 1)
                noise.append("double_space")
        if lang == "es" and ("¿" in text or "¡" in text) and rng.random() < 0.4:
            text = text.replace("¿", "").replace("¡", "")
            noise.append("no_opening_marks")
        if rng.random() < 0.08:
            text = ":eyes: " + text
            noise.append("eyes")
        if rng.random() < 0.08:
            text += " (ping @oncall)"
            noise.append("oncall")
        entry = {"text": text, "lang": lang, "expected": {**expected}, "noise": noise, "split": SPLIT, "kind": kind}
        if previous is not None:
            entry["previous"] = previous
        return entry


def generate(n: int = N_DEFAULT, *, catalog: Catalog, seed: int = 11) -> list[dict[str, Any]]:
    """``n`` labelled messages, the same for the same seed (about half English, half Spanish)."""
    rng = random.Random(f"{seed}:gen11")
    gen = _Gen(rng, catalog)
    out = []
    for _ in range(n):
        lang = "en" if rng.random() < 0.5 else "es"
        roll = rng.random()
        if roll < 0.45:
            out.append(gen.estimate(lang))
        elif roll < 0.62:
            out.append(gen.config(lang))
        elif roll < 0.75:
            out.append(gen.followup(lang))
        elif roll < 0.81:
            out.append(gen.correction(lang))
        elif roll < 0.86:
            out.append(gen.relative(lang))
        elif roll < 0.91:
            out.append(gen.no_model(lang))
        elif roll < 0.96:
            out.append(gen.unreadable(lang))
        else:
            out.append(gen.conflict(lang))
    return out
