"""Round 13's generated blind split: an independent generator of labelled chat messages (issue #13).

    from tests.heldout import gen13
    entries = gen13.generate(3000, catalog=catalog, seed=13)
    verdict = tests.phrasegen.judge(entry, parse_message(entry["text"], catalog, previous=...))

Written for issue #13's final held-out measurement of round 13 by someone who did not read the parser
(``advisor/parse/`` beyond ``result.py``'s field names and ``advisor/i18n/parse.py``'s clarify codes)
and did not run it while writing. It shares only its label format and ``judge`` with
``tests/phrasegen.py``, ``tests/heldout/gen9.py`` and ``tests/heldout/gen11.py``: every vocabulary form,
frame, noise and config shape below was checked absent from all three files (each form's text between
its slots, as tests/test_parse_blind13_counts.py checks it again) before it was added; the plain method
words every message needs ("QLoRA", "LoRA", "full fine-tune", "ajuste completo"), a catalog model's
display name or catalog id and a Hub id are the only shared forms, as in real traffic. It was
committed ("freeze round-13 blind sets ... before any parser run") before
``benchmarks/parse_blind13.py`` existed; nobody tunes the parser on it.

Entries are shaped like gen9's and gen11's: ``text``, ``lang``, ``expected`` (the ``SpecRequest``
fields the message itself states, ``intent`` when it is not "estimate", ``clarify_code`` where the
right answer is a question back), ``previous`` for a thread follow-up (its ``expected`` is only what the
message changes), ``noise`` (what was done to the text; its presence makes ``judge`` compare the
parse's delta), ``split`` ("gen13") and ``kind`` (``KINDS``).

What is new here:

- models: "<Hub name> (org: <org>)", Spanish "<Hub name> (organización: <org>)", "<hub id> from the Hub"
  / "<hub id> del Hub", "<display>, i.e. <hub id>" / "<display>, o sea <hub id>",
  "huggingface.co/<id>?library=transformers", the catalog id, the display name; Hub models the
  catalog does not know (Zephyr, Pythia, EuroLLM, EXAONE, XGen, BTLM, OpenChat, Falcon3), labelled by
  Hub id; sizes as "a {s}-billion-parameter LM", "an unnamed {s}B decoder", Spanish "un LM de {s} mil
  millones de parámetros", "un decoder de {s}B sin nombre";
- method words: "4-bit NF4 QLoRA", "QLoRA over a 4-bit frozen base", "a LoRA-adapter run",
  "LoRA (adapters, base untouched)", "every weight trainable (full FT)", "dense full-parameter SFT",
  Spanish "QLoRA sobre una base NF4", "QLoRA con la base en 4 bits y congelada", "una corrida con
  adaptadores LoRA", "LoRA (solo adaptadores, base intacta)", "todos los pesos entrenables (completo)",
  "SFT denso de todos los parámetros";
- lengths as "max ctx {n}", "ctx cap of {n}", "samples clipped to {n} tok", Spanish "ctx máx {n}",
  "tope de contexto {n}", "muestras cortadas a {n} tok", the value plain, as "{k}K" or with the
  language's thousands separator; micro-batches as "mbs {b}", "{b} seqs per GPU per step", Spanish
  "{b} secuencias por GPU y paso"; ranks as "adapter dim r={r}", "LoRA rank:alpha {r}:{a}" (rank and alpha),
  Spanish "dimensión del adaptador r={r}", "LoRA rango:alfa {r}:{a}"; epochs as "{e} trips through the set", "epochs → {e}",
  Spanish "{e} pasadas por el set", "épocas → {e}"; dataset sizes as "{D} tok of training text",
  "training text totals {D} tokens", Spanish "{D} de tokens de texto de entrenamiento", "texto de
  entrenamiento: {D} de tokens"; gradient checkpointing as "act. ckpt yes/no", Spanish "ckpt de
  activaciones: sí/no"; precision as "bf16 autocast over fp32 masters", "weights and math all bf16
  (no masters)", "fp16 autocast + loss scaling" and their Spanish; optimizers as "bnb paged
  AdamW8bit", "stock torch AdamW", "vanilla SGD"; regions as "EU-West/Paris DC", Spanish "CPD de
  París"; sharding as "FSDP full-shard", "DeepSpeed ZeRO-2"; attention as "FlashAttention-2
  kernels"; packing as "sequence packing enabled";
- GPUs as "NVIDIA H100 Tensor Core (SXM)", "A100 Ampere 80 GB", "L40S 48 GB GDDR6", "RTX 4090 24 GB
  GDDR6X", "Hopper-class H200", "Blackwell-class B200", "PCIe-form-factor H100", "NVIDIA L4 Tensor Core",
  "MI300X accelerator", "RTX 6000 Ada (48 GB)", "A100 40 GB (SXM4)"; counts as "{c} GPUs of type {g}",
  "a {c}x {g} node", "{g}, gpu_count={c}", "a solitary {g}" (one), "on {g} instances" (no count), Spanish
  "{c} GPUs de tipo {g}", "un host {c}x {g} dedicado", "{g}, cantidad={c}", "una {g} solita", "en instancias {g}";
- frames: "bot, size this: ... — ...", "... additional knobs: ..." ("... otros ajustes: ..."), a "capacity planning" heading with one line
  each, "[OPS-NNNN] ...; ..." (a ticket number), "Could you estimate ...? Details: ...", and Spanish;
- corrections: "... — scratch the {old}, make it {new}", "... [corrected: seq {new}]", Spanish
  "... — olvida el {old}, que sea {new}", "... [corregido: ctx {new}]" (labelled with the new value); two
  values as "{a} (or {b}, undecided)" / "{a} (o {b}, sin decidir)" (a "conflict" question); follow-ups
  "→ {slot}", "revise: {slot}", "only change: {slot}", "could you rerun it, {slot}?", Spanish "→ {slot}",
  "revísalo con {slot}", "cambia solo: {slot}", "¿lo recalculas así: {slot}?"; relative changes "add another 4
  GPUs", "twice the context length" (a "relative" question when the thread has no such value); vague
  values "max ctx: TBD by the data team", "adapter dim: the usual", "epochs: as many as it takes",
  "mbs: whatever maxes util" and their Spanish;
- distractor numbers that are no spec field: ETAs in days, SLAs, run numbers, an eval-harness version, a
  due date, a flaky node's number, money spent so far, a queue depth, a p50 step time;
- noise: a "P.S." line with a time of day, items joined by " 🔹 " or " ; ", a "replying to @sam:"
  opener, a ":white_check_mark:" opener, a trailing "(advisor v0.13)";
- config shapes: a Kubeflow Trainer v2 ``TrainJob`` (``spec.trainer.numNodes`` x
  ``resourcesPerNode.limits["nvidia.com/gpu"]`` GPUs; kubeflow/trainer api ``trainer.kubeflow.org/v1alpha1``),
  Hugging Face AutoTrain Advanced's ``autotrain llm --train`` line (``--peft``, ``--quantization int4``,
  ``--lora-r``, ``--model_max_length``, ``--batch-size``, ``--epochs``; autotrain/cli/run_llm.py; it trains
  through TRL's trainers, so it states the ``hf`` stack), a dstack task YAML (``resources: gpu: H100:8``;
  dstack.ai/docs/reference/dstack.yml/task), an ``nvidia-smi -L`` listing of the box (one line per GPU),
  an ``argparse.Namespace`` printed in a training log, a structured log line with ``world_size``, and a
  ``curl`` POST of a JSON job to an internal sizing endpoint.

Labelling conventions are the earlier sets' (tests/phrasegen.py's docstring, tests/heldout/table3.py):
k = 1024 in a sequence length ("4K" is 4096), decimal token counts, "on H100 instances" no count, "a solitary"
a count of 1, "H100" the SXM part, a catalog model by its catalog id and never with a size, a Hub id the
catalog does not know by the id; ``world_size`` and an ``nvidia-smi -L`` listing count GPUs.
"""

