"""Words of the caching-allocator simulation (``advisor.allocator``) in `advisor trace`."""

MESSAGES = {
    "notes.lever.expandable_segments": {
        "en": "set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (less caching-allocator slack)",
        "es": "usar PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (menos holgura del asignador)",
    },
    "alloc.reserved": {
        "en": "Reserved by the caching allocator over {steps} micro-batches ({lengths}): {size} in "
              "{segments} segments; allocator slack {slack} over allocated ({allocated}); "
              "nvidia-smi about {device}",
        "es": "Reservado por el asignador con caché en {steps} micro-lotes ({lengths}): {size} en "
              "{segments} segmentos; holgura del asignador {slack} sobre lo asignado ({allocated}); "
              "nvidia-smi cerca de {device}",
    },
    "alloc.expandable": {
        "en": "With PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: {size} reserved (slack {slack})",
        "es": "Con PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: {size} reservados (holgura {slack})",
    },
    "bot.verify.reserved": {
        "en": "Reserved by PyTorch's caching allocator over the run (simulated): *{traced}* in {segments} "
              "segments; the estimate says {estimated}.",
        "es": "Reservado por el asignador con caché de PyTorch en la ejecución (simulado): *{traced}* en "
              "{segments} segmentos; la estimación dice {estimated}.",
    },
    "alloc.lengths.fixed": {
        "en": "every batch {seq_len} tokens",
        "es": "todos los lotes de {seq_len} tokens",
    },
    "alloc.lengths.variable": {
        "en": "batches padded to their longest sample, mean {mean}, longest {longest} tokens",
        "es": "lotes rellenados hasta su muestra más larga, media {mean}, la más larga {longest} tokens",
    },
    "alloc.oom": {
        "en": "The simulated run runs out of memory at micro-batch {step}: {message}",
        "es": "La ejecución simulada se queda sin memoria en el micro-lote {step}: {message}",
    },
}
