"""The App Home tab, the pilot spend report (`/finetune spend`, `advisor pilot spend`) and the
estimate re-run after a pilot, in English and Spanish. Figures arrive formatted; the wording of
each spend basis (advisor/pilot/spend.py ``BASES``) is here."""

MESSAGES = {
    # --- the Home tab ----------------------------------------------------------------------------
    "home.title": {"en": "Fine-tuning GPU advisor", "es": "Asesor de GPU para ajuste fino"},
    "home.intro": {
        "en": "Your plans, your pilots and what the pilots measured. Ask with `/finetune <job>` or by mentioning me; "
              "`/finetune spend` shows what your pilots cost.",
        "es": "Tus planes, tus pilotos y lo que midieron los pilotos. Pregunta con `/finetune <trabajo>` o "
              "mencionándome; `/finetune spend` muestra lo que costaron tus pilotos.",
    },
    "home.lang_note": {
        "en": "Shown in English, the language of your last question to me.",
        "es": "En español, el idioma de tu última pregunta.",
    },
    "home.lang_default": {
        "en": "Shown in English until you ask me something (I answer in the language you write in).",
        "es": "En inglés hasta que me preguntes algo (respondo en el idioma en que escribes).",
    },
    "home.plans.title": {"en": "Your recent plans", "es": "Tus planes recientes"},
    "home.plans.none": {"en": "No plans yet: ask `/finetune qlora llama-3-70b seq 8192`.",
                        "es": "Aún no hay planes: pregunta `/finetune qlora llama-3-70b secuencia 8192`."},
    "home.plan.row": {"en": "*{spec}* — {plan}\n{when} · {link}", "es": "*{spec}* — {plan}\n{when} · {link}"},
    "home.plan.cost": {"en": "{n} × {gpu}, {cost} to an accepted checkpoint, {time}",
                       "es": "{n} × {gpu}, {cost} hasta un punto de control aceptado, {time}"},
    "home.plan.rate": {"en": "{n} × {gpu}, {rate} per million trained tokens",
                       "es": "{n} × {gpu}, {rate} por millón de tokens entrenados"},
    "home.plan.nothing": {"en": "no GPU we rent fits as asked", "es": "ninguna GPU que alquilamos cabe así"},
    "home.plan.link": {"en": "<{url}|open the thread>", "es": "<{url}|abrir el hilo>"},
    "home.plan.channel": {"en": "in <#{channel}>", "es": "en <#{channel}>"},
    "home.plans.more": {"en": "Older plans not shown: {n}.", "es": "Planes más antiguos sin mostrar: {n}."},
    "home.pilots.title": {"en": "Your pilots running", "es": "Tus pilotos en curso"},
    "home.pilots.none": {"en": "No pilot of yours is running.", "es": "No tienes ningún piloto en curso."},
    "home.pilot.row": {"en": "`{id}` on {gpu}: {progress} · started {when} · {spent} so far (estimate {estimate})",
                       "es": "`{id}` en {gpu}: {progress} · empezó {when} · {spent} hasta ahora (estimado {estimate})"},
    "home.pilot.pending": {"en": "waiting for a node", "es": "esperando un nodo"},
    "home.pilot.starting": {"en": "building the model", "es": "construyendo el modelo"},
    "home.pilot.step": {"en": "step {step}/{total}", "es": "paso {step}/{total}"},
    "home.budget.title": {"en": "Today's pilot budget", "es": "Presupuesto de pilotos de hoy"},
    "home.budget.used": {
        "en": "{spent} of {budget} used today (UTC) by everyone's pilots, {left} left; one pilot may cost at most {cap}.",
        "es": "{spent} de {budget} usados hoy (UTC) por los pilotos de todos, quedan {left}; un piloto puede costar "
              "como mucho {cap}.",
    },
    "home.budget.off": {"en": "Pilots are not enabled here (ADVISOR_PILOT_USERS is not set).",
                        "es": "Los pilotos no están activados aquí (falta ADVISOR_PILOT_USERS)."},
    "home.calibration.title": {"en": "Measured MFU per GPU", "es": "MFU medido por GPU"},
    "home.calibration.none": {
        "en": "No pilot has run on a GPU we rent yet: every estimate uses the model's prior efficiency.",
        "es": "Ningún piloto ha corrido aún en una GPU que alquilamos: todas las estimaciones usan la eficiencia "
              "previa del modelo.",
    },
    "home.calibration.row": {
        "en": "*{gpu}* ({method}): {measured} measured (pilots: {n}), prior {prior} · throughput {ratio} the prior's",
        "es": "*{gpu}* ({method}): {measured} medido (pilotos: {n}), previo {prior} · rendimiento {ratio} el previo",
    },
    "home.calibration.note": {
        "en": "MFU here: executed FLOPs per second over the GPU's dense peak (recomputation included), the "
              "median of the latest pilots that ran on that GPU.",
        "es": "MFU aquí: FLOPs ejecutados por segundo sobre el pico denso de la GPU (recálculo incluido), la "
              "mediana de los últimos pilotos que corrieron en esa GPU.",
    },
    "home.truncated": {"en": "Some rows were left out to fit Slack's Home tab.",
                       "es": "Se omitieron algunas filas para caber en la pestaña Inicio de Slack."},
    # --- the spend report (Slack and CLI) --------------------------------------------------------
    "spend.title": {"en": "Pilot spend", "es": "Gasto en pilotos"},
    "spend.scope.user": {"en": "Pilots of {user}{since}", "es": "Pilotos de {user}{since}"},
    "spend.scope.all": {"en": "Everyone's pilots{since}", "es": "Pilotos de todos{since}"},
    "spend.since": {"en": " since {date}", "es": " desde {date}"},
    "spend.total": {"en": "Total: {total} (pilots: {n})", "es": "Total: {total} (pilotos: {n})"},
    "spend.unpriced": {"en": "Pilots on a GPU without a catalog price (cost not known): {n}.",
                       "es": "Pilotos en una GPU sin precio en el catálogo (coste desconocido): {n}."},
    "spend.none": {"en": "No confirmed pilots{since}.", "es": "No hay pilotos confirmados{since}."},
    "spend.by_day": {"en": "Per day (UTC)", "es": "Por día (UTC)"},
    "spend.by_user": {"en": "Per user", "es": "Por usuario"},
    "spend.day_row": {"en": "{day}: {cost}", "es": "{day}: {cost}"},
    "spend.user_row": {"en": "{user}: {cost}", "es": "{user}: {cost}"},
    "spend.pilots": {"en": "Pilots", "es": "Pilotos"},
    "spend.pilot_row": {"en": "{day} `{id}` {user} · {gpu} · {state} · {wall} · {cost} ({basis})",
                        "es": "{day} `{id}` {user} · {gpu} · {state} · {wall} · {cost} ({basis})"},
    "spend.cli.pilot_row": {"en": "{day}  {id:<14} {user:<12} {gpu:<18} {state:<9} {wall:>8}  {cost:>9}  {basis}",
                            "es": "{day}  {id:<14} {user:<12} {gpu:<18} {state:<9} {wall:>8}  {cost:>9}  {basis}"},
    "spend.basis.rented": {"en": "{wall} × {price}/h × {gpus} GPU", "es": "{wall} × {price}/h × {gpus} GPU"},
    "spend.basis.running": {"en": "running: {wall} so far × {price}/h × {gpus} GPU",
                            "es": "en curso: {wall} hasta ahora × {price}/h × {gpus} GPU"},
    "spend.basis.local": {"en": "local launcher: the bot's own machine, no GPU rented, costs 0",
                          "es": "lanzador local: la máquina del bot, sin GPU alquilada, cuesta 0"},
    "spend.basis.cpu": {"en": "ran on the CPU, no GPU held, costs 0", "es": "corrió en la CPU, sin GPU, cuesta 0"},
    "spend.basis.not_started": {"en": "never got a node, costs 0", "es": "nunca obtuvo un nodo, cuesta 0"},
    "spend.basis.no_price": {"en": "{wall} on a GPU without a catalog price: cost unknown",
                             "es": "{wall} en una GPU sin precio en el catálogo: coste desconocido"},
    "spend.footer": {
        "en": "Cost = node time from confirmation to the end × the GPU's catalog price when proposed × GPUs held. "
              "Failed pilots count their time. The daily budget counts every confirmed pilot at its price, "
              "estimates included while they run.",
        "es": "Coste = tiempo de nodo desde la confirmación hasta el final × precio de catálogo de la GPU al "
              "proponerlo × GPUs usadas. Los pilotos fallidos cuentan su tiempo. El presupuesto diario cuenta "
              "cada piloto confirmado a su precio, con estimaciones mientras corren.",
    },
    "spend.not_admin": {
        "en": "Only admins may see other people's spend ({who}); here is yours.",
        "es": "Solo los administradores pueden ver el gasto de otros ({who}); aquí tienes el tuyo.",
    },
    "spend.no_admins": {
        "en": "Nobody may see other people's spend until ADVISOR_PILOT_ADMINS or ADVISOR_CATALOG_ADMINS is set; "
              "here is yours.",
        "es": "Nadie puede ver el gasto de otros hasta que se configure ADVISOR_PILOT_ADMINS o ADVISOR_CATALOG_ADMINS; "
              "aquí tienes el tuyo.",
    },
    "spend.bad_date": {"en": "`{value}` is not a date: write it as YYYY-MM-DD (UTC), e.g. `{command} spend since 2026-11-01`.",
                       "es": "`{value}` no es una fecha: escríbela como AAAA-MM-DD (UTC), p. ej. `{command} spend since 2026-11-01`."},
    "spend.usage": {"en": "Usage: `{command} spend [all | MEMBER_ID] [since YYYY-MM-DD]` (a member ID such as U012AB3CD: "
                          "the person's profile → ⋮ → Copy member ID)",
                    "es": "Uso: `{command} spend [all | ID_DE_MIEMBRO] [since AAAA-MM-DD]` (un ID de miembro como "
                          "U012AB3CD: perfil de la persona → ⋮ → Copiar ID de miembro)"},
    "spend.state.finished": {"en": "finished", "es": "terminado"},
    "spend.state.failed": {"en": "failed", "es": "fallido"},
    "spend.state.running": {"en": "running", "es": "en curso"},
    "spend.state.pending": {"en": "pending", "es": "pendiente"},
    "spend.state.declined": {"en": "declined", "es": "rechazado"},
    # --- the estimate re-run after a pilot -------------------------------------------------------
    "recal.measured": {
        "en": ":arrows_counterclockwise: Re-estimated with pilot `{id}` on {gpu}: it measured {ratio} the prior "
              "throughput ({measured} vs {predicted} tokens/s).",
        "es": ":arrows_counterclockwise: Estimación rehecha con el piloto `{id}` en {gpu}: midió {ratio} el "
              "rendimiento previo ({measured} frente a {predicted} tokens/s).",
    },
    "recal.measured_only": {
        "en": ":arrows_counterclockwise: Re-estimated with pilot `{id}` on {gpu}.",
        "es": ":arrows_counterclockwise: Estimación rehecha con el piloto `{id}` en {gpu}.",
    },
    "recal.plan_cost": {
        "en": "{n} × {gpu}: now {cost} to an accepted checkpoint (was {old}), {time} (was {old_time}).",
        "es": "{n} × {gpu}: ahora {cost} hasta un punto de control aceptado (antes {old}), {time} (antes {old_time}).",
    },
    "recal.plan_rate": {
        "en": "{n} × {gpu}: now {rate} per million trained tokens (was {old}), {tps} tokens/s (was {old_tps}).",
        "es": "{n} × {gpu}: ahora {rate} por millón de tokens entrenados (antes {old}), {tps} tokens/s (antes {old_tps}).",
    },
    "recal.plan_no_fit": {"en": "{gpu}: still does not fit as asked.", "es": "{gpu}: sigue sin caber así."},
    "recal.recommendation_same": {"en": "The recommendation stays {n} × {gpu}.",
                                  "es": "La recomendación sigue siendo {n} × {gpu}."},
    "recal.recommendation_changed": {
        "en": ":point_right: The recommendation changes to {n} × {gpu} ({money}; was {old_n} × {old_gpu}, {old_money}).",
        "es": ":point_right: La recomendación cambia a {n} × {gpu} ({money}; antes {old_n} × {old_gpu}, {old_money}).",
    },
    "recal.footer": {
        "en": "The same request ranked again with the calibration this pilot added (its step time corrects every "
              "estimate on this GPU).",
        "es": "La misma petición ordenada de nuevo con la calibración que añadió este piloto (su tiempo de paso "
              "corrige toda estimación en esta GPU).",
    },
    # --- the CLI ---------------------------------------------------------------------------------
    "spend.cli.bad_date": {"en": "--since wants a date as YYYY-MM-DD (UTC), not {value!r}.",
                           "es": "--since espera una fecha AAAA-MM-DD (UTC), no {value!r}."},
}