from __future__ import annotations

import random
from typing import Any

from advisor.catalog import Catalog

SPLIT = "gen13"
N_DEFAULT = 3000
KINDS = ("estimate", "config", "followup", "no_model", "unreadable", "conflict", "correction", "relative")

# --- vocabularies -------------------------------------------------------------------------------

METHOD = {
    "en": {"qlora": ["4-bit NF4 QLoRA", "QLoRA over a 4-bit frozen base", "QLoRA"],
           "lora": ["a LoRA-adapter run", "LoRA (adapters, base untouched)", "LoRA"],
           "full": ["every weight trainable (full FT)", "dense full-parameter SFT", "full fine-tune"]},
    "es": {"qlora": ["QLoRA sobre una base NF4", "QLoRA con la base en 4 bits y congelada", "QLoRA"],
           "lora": ["una corrida con adaptadores LoRA", "LoRA (solo adaptadores, base intacta)", "LoRA"],
           "full": ["todos los pesos entrenables (completo)", "SFT denso de todos los parámetros", "ajuste completo"]},
}
PLAIN_METHODS = ("QLoRA", "LoRA", "full fine-tune", "ajuste completo")
# Hub models the catalog does not know (checked with Catalog.find_model in tests/test_parse_blind13_counts.py).
FOREIGN = ("HuggingFaceH4/zephyr-7b-beta", "EleutherAI/pythia-6.9b", "utter-project/EuroLLM-9B",
           "LGAI-EXAONE/EXAONE-3.5-7.8B-Instruct", "Salesforce/xgen-7b-8k-base", "cerebras/btlm-3b-8k-base",
           "openchat/openchat-3.5-0106", "tiiuae/Falcon3-10B-Base")
