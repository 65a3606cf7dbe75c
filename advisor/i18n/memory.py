"""Words of the memory breakdown table (advisor.memory_report)."""

MESSAGES = {
    "memory.col.part": {"en": "Part", "es": "Parte"},
    "memory.col.size": {"en": "Size", "es": "Tamaño"},
    "memory.col.share": {"en": "Share", "es": "Porción"},
    "memory.allocated": {"en": "Peak allocated (torch)", "es": "Pico asignado (torch)"},
    "memory.reserved": {"en": "Peak reserved (allocator)", "es": "Pico reservado (asignador)"},
    "memory.device": {"en": "On the device (nvidia-smi)", "es": "En el dispositivo (nvidia-smi)"},
    "memory.phase": {
        "en": "Peak during {phase}, per GPU ({num_gpus} GPU(s)); largest part: {largest}.",
        "es": "Pico durante {phase}, por GPU ({num_gpus} GPU(s)); la parte mayor: {largest}.",
    },
    "memory.phase.forward": {"en": "the forward pass", "es": "la pasada hacia delante"},
    "memory.phase.backward": {"en": "the backward pass", "es": "la pasada hacia atrás"},
    "memory.phase.optimizer": {"en": "the optimizer step", "es": "el paso del optimizador"},
}
