"""Where an architecture read from a config.json came from (advisor.hub), in both languages."""

MESSAGES = {
    "hub.source.hub": {
        "en": "architecture of {name} ({model_type}) from config.json on the Hugging Face Hub, commit {commit}",
        "es": "arquitectura de {name} ({model_type}) leída del config.json en el Hugging Face Hub, commit {commit}",
    },
    "hub.source.state_db": {
        "en": "architecture of {name} ({model_type}) from config.json on the Hugging Face Hub, commit {commit}, read {age} ago",
        "es": "arquitectura de {name} ({model_type}) leída del config.json en el Hugging Face Hub, commit {commit}, hace {age}",
    },
    "hub.source.file": {
        "en": "architecture of {name} ({model_type}) from the config.json given",
        "es": "arquitectura de {name} ({model_type}) leída del config.json dado",
    },
    "hub.remote_code": {
        "en": "; its code needs trust_remote_code and was not run: read from its config fields",
        "es": "; su código necesita trust_remote_code y no se ejecutó: leída de los campos del config",
    },
    "hub.age.min": {"en": "{n} min", "es": "{n} min"},
    "hub.age.h": {"en": "{n} h", "es": "{n} h"},
    "hub.age.days": {"en": "{n} days", "es": "{n} días"},
}
