"""Catalog administration from Slack (`/finetune catalog set-price ...`): usage, refusals, results."""

MESSAGES = {
    "admin.help": {
        "en": "*Catalog administration* (admins only; every attempt is audited):\n"
              "• `{command} catalog set-price GPU USD_PER_HOUR` e.g. `{command} catalog set-price h100 2.49`\n"
              "• `{command} catalog set-offered GPU yes|no [USD_PER_HOUR]` rent a GPU out, or stop\n"
              "• `{command} catalog set-storage-price REGION USD_PER_GB_MONTH`\n"
              "• `{command} catalog audit [N]` the last N changes and refusals",
        "es": "*Administración del catálogo* (solo administradores; cada intento queda registrado):\n"
              "• `{command} catalogo set-price GPU USD_POR_HORA` p. ej. `{command} catalogo set-price h100 2.49`\n"
              "• `{command} catalogo set-offered GPU sí|no [USD_POR_HORA]` alquilar una GPU, o dejar de hacerlo\n"
              "• `{command} catalogo set-storage-price REGIÓN USD_POR_GB_MES`\n"
              "• `{command} catalogo audit [N]` los últimos N cambios y rechazos",
    },
    "admin.usage": {
        "en": "Usage: `{command} catalog {usage}`",
        "es": "Uso: `{command} catalogo {usage}`",
    },
    "admin.unknown_verb": {
        "en": "I do not know the catalog command `{verb}`.",
        "es": "No conozco el comando de catálogo `{verb}`.",
    },
    "admin.no_admins": {
        "en": ":lock: Nobody may change the catalog from Slack yet. An operator sets "
              "`ADVISOR_CATALOG_ADMINS` to a comma-separated list of Slack user ids (e.g. `U012ABCDEF`) "
              "and restarts the bot. This attempt was recorded.",
        "es": ":lock: Todavía nadie puede cambiar el catálogo desde Slack. Un operador define "
              "`ADVISOR_CATALOG_ADMINS` con una lista de ids de usuario de Slack separados por comas "
              "(p. ej. `U012ABCDEF`) y reinicia el bot. Este intento quedó registrado.",
    },
    "admin.not_admin": {
        "en": ":lock: Only catalog admins may change the catalog; ask {who}. This attempt was recorded.",
        "es": ":lock: Solo los administradores del catálogo pueden cambiarlo; pídeselo a {who}. "
              "Este intento quedó registrado.",
    },
    "admin.bad_price": {
        "en": "`{value}` is not a price in US dollars; write it as a number, like `2.49`.",
        "es": "`{value}` no es un precio en dólares; escríbelo como un número, por ejemplo `2.49`.",
    },
    "admin.bad_yes_no": {
        "en": "Say `yes` to rent the GPU out or `no` to stop; got `{value}`.",
        "es": "Di `sí` para alquilar la GPU o `no` para dejar de hacerlo; recibí `{value}`.",
    },
    "admin.bad_limit": {
        "en": "`{value}` is not a number of rows; write it like `20` (at most {most}).",
        "es": "`{value}` no es un número de filas; escríbelo como `20` (como mucho {most}).",
    },
    "admin.not_changed": {
        "en": ":x: Not changed: {reason}",
        "es": ":x: No se cambió: {reason}",
    },
    "admin.read_only": {
        "en": "this bot answers from a built-in copy of the catalog, which cannot be edited; an operator "
              "sets `ADVISOR_CATALOG` to the catalog file (e.g. `catalog.db`) and restarts the bot.",
        "es": "este bot responde con una copia interna del catálogo, que no se puede editar; un operador "
              "define `ADVISOR_CATALOG` con el fichero del catálogo (p. ej. `catalog.db`) y reinicia el bot.",
    },
    "admin.price_set": {
        "en": ":white_check_mark: {gpu}: {old} → *{new}* per hour. Recorded in the catalog audit.",
        "es": ":white_check_mark: {gpu}: {old} → *{new}* por hora. Registrado en la auditoría del catálogo.",
    },
    "admin.offered_set": {
        "en": ":white_check_mark: {gpu} is now *offered* at {price} per hour in {regions}. Recorded in the catalog audit.",
        "es": ":white_check_mark: {gpu} ahora *se alquila* a {price} por hora en {regions}. "
              "Registrado en la auditoría del catálogo.",
    },
    "admin.withdrawn_set": {
        "en": ":white_check_mark: {gpu} is *no longer offered*; answers show it only for comparison. "
              "Recorded in the catalog audit.",
        "es": ":white_check_mark: {gpu} *ya no se alquila*; las respuestas solo la muestran para comparar. "
              "Registrado en la auditoría del catálogo.",
    },
    "admin.storage_set": {
        "en": ":white_check_mark: Storage in {region}: {old} → *{new}* per GB-month. Recorded in the catalog audit.",
        "es": ":white_check_mark: Almacenamiento en {region}: {old} → *{new}* por GB-mes. "
              "Registrado en la auditoría del catálogo.",
    },
    "admin.no_price": {
        "en": "{gpu} has no price yet; offer it with a price: `{command} catalog set-offered {gpu_id} yes 2.49`.",
        "es": "{gpu} aún no tiene precio; ofrécela con uno: `{command} catalogo set-offered {gpu_id} sí 2.49`.",
    },
    "admin.audit.title": {
        "en": "*Last {n} catalog changes and refusals*",
        "es": "*Últimos {n} cambios y rechazos del catálogo*",
    },
    "admin.audit.empty": {
        "en": "Nothing recorded yet.",
        "es": "Todavía no hay nada registrado.",
    },
    "admin.audit.row": {
        "en": "{at} · <@{actor}> · {action} {target} · {outcome}",
        "es": "{at} · <@{actor}> · {action} {target} · {outcome}",
    },
    "admin.outcome.ok": {"en": "done", "es": "hecho"},
    "admin.outcome.refused": {"en": "refused", "es": "rechazado"},
    "admin.outcome.invalid": {"en": "invalid", "es": "no válido"},
    "admin.outcome.failed": {"en": "failed", "es": "falló"},
}
