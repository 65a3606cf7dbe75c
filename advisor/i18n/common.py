"""Words shared by every answer: units, yes/no, method names."""

MESSAGES = {
    "method.full": {"en": "full fine-tune", "es": "ajuste fino completo"},
    "method.lora": {"en": "LoRA", "es": "LoRA"},
    "method.qlora": {"en": "QLoRA", "es": "QLoRA"},
    "word.yes": {"en": "yes", "es": "sí"},
    "word.no": {"en": "no", "es": "no"},
    "word.on": {"en": "on", "es": "activado"},
    "word.off": {"en": "off", "es": "desactivado"},
}
