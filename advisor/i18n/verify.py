""""Verify exactly" while it runs: the placeholder edited with the trace's phase
(bot/verify.py PHASES, bot/render/verify.py render_progress)."""

MESSAGES = {
    "bot.verify.progress": {"en": "Tracing one real training step of {model} under fake tensors (no GPU needed): {phase} ({n} of {total})…",
                            "es": "Trazando un paso real de entrenamiento de {model} con tensores falsos (sin GPU): {phase} ({n} de {total})…"},
    "bot.verify.phase.resolve": {"en": "reading the model", "es": "leyendo el modelo"},
    "bot.verify.phase.build": {"en": "building the model and its optimizer state", "es": "construyendo el modelo y el estado del optimizador"},
    "bot.verify.phase.batch": {"en": "making the batch", "es": "preparando el lote"},
    "bot.verify.phase.forward": {"en": "tracing the forward pass", "es": "trazando el forward"},
    "bot.verify.phase.backward": {"en": "tracing the backward pass", "es": "trazando el backward"},
    "bot.verify.phase.optimizer": {"en": "tracing the optimizer step", "es": "trazando el paso del optimizador"},
    "bot.verify.phase.estimate": {"en": "computing the estimate beside it", "es": "calculando la estimación a su lado"},
    "bot.verify.phase.allocator": {"en": "replaying the caching allocator", "es": "reproduciendo el asignador con caché"},
}
