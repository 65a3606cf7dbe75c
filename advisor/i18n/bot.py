"""The Slack bot's words: labels, help, buttons, apologies (English and Spanish)."""

MESSAGES = {
    # --- the answer ------------------------------------------------------------------------------
    "bot.answer.title": {"en": "{method} · {model} · seq {seq}", "es": "{method} · {model} · secuencia {seq}"},
    "bot.answer.unnamed_model": {"en": "your model", "es": "tu modelo"},
    "bot.answer.asked_by": {"en": "{user} asked: {question}", "es": "{user} preguntó: {question}"},
    "bot.answer.changed": {"en": "Changed: {changes}", "es": "Cambios: {changes}"},
    "bot.answer.understood": {"en": "*Understood:* {spec}", "es": "*Entendido:* {spec}"},
    "bot.answer.assumed_hint": {"en": "(say otherwise in this thread to change it)",
                                "es": "(dilo en este hilo para cambiarlo)"},
    "bot.answer.assumed": {
        "en": "Assumed (say otherwise in this thread to change it): {assumed}",
        "es": "Supuesto (dilo en este hilo para cambiarlo): {assumed}",
    },
    "bot.answer.recommended": {
        "en": ":white_check_mark: *Recommended: {n} × {gpu}* — {used} of {capacity} per GPU, "
              "{tokens} tokens/s, {time}, *{cost}* to an accepted checkpoint",
        "es": ":white_check_mark: *Recomendado: {n} × {gpu}* — {used} de {capacity} por GPU, "
              "{tokens} tokens/s, {time}, *{cost}* hasta un punto de control aceptado",
    },
    "bot.answer.recommended_rate": {
        "en": ":white_check_mark: *Recommended: {n} × {gpu}* — {used} of {capacity} per GPU, {tokens} tokens/s, "
              "*{per_million}* per million trained tokens (tell me the dataset size for hours and total cost)",
        "es": ":white_check_mark: *Recomendado: {n} × {gpu}* — {used} de {capacity} por GPU, {tokens} tokens/s, "
              "*{per_million}* por millón de tokens entrenados (dime el tamaño del conjunto de datos para horas y coste total)",
    },
    "bot.answer.nothing_fits": {
        "en": ":x: *No GPU we rent fits this job as asked.* The levers below make it fit.",
        "es": ":x: *Ninguna GPU que alquilamos cabe con esta configuración.* Las palancas de abajo la hacen caber.",
    },
    "bot.answer.table_title": {
        "en": "*Every GPU* (memory per GPU against capacity; time and cost to an accepted checkpoint)",
        "es": "*Todas las GPUs* (memoria por GPU frente a capacidad; tiempo y coste hasta un punto de control aceptado)",
    },
    "bot.answer.not_offered_note": {
        "en": "* known GPU that we do not rent; shown for comparison.",
        "es": "* GPU conocida que no alquilamos; se muestra para comparar.",
    },
    "bot.answer.levers": {"en": "*To make it fit on {gpu}:*", "es": "*Para que quepa en {gpu}:*"},
    "bot.answer.breakdown": {
        "en": "*Memory on each {gpu} ({n} GPU):* allocated {allocated}, reserved {reserved}, "
              "device {device} of {capacity}",
        "es": "*Memoria en cada {gpu} ({n} GPU):* asignada {allocated}, reservada {reserved}, "
              "dispositivo {device} de {capacity}",
    },
    "bot.answer.breakdown_asked": {
        "en": "*Memory of the job as asked ({n} GPU):* allocated {allocated}, reserved {reserved}, device {device}",
        "es": "*Memoria del trabajo tal como se pidió ({n} GPU):* asignada {allocated}, reservada {reserved}, "
              "dispositivo {device}",
    },
    "bot.answer.windows_on": {
        "en": "Planning windows on {gpu} (this job ≈ {gpu_hours} GPU-hours): {windows}",
        "es": "Ventanas de planificación en {gpu} (este trabajo ≈ {gpu_hours} horas de GPU): {windows}",
    },
    "bot.answer.notes": {"en": "*Notes*", "es": "*Notas*"},
    "bot.answer.windows_on_rate": {
        "en": "Planning windows on {gpu} (give a dataset size to see which one the job fits): {windows}",
        "es": "Ventanas de planificación en {gpu} (indica el tamaño del conjunto de datos para ver en cuál cabe el trabajo): {windows}",
    },
    "bot.answer.windows": {"en": "Planning windows: {windows}", "es": "Ventanas de planificación: {windows}"},
    "bot.answer.window": {"en": "{time} {cost} {mark}", "es": "{time} {cost} {mark}"},
    "bot.answer.eager_attention": {"en": "eager attention", "es": "atención eager"},
    "bot.answer.gpus": {"en": "{n} GPUs ({sharding})", "es": "{n} GPU ({sharding})"},
    "bot.answer.overflow": {
        "en": "Some parts were left out to fit Slack's message limits; `advisor ask --json` shows everything.",
        "es": "Se omitieron partes por los límites de Slack; `advisor ask --json` lo muestra todo.",
    },
    "bot.table.gpu": {"en": "GPU", "es": "GPU"},
    "bot.table.fits": {"en": "fits", "es": "cabe"},
    "bot.table.memory": {"en": "memory per GPU", "es": "memoria por GPU"},
    "bot.table.tokens": {"en": "tok/s", "es": "tok/s"},
    "bot.table.time": {"en": "time", "es": "tiempo"},
    "bot.table.cost": {"en": "cost", "es": "coste"},
    "bot.term.weights": {"en": "Weights", "es": "Pesos"},
    "bot.term.quant_constants": {"en": "Quantization constants", "es": "Constantes de cuantización"},
    "bot.term.adapters": {"en": "LoRA adapters", "es": "Adaptadores LoRA"},
    "bot.term.master_weights": {"en": "fp32 master weights", "es": "Pesos maestros fp32"},
    "bot.term.gradients": {"en": "Gradients", "es": "Gradientes"},
    "bot.term.optimizer_states": {"en": "Optimizer states", "es": "Estados del optimizador"},
    "bot.term.activations": {"en": "Activations", "es": "Activaciones"},
    "bot.term.logits_loss": {"en": "Logits and loss", "es": "Logits y pérdida"},
    "bot.term.transient": {"en": "Transient buffers", "es": "Búferes temporales"},
    "bot.field.method": {"en": "method", "es": "método"},
    "bot.field.model": {"en": "model", "es": "modelo"},
    "bot.field.params_b": {"en": "size (B params)", "es": "tamaño (miles de millones)"},
    "bot.field.seq_len": {"en": "seq", "es": "secuencia"},
    "bot.field.micro_batch": {"en": "micro-batch", "es": "micro-lote"},
    "bot.field.gradient_checkpointing": {"en": "gradient checkpointing", "es": "gradient checkpointing"},
    "bot.field.lora_rank": {"en": "rank", "es": "rango"},
    "bot.field.lora_alpha": {"en": "LoRA alpha", "es": "alfa de LoRA"},
    "bot.field.lora_dropout": {"en": "LoRA dropout", "es": "dropout de LoRA"},
    "bot.field.lora_targets": {"en": "LoRA targets", "es": "capas LoRA"},
    "bot.field.quant": {"en": "quantization", "es": "cuantización"},
    "bot.field.double_quant": {"en": "double quant", "es": "doble cuantización"},
    "bot.field.optimizer": {"en": "optimizer", "es": "optimizador"},
    "bot.field.precision": {"en": "precision", "es": "precisión"},
    "bot.field.attention": {"en": "attention", "es": "atención"},
    "bot.field.num_gpus": {"en": "GPUs", "es": "GPU"},
    "bot.field.sharding": {"en": "sharding", "es": "particionado"},
    "bot.field.dataset_tokens": {"en": "dataset tokens", "es": "tokens del conjunto de datos"},
    "bot.field.epochs": {"en": "epochs", "es": "épocas"},
    "bot.field.gpu": {"en": "GPU", "es": "GPU"},
    "bot.field.region": {"en": "region", "es": "región"},
    "bot.field.stack": {"en": "stack", "es": "stack"},
    "bot.button.pilot": {"en": "Run pilot on {gpu}", "es": "Piloto en {gpu}"},
    "bot.button.verify": {"en": "Verify exactly", "es": "Verificar exacto"},
    "bot.button.chart": {"en": "Show chart", "es": "Ver gráfico"},
    # --- plain answers, help, catalog --------------------------------------------------------------
    "bot.empty_answer": {"en": "I have nothing to add.", "es": "No tengo nada que añadir."},
    "bot.try_example": {"en": "Try: `{example}`", "es": "Prueba: `{example}`"},
    "bot.help.title": {"en": "Fine-tuning GPU advisor", "es": "Asesor de GPU para ajuste fino"},
    "bot.help.intro": {
        "en": "Tell me what you want to fine-tune with `{command} <text>` (or mention me). I answer with "
              "every GPU we rent: whether it fits, memory per GPU, tokens/s, hours and the cost to an "
              "accepted checkpoint, with a recommendation.",
        "es": "Dime qué quieres ajustar con `{command} <texto>` (o mencióname). Respondo con cada GPU que "
              "alquilamos: si cabe, memoria por GPU, tokens/s, horas y el coste hasta un punto de control "
              "aceptado, con una recomendación.",
    },
    "bot.help.examples": {"en": "*Examples*", "es": "*Ejemplos*"},
    "bot.help.example1": {"en": "qlora llama-3-70b seq 8192", "es": "qlora llama-3-70b secuencia 8192"},
    "bot.help.example2": {"en": "lora mistral 7b, 50M tokens, 3 epochs",
                          "es": "lora de mistral 7b con 50M tokens y 3 épocas"},
    "bot.help.example3": {"en": "full fine-tune llama-3.1-8b seq 4096 batch 4 on 8x H100",
                          "es": "ajuste completo de llama-3.1-8b, secuencia 4096, lote 4, en 8 H100"},
    "bot.help.example4": {"en": "can I QLoRA a 13B model on an RTX 4090?",
                          "es": "¿puedo hacer QLoRA de un modelo de 13B en una RTX 4090?"},
    "bot.help.example5": {"en": "catalog", "es": "catálogo"},
    "bot.help.example6": {"en": "pilot qlora llama-3-8b seq 4096",
                          "es": "piloto qlora llama-3-8b secuencia 4096"},
    "bot.help.threads": {
        "en": "*In the answer's thread* ask follow-ups as changes: \"what about 16k?\", \"with 4 GPUs?\", "
              "\"rank 64\", \"start over\". I keep the thread's spec, also across restarts.",
        "es": "*En el hilo de la respuesta* pregunta cambios: \"¿y con 16k?\", \"¿con 4 GPU?\", \"rango 64\", "
              "\"empezar de nuevo\". Guardo la especificación del hilo, también tras reinicios.",
    },
    "bot.help.subcommands": {
        "en": "`{command} help` this help · `{command} catalog` GPUs, prices, regions · "
              "`{command} pilot <text>` a measured pilot run · `{command} spend` what pilots cost, per person and day",
        "es": "`{command} ayuda` esta ayuda · `{command} catálogo` GPU, precios, regiones · "
              "`{command} piloto <texto>` una prueba piloto medida · `{command} gasto` lo que costaron los pilotos, "
              "por persona y día",
    },
    "bot.help.languages": {"en": "I answer in English or Spanish, in the language you write in.",
                           "es": "Respondo en inglés o en español, en el idioma en que escribas."},
    "bot.catalog.title": {"en": "GPUs we rent", "es": "GPU que alquilamos"},
    "bot.catalog.memory": {"en": "usable", "es": "utilizable"},
    "bot.catalog.tflops": {"en": "bf16 TFLOPS", "es": "TFLOPS bf16"},
    "bot.catalog.price": {"en": "$/h", "es": "$/h"},
    "bot.catalog.regions": {"en": "regions", "es": "regiones"},
    "bot.catalog.regions_line": {"en": "Regions: {regions}", "es": "Regiones: {regions}"},
    "bot.catalog.known": {"en": "Also known, not rented (for comparisons): {gpus}",
                          "es": "También conocidas, no se alquilan (para comparar): {gpus}"},
    # --- verify exactly and the chart ------------------------------------------------------------
    "bot.verify.started": {
        "en": ":hourglass_flowing_sand: Tracing one real training step of {model} under fake tensors "
              "(no GPU needed; a few seconds to a minute)…",
        "es": ":hourglass_flowing_sand: Trazando un paso real de entrenamiento de {model} con tensores "
              "falsos (sin GPU; de unos segundos a un minuto)…",
    },
    "bot.verify.queued": {"en": "{ahead} trace(s) ahead of this one.", "es": "{ahead} traza(s) por delante de esta."},
    "bot.verify.title": {"en": "Exact trace vs estimate", "es": "Traza exacta frente a estimación"},
    "bot.verify.summary": {
        "en": "*{model}*: the exact trace peaks at *{traced}* allocated per GPU ({phase}); the estimate "
              "says *{estimated}* ({diff}).",
        "es": "*{model}*: la traza exacta alcanza *{traced}* asignados por GPU ({phase}); la estimación "
              "dice *{estimated}* ({diff}).",
    },
    "bot.verify.columns": {"en": "term|estimate|trace|diff", "es": "término|estimación|traza|dif."},
    "bot.verify.footer": {
        "en": "Traced in {seconds} s on the bot's CPU: one forward, backward and optimizer step of the "
              "exact architecture under torch FakeTensorMode. Real GPUs add the CUDA context and allocator "
              "slack (reserved, device) on top of allocated.",
        "es": "Trazado en {seconds} s en la CPU del bot: un paso de forward, backward y optimizador de "
              "la arquitectura exacta con FakeTensorMode de torch. En GPU real se suman el contexto CUDA y "
              "la holgura del asignador (reservada, dispositivo).",
    },
    "bot.verify.unavailable": {"en": ":warning: {reason}", "es": ":warning: {reason}"},
    "bot.chart.axis": {"en": "GiB per GPU", "es": "GiB por GPU"},
    "bot.chart.overhead": {"en": "Allocator slack + CUDA context", "es": "Holgura del asignador + contexto CUDA"},
    "bot.chart.device": {"en": "Device memory", "es": "Memoria del dispositivo"},
    "bot.chart.capacity": {"en": "usable memory", "es": "memoria utilizable"},
    "bot.action.already": {
        "en": "Already done for this answer: see the thread.",
        "es": "Ya está hecho para esta respuesta: mira el hilo.",
    },
    "bot.action.gone": {
        "en": "I no longer have the numbers of that answer. Ask again and use the buttons of the new answer.",
        "es": "Ya no tengo los números de esa respuesta. Pregunta de nuevo y usa los botones de la nueva.",
    },
    "bot.pilot.unavailable": {
        "en": "Pilots are not enabled on this deployment of the advisor yet; the estimate above is analytic.",
        "es": "Las pruebas piloto aún no están activadas en esta instalación; la estimación de arriba es analítica.",
    },
    # --- delivery problems ---------------------------------------------------------------------------
    "bot.error.apology": {
        "en": ":warning: Sorry, something went wrong on my side while answering. It has been logged; "
              "please try again in a moment.",
        "es": ":warning: Lo siento, algo falló por mi parte al responder. Ha quedado registrado; "
              "inténtalo de nuevo en un momento.",
    },
    "bot.busy": {
        "en": ":hourglass: I am answering many questions right now; please ask again in a minute.",
        "es": ":hourglass: Estoy respondiendo muchas preguntas ahora mismo; vuelve a preguntar en un minuto.",
    },
    "bot.unrecorded": {
        "en": ":floppy_disk: I could not record your request, so I will not answer it: my state database "
              "is not taking writes right now (full or read-only disk, or its server is down). An operator "
              "has been alerted through the health check; please ask again in a few minutes.",
        "es": ":floppy_disk: No he podido registrar tu petición, así que no la responderé: mi base de datos "
              "de estado no acepta escrituras ahora mismo (disco lleno o de solo lectura, o su servidor está "
              "caído). El chequeo de salud ya avisa a quien opera el bot; vuelve a preguntar en unos minutos.",
    },
    "bot.chart.failed": {
        "en": ":warning: I could not upload the chart ({reason}). Click *Show chart* again to retry.",
        "es": ":warning: No he podido subir el gráfico ({reason}). Pulsa *Ver gráfico* otra vez para reintentarlo.",
    },
    "bot.verify.busy": {
        "en": ":hourglass: {ahead} exact traces are already waiting, so this one did not start. Click "
              "*Verify exactly* again in a few minutes.",
        "es": ":hourglass: Ya hay {ahead} trazas exactas esperando, así que esta no ha empezado. Pulsa "
              "*Verificar exacto* otra vez en unos minutos.",
    },
    "bot.verify.failed": {
        "en": ":warning: The exact trace failed on my side (logged). Click *Verify exactly* again to retry.",
        "es": ":warning: La traza exacta ha fallado por mi parte (registrado). Pulsa *Verificar exacto* "
              "otra vez para reintentarlo.",
    },
    "bot.not_in_channel": {
        "en": "I am not a member of this channel, so I cannot start a thread here. Invite {bot} with "
              "`/invite` to get threaded answers and follow-ups.",
        "es": "No soy miembro de este canal, así que no puedo abrir un hilo aquí. Invita a {bot} con "
              "`/invite` para tener respuestas en hilo y seguimiento.",
    },
}
