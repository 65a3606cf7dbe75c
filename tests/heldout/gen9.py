"""Round 9's generated held-out split: an independent generator of labelled chat messages (issue #13).

    from tests.heldout import gen9
    entries = gen9.generate(3000, catalog=catalog, seed=9)
    verdict = tests.phrasegen.judge(entry, parse_message(entry["text"], catalog, previous=...))

Written for the held-out measurement of issue #13 by someone who did not read the parser
(``advisor/parse/`` beyond ``result.py``'s field names and ``advisor/i18n/parse.py``'s clarify codes)
and did not run it while writing. It shares nothing with ``tests/phrasegen.py`` but its label format
and ``judge``: every vocabulary, frame, noise and config shape below is new (checked by grepping
phrasegen's lists for each form before adding it; only the plain method words every message needs,
"QLoRA", "LoRA", "full fine-tune", "ajuste completo", are shared), so the parser's rules, tuned on phrasegen's splits and
the hand-written tables, have never seen them.

Entries are shaped like phrasegen's: ``text``, ``lang``, ``expected`` (the ``SpecRequest`` fields the
message itself states, ``intent`` when it is not "estimate", ``clarify_code`` where the right answer is
a question back), ``previous`` for a thread follow-up (whose ``expected`` is only what the message
changes), ``noise`` (what was done to the text; its presence makes ``judge`` compare the parse's delta)
and ``split`` ("gen9"), plus ``kind`` (estimate, config, followup, no_model, unreadable, conflict).

What is new here (none of it is in phrasegen's vocabularies):

- models: "the 8B variant of Llama 3.1", "Qwen2.5 in its 7B size", "Gemma 2 (9B version)", Spanish
  "Qwen2.5 en su versión de 7B", "la variante de 8B de Llama 3.1"; Hub ids in single quotes or with a
  "(rev 3f9c2a1)" revision; a Markdown "[model card](https://huggingface.co/<id>)" next to the name;
  fine-tunes the catalog does not know ("teknium/OpenHermes-2.5-Mistral-7B"), labelled by Hub id;
- sizes: "{s} bn params", "a {s}bn model", Spanish "un modelo de {s}B de parámetros";
- GPUs with the architecture first ("Hopper H100", "Ampere A100", "Ada L40S"), "H100 (80 GB, SXM)",
  "GeForce 4090 (24 GB)", "A100 w/ 80GB"; counts as "{c} GPUs, all {g}", "{g} ({c} pcs)", "{k} nodes x 8
  {g}" (k x 8), "a {c}-card {g} rig", "exactly one {g}", "only 1 {g}", Spanish "{c} placas {g}",
  "{k} nodos de 8 {g}", "exactamente una {g}", "nada más una {g}";
- lengths as "{n}-tok windows", "samples up to {n} tokens long", "truncate at {k}k", "seq {n} ({k}k)"
  (the same value twice), Python underscore thousands ("16_384"), Spanish "recortado a {n} tokens",
  "muestras de hasta {n} tokens de largo", "truncando a {k}k";
- other slots: "microbatch {b}", "batch/gpu {b}", "r/alpha {r}/{a}", "LoRA @ rank {r}", "a {r}-rank
  LoRA", "{e} epochs' worth", "{e} epochs end to end", Spanish "{e} vueltas al dataset", "lote/gpu {b}",
  "microlote {b}", "LoRA con r igual a {r}"; method words "nf4 QLoRA", "LoRA via peft", "LoRA through
  PEFT", "full fine-tune (no PEFT)", "vanilla full SFT", "SFT completo", "ajuste fino completo (sin
  PEFT)"; optimizers, precisions and regions in new words ("AdamW, paged, 8-bit", "fp32 throughout",
  "el AdamW 8-bit de bnb", "en la zona de París");
- frames: "before I book GPUs: ...", "asking for a friend: ...", "what's the damage for ...", "Request
  #N: ... / ...", "... Specs: ...", Spanish "antes de reservar GPUs: ...", "a ojo, ¿...?", "¿cuánto nos sale ...?";
- corrections: "..., actually {value}", "... -- scratch that, {value}", "~{old}~ {new}", Spanish
  "..., mejor dicho {value}", "... no, perdón: {value}" (labelled with the corrected value);
- two values for one field without a correction ("seq 2048 or 4096"): a question back ("conflict");
- distractor numbers that are not spec fields: learning rates, warmup and eval steps, seeds;
- noise: Spanish with its accents stripped, CRLF line breaks, skin-tone emoji, "!!!", "<!channel>",
  one transposed letter in a setting word ("sequnece", "secuenica");
- config shapes: a SkyPilot task YAML, a Kubernetes PyTorchJob (GPU type from its
  ``nvidia.com/gpu.product`` node selector), a Ray Train script (``ScalingConfig``), torchtune's
  command line with ``key=value`` overrides, ``python -m torch.distributed.run`` and
  ``deepspeed --include localhost:0,1,...`` launch lines, and a W&B run-config JSON.

Labelling conventions are phrasegen's (read from its docstring, not from the parser): k = 1024 in a
sequence length and 1000 in token counts; "on an H100" names a GPU and no count, "exactly one H100" a
count of 1; a catalog model is labelled by its catalog id and never with a size; a Hub id the
catalog does not know by the id itself; TRL's ``--use_peft --load_in_4bit`` is QLoRA; torchtune's
``dtype=bf16`` is pure bf16; Trainer's ``bf16`` flag is bf16 mixed precision; a global-batch note
is not an accumulation-steps value.
"""

