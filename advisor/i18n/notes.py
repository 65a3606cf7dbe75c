"""Notes, reasons, levers, planning windows and the answer table (advisor.recommend, advisor.report).

Amounts arrive already formatted (``advisor.format``): {cost} "$12.40", {mem} "45.2 GiB",
{time} "5.2 h". Every key is prefixed ``notes.`` so no other area can collide with it.
"""

MESSAGES = {
    # --- memory terms (MemoryBreakdown.terms keys) -----------------------------------------------
    "notes.term.weights": {"en": "model weights", "es": "pesos del modelo"},
    "notes.term.quant_constants": {"en": "quantization constants", "es": "constantes de cuantización"},
    "notes.term.adapters": {"en": "LoRA adapters", "es": "adaptadores LoRA"},
    "notes.term.master_weights": {"en": "fp32 master weights", "es": "copia maestra fp32 de los pesos"},
    "notes.term.gradients": {"en": "gradients", "es": "gradientes"},
    "notes.term.optimizer_states": {"en": "optimizer states", "es": "estados del optimizador"},
    "notes.term.activations": {"en": "activations", "es": "activaciones"},
    "notes.term.logits_loss": {"en": "logits and loss", "es": "logits y pérdida"},
    "notes.term.transient": {"en": "temporary buffers", "es": "búferes temporales"},
    "notes.term.other": {"en": "{name}", "es": "{name}"},
    # --- why a GPU does not fit -------------------------------------------------------------------
    "notes.reason.one_gpu": {
        "en": "needs {need} on one GPU, {usable} usable; largest part: {term} {term_size}",
        "es": "necesita {need} en una GPU y hay {usable} utilizables; la parte mayor: {term} {term_size}",
    },
    "notes.reason.stated": {
        "en": "needs {need} per GPU on the {asked} asked, {usable} usable ({term} {term_size}); it fits on {n}",
        "es": "necesita {need} por GPU en las {asked} pedidas y hay {usable} utilizables ({term} {term_size}); cabe en {n}",
    },
    "notes.reason.none": {
        "en": "needs {need} on one GPU, {usable} usable ({term} {term_size}); even {n} GPUs with FSDP need {need_n} each",
        "es": "necesita {need} en una GPU y hay {usable} utilizables ({term} {term_size}); incluso {n} GPUs con FSDP necesitan {need_n} cada una",
    },
    # --- levers -----------------------------------------------------------------------------------
    "notes.lever.gradient_checkpointing": {
        "en": "turn on gradient checkpointing (about 1/3 more compute)",
        "es": "activar gradient checkpointing (un tercio más de cómputo)",
    },
    "notes.lever.qlora": {
        "en": "QLoRA (4-bit base weights) instead of LoRA",
        "es": "QLoRA (pesos base en 4 bits) en lugar de LoRA",
    },
    "notes.lever.lora": {"en": "LoRA instead of a full fine-tune", "es": "LoRA en lugar de un ajuste fino completo"},
    "notes.lever.shorter_seq": {
        "en": "shorter sequences: {seq_len} tokens",
        "es": "secuencias más cortas: {seq_len} tokens",
    },
    "notes.lever.micro_batch": {
        "en": "micro-batch 1 with {factor}x gradient accumulation (same effective batch)",
        "es": "micro-lote 1 con {factor}x acumulación de gradientes (mismo lote efectivo)",
    },
    "notes.lever.optimizer_8bit": {
        "en": "8-bit AdamW (bitsandbytes) instead of AdamW",
        "es": "AdamW de 8 bits (bitsandbytes) en lugar de AdamW",
    },
    "notes.lever.flash_attention": {
        "en": "flash/SDPA attention instead of eager",
        "es": "atención flash/SDPA en lugar de eager",
    },
    "notes.lever.accumulation": {
        "en": "gradient accumulation {accumulation} at micro-batch {micro_batch} (same global batch)",
        "es": "acumulación de gradientes {accumulation} con micro-lote {micro_batch} (mismo lote global)",
    },
    "notes.lever.fused_ce": {
        "en": "fused linear cross-entropy (Liger kernel)",
        "es": "entropía cruzada lineal fusionada (kernel Liger)",
    },
    "notes.lever.fsdp": {"en": "FSDP over {n} GPUs", "es": "FSDP en {n} GPUs"},
    "notes.lever.combined": {
        "en": "all of these together: {levers}",
        "es": "todas juntas: {levers}",
    },
    # --- notes ------------------------------------------------------------------------------------
    "notes.recommend": {
        "en": "Recommended: {gpu} x{n}: {cost} to an accepted checkpoint, about {time} per run.",
        "es": "Recomendado: {gpu} x{n}: {cost} hasta un punto de control aceptado, unas {time} por ejecución.",
    },
    "notes.recommend_rate": {
        "en": "Recommended: {gpu} x{n}: {per_million} per million trained tokens ({rate}/h, {tps} tokens/s).",
        "es": "Recomendado: {gpu} x{n}: {per_million} por millón de tokens entrenados ({rate}/h, {tps} tokens/s).",
    },
    "notes.itemized": {
        "en": "Cost on {gpu}: training {training} + start-up and saves {overhead} + failed runs ({failed_pct}) {failures} + evaluation {evaluation} + pilot {pilot} + storage {storage} ({storage_gb} GB for {months} month) = {total}.",
        "es": "Coste en {gpu}: entrenamiento {training} + arranque y guardados {overhead} + ejecuciones fallidas ({failed_pct}) {failures} + evaluación {evaluation} + piloto {pilot} + almacenamiento {storage} ({storage_gb} GB por {months} mes) = {total}.",
    },
    "notes.tie": {
        "en": "{gpu} x{n} costs {pct} less ({cost}), within the accuracy of the throughput prior, but needs more nodes or time; {best} is the simpler choice. A pilot on both settles it.",
        "es": "{gpu} x{n} cuesta un {pct} menos ({cost}), dentro de la precisión de la estimación de rendimiento, pero necesita más nodos o tiempo; {best} es la opción más sencilla. Un piloto en ambas lo decide.",
    },
    "notes.faster": {
        "en": "{gpu} finishes {speedup}x sooner but costs {ratio}x more ({cost}).",
        "es": "{gpu} termina {speedup}x antes pero cuesta {ratio}x más ({cost}).",
    },
    "notes.hourly_trap": {
        "en": "{gpu} costs {hourly}x more per hour than {cheaper} but less to the same checkpoint ({cost} vs {cheaper_cost}): compare cost to the same result, not hourly price.",
        "es": "{gpu} cuesta {hourly}x más por hora que {cheaper} pero menos hasta el mismo punto de control ({cost} frente a {cheaper_cost}): compara el coste del mismo resultado, no el precio por hora.",
    },
    "notes.tight": {
        "en": "{gpu} fits with only {headroom} to spare: longer samples or a library update can tip it over; run the pilot first.",
        "es": "{gpu} cabe con solo {headroom} de margen: muestras más largas o una actualización de librerías pueden desbordarla; ejecuta el piloto primero.",
    },
    "notes.nothing_fits_stated": {
        "en": "No GPU we rent fits this run on {n} GPUs, as asked.",
        "es": "Ninguna GPU que alquilamos admite esta ejecución en {n} GPUs, tal como se pidió.",
    },
    "notes.nothing_fits": {
        "en": "No GPU we rent fits this run, even {n} of them with FSDP.",
        "es": "Ninguna GPU que alquilamos admite esta ejecución, ni siquiera {n} con FSDP.",
    },
    "notes.would_fit_gpu": {
        "en": "It would fit on {gpu} x{n} (not offered today).",
        "es": "Cabría en {gpu} x{n} (no se ofrece hoy).",
    },
    "notes.would_fit_lever": {
        "en": "On {gpu} it would fit with: {lever} ({mem} per GPU).",
        "es": "En {gpu} cabría con: {lever} ({mem} por GPU).",
    },
    "notes.asked_gpu_fits": {
        "en": "You asked about {gpu}: it fits on {n}, {cost} to an accepted checkpoint.",
        "es": "Preguntaste por {gpu}: cabe en {n}, {cost} hasta un punto de control aceptado.",
    },
    "notes.asked_gpu_no": {
        "en": "You asked about {gpu}: it does not fit ({reason}).",
        "es": "Preguntaste por {gpu}: no cabe ({reason}).",
    },
    "notes.calibrated": {
        "en": "Throughput on {gpu} calibrated from {pilots} pilots ({mfu} of peak measured).",
        "es": "Rendimiento en {gpu} calibrado con {pilots} pilotos ({mfu} del pico medido).",
    },
    "notes.prior": {
        "en": "Throughput is a prior from published measurements ({mfu} of peak on {gpu}); a pilot measures it.",
        "es": "El rendimiento es una estimación a partir de mediciones publicadas ({mfu} del pico en {gpu}); un piloto lo mide.",
    },
    "notes.no_dataset": {
        "en": "No dataset size given, so prices are per million trained tokens; say e.g. '50M tokens, 3 epochs' for a total.",
        "es": "No se indicó el tamaño del conjunto de datos, así que los precios son por millón de tokens entrenados; di p. ej. '50M tokens, 3 épocas' para un total.",
    },
    # --- plans a provider rents (issue #16) ---------------------------------------------------
    "notes.multi_node": {
        "en": "{gpu} x{n} runs as {nodes} nodes of {per_node} GPUs joined by {network} Gb/s per node; the step time counts the collectives over that network.",
        "es": "{gpu} x{n} se ejecuta en {nodes} nodos de {per_node} GPUs unidos por {network} Gb/s por nodo; el tiempo por paso cuenta las operaciones colectivas por esa red.",
    },
    "notes.global_batch": {
        "en": "{gpu} x{n} trains a global batch of {batch} sequences per step, not the {asked} {how}: each of "
              "{n} GPUs takes at least one; a global batch (micro-batch x accumulation x GPUs) divisible by {n} "
              "keeps the job on it.",
        "es": "{gpu} x{n} entrena un lote global de {batch} secuencias por paso, no las {asked} {how}: cada una de "
              "las {n} GPUs toma al menos una; un lote global (micro-lote x acumulación x GPUs) divisible por {n} "
              "mantiene el trabajo en ellas.",
    },
    "notes.global_batch.asked": {"en": "asked", "es": "pedidas"},
    "notes.global_batch.assumed": {"en": "assumed", "es": "supuestas"},
    "notes.rounded_count": {
        "en": "{asked} GPUs are not rented as one machine: {gpu} comes as {n}, so the plan uses {n}.",
        "es": "{asked} GPUs no se alquilan como una máquina: {gpu} se ofrece de {n} en {n}, así que el plan usa {n}.",
    },
    "notes.over_ceiling": {
        "en": "{gpu} would need {n} GPUs, past the {ceiling}-GPU ceiling (raise it with --max-gpus or ADVISOR_MAX_GPUS).",
        "es": "{gpu} necesitaría {n} GPUs, más que el tope de {ceiling} (súbelo con --max-gpus o ADVISOR_MAX_GPUS).",
    },
    # --- the levers section, titled by what it does ------------------------------------------------
    "notes.table.fits_one_with": {"en": "Fits on one {gpu} with:", "es": "Cabe en una {gpu} con:"},
    "notes.table.job_changes": {
        "en": "Changes that would make it fit (they change the job):",
        "es": "Cambios que la harían caber (cambian el trabajo):",
    },
    "notes.table.lever_item": {"en": "  {lever} ({mem}, {money})", "es": "  {lever} ({mem}, {money})"},
    "notes.table.change_item": {"en": "  {gpu}: {lever} ({mem}, {money})", "es": "  {gpu}: {lever} ({mem}, {money})"},
    "notes.table.no_lever": {"en": "  {gpu}: {reason}", "es": "  {gpu}: {reason}"},
    "notes.table.cannot_fit": {"en": "Does not fit on one card:", "es": "No cabe en una tarjeta:"},
    # --- planning windows -------------------------------------------------------------------------
    "notes.windows": {
        "en": "Planning windows on {gpu}: {windows}.",
        "es": "Ventanas de planificación en {gpu}: {windows}.",
    },
    "notes.windows_fit": {
        "en": "Planning windows on {gpu}: {windows}; this job (~{gpu_hours} GPU-hours) fits the {hours} h window.",
        "es": "Ventanas de planificación en {gpu}: {windows}; este trabajo (~{gpu_hours} GPU-horas) cabe en la ventana de {hours} h.",
    },
    "notes.windows_over": {
        "en": "Planning windows on {gpu}: {windows}; this job (~{gpu_hours} GPU-hours) is beyond the {hours} h window.",
        "es": "Ventanas de planificación en {gpu}: {windows}; este trabajo (~{gpu_hours} GPU-horas) supera la ventana de {hours} h.",
    },
    "notes.window": {"en": "{hours} h {price}", "es": "{hours} h {price}"},
    "notes.unit.min": {"en": "{n} min", "es": "{n} min"},
    "notes.unit.h": {"en": "{n} h", "es": "{n} h"},
    "notes.unit.days": {"en": "{n} days", "es": "{n} días"},
    # --- the answer table (advisor.report) --------------------------------------------------------
    "notes.table.title": {
        "en": "{method} {model} · seq {seq_len} · micro-batch {micro_batch} · {data}",
        "es": "{method} {model} · secuencia {seq_len} · micro-lote {micro_batch} · {data}",
    },
    "notes.table.data": {"en": "{tokens} tokens x {epochs} epochs", "es": "{tokens} tokens x {epochs} épocas"},
    "notes.table.no_data": {"en": "dataset size not given", "es": "tamaño del conjunto de datos no indicado"},
    "notes.table.memory": {
        "en": "Memory as asked ({n} GPU): {device} on the device ({allocated} allocated); largest: {term} {term_size}",
        "es": "Memoria tal como se pidió ({n} GPU): {device} en el dispositivo ({allocated} asignados); la mayor: {term} {term_size}",
    },
    "notes.table.header": {
        "en": "GPU|fits|GPUs|mem/GPU|tokens/s|time|cost",
        "es": "GPU|cabe|GPUs|mem/GPU|tokens/s|tiempo|coste",
    },
    "notes.table.header_rate": {
        "en": "GPU|fits|GPUs|mem/GPU|tokens/s|$/h|$/M tokens",
        "es": "GPU|cabe|GPUs|mem/GPU|tokens/s|US$/h|US$/M tokens",
    },
    "notes.table.not_offered": {"en": "Not offered (for comparison):", "es": "No ofrecidas (para comparar):"},
    "notes.table.recommended": {"en": "<- recommended", "es": "<- recomendada"},
    "notes.table.levers": {"en": "  {gpu}: {levers}", "es": "  {gpu}: {levers}"},
    "notes.table.levers_title": {"en": "To fit on one GPU:", "es": "Para caber en una GPU:"},
    "notes.table.notes": {"en": "Notes:", "es": "Notas:"},
    "notes.table.assumed": {"en": "Assumed: {items}.", "es": "Supuesto: {items}."},
    "notes.table.no_fit": {"en": "no", "es": "no"},
    # --- field names for "Assumed: ..." -----------------------------------------------------------
    "notes.field.method": {"en": "method {value}", "es": "método {value}"},
    "notes.field.seq_len": {"en": "seq {value}", "es": "secuencia {value}"},
    "notes.field.micro_batch": {"en": "micro-batch {value}", "es": "micro-lote {value}"},
    "notes.field.gradient_checkpointing": {"en": "gradient checkpointing {value}", "es": "gradient checkpointing {value}"},
    "notes.field.lora_rank": {"en": "LoRA rank {value}", "es": "rango LoRA {value}"},
    "notes.field.lora_targets": {"en": "LoRA on {value}", "es": "LoRA en {value}"},
    "notes.field.optimizer": {"en": "optimizer {value}", "es": "optimizador {value}"},
    "notes.field.precision": {"en": "precision {value}", "es": "precisión {value}"},
    "notes.field.epochs": {"en": "{value} epochs", "es": "{value} épocas"},
    "notes.field.lora_dropout": {"en": "LoRA dropout {value}", "es": "dropout LoRA {value}"},
    "notes.field.gradient_accumulation_steps": {"en": "gradient accumulation {value}",
                                                "es": "acumulación de gradientes {value}"},
    "notes.field.optimizer_in_backward": {"en": "optimizer step in backward {value}",
                                          "es": "paso del optimizador en el backward {value}"},
    "notes.field.other": {"en": "{name} {value}", "es": "{name} {value}"},
    # --- stack behaviours decided at run time (advisor.stacks.unread_behaviours) ---------------
    "notes.stack.unsloth_loss_chunks": {
        "en": "Unsloth sizes its loss chunks from the GPU memory free at run time (at most 4 GiB of fp32 logits per chunk); counted at that cap.",
        "es": "Unsloth elige el tamaño de los trozos de la pérdida según la memoria libre de la GPU al ejecutar (como mucho 4 GiB de logits fp32 por trozo); se cuenta ese tope.",
    },
    "notes.stack.zero_buckets": {
        "en": "DeepSpeed ZeRO buffers follow HF's 'auto' config (reduce bucket of hidden² values, next layer prefetched); other bucket sizes move the peak.",
        "es": "Los búferes de DeepSpeed ZeRO siguen la configuración 'auto' de HF (bucket de reducción de hidden² valores, la capa siguiente precargada); otros tamaños mueven el pico.",
    },
    "notes.stack.liger_trl": {
        "en": "Liger's fused linear cross-entropy counted as transformers' Trainer applies it; TRL's SFTTrainer turns it off and uses its own fused LM head.",
        "es": "La entropía cruzada lineal fusionada de Liger se cuenta como la aplica el Trainer de transformers; el SFTTrainer de TRL la desactiva y usa su propia cabeza fusionada.",
    },
}