SIZES = (1.5, 4, 6, 9, 11, 15, 24, 34, 65)
SIZE_FORMS = {"en": ["a {s}-billion-parameter LM", "an unnamed {s}B decoder"],
              "es": ["un LM de {s} mil millones de parámetros", "un decoder de {s}B sin nombre"]}
MODEL_FORMS = {"en": ["{name} (org: {org})", "{hub} from the Hub", "{display}, i.e. {hub}",
                      "huggingface.co/{hub}?library=transformers", "{id}", "{display}"],
               "es": ["{name} (organización: {org})", "{hub} del Hub", "{display}, o sea {hub}",
                      "huggingface.co/{hub}?library=transformers", "{id}", "{display}"]}
SEQ_VALUES = (1024, 2048, 4096, 6144, 8192, 16384, 32768)
SEQ = {"en": ["max ctx {n}", "ctx cap of {n}", "samples clipped to {n} tok"],
       "es": ["ctx máx {n}", "tope de contexto {n}", "muestras cortadas a {n} tok"]}
BATCH = {"en": ["mbs {b}", "{b} seqs per GPU per step"], "es": ["mbs {b}", "{b} secuencias por GPU y paso"]}
RANK = {"en": ["adapter dim r={r}", "LoRA rank:alpha {r}:{a}"], "es": ["dimensión del adaptador r={r}", "LoRA rango:alfa {r}:{a}"]}
EPOCHS = {"en": ["{e} trips through the set", "epochs → {e}"], "es": ["{e} pasadas por el set", "épocas → {e}"]}
DATASET = {"en": ["{D} tok of training text", "training text totals {D} tokens"],
           "es": ["{D} de tokens de texto de entrenamiento", "texto de entrenamiento: {D} de tokens"]}
DATASET_VALUES = ((8_000_000, "8M", "8 millones"), (35_000_000, "35M", "35 millones"),
                  (120_000_000, "120M", "120 millones"), (750_000_000, "750M", "750 millones"),
                  (2_200_000_000, "2.2B", "2.200 millones"))
GPU_FORMS = {"h100-sxm": "NVIDIA H100 Tensor Core (SXM)", "a100-80gb": "A100 Ampere 80 GB", "l40s": "L40S 48 GB GDDR6",
             "rtx-4090": "RTX 4090 24 GB GDDR6X", "h200": "Hopper-class H200", "b200": "Blackwell-class B200",
             "h100-pcie": "PCIe-form-factor H100", "l4": "NVIDIA L4 Tensor Core", "mi300x": "MI300X accelerator",
             "rtx-6000-ada": "RTX 6000 Ada (48 GB)", "a100-40gb": "A100 40 GB (SXM4)"}
# (form, count): "c" the drawn count, 1 a single GPU, 0 no count
GPU_SLOT = {"en": [("{c} GPUs of type {g}", "c"), ("a {c}x {g} node", "c"), ("{g}, gpu_count={c}", "c"),
                   ("a solitary {g}", 1), ("on {g} instances", 0)],
            "es": [("{c} GPUs de tipo {g}", "c"), ("un host {c}x {g} dedicado", "c"), ("{g}, cantidad={c}", "c"),
                   ("una {g} solita", 1), ("en instancias {g}", 0)]}
GC = {"en": [("act. ckpt yes", True), ("act. ckpt no", False)],
      "es": [("ckpt de activaciones: sí", True), ("ckpt de activaciones: no", False)]}