from __future__ import annotations

import random
import re
import unicodedata
from typing import Any

from advisor.catalog import Catalog

SPLIT = "gen9"
N_DEFAULT = 3000

# --- vocabularies ------------------------------------------------------------------------------

METHOD = {
    "en": {"qlora": [("nf4 QLoRA", {"quant": "nf4"}), ("4-bit adapters (QLoRA)", {}), ("qlora w/ bnb 4-bit", {}),
                     ("QLoRA", {}), ("qlora", {})],
           "lora": [("LoRA via peft", {}), ("adapter tuning (LoRA)", {}), ("LoRA through PEFT", {}), ("LoRA", {}), ("lora", {})],
           "full": [("full fine-tune (no PEFT)", {}), ("vanilla full SFT", {}), ("plain full fine-tuning", {}),
                    ("full fine-tune", {})]},
    "es": {"qlora": [("QLoRA sobre NF4", {"quant": "nf4"}), ("adaptadores en 4 bits (QLoRA)", {}), ("QLoRA", {}),
                     ("qlora", {})],
           "lora": [("LoRA vía peft", {}), ("ajuste con adaptadores LoRA", {}), ("LoRA", {}), ("lora", {})],
           "full": [("ajuste fino completo (sin PEFT)", {}), ("SFT completo", {}), ("entrenamiento de pesos completos", {}),
                    ("ajuste completo", {})]},
}
# Method words that wrap the model.
WRAP = {
    "en": {"full": ["retrain every weight of {model}"], "lora": ["attach LoRA adapters to {model}"],
           "qlora": ["QLoRA {model} on a 4-bit base"]},
    "es": {"full": ["volver a entrenar todos los pesos de {model}"], "lora": ["meterle adaptadores LoRA a {model}"],
           "qlora": ["hacerle QLoRA a {model}"]},
}
# Fine-tunes on the Hub that the catalog does not know (checked with Catalog.find_model): labelled by Hub id.
FOREIGN = ("teknium/OpenHermes-2.5-Mistral-7B", "NousResearch/Hermes-3-Llama-3.1-8B", "upstage/SOLAR-10.7B-v1.0",
           "ibm-granite/granite-3.1-8b-instruct", "CohereForAI/aya-expanse-8b", "internlm/internlm2_5-7b-chat",
           "Qwen/Qwen2.5-Coder-7B", "deepseek-ai/deepseek-coder-6.7b-base")
SIZES = (1, 2, 4, 9, 12, 24, 34, 72, 110)
SIZE_FORMS = {"en": ["{s} bn params", "a {s}bn model", "a model with {s}B weights"],
              "es": ["un modelo de {s}B de parámetros", "un modelo de {s} mil millones de pesos"]}
SEQ_VALUES = (1024, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 65536)
SEQ = {"en": ["{n}-tok windows", "samples up to {n} tokens long", "truncate at {k}k", "seq {n} ({k}k)", "seq {u}",
              "{k}k-tok samples", "max {n} tokens per sample"],
       "es": ["recortado a {n} tokens", "muestras de hasta {n} tokens de largo", "truncando a {k}k",
              "secuencia {n} ({k}k)", "secuencia {u}", "{n} tokens por muestra como máximo"]}
BATCH = {"en": ["microbatch {b}", "batch/gpu {b}", "{b} per GPU per step"],
         "es": ["microlote {b}", "lote/gpu {b}", "{b} por GPU en cada paso"]}
RANK = {"en": ["LoRA @ rank {r}", "a {r}-rank LoRA", "r/alpha {r}/{a}"],
        "es": ["LoRA con r igual a {r}", "r/alpha {r}/{a}", "rango LoRA igual a {r}"]}
EPOCHS = {"en": ["{e} epochs' worth", "{e} epochs end to end", "{e} passes over the set"],
          "es": ["{e} vueltas al dataset", "{e} vueltas", "{e} épocas de punta a punta"]}
DATASET = {"en": ["{D} tokens in the training mix", "a training mix of {D} tokens", "{D} tokens (after dedup)"],
           "es": ["{D} de tokens en la mezcla de entrenamiento", "una mezcla de {D} de tokens"]}
DATASET_VALUES = ((8_000_000, "8M", "8 millones"), (30_000_000, "30M", "30 millones"),
                  (75_000_000, "75M", "75 millones"), (250_000_000, "250M", "250 millones"),
                  (2_000_000_000, "2B", "2 mil millones"))
