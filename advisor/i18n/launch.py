"""The "Launch config" button and the launch config it posts in the thread (bot/render/launch.py)."""

MESSAGES = {
    "bot.button.launch": {"en": "Launch config", "es": "Config. de lanzamiento"},
    "bot.launch.title": {"en": "Launch config ({tool}) for {model}, {method}, {n} × {gpu}",
                         "es": "Configuración de lanzamiento ({tool}) para {model}, {method}, {n} × {gpu}"},
    "bot.launch.run": {"en": "Save it as {filename} and run: {command}", "es": "Guárdala como {filename} y ejecuta: {command}"},
    "bot.launch.in_file": {"en": "The config is longer than a Slack message holds, so it is the file {filename} above.",
                           "es": "La configuración no cabe en un mensaje de Slack, así que va en el archivo {filename} de arriba."},
    "bot.launch.other": {"en": "The same plan as:", "es": "El mismo plan como:"},
    "bot.launch.unexpressed": {"en": "Not expressed in this {tool} config (set or check by hand): {items}",
                               "es": "No expresado en esta configuración de {tool} (ajústalo o revísalo a mano): {items}"},
    "bot.launch.failed": {"en": "No launch config for this answer: {message}",
                          "es": "No hay configuración de lanzamiento para esta respuesta: {message}"},
}