PRECISION = {"en": [("bf16 autocast over fp32 masters", "bf16-mixed"), ("weights and math all bf16 (no masters)", "bf16"),
                    ("fp16 autocast + loss scaling", "fp16-mixed")],
             "es": [("autocast bf16 con maestros fp32", "bf16-mixed"), ("todo en bf16, sin copia maestra", "bf16"),
                    ("autocast fp16 con escalado de pérdida", "fp16-mixed")]}
OPTIMIZER = {"en": [("bnb paged AdamW8bit", "paged-adamw-8bit"), ("stock torch AdamW", "adamw"), ("vanilla SGD", "sgd")],
             "es": [("AdamW8bit paginado de bnb", "paged-adamw-8bit"), ("AdamW estándar de torch", "adamw"),
                    ("SGD a secas", "sgd")]}
REGION = {"en": [("EU-West/Paris DC", "eu-west"), ("EU-Central/Frankfurt DC", "eu-central")],
          "es": [("CPD de París", "eu-west"), ("CPD de Fráncfort", "eu-central")]}
SHARDING = {"en": [("FSDP full-shard", "fsdp"), ("DeepSpeed ZeRO-2", "zero2")],
            "es": [("FSDP en modo full-shard", "fsdp"), ("DeepSpeed ZeRO-2", "zero2")]}
ATTENTION = {"en": [("FlashAttention-2 kernels", "flash")], "es": [("kernels de FlashAttention-2", "flash")]}
PACKING = {"en": [("sequence packing enabled", True)], "es": [("empaquetado de secuencias activado", True)]}
DISTRACTORS = {"en": ["ETA 3 days", "SLA 99.9%", "run #5521", "eval harness v2.3.1", "due March 2nd", "node-17 is flaky",
                      "$480 spent so far", "queue depth 12", "p50 step time 410 ms"],
               "es": ["ETA 3 días", "SLA 99,9%", "run #5521", "arnés de evaluación v2.3.1", "para el 2 de marzo",
                      "el node-17 falla", "480 $ gastados hasta ahora", "cola de 12 trabajos", "paso p50 de 410 ms"]}
TEMPLATES = {"en": ["bot, size this: {core} — {rest}", "{core}. additional knobs: {rest}", "capacity planning\n{core}\n{rest}",
                    "[OPS-{ticket}] {core}; {rest}", "Could you estimate {core}? Details: {rest}."],
             "es": ["bot, calcula esto: {core} — {rest}", "{core}. otros ajustes: {rest}",
                    "planificación de capacidad\n{core}\n{rest}", "[OPS-{ticket}] {core}; {rest}",
                    "¿Podrías estimar {core}? Detalles: {rest}."]}
CORES = {"en": ["{method} of {model}", "{model} via {method}", "{model} — {method}"],
         "es": ["{method} de {model}", "{model} vía {method}", "{model} — {method}"]}
CORRECTION = {"en": ["{text} — scratch the {old}, make it {new}", "{text} [corrected: seq {new}]"],
              "es": ["{text} — olvida el {old}, que sea {new}", "{text} [corregido: ctx {new}]"]}
CONFLICT = {"en": "max ctx {a} (or {b}, undecided)", "es": "ctx máx {a} (o {b}, sin decidir)"}
FOLLOWUP = {"en": ["→ {slot}", "revise: {slot}", "only change: {slot}", "could you rerun it, {slot}?"],
            "es": ["→ {slot}", "revísalo con {slot}", "cambia solo: {slot}", "¿lo recalculas así: {slot}?"]}
RELATIVE = {"en": [("add another 4 GPUs", "num_gpus", "+4"), ("twice the context length", "seq_len", "*2")],
            "es": [("súmale otras 4 GPUs", "num_gpus", "+4"), ("el doble de longitud de contexto", "seq_len", "*2")]}
NO_MODEL = {"en": ["{method} at {seq}, {gpu} — which model size should we pick?"],
            "es": ["{method} con {seq}, {gpu}: ¿qué tamaño de modelo elegimos?"]}
UNREADABLE = {"en": [("max ctx: TBD by the data team", "seq_len"), ("adapter dim: the usual", "lora_rank"),
                     ("epochs: as many as it takes", "epochs"), ("mbs: whatever maxes util", "micro_batch")],
              "es": [("ctx máx: lo decide el equipo de datos", "seq_len"), ("dimensión del adaptador: la de siempre", "lora_rank"),
                     ("épocas: las que hagan falta", "epochs"), ("mbs: lo que exprima la GPU", "micro_batch")]}