GPU_FORMS = {"h100-sxm": ["Hopper H100", "H100 (80 GB, SXM)"], "a100-80gb": ["Ampere A100", "A100 w/ 80GB"],
             "l40s": ["Ada L40S", "L40S (48 GB)"], "rtx-4090": ["GeForce 4090 (24 GB)", "Ada RTX 4090"],
             "h200": ["Hopper H200"], "a100-40gb": ["Ampere A100 40GB"], "b200": ["B200 (Blackwell)"],
             "mi300x": ["AMD MI300X (192 GB)"]}
# (form, count): count "c" the drawn count, "k8" nodes x 8, 1 a single GPU, 0 no count
GPU_SLOT = {"en": [("{c} GPUs, all {g}", "c"), ("{g} ({c} pcs)", "c"), ("{k} nodes x 8 {g}", "k8"),
                   ("a {c}-card {g} rig", "c"), ("exactly one {g}", 1), ("only 1 {g}", 1), ("the {g} pool", 0)],
            "es": [("{c} placas {g}", "c"), ("{k} nodos de 8 {g}", "k8"), ("exactamente una {g}", 1), ("nada más una {g}", 1),
                   ("{c} GPUs, todas {g}", "c"), ("el pool de {g}", 0)]}
GC = {"en": [("activation recompute on", True), ("no activation recomputation", False)],
      "es": [("recomputando activaciones", True), ("sin recomputación de activaciones", False)]}
PRECISION = {"en": [("amp bf16", "bf16-mixed"), ("mixed precision (fp16)", "fp16-mixed"), ("fp32 throughout", "fp32")],
             "es": [("bf16 con AMP", "bf16-mixed"), ("fp32 de principio a fin", "fp32")]}
OPTIMIZER = {"en": [("AdamW (8-bit, bitsandbytes)", "adamw-8bit"), ("AdamW, paged, 8-bit", "paged-adamw-8bit"),
                    ("AdamW from torch.optim", "adamw")],
             "es": [("el AdamW 8-bit de bnb", "adamw-8bit"), ("AdamW 8-bit paginado", "paged-adamw-8bit")]}
SHARDING = {"en": [("sharded with FSDP", "fsdp"), ("DeepSpeed stage 3", "zero3"), ("DeepSpeed stage 2", "zero2")],
            "es": [("repartido con FSDP", "fsdp"), ("DeepSpeed etapa 3", "zero3")]}
REGION = {"en": [("in our Paris region", "eu-west"), ("from the Frankfurt DC", "eu-central")],
          "es": [("en la zona de París", "eu-west"), ("en el datacenter de Fráncfort", "eu-central")]}
DISTRACTORS = {"en": ["lr 2e-4", "warmup 100 steps", "eval every 500 steps", "seed 42", "lr=1e-5, cosine"],
               "es": ["lr 2e-4", "warmup de 100 pasos", "evaluando cada 500 pasos", "semilla 42"]}
TEMPLATES = {"en": ["before I book GPUs: {core}, {rest}", "asking for a friend: {core} {rest}",
                    "what's the damage for {core} {rest}?", "Request #{t}: {core} / {rest}", "{core}. Specs: {rest}.",
                    "<!channel> {core} ({rest}) - does it fit?", "{rest} -- that's for {core}",
                    "numbers please -> {core}, {rest}"],
             "es": ["antes de reservar GPUs: {core}, {rest}", "a ojo, ¿{core} {rest}?", "¿cuánto nos sale {core} con {rest}?",
                    "Petición #{t}: {core} / {rest}", "{core}. Datos: {rest}.", "{rest}: eso es para {core}",
                    "<!channel> {core} ({rest}), ¿cabe?"]}
CORES = {"en": ["{method} → {model}", "{model} / {method}", "{method} pass on {model}"],
         "es": ["{method} → {model}", "{model} / {method}", "{method} aplicado a {model}"]}
CORRECTION = {"en": ["{text}, actually {new}", "{text} -- scratch that, {new}"],
              "es": ["{text}, mejor dicho {new}", "{text}... no, perdón: {new}"]}
CONFLICT = {"en": "{a} or {b}", "es": "{a} o {b}"}
FOLLOWUP = {"en": ["can you redo that with {slot}", "{slot} would be the real setup", "and for {slot}?", "hm, {slot} then"],
            "es": ["¿lo rehaces con {slot}?", "en realidad sería {slot}", "vale, entonces {slot}", "¿y para {slot}?"]}
RELATIVE = {"en": [("make the context 2x", "seq_len", 2), ("one more GPU", "num_gpus", "+1")],
            "es": [("el doble de contexto", "seq_len", 2), ("una GPU más", "num_gpus", "+1")]}
NO_MODEL = {"en": ["{method} at {seq}, {gpu} - which model fits best?", "what can I {method} with {seq} on {gpu}?"],
            "es": ["{method} con {seq} en {gpu}, ¿qué modelo entra?", "¿qué puedo entrenar con {method}, {seq}, {gpu}?"]}
