"""The "Show chart" PNG (bot.chart): titles, axes, legends and short lever names."""

MESSAGES = {
    "chart.title": {
        "en": "{model}: cost and time to an accepted checkpoint",
        "es": "{model}: coste y tiempo hasta un punto de control aceptado",
    },
    "chart.title_per_million": {
        "en": "{model}: cost and time per million trained tokens",
        "es": "{model}: coste y tiempo por millón de tokens entrenados",
    },
    "chart.dataset": {"en": "{tokens} tokens", "es": "{tokens} tokens"},
    "chart.hint": {
        "en": "offered GPUs · lower left is cheaper and sooner",
        "es": "GPUs ofrecidas · abajo a la izquierda, más barato y antes",
    },
    "chart.no_dataset": {
        "en": "no dataset size given: per million trained tokens (training steps only)",
        "es": "sin tamaño del conjunto de datos: por millón de tokens entrenados (solo pasos de entrenamiento)",
    },
    "chart.x.run": {
        "en": "Wall-clock time to an accepted checkpoint",
        "es": "Tiempo real hasta un punto de control aceptado",
    },
    "chart.x.per_million": {
        "en": "Wall-clock time per million trained tokens",
        "es": "Tiempo real por millón de tokens entrenados",
    },
    "chart.y.run": {
        "en": "Cost to an accepted checkpoint",
        "es": "Coste hasta un punto de control aceptado",
    },
    "chart.y.per_million": {
        "en": "Cost per million trained tokens",
        "es": "Coste por millón de tokens entrenados",
    },
    "chart.log": {"en": "{axis} (log scale)", "es": "{axis} (escala logarítmica)"},
    "chart.point": {"en": "{n}× {gpu}", "es": "{n}× {gpu}"},
    "chart.point_nodes": {"en": "{point} ({nodes} nodes × {per_node})", "es": "{point} ({nodes} nodos × {per_node})"},
    "chart.recommended": {"en": "recommended", "es": "recomendada"},
    "chart.legend.plan": {"en": "plan that fits", "es": "plan que cabe"},
    "chart.legend.recommended": {"en": "recommended plan", "es": "plan recomendado"},
    "chart.legend.lever": {"en": "with a lever (arrow from its plan)", "es": "con una palanca (flecha desde su plan)"},
    "chart.lever_point": {"en": "{lever} · {n}× GPU", "es": "{lever} · {n}× GPU"},
    "chart.not_fitting": {
        "en": "Not drawn (does not fit at any GPU count): {gpus}",
        "es": "Sin punto (no cabe con ningún número de GPUs): {gpus}",
    },
    "chart.nothing_fits": {
        "en": "No offered GPU fits this job at any count: see the levers in the answer.",
        "es": "Ninguna GPU ofrecida cabe con ningún número de GPUs: mira las palancas en la respuesta.",
    },
    "chart.memory_title": {
        "en": "Memory per GPU by part, offered GPUs (black tick: usable memory)",
        "es": "Memoria por GPU por partes, GPUs ofrecidas (marca negra: memoria utilizable)",
    },
    "chart.needs": {"en": "{size} needed", "es": "necesita {size}"},
    "chart.comment": {
        "en": "Cost against time to an accepted checkpoint for each offered GPU and count, levers as "
              "arrows; memory per GPU below ({model}).",
        "es": "Coste frente a tiempo hasta un punto de control aceptado por GPU ofrecida y número de GPUs, "
              "palancas como flechas; memoria por GPU debajo ({model}).",
    },
    "chart.file_title": {"en": "Cost, time and memory: {model}", "es": "Coste, tiempo y memoria: {model}"},
    # short lever names (the answer's own sentences are advisor.i18n.notes' notes.lever.*)
    "chart.lever.micro_batch": {"en": "micro-batch 1, accumulation ×{factor}",
                                "es": "micro-lote 1, acumulación ×{factor}"},
    "chart.lever.accumulation": {"en": "micro-batch {micro_batch}, accumulation ×{accumulation}",
                                 "es": "micro-lote {micro_batch}, acumulación ×{accumulation}"},
    "chart.lever.optimizer_8bit": {"en": "8-bit AdamW", "es": "AdamW de 8 bits"},
    "chart.lever.gradient_checkpointing": {"en": "gradient checkpointing", "es": "gradient checkpointing"},
    "chart.lever.flash_attention": {"en": "flash attention", "es": "atención flash"},
    "chart.lever.qlora": {"en": "QLoRA", "es": "QLoRA"},
    "chart.lever.lora": {"en": "LoRA", "es": "LoRA"},
    "chart.lever.expandable_segments": {"en": "expandable segments", "es": "segmentos expandibles"},
    "chart.lever.shorter_seq": {"en": "seq {seq_len}", "es": "secuencia {seq_len}"},
    "chart.lever.fused_ce": {"en": "Liger CE", "es": "CE de Liger"},  # the fused cross-entropy lever (advisor.recommend)
    "chart.lever.fsdp": {"en": "FSDP", "es": "FSDP"},
    "chart.lever.with_fsdp": {"en": "{lever} + FSDP", "es": "{lever} + FSDP"},
}
