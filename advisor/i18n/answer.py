"""The chat answer around the ranking: catalog, FAQ answers, help, reset, problems."""

MESSAGES = {
    "answer.try": {"en": "Try for example: {example}", "es": "Prueba por ejemplo: {example}"},
    "answer.problem": {
        "en": "I could not compute that: {problem}",
        "es": "No pude calcularlo: {problem}",
    },
    "answer.clarify.default": {
        "en": "I did not understand what to estimate. Say the method, the model and the sequence length.",
        "es": "No entendí qué estimar. Indica el método, el modelo y la longitud de secuencia.",
    },
    "answer.hub_arch": {
        "en": "Model: {what}.",
        "es": "Modelo: {what}.",
    },
    "answer.inferred_arch": {
        "en": "No catalog model named: I assumed a Llama-style architecture of {params}B parameters.",
        "es": "No se nombró un modelo del catálogo: supuse una arquitectura tipo Llama de {params} mil millones de parámetros.",
    },
    "answer.model_by_size": {
        "en": "{params}B-parameter model",
        "es": "modelo de {params} mil millones de parámetros",
    },
    "answer.reset": {
        "en": "Started over. Ask a new question, e.g. \"qlora llama-3.1-8b seq 4096\".",
        "es": "Empezamos de nuevo. Haz una nueva pregunta, por ejemplo \"qlora llama-3.1-8b contexto de 4096\".",
    },
    "answer.help": {
        "en": ("I tell you which GPU to rent for fine-tuning an LLM: memory per part of the run, "
               "time, and the cost to an accepted checkpoint on every GPU we rent.\n"
               "Examples:\n"
               "- qlora llama-3-70b seq 8192\n"
               "- can we LoRA Mistral 7B at 4k with batch 4 on a 4090?\n"
               "- full fine-tune llama 3.2 1b, 50M tokens, 3 epochs\n"
               "- A100 or H100 for fine-tuning?\n"
               "Then, in the thread: \"what about 16k?\", \"with rank 64\", \"on H100s instead\", "
               "\"assume 30% failed runs\", \"start over\"."),
        "es": ("Te digo qué GPU alquilar para ajustar un LLM: la memoria de cada parte del "
               "entrenamiento, el tiempo y el coste hasta un punto de control aceptado en cada GPU que alquilamos.\n"
               "Ejemplos:\n"
               "- qlora llama-3-70b contexto de 8192\n"
               "- ¿podemos hacer LoRA de Mistral 7B con 4k y lote 4 en una 4090?\n"
               "- ajuste fino completo de llama 3.2 1b, 50M tokens, 3 épocas\n"
               "- ¿A100 o H100 para ajuste fino?\n"
               "Después, en el hilo: \"¿y con 16k?\", \"con rango 64\", \"mejor en H100\", "
               "\"con 30% de ejecuciones fallidas\", \"empezar de nuevo\"."),
    },
    "answer.catalog.title": {"en": "GPUs we rent:", "es": "GPUs que alquilamos:"},
    "answer.catalog.gpu": {
        "en": "- {name}: {memory} usable, {tflops} TFLOPS bf16, {price}/h, regions {regions}. Good for: {good_for}",
        "es": "- {name}: {memory} utilizables, {tflops} TFLOPS bf16, {price}/h, regiones {regions}. Ideal para: {good_for}",
    },
    "answer.catalog.regions": {"en": "Regions: {regions}.", "es": "Regiones: {regions}."},
    "answer.not_offered": {
        "en": "Note: we do not rent the {gpu} today; the figures are for comparison.",
        "es": "Nota: hoy no alquilamos la {gpu}; las cifras son para comparar.",
    },
    "answer.can_i.title": {
        "en": "On {n} x {gpu} ({usable} usable each; a run fits when it needs at most {limit}, {margin} kept free):",
        "es": "En {n} x {gpu} ({usable} utilizables cada una; una ejecución cabe si necesita como máximo {limit}, con un {margin} libre):",
    },
    "answer.can_i.up_to": {
        "en": "- {method}: up to {model} ({need} on the device)",
        "es": "- {method}: hasta {model} ({need} en el dispositivo)",
    },
    "answer.can_i.none": {
        "en": "- {method}: not even a 1B model fits",
        "es": "- {method}: no cabe ni un modelo de 1B",
    },
    "answer.can_i.model_fits": {
        "en": "- {method} of {model}: fits ({need})",
        "es": "- {method} de {model}: cabe ({need})",
    },
    "answer.can_i.model_no": {
        "en": "- {method} of {model}: does not fit (needs {need})",
        "es": "- {method} de {model}: no cabe (necesita {need})",
    },
    "answer.can_i.assuming": {
        "en": "Assuming {seq} tokens per sequence, micro-batch {batch}, gradient checkpointing on.",
        "es": "Suponiendo {seq} tokens por secuencia, micro-lote {batch} y gradient checkpointing activado.",
    },
    "answer.can_i.next": {
        "en": "Ask with your model and sequence length for time and cost, e.g. \"qlora llama-3.1-8b seq 4096 on the {gpu}\".",
        "es": "Pregunta con tu modelo y longitud de secuencia para ver tiempo y coste, p. ej. \"qlora llama-3.1-8b contexto de 4096 en la {gpu}\".",
    },
    "answer.choice.title": {
        "en": "Compared on the same job ({job}):",
        "es": "Comparadas con el mismo trabajo ({job}):",
    },
    "answer.choice.yours": {
        "en": "That is a typical first LoRA job; ask with your model, sequence length and dataset size to compare yours.",
        "es": "Es un primer trabajo LoRA típico; pregunta con tu modelo, longitud de secuencia y tamaño del conjunto de datos para comparar el tuyo.",
    },
    "answer.goal.speed": {"en": "Fastest we rent: {option}", "es": "La más rápida que alquilamos: {option}"},
    "answer.goal.cost": {"en": "Cheapest to an accepted checkpoint: {option}",
                         "es": "La más barata hasta un punto de control aceptado: {option}"},
    "answer.compare.title": {"en": "Side by side:", "es": "Lado a lado:"},
    "answer.compare.rule": {
        "en": "Compare the cost to the same accepted checkpoint, not the hourly price: a faster GPU can cost less per result.",
        "es": "Compara el coste hasta el mismo punto de control aceptado, no el precio por hora: una GPU más rápida puede costar menos por resultado.",
    },
    "answer.option.yes": {
        "en": "- {gpu}: {n} GPU(s), {memory} each, {tps} tokens/s, {hours}, {money}",
        "es": "- {gpu}: {n} GPU(s), {memory} cada una, {tps} tokens/s, {hours}, {money}",
    },
    "answer.option.no": {"en": "- {gpu}: does not fit ({reason})", "es": "- {gpu}: no cabe ({reason})"},
    "answer.per_million": {"en": "{price} per million tokens", "es": "{price} por millón de tokens"},
    "answer.persist.keep": {
        "en": ("Keep on persistent storage after the GPU stops: the accepted checkpoint (adapter or "
               "full weights), the tokenizer, the model and training configuration, the evaluation "
               "outputs, and the provenance (base model id and revision, data version, code version, "
               "adapter rank and precision)."),
        "es": ("Conserva en almacenamiento persistente cuando la GPU se detiene: el punto de control aceptado "
               "(adaptador o pesos completos), el tokenizador, la configuración del modelo y del "
               "entrenamiento, los resultados de evaluación y la procedencia (id y revisión del modelo "
               "base, versión de datos y de código, rango y precisión del adaptador)."),
    },
    "answer.persist.drop": {
        "en": "Temporary caches (downloaded hub files, compiled kernels, intermediate checkpoints you did not accept) can be recreated: do not pay to keep them, nor an idle GPU.",
        "es": "Las cachés temporales (archivos descargados del hub, kernels compilados, puntos de control intermedios no aceptados) se pueden recrear: no pagues por guardarlas, ni por una GPU inactiva.",
    },
    "answer.persist.size": {
        "en": "For {model}, a checkpoint is about {size}: {price} per month at {per_gb}/GB-month.",
        "es": "Para {model}, un punto de control ocupa unos {size}: {price} al mes a {per_gb}/GB-mes.",
    },
    # --- the verdict: the question asked, answered first (advisor.report.verdict_text) ---------
    "answer.verdict.yes": {"en": "Yes: {plan}, {money}.", "es": "Sí: {plan}, {money}."},
    "answer.verdict.yes_cheaper": {
        "en": "Yes: {plan}, {money}. Cheaper: {cheapest}, {cheapest_money}.",
        "es": "Sí: {plan}, {money}. Más barato: {cheapest}, {cheapest_money}.",
    },
    "answer.verdict.no_gpu": {
        "en": "No, not on {gpu} as asked ({why}); cheapest: {cheapest}, {cheapest_money}.",
        "es": "No, no en {gpu} tal como se pidió ({why}); lo más barato: {cheapest}, {cheapest_money}.",
    },
    "answer.verdict.no_one_card": {
        "en": "No single card fits; cheapest: {cheapest}, {cheapest_money}.",
        "es": "No cabe en una sola tarjeta; lo más barato: {cheapest}, {cheapest_money}.",
    },
    "answer.verdict.over_ceiling": {
        "en": "Nothing we rent fits within {ceiling} GPUs: it needs {n} (raise the ceiling with --max-gpus).",
        "es": "Nada de lo que alquilamos cabe en {ceiling} GPUs: necesita {n} (sube el tope con --max-gpus).",
    },
    "answer.verdict.none_fits": {
        "en": "Nothing we rent fits this job, at any count searched.",
        "es": "Nada de lo que alquilamos admite este trabajo, con ningún número de GPUs probado.",
    },
    "answer.verdict.why_past_ceiling": {
        "en": "it needs {n} GPUs, past the {ceiling}-GPU ceiling",
        "es": "necesita {n} GPUs, más que el tope de {ceiling}",
    },
    "answer.verdict.why_stated": {"en": "it needs {n} GPUs, {asked} asked", "es": "necesita {n} GPUs, se pidieron {asked}"},
    "answer.verdict.no_stated_one": {
        "en": "No single card fits (one GPU asked); it would take {cheapest}, {cheapest_money}.",
        "es": "No cabe en una sola tarjeta (se pidió una GPU); haría falta {cheapest}, {cheapest_money}.",
    },
    "answer.verdict.no_stated": {
        "en": "No, it does not fit on {n} GPUs as asked; it would take {cheapest}, {cheapest_money}.",
        "es": "No, no cabe en {n} GPUs tal como se pidió; haría falta {cheapest}, {cheapest_money}.",
    },
    "answer.verdict.no_gpu_stated": {
        "en": "No, not on {gpu} as asked ({why}); it would take {cheapest}, {cheapest_money}.",
        "es": "No, no en {gpu} tal como se pidió ({why}); haría falta {cheapest}, {cheapest_money}.",
    },
    "answer.verdict.why_no_fit": {"en": "it does not fit", "es": "no cabe"},
    "answer.verdict.plan": {"en": "{n} x {gpu}", "es": "{n} x {gpu}"},
    "answer.verdict.plan_nodes": {
        "en": "{n} x {gpu} ({nodes} nodes x {per_node})",
        "es": "{n} x {gpu} ({nodes} nodos x {per_node})",
    },
    "answer.verdict.with": {"en": "{plan} with {changes}", "es": "{plan} con {changes}"},
    "answer.verdict.global_batch": {
        "en": "{plan} (global batch {batch}, not {asked})",
        "es": "{plan} (lote global {batch}, no {asked})",
    },
    "answer.verdict.money": {
        "en": "about {time} and {cost} to an accepted checkpoint",
        "es": "unas {time} y {cost} hasta un punto de control aceptado",
    },
    "answer.verdict.money_rate": {
        "en": "{per_million} per million trained tokens ({rate}/h)",
        "es": "{per_million} por millón de tokens entrenados ({rate}/h)",
    },
    "answer.verdict.accumulation": {
        "en": "gradient accumulation {accumulation} (micro-batch {micro_batch})",
        "es": "acumulación de gradientes {accumulation} (micro-lote {micro_batch})",
    },
}