UNREADABLE = {"en": [("seq: as long as possible", "seq_len"), ("rank: not decided yet", "lora_rank"),
                     ("batch: it depends on the GPU", "micro_batch"), ("epochs: a few", "epochs")],
              "es": [("secuencia: lo más larga posible", "seq_len"), ("rango: sin decidir", "lora_rank"),
                     ("lote: depende", "micro_batch"), ("épocas: unas cuantas", "epochs")]}
TYPO_WORDS = {"sequence": "sequnece", "context": "contxet", "epochs": "epohcs", "secuencia": "secuenica",
              "contexto": "conetxto", "vueltas": "vuletas", "microbatch": "mircobatch", "microlote": "mircolote"}
EMOJI = (" :+1::skin-tone-3:", " :raised_hands::skin-tone-5:", "!!!")
# torchtune recipe configs by catalog id: (config dir, size name); the torchtune repo's recipes/configs layout.
TORCHTUNE = {"llama-3.1-8b": ("llama3_1", "8B"), "llama-3.2-3b": ("llama3_2", "3B"), "llama-3.2-1b": ("llama3_2", "1B"),
             "qwen2.5-7b": ("qwen2_5", "7B"), "qwen2.5-3b": ("qwen2_5", "3B"), "qwen2.5-1.5b": ("qwen2_5", "1.5B"),
             "mistral-7b-v0.1": ("mistral", "7B"), "gemma-2-9b": ("gemma2", "9B"), "gemma-2-2b": ("gemma2", "2B")}
# The node label the NVIDIA GPU operator puts on Kubernetes nodes (nvidia.com/gpu.product).
K8S_PRODUCT = {"h100-sxm": "NVIDIA-H100-80GB-HBM3", "a100-80gb": "NVIDIA-A100-SXM4-80GB", "l40s": "NVIDIA-L40S",
               "rtx-4090": "NVIDIA-GeForce-RTX-4090", "h200": "NVIDIA-H200"}
# Ray's accelerator_type constants (ray.util.accelerators: NVIDIA_TESLA_A100 "A100", NVIDIA_H100 "H100", ...).
RAY_TYPE = {"h100-sxm": "H100", "a100-80gb": "A100-80G", "l4": "L4", "a10g": "A10G"}
SKY_TYPE = {"h100-sxm": "H100", "a100-80gb": "A100-80GB", "l40s": "L40S", "h200": "H200", "rtx-4090": "RTX4090"}


def _k(n: int) -> str:
    return f"{n // 1024}" if n % 1024 == 0 else f"{n / 1024:g}"