PS = {"en": "\nP.S. standup moved to 15:30", "es": "\nP.D. la daily pasa a las 15:30"}
REPLY = {"en": "replying to @sam: ", "es": "respondiendo a @sam: "}
# The GPU names ``nvidia-smi -L`` prints for each catalog part, and dstack's GPU names
# (dstack.ai/docs/concepts/fleets: "H100", "A100:80GB", "L40S", "RTX4090", "L4", "H200").
SMI_NAME = {"h100-sxm": "NVIDIA H100 80GB HBM3", "a100-80gb": "NVIDIA A100-SXM4-80GB", "l40s": "NVIDIA L40S",
            "rtx-4090": "NVIDIA GeForce RTX 4090", "h100-pcie": "NVIDIA H100 PCIe", "l4": "NVIDIA L4"}
DSTACK_GPU = {"h100-sxm": "H100", "a100-80gb": "A100:80GB", "l40s": "L40S", "rtx-4090": "RTX4090", "l4": "L4",
              "h200": "H200"}
HEAD = {"en": {"full": ["full fine-tune, this setup:", "how much for a full fine-tune with this?"],
               "lora": ["LoRA, this setup:", "how much for a LoRA with this?"],
               "qlora": ["QLoRA, this setup:", "how much for a QLoRA with this?"]},
        "es": {"full": ["ajuste completo, con esto:", "¿cuánto sale un ajuste completo con esto?"],
               "lora": ["LoRA, con esto:", "¿cuánto sale un LoRA con esto?"],
               "qlora": ["QLoRA, con esto:", "¿cuánto sale un QLoRA con esto?"]}}


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
            org, _, name = hub.partition("/")
            form = self.pick(MODEL_FORMS[lang][:4])
            return form.format(name=name, org=org, hub=hub, display=name), {"model": hub}
        if r < 0.16:
            s = self.pick(SIZES)
            written = f"{s:g}" if lang == "en" else f"{s:g}".replace(".", ",")  # a decimal comma in Spanish
            return self.pick(SIZE_FORMS[lang]).format(s=written), {"params_b": float(s)}
        m = self.pick(self.models)
        org, _, name = m.hub_id.partition("/")
        form = self.pick(MODEL_FORMS[lang])
        return form.format(name=name, org=org, hub=m.hub_id, display=m.display_name, id=m.id), {"model": m.id}

    def number(self, n: int, lang: str) -> str:
        r = self.rng.random()
        if r < 0.25 and n % 1024 == 0:
            return f"{n // 1024}K"
        if r < 0.4 and n >= 1000:
            return f"{n:,}".replace(",", "," if lang == "en" else ".")
        return str(n)

    def seq(self, lang: str, n: int | None = None) -> tuple[str, dict[str, Any]]:
        n = n or self.pick(SEQ_VALUES)
        return self.pick(SEQ[lang]).format(n=self.number(n, lang)), {"seq_len": n}

    def batch(self, lang: str) -> tuple[str, dict[str, Any]]:
        b = self.pick((1, 2, 4, 8, 16))
        return self.pick(BATCH[lang]).format(b=b), {"micro_batch": b}

    def rank(self, lang: str) -> tuple[str, dict[str, Any]]:
        r = self.pick((4, 8, 16, 32, 64, 128))
        a = r * self.pick((1, 2))
        form = self.pick(RANK[lang])
        fields: dict[str, Any] = {"lora_rank": r}
        if "{a}" in form:
            fields["lora_alpha"] = float(a)
        return form.format(r=r, a=a), fields

    def epochs(self, lang: str) -> tuple[str, dict[str, Any]]:
        e = self.pick((1, 2, 3, 4))
        return self.pick(EPOCHS[lang]).format(e=e), {"epochs": float(e)}

    def dataset(self, lang: str) -> tuple[str, dict[str, Any]]:
        value, en, es = self.pick(DATASET_VALUES)
        return self.pick(DATASET[lang]).format(D=en if lang == "en" else es), {"dataset_tokens": value}

    def gpu(self, lang: str) -> tuple[str, dict[str, Any]]:
        ident = self.pick(GPU_FORMS)
        form, count = self.pick(GPU_SLOT[lang])
        c = self.pick((2, 3, 4, 6, 8))
        fields: dict[str, Any] = {"gpu": ident}
        if count == "c":
            fields["num_gpus"] = c
        elif count == 1:
            fields["num_gpus"] = 1
        return form.format(c=c, g=GPU_FORMS[ident]), fields

    def pair(self, table: dict, lang: str, field: str) -> tuple[str, dict[str, Any]]:
        text, value = self.pick(table[lang])
        return text, {field: value}

    # --- messages ---------------------------------------------------------------------------------
    def method(self, lang: str) -> tuple[str, str, dict[str, Any]]:
        method = self.pick(("qlora", "lora", "full"))
        text = self.pick(METHOD[lang][method])
        # "4-bit NF4 QLoRA", "QLoRA sobre una base NF4" state the 4-bit type: labelled, as every hand-written set
        # labels a stated NF4 (table2/3/4.json: each message saying NF4 has quant "nf4")
        return method, text, {"method": method, **({"quant": "nf4"} if "NF4" in text else {})}

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
                    lambda l: self.pair(REGION, l, "region"), lambda l: self.pair(ATTENTION, l, "attention"),
                    lambda l: self.pair(PACKING, l, "packing")]
        if method != "full":
            optional.append(self.rank)
        for slot in self.rng.sample(optional, self.rng.choice((1, 2, 2, 3))):
            slots.append(slot(lang))
        if any(f.get("num_gpus", 0) > 1 for _, f in slots) and self.rng.random() < 0.3:
            slots.append(self.pair(SHARDING, lang, "sharding"))
        self.rng.shuffle(slots)
        if self.rng.random() < 0.25:
            slots.insert(self.rng.randrange(len(slots) + 1), (self.pick(DISTRACTORS[lang]), {}))
            noise.append("distractor")
        return slots, noise

    def _frame(self, lang: str, core: str, slots: list[tuple[str, dict]], noise: list[str]) -> str:
        template = self.pick(TEMPLATES[lang])
        joiner = ", "
        if "\n{rest}" not in template:
            r = self.rng.random()
            if r < 0.1:
                joiner = " 🔹 "
                noise.append("diamond_bullets")
            elif r < 0.2:
                joiner = " ; "
                noise.append("semicolons")
        return template.format(core=core, rest=joiner.join(t for t, _ in slots), ticket=self.rng.randint(1000, 9999))

    def estimate(self, lang: str) -> dict[str, Any]:
        method, core, expected = self.core(lang)
        slots, noise = self.rest(lang, method)
        for _, fields in slots:
            expected.update(fields)
        return self._entry(self._frame(lang, core, slots, noise), lang, expected, noise, "estimate")

    def correction(self, lang: str) -> dict[str, Any]:
        """A sequence length said, then corrected in the same message: the correction counts."""
        method, core, expected = self.core(lang)
        old = self.pick(SEQ_VALUES)
        slots, noise = self.rest(lang, method, with_seq=False)
        slots.insert(self.rng.randrange(len(slots) + 1), self.seq(lang, old))
        for _, fields in slots:
            expected.update(fields)
        new = self.pick([n for n in SEQ_VALUES if n != old])
        expected["seq_len"] = new
        text = self.pick(CORRECTION[lang]).format(text=self._frame(lang, core, slots, noise), new=new, old=old)
        return self._entry(text, lang, expected, noise + ["correction"], "correction")

    def conflict(self, lang: str) -> dict[str, Any]:
        method, core, expected = self.core(lang)
        a, b = self.rng.sample((1024, 2048, 4096, 8192, 16384), 2)
        slots, noise = self.rest(lang, method, with_seq=False)
        for _, fields in slots:
            expected.update(fields)
        slots.append((CONFLICT[lang].format(a=a, b=b), {}))
        return self._entry(self._frame(lang, core, slots, noise), lang,
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
        noise: list[str] = []
        return self._entry(self._frame(lang, core, slots, noise), lang,
                           {**expected, "intent": "clarify", "clarify_code": "unreadable"}, noise, "unreadable")

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
                    "seq_len": self.pick((1024, 2048, 4096, 8192))}
        if self.rng.random() < 0.5:
            previous.update(gpu=self.pick(("h100-sxm", "a100-80gb", "l40s", "rtx-4090", "h200")),
                            num_gpus=self.pick((1, 2, 4)))
        return previous

    def followup(self, lang: str) -> dict[str, Any]:
        previous = self._previous()
        slot = self.pick((self.seq, self.batch, self.gpu, self.epochs, self.rank, self.dataset,
                          lambda l: self.pair(PRECISION, l, "precision"), lambda l: self.pair(OPTIMIZER, l, "optimizer"),
                          lambda l: self.pair(REGION, l, "region")))
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
        value = previous[field] + 4 if change == "+4" else previous[field] * 2
        return self._entry(form, lang, {field: value, "intent": "followup"}, [], "relative", previous)

    # --- config shapes ----------------------------------------------------------------------------
    def config(self, lang: str) -> dict[str, Any]:
        writer = self.pick((self._trainjob, self._autotrain, self._dstack, self._smi, self._namespace, self._logline,
                            self._curl))
        text, expected, shape = writer(lang)
        return self._entry(text, lang, expected, [f"config:{shape}"], "config")

    def _job(self):
        m, method = self.pick(self.models), self.pick(("lora", "qlora", "full"))
        return m, method, self.pick((1024, 2048, 4096, 8192)), self.pick((1, 2, 4, 8))

    def _head(self, lang: str, method: str) -> str:
        return self.pick(HEAD[lang][method])

    def _trainjob(self, lang):
        """Kubeflow Trainer v2: numNodes x resourcesPerNode GPUs (kubeflow/trainer, api TrainJob spec.trainer)."""
        m, method, seq, _ = self._job()
        nodes, per = self.pick((1, 2, 4)), self.pick((2, 4, 8))
        expected = {"method": method, "model": m.id, "seq_len": seq, "num_gpus": nodes * per}
        text = (f"{self._head(lang, method)}\n```yaml\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n"
                f"metadata:\n  name: sft-{self.rng.randint(100, 999)}\nspec:\n  runtimeRef:\n    name: torch-distributed\n"
                f"  trainer:\n    numNodes: {nodes}\n    resourcesPerNode:\n      limits:\n        nvidia.com/gpu: {per}\n"
                f"    args: [\"--model\", \"{m.hub_id}\", \"--max-seq-len\", \"{seq}\"]\n```")
        return text, expected, "trainjob"

    def _autotrain(self, lang):
        """AutoTrain Advanced's LLM CLI (autotrain/cli/run_llm.py): --peft, --quantization, --lora-r, ..."""
        m, method, seq, b = self._job()
        e = self.pick((1, 2, 3))
        expected: dict[str, Any] = {"method": method, "model": m.id, "seq_len": seq, "micro_batch": b,
                                    "epochs": float(e), "stack": "hf"}
        args = [f"--model {m.hub_id}", "--project-name ft-run", "--data-path data/", "--trainer sft",
                f"--model_max_length {seq}", f"--batch-size {b}", f"--epochs {e}"]
        if method != "full":
            r = self.pick((8, 16, 32))
            args.append("--peft")
            if method == "qlora":
                args.append("--quantization int4")
            args.append(f"--lora-r {r}")
            expected["lora_rank"] = r
        text = f"```\nautotrain llm --train {' '.join(args)}\n```"
        if self.rng.random() < 0.5:
            text = {"en": "our AutoTrain command, what GPU?\n", "es": "nuestro comando de AutoTrain, ¿qué GPU?\n"}[lang] + text
        return text, expected, "autotrain"

    def _dstack(self, lang):
        """dstack task configuration: ``resources: gpu: <name>:<count>``."""
        m, method, seq, _ = self._job()
        gpu, n = self.pick(DSTACK_GPU), self.pick((1, 2, 4, 8))
        expected = {"method": method, "model": m.id, "seq_len": seq, "gpu": gpu, "num_gpus": n}
        text = (f"{self._head(lang, method)}\n```yaml\ntype: task\nname: ft-{self.rng.randint(10, 99)}\ncommands:\n"
                f"  - python train.py --model {m.hub_id} --method {method} --seq-len {seq}\n"
                f"resources:\n  gpu: {DSTACK_GPU[gpu]}:{n}\n```")
        return text, expected, "dstack"

    def _smi(self, lang):
        """The box the job runs on, as ``nvidia-smi -L`` lists it: one line per GPU."""
        method, core, expected = self.core(lang)
        gpu, n = self.pick(SMI_NAME), self.pick((1, 2, 4, 8))
        seq_t, seq_f = self.seq(lang)
        expected.update(seq_f, gpu=gpu, num_gpus=n)
        lines = "\n".join(f"GPU {i}: {SMI_NAME[gpu]} (UUID: GPU-{self.rng.randrange(16 ** 8):08x}-"
                          f"{self.rng.randrange(16 ** 4):04x})" for i in range(n))
        intro = {"en": "this is the box we have:", "es": "esta es la máquina que tenemos:"}[lang]
        return f"{core}, {seq_t}\n{intro}\n```\n$ nvidia-smi -L\n{lines}\n```", expected, "nvidia_smi"

    def _namespace(self, lang):
        """An ``argparse.Namespace`` as a training script logs it at start-up."""
        m, method, seq, b = self._job()
        expected: dict[str, Any] = {"method": method, "model": m.id, "seq_len": seq, "micro_batch": b}
        parts = [f"model_name_or_path='{m.hub_id}'", f"method='{method}'", f"max_seq_length={seq}",
                 f"per_device_train_batch_size={b}"]
        if method != "full":
            r = self.pick((8, 16, 64))
            parts.append(f"lora_r={r}")
            expected["lora_rank"] = r
        intro = {"en": "from the log of the last attempt:", "es": "del log del último intento:"}[lang]
        return f"{intro}\n```\nINFO args: Namespace({', '.join(parts)}, seed=42, logging_steps=10)\n```", expected, "namespace"

    def _logline(self, lang):
        """A structured start-up log line: ``world_size`` is the number of GPUs (torch.distributed)."""
        m, method, seq, b = self._job()
        n = self.pick((2, 4, 8, 16))
        expected = {"method": method, "model": m.id, "seq_len": seq, "micro_batch": b, "num_gpus": n}
        line = (f"[2026-01-{self.rng.randint(10, 28)} 0{self.rng.randint(1, 9)}:12:44,512][train][INFO] model={m.hub_id} "
                f"method={method} seq_len={seq} world_size={n} micro_bs={b} step=0/{self.rng.randint(900, 5000)}")
        intro = {"en": "size the job that printed this:", "es": "dimensiona el trabajo que imprimió esto:"}[lang]
        return f"{intro}\n`{line}`", expected, "logline"

    def _curl(self, lang):
        """A JSON job posted to an internal sizing endpoint: ``gpus`` is a count."""
        m, method, seq, _ = self._job()
        n = self.pick((1, 2, 4, 8))
        expected = {"method": method, "model": m.id, "seq_len": seq, "num_gpus": n}
        body = f'{{"model": "{m.hub_id}", "method": "{method}", "seq_len": {seq}, "gpus": {n}}}'
        intro = {"en": "the request our pipeline sends, can you answer it here?",
                 "es": "la petición que manda nuestro pipeline, ¿la respondes aquí?"}[lang]
        return (f"{intro}\n```\ncurl -s -X POST http://sizing.internal:8080/v1/jobs -H 'Content-Type: application/json' "
                f"-d '{body}'\n```"), expected, "curl"

    # --- noise and the entry ------------------------------------------------------------------------
    def _entry(self, text: str, lang: str, expected: dict, noise: list[str], kind: str,
               previous: dict | None = None) -> dict[str, Any]:
        rng = self.rng
        noise = list(noise)
        if rng.random() < 0.07:
            text += PS[lang]
            noise.append("ps")
        if rng.random() < 0.07 and previous is None:
            text = REPLY[lang] + text
            noise.append("reply_to")
        if rng.random() < 0.06:
            text = ":white_check_mark: " + text
            noise.append("check_emoji")
        if rng.random() < 0.05:
            text += " (advisor v0.13)"
            noise.append("version_tag")
        entry = {"text": text, "lang": lang, "expected": {**expected}, "noise": noise, "split": SPLIT, "kind": kind}
        if previous is not None:
            entry["previous"] = previous
        return entry


def generate(n: int = N_DEFAULT, *, catalog: Catalog, seed: int = 13) -> list[dict[str, Any]]:
    """``n`` labelled messages, the same for the same seed (about half English, half Spanish)."""
    rng = random.Random(f"{seed}:gen13")
    gen = _Gen(rng, catalog)
    out = []
    for _ in range(n):
        lang = "en" if rng.random() < 0.5 else "es"
        roll = rng.random()
        if roll < 0.44:
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