class _Gen:
    def __init__(self, rng: random.Random, catalog: Catalog):
        self.rng = rng
        self.models = [m for m in catalog.models() if m.id != "tiny-test"]
        self.catalog = catalog

    def pick(self, seq):
        return self.rng.choice(list(seq))

    # --- slots: each returns (text, fields) ---------------------------------------------------------
    def model(self, lang: str) -> tuple[str, dict[str, Any]]:
        r = self.rng.random()
        if r < 0.08:
            hub = self.pick(FOREIGN)
            return self.pick([f"'{hub}'", hub, f"`{hub}`"]), {"model": hub}
        if r < 0.16:
            s = self.pick(SIZES)
            text = self.pick(SIZE_FORMS[lang]).format(s=f"{s:g}" if lang == "en" else f"{s:g}".replace(".", ","))
            return text, {"params_b": float(s)}
        m = self.pick(self.models)
        display = m.display_name
        tag = re.fullmatch(r"(.+) (\d+(?:\.\d+)?[BM])", display)
        forms = [f"'{m.hub_id}'", f"{m.hub_id} (rev {self.rng.getrandbits(28):07x})", display]
        if tag and m.family not in ("mixtral",):
            fam, size = tag.group(1), tag.group(2)
            forms += {"en": [f"the {size} variant of {fam}", f"{fam} in its {size} size", f"{fam} ({size} version)"],
                      "es": [f"{fam} en su versión de {size}", f"la variante de {size} de {fam}", f"{fam} (versión {size})"]}[lang]
        text = self.pick(forms)
        if self.rng.random() < 0.15:
            text += f" ([model card](https://huggingface.co/{m.hub_id}))"
        return text, {"model": m.id}

    def seq(self, lang: str) -> tuple[str, dict[str, Any]]:
        n = self.pick(SEQ_VALUES)
        forms = [f for f in SEQ[lang] if ("{k}" not in f or n % 1024 == 0) and ("{u}" not in f or n >= 10_000)]
        return self.pick(forms).format(n=n, k=_k(n), u=f"{n:_}"), {"seq_len": n}

    def batch(self, lang: str) -> tuple[str, dict[str, Any]]:
        b = self.pick((1, 2, 3, 4, 6, 8, 12, 16))
        return self.pick(BATCH[lang]).format(b=b), {"micro_batch": b}

    def rank(self, lang: str) -> tuple[str, dict[str, Any]]:
        r = self.pick((4, 8, 16, 32, 64, 128))
        form = self.pick(RANK[lang])
        a = r * self.pick((1, 2))
        fields: dict[str, Any] = {"lora_rank": r}
        if "{a}" in form:
            fields["lora_alpha"] = float(a)
        return form.format(r=r, a=a), fields

    def epochs(self, lang: str) -> tuple[str, dict[str, Any]]:
        e = self.pick((2, 3, 4, 6))
        return self.pick(EPOCHS[lang]).format(e=e), {"epochs": float(e)}

    def dataset(self, lang: str) -> tuple[str, dict[str, Any]]:
        value, en, es = self.pick(DATASET_VALUES)
        return self.pick(DATASET[lang]).format(D=en if lang == "en" else es), {"dataset_tokens": value}

    def gpu(self, lang: str) -> tuple[str, dict[str, Any]]:
        ident = self.pick(GPU_FORMS)
        g = self.pick(GPU_FORMS[ident])
        form, count = self.pick(GPU_SLOT[lang])
        c, k = self.pick((2, 3, 4, 6, 8)), self.pick((2, 4))
        fields: dict[str, Any] = {"gpu": ident}
        if count == "c":
            fields["num_gpus"] = c
        elif count == "k8":
            fields["num_gpus"] = 8 * k
        elif count == 1:
            fields["num_gpus"] = 1
        prefix = {"en": "on ", "es": "en "}[lang] if not form.startswith(("{c} GPUs", "{g} (")) else ""
        return prefix + form.format(c=c, k=k, g=g), fields

    def pair(self, table: dict, lang: str, field: str) -> tuple[str, dict[str, Any]]:
        text, value = self.pick(table[lang])
        return text, {field: value}

    # --- messages -----------------------------------------------------------------------------------
    def method(self, lang: str) -> tuple[str, str, dict[str, Any]]:
        method = self.pick(("qlora", "lora", "full"))
        text, extra = self.pick(METHOD[lang][method])
        return method, text, {"method": method, **extra}

    def rest(self, lang: str, method: str, *, keep_seq: bool = True) -> tuple[list[tuple[str, dict]], list[str]]:
        slots = [self.seq(lang)] if keep_seq else []
        noise: list[str] = []
        optional = [self.gpu, self.batch, self.epochs, self.dataset,
                    lambda l: self.pair(GC, l, "gradient_checkpointing"),
                    lambda l: self.pair(PRECISION, l, "precision"), lambda l: self.pair(OPTIMIZER, l, "optimizer"),
                    lambda l: self.pair(REGION, l, "region")]
        if method != "full":
            optional.append(self.rank)
        for slot in self.rng.sample(optional, self.rng.choice((1, 1, 2, 2, 3))):
            slots.append(slot(lang))
        if any("num_gpus" in f and f["num_gpus"] > 1 for _, f in slots) and self.rng.random() < 0.3:
            slots.append(self.pair(SHARDING, lang, "sharding"))
        self.rng.shuffle(slots)
        if self.rng.random() < 0.15:
            slots.insert(self.rng.randrange(len(slots) + 1), (self.pick(DISTRACTORS[lang]), {}))
            noise.append("distractor")
        return slots, noise

    def estimate(self, lang: str) -> dict[str, Any]:
        method, mtext, expected = self.method(lang)
        mod, mfields = self.model(lang)
        expected.update(mfields)
        noise: list[str] = []
        if self.rng.random() < 0.12:
            core = self.pick(WRAP[lang][method]).format(model=mod)
            expected.pop("quant", None)
            noise.append("wrap")
        else:
            core = self.pick(CORES[lang]).format(method=mtext, model=mod)
        slots, more = self.rest(lang, method)
        noise += more
        for _, fields in slots:
            expected.update(fields)
        rest = ", ".join(t for t, _ in slots)
        roll = self.rng.random()
        if roll < 0.10:  # a corrected value: the last one counts
            old_t, _ = self.seq(lang)
            new_t, new_f = self.seq(lang)
            if new_f["seq_len"] != expected["seq_len"] and old_t != new_t:
                rest = rest.replace(next(t for t, f in slots if "seq_len" in f), old_t)
                expected.update(new_f)
                text = self.pick(TEMPLATES[lang]).format(core=core, rest=rest, t=self.rng.randrange(100, 999))
                return self._entry(self.pick(CORRECTION[lang]).format(text=text, new=new_t), lang, expected,
                                   noise + ["correction"], "estimate")
        if roll < 0.16:  # struck through in Slack (~old~ new)
            old_t, old_f = self.seq(lang)
            seq_t = next(t for t, f in slots if "seq_len" in f)
            if old_f["seq_len"] != expected["seq_len"]:
                rest = rest.replace(seq_t, f"~{old_t}~ {seq_t}")
                noise.append("strike")
        text = self.pick(TEMPLATES[lang]).format(core=core, rest=rest, t=self.rng.randrange(100, 999))
        return self._entry(text, lang, expected, noise, "estimate")

    def conflict(self, lang: str) -> dict[str, Any]:
        method, mtext, expected = self.method(lang)
        mod, mfields = self.model(lang)
        expected.update(mfields)
        a, b = self.rng.sample((1024, 2048, 4096, 8192, 16384), 2)
        seq = {"en": "seq ", "es": "secuencia "}[lang] + CONFLICT[lang].format(a=a, b=b)
        core = self.pick(CORES[lang]).format(method=mtext, model=mod)
        text = f"{core}, {seq}"
        return self._entry(text, lang, {**expected, "intent": "clarify", "clarify_code": "conflict"}, [], "conflict")

    def config(self, lang: str) -> dict[str, Any]:
        writer = self.pick((self._skypilot, self._k8s, self._ray, self._torchtune_cli, self._torch_run,
                            self._ds_include, self._wandb_json))
        text, expected, shape = writer(lang)
        return self._entry(text, lang, expected, [f"config:{shape}"], "config")

    def followup(self, lang: str) -> dict[str, Any]:
        m = self.pick(self.models)
        previous = {"method": self.pick(("lora", "qlora", "full")), "model": m.id, "seq_len": self.pick((2048, 4096, 8192))}
        if self.rng.random() < 0.5:
            previous.update(gpu=self.pick(("h100-sxm", "a100-80gb", "l40s")), num_gpus=self.pick((2, 4)))
        roll = self.rng.random()
        if roll < 0.25:
            form, field, change = self.pick(RELATIVE[lang])
            if field in previous:
                value = previous[field] * change if change == 2 else previous[field] + 1
                return self._entry(form, lang, {field: value, "intent": "followup"}, [], "followup", previous)
        slot = self.pick((self.seq, self.batch, self.gpu, self.epochs, self.rank, self.dataset))
        text, fields = slot(lang)
        if slot == self.rank and previous["method"] == "full":
            previous["method"] = "lora"
        if all(previous.get(k) == v for k, v in fields.items()):
            text, fields = self.batch(lang)
        message = self.pick(FOLLOWUP[lang]).format(slot=re.sub(r"^(on|en) ", "", text))
        return self._entry(message, lang, {**fields, "intent": "followup"}, [], "followup", previous)

    def no_model(self, lang: str) -> dict[str, Any]:
        method, mtext, expected = self.method(lang)
        seq_t, seq_f = self.seq(lang)
        gpu_t, gpu_f = self.gpu(lang)
        gpu_t = re.sub(r"^(on|en) ", "", gpu_t)
        text = self.pick(NO_MODEL[lang]).format(method=mtext, seq=seq_t, gpu=gpu_t)
        return self._entry(text, lang, {**expected, **seq_f, **gpu_f, "intent": "clarify", "clarify_code": "model"},
                           [], "no_model")

    def unreadable(self, lang: str) -> dict[str, Any]:
        method, mtext, expected = self.method(lang)
        mod, mfields = self.model(lang)
        expected.update(mfields)
        form, field = self.pick(UNREADABLE[lang])
        if field == "lora_rank" and method == "full":
            form, field = UNREADABLE[lang][0]
        slots = [] if field == "seq_len" else [self.seq(lang)]
        for _, f in slots:
            expected.update(f)
        parts = [self.pick(CORES[lang]).format(method=mtext, model=mod)] + [t for t, _ in slots] + [form]
        return self._entry(", ".join(parts), lang, {**expected, "intent": "clarify", "clarify_code": "unreadable"},
                           [], "unreadable")

    # --- config shapes ------------------------------------------------------------------------------
    def _hf_args(self, expected: dict, method: str) -> list[str]:
        seq, b = self.pick((1024, 2048, 4096, 8192)), self.pick((1, 2, 4, 8))
        expected.update(seq_len=seq, micro_batch=b)
        args = [f"--max_length {seq}", f"--per_device_train_batch_size {b}"]
        if method in ("lora", "qlora"):
            r = self.pick((8, 16, 32, 64))
            args += ["--use_peft", f"--lora_r {r}"] + (["--load_in_4bit"] if method == "qlora" else [])
            expected["lora_rank"] = r
        if self.rng.random() < 0.5:
            e = self.pick((1, 2, 3))
            args.append(f"--num_train_epochs {e}")
            expected["epochs"] = float(e)
        return args

    def _prose(self, lang: str, method: str, expected: dict) -> str:
        expected["method"] = method
        word = {"en": {"full": "full fine-tune", "lora": "LoRA", "qlora": "QLoRA"},
                "es": {"full": "ajuste completo", "lora": "LoRA", "qlora": "QLoRA"}}[lang][method]
        return self.pick({"en": [f"{word} job, what will it cost?", f"sizing this {word} run:"],
                          "es": [f"trabajo de {word}, ¿cuánto costará?", f"dimensiona este {word}:"]}[lang])

    def _catalog_model(self, ids=None):
        pool = [m for m in self.models if ids is None or m.id in ids]
        return self.pick(pool)

    def _skypilot(self, lang):
        m, method, expected = self._catalog_model(), self.pick(("lora", "qlora", "full")), {}
        gpu = self.pick(SKY_TYPE)
        n = self.pick((1, 2, 4, 8))
        expected.update(model=m.id, gpu=gpu, num_gpus=n)
        expected["stack"] = "hf"  # "trl.scripts.sft" names TRL, which trains through the HF Trainer (tests/phrasegen.py)
        args = self._hf_args(expected, method)
        text = (f"{self._prose(lang, method, expected)}\n```yaml\nresources:\n  accelerators: {SKY_TYPE[gpu]}:{n}\n"
                f"  cloud: kubernetes\nsetup: pip install trl peft\nrun: |\n  torchrun --nproc_per_node {n} -m trl.scripts.sft "
                f"--model_name_or_path {m.hub_id} " + " ".join(args) + "\n```")
        return text, expected, "skypilot"

    def _k8s(self, lang):
        m, method, expected = self._catalog_model(), self.pick(("lora", "qlora", "full")), {}
        gpu = self.pick(K8S_PRODUCT)
        n = self.pick((1, 2, 4, 8))
        expected.update(model=m.id, gpu=gpu, num_gpus=n)
        expected["stack"] = "hf"  # the container runs "trl sft": TRL, on the HF Trainer (as tests/phrasegen.py labels it)
        args = self._hf_args(expected, method)
        flat = ", ".join(f'"{a}"' for arg in args for a in arg.split(" "))
        text = (f"{self._prose(lang, method, expected)}\n```yaml\napiVersion: kubeflow.org/v1\nkind: PyTorchJob\nspec:\n"
                f"  pytorchReplicaSpecs:\n    Master:\n      template:\n        spec:\n          nodeSelector:\n"
                f"            nvidia.com/gpu.product: {K8S_PRODUCT[gpu]}\n          containers:\n          - name: sft\n"
                f"            command: [\"trl\", \"sft\", \"--model_name_or_path\", \"{m.hub_id}\", {flat}]\n"
                f"            resources:\n              limits:\n                nvidia.com/gpu: {n}\n```")
        return text, expected, "k8s"

    def _ray(self, lang):
        m, method, expected = self._catalog_model(), self.pick(("lora", "qlora", "full")), {}
        gpu = self.pick(RAY_TYPE)
        n = self.pick((2, 4, 8))
        seq, b = self.pick((1024, 2048, 4096)), self.pick((1, 2, 4))
        expected.update(model=m.id, gpu=gpu, num_gpus=n, seq_len=seq, micro_batch=b, method=method)
        lines = ["```python", f'model = AutoModelForCausalLM.from_pretrained("{m.hub_id}"'
                 + (", quantization_config=BitsAndBytesConfig(load_in_4bit=True))" if method == "qlora" else ")")]
        if method != "full":
            r = self.pick((8, 16, 32))
            lines.append(f"model = get_peft_model(model, LoraConfig(r={r}, task_type=\"CAUSAL_LM\"))")
            expected["lora_rank"] = r
        expected["stack"] = "hf"  # SFTConfig: TRL, on the HF Trainer (advisor/parse/rules.py, _trainer_config_stack)
        lines += [f"args = SFTConfig(max_length={seq}, per_device_train_batch_size={b})",
                  f'scaling = ScalingConfig(num_workers={n}, use_gpu=True, accelerator_type="{RAY_TYPE[gpu]}")',
                  "trainer = TorchTrainer(train_loop, scaling_config=scaling)", "```"]
        word = {"en": {"full": "full fine-tune", "lora": "LoRA", "qlora": "QLoRA"},
                "es": {"full": "ajuste completo", "lora": "LoRA", "qlora": "QLoRA"}}[lang][method]
        head = {"en": f"our Ray Train {word} script, how much per run?", "es": f"nuestro script de Ray Train ({word}), ¿cuánto por corrida?"}[lang]
        return head + "\n" + "\n".join(lines), expected, "ray"

    def _torchtune_cli(self, lang):
        mid = self.pick(TORCHTUNE)
        folder, size = TORCHTUNE[mid]
        method = self.pick(("lora", "qlora", "full"))
        distributed = self.rng.random() < 0.5
        n = self.pick((2, 4, 8)) if distributed else 1
        # "tune run <recipe>" names torchtune as plainly as the model (tests/phrasegen.py labels it so)
        expected: dict[str, Any] = {"model": mid, "method": method, "num_gpus": n, "stack": "torchtune"}
        if method == "qlora":
            distributed, n = False, 1
            expected["num_gpus"] = 1
        recipe = {"full": "full_finetune", "lora": "lora_finetune", "qlora": "lora_finetune"}[method]
        recipe += "_distributed" if distributed else "_single_device"
        config = f"{folder}/{size}_{method}" + ("" if distributed else "_single_device")
        b, seq = self.pick((1, 2, 4, 8)), self.pick((1024, 2048, 4096, 8192))
        overrides = [f"batch_size={b}", f"tokenizer.max_seq_len={seq}"]
        expected.update(micro_batch=b, seq_len=seq)
        if method != "full" and self.rng.random() < 0.6:
            r = self.pick((8, 16, 32))
            overrides.append(f"model.lora_rank={r}")
            expected["lora_rank"] = r
        if self.rng.random() < 0.4:
            overrides.append("dtype=bf16")
            expected["precision"] = "bf16"
        self.rng.shuffle(overrides)
        launch = f"tune run --nproc_per_node {n} " if distributed else "tune run "
        return launch + f"{recipe} --config {config} " + " ".join(overrides), expected, "torchtune_cli"

    def _torch_run(self, lang):
        m, method, expected = self._catalog_model(), self.pick(("lora", "qlora", "full")), {}
        n = self.pick((2, 4, 8))
        expected.update(model=m.id, num_gpus=n)
        args = self._hf_args(expected, method)
        head = self._prose(lang, method, expected)
        line = f"python -m torch.distributed.run --nproc_per_node={n} sft.py --model_name_or_path {m.hub_id} " + " ".join(args)
        return f"{head} `{line}`", expected, "torch_distributed_run"

    def _ds_include(self, lang):
        m, method, expected = self._catalog_model(), self.pick(("lora", "qlora", "full")), {}
        n = self.pick((2, 3, 4, 8))
        expected.update(model=m.id, num_gpus=n)
        args = self._hf_args(expected, method)
        devices = ",".join(str(i) for i in range(n))
        head = self._prose(lang, method, expected)
        line = f"deepspeed --include localhost:{devices} train.py --model_name_or_path {m.hub_id} " + " ".join(args)
        return f"{head}\n```\n{line}\n```", expected, "deepspeed_include"

    def _wandb_json(self, lang):
        m, method, expected = self._catalog_model(), self.pick(("lora", "qlora", "full")), {}
        seq, b, e = self.pick((1024, 2048, 4096)), self.pick((1, 2, 4, 8)), self.pick((1, 2, 3))
        expected.update(model=m.id, seq_len=seq, micro_batch=b, epochs=float(e))
        fields = [f'"_name_or_path": "{m.hub_id}"', f'"max_length": {seq}', f'"per_device_train_batch_size": {b}',
                  f'"num_train_epochs": {e}', '"learning_rate": 0.0002', '"warmup_steps": 50']
        if method != "full":
            r = self.pick((8, 16, 64))
            fields.append(f'"peft_config": {{"default": {{"r": {r}, "lora_alpha": {2 * r}, "peft_type": "LORA"}}}}')
            expected.update(lora_rank=r, lora_alpha=float(2 * r))
        if method == "qlora":
            fields.append('"quantization_config": {"load_in_4bit": true, "bnb_4bit_quant_type": "nf4"}')
            expected["quant"] = "nf4"
        self.rng.shuffle(fields)
        head = self._prose(lang, method, expected)
        where = {"en": "config from the W&B run:", "es": "config del run en W&B:"}[lang]
        return f"{head} {where}\n```json\n{{" + ", ".join(fields) + "}\n```", expected, "wandb_json"

    # --- noise and the entry --------------------------------------------------------------------------
    def _entry(self, text: str, lang: str, expected: dict, noise: list[str], kind: str,
               previous: dict | None = None) -> dict[str, Any]:
        rng = self.rng
        noise = list(noise)
        if rng.random() < 0.15:
            for word, typo in TYPO_WORDS.items():
                if re.search(rf"\b{word}\b", text):
                    text = re.sub(rf"\b{word}\b", typo, text, count=1)
                    noise.append("typo")
                    break
        if lang == "es" and rng.random() < 0.25:
            text = "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")
            text = unicodedata.normalize("NFC", text)
            noise.append("no_accents")
        if "\n" in text and rng.random() < 0.3:
            text = text.replace("\n", "\r\n")
            noise.append("crlf")
        if rng.random() < 0.12:
            text += self.pick(EMOJI)
            noise.append("emoji")
        entry = {"text": text, "lang": lang, "expected": {**expected}, "noise": noise, "split": SPLIT, "kind": kind}
        if previous is not None:
            entry["previous"] = previous
        return entry


def generate(n: int = N_DEFAULT, *, catalog: Catalog, seed: int = 9) -> list[dict[str, Any]]:
    """``n`` labelled messages, the same for the same seed (about half English, half Spanish)."""
    rng = random.Random(f"{seed}:gen9")
    gen = _Gen(rng, catalog)
    out = []
    for _ in range(n):
        lang = "en" if rng.random() < 0.5 else "es"
        roll = rng.random()
        if roll < 0.55:
            out.append(gen.estimate(lang))
        elif roll < 0.72:
            out.append(gen.config(lang))
        elif roll < 0.87:
            out.append(gen.followup(lang))
        elif roll < 0.92:
            out.append(gen.no_model(lang))
        elif roll < 0.97:
            out.append(gen.unreadable(lang))
        else:
            out.append(gen.conflict(lang))
    return out
