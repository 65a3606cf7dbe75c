"""What kind of message it is, beyond its settings: start over, help, the catalog, a frequent
question, a comparison of GPUs, a follow-up in a thread. Cues are read on normalized text (lower
case, accents folded) in both languages.

Frequent questions (our provider's FAQ), answered from the catalog and the model, not canned:
- ``can_i_gpu``: "Can I fine-tune an LLM on an RTX 4090?" / "¿Puedo hacer fine-tuning de un LLM
  en una RTX 4090?" (params: gpu, and model or params_b when named);
- ``a100_or_h100``: "A100 or H100 for fine-tuning?" (params: gpus) and ``gpu_choice`` for any
  other pair named without a model;
- ``what_persists``: "What should persist after the GPU stops?" / "¿Qué debe persistir cuando se
  apaga la GPU?" (keep the accepted checkpoint, tokenizer, config, evaluation outputs and
  provenance; temporary caches can be recreated).
"""

from __future__ import annotations

import re

from advisor.parse.prefilter import Anchored

# Each cue's ``search`` tries only where a match can begin (``prefilter.anchored_search``: the same match as
# ``re``'s, which would try every position of a pasted config for each cue)
R = Anchored

# (after the slash command itself, "/finetune reset", and after a phrase that drops what was said, "scrap that, let's
# start from scratch")
RESET = R(r"^(?:/[a-z][\w-]*\s+)?(?:(?:scrap|scratch|forget|drop)\s+(?:that|this|it)[,.;!\s]+|olvida\s+(?:eso|esto)[,.;!\s]+"
          # a thought dropped before the command ("nvm, just reset", "nada, mejor reinicia")
          r"|(?:nvm|never\s*mind|nada|no\s+importa|da\s+igual)[,.;!\s]+(?:just\s+|mejor\s+|solo\s+)?)?"
          r"(?:ok[, ]+|okay[, ]+|vale[, ]+|please[, ]+|por\s+favor[, ]+)?(?:let'?s\s+|vamos\s+a\s+)?(?:start\s+(?:over|again|afresh|from\s+scratch)"
          r"|reset|restart|new\s+(?:question|request|chat|estimate)|forget\s+(?:it|that|this|everything|all(?:\s+that)?)"
          r"|clear(?:\s+(?:it|that|everything))?|scratch\s+that|never\s*mind|start\s+(?:this|the)\s+(?:thread|conversation|chat)\s+(?:over|again|afresh)|empe(?:zar|cemos|zamos)\s+(?:este|el)\s+(?:hilo|chat)\s+de\s+(?:cero|nuevo)|empe(?:zar|cemos|zamos|cemos)\s+de\s+nuevo"
          r"|empe(?:zar|cemos|zamos)\s+de\s+cero|empieza\s+de\s+(?:nuevo|cero)|volver\s+a\s+empezar|vuelve\s+a\s+empezar|desde\s+cero|reinici\w*|borr\w*(?:\s+todo)?"
          r"|olvid\w*(?:\s+todo)?|nueva\s+(?:pregunta|consulta|estimacion)|otra\s+consulta"
          # a new job, the thread or what was said above dropped: "new job, ignore the above", "scrap this thread, new
          # estimate coming", "nuevo trabajo, ignora lo anterior", "descarta este hilo"
          r"|new\s+(?:job|run|task)|(?:ignore|disregard)\s+(?:the|everything|all(?:\s+of)?\s+the)\s+above"
          r"|(?:scrap|scratch|forget|drop|ignore|discard)\s+(?:this|the)\s+(?:thread|conversation|chat)"
          r"|nuevo\s+(?:trabajo|encargo|calculo)|(?:ignora|descarta|olvida)\s+(?:este|el)\s+hilo|ignora\s+lo\s+(?:anterior|de\s+arriba))\b")
# (after the slash command itself, "/finetune help", when the bot passes it on)
HELP = R(r"^[?\s]+$|^(?:/[a-z][\w-]*\s+)?(?:help|ayuda|\?+|what\s+can\s+(?:you|this\s+bot|the\s+bot|it)\s+do"
         r"|que\s+sabes\s+hacer|para\s+que\s+sirves|what\s+are\s+you\s+for|how\s+(?:do\s+i|does\s+this|to)\s+(?:use|work)\w*|what\s+do\s+you\s+do"
         r"|que\s+puedes\s+hacer|que\s+haces|como\s+(?:funciona|funcionas|se\s+usa|te\s+uso|te\s+usa)|usage|uso|instructions"
         r"|hi|hello|hey|hola|buenas|buenos\s+dias|good\s+morning)\b"
         # the bot's commands and how to talk to it: "what commands does the bot understand?", "¿qué comandos entiende
         # el bot?", "how do I talk to you?", "need help with the bot", "necesito ayuda con el bot"
         r"|\b(?:what|which)\s+(?:(?:kind|sort|type)s?\s+of\s+)?commands\b|\b(?:que|cuales)\s+(?:(?:tipo|clase)s?\s+de\s+)?comandos\b|"
         # what the bot needs to answer: "what do you need from me to give an estimate?", "¿qué datos necesitas para
         # darme una estimación?"
         r"\bwhat\s+(?:do|does|would)\s+(?:you|the\s+bot|it)\s+need\s+(?:from\s+(?:me|us)\s+|to\s+know\s+)?(?:to|for)\s+"
         r"(?:(?:give|make|do|get|produce)\s+(?:me\s+|us\s+)?)?(?:an?\s+)?(?:estimate|quote)\b"
         r"|\bque\s+(?:datos|informacion|info|cosas)?\s*(?:necesitas|necesita|necesitais|hace\s+falta)\s+(?:saber\s+)?para\s+"
         r"(?:(?:darme|darnos|dar|hacer|hacerme|sacar)\s+)?(?:una?\s+)?(?:estimacion|presupuesto|calculo)\b|\bcommands?\s+(?:list|available)\b"
         r"|\bhow\s+(?:do|can|should)\s+(?:i|we)\s+(?:talk|speak|write)\s+to\s+(?:you|the\s+bot|this\s+bot|it)\b"
         r"|\bcomo\s+(?:te\s+hablo|hablo\s+contigo|le\s+hablo\s+al\s+bot|te\s+escribo)\b"
         r"|\b(?:need|want|get)\s+(?:some\s+)?help\s+(?:with|using)\s+(?:the|this|your)\s+bot\b"
         r"|\bnecesito\s+ayuda\s+con\s+(?:el|este)\s+bot\b"
         # what the bot can be asked: "what can I ask you?", "what kind of questions can we ask?", "what questions do you
         # answer?", "¿qué te puedo preguntar?", "¿qué tipo de cosas le puedo pedir?", "¿qué preguntas contestas?"
         r"|\bwhat\s+(?:(?:kind|sort|type)s?\s+of\s+(?:things|questions|stuff|requests)\s+)?(?:can|could|should|may|do)\s+(?:i|we)"
         r"\s+(?:ask|say|type|tell|request)\b"
         r"|\bwhat\s+(?:questions|things|requests)\s+(?:can|do|will)\s+(?:you|it|the\s+bot)\s+(?:answer|handle|take|understand)\b"
         r"|\bque\s+(?:(?:(?:tipo|clase)s?\s+de\s+)?(?:cosas|preguntas|consultas)\s+)?(?:te|le|les|se\s+le)?\s*(?:puedo|podemos|puede\s+uno)"
         r"\s+(?:preguntar|pedir|consultar|decir)\b"
         r"|\bque\s+(?:preguntas|cosas|consultas)\s+(?:respondes|contestas|entiendes|atiendes|sabes\s+responder)\b")
CATALOG = R(r"\b(?:which|what|list|show|que|cuales|cual|lista|muestra|muestrame|ensena\w*)\b[^?.!]{0,40}?\b(?:gpus?|cards?|tarjetas?"
            r"|graficas?|models|modelos|prices?|precios|catalog|catalogo)\b[^?.!]{0,40}?\b(?:have|offer|rent|available|do\s+you|are\s+there|"
            r"know|support|tienen|teneis|ofrecen|alquilan|alquilar|rentar|hay|disponibles?|conoces|soportas?|cost|cuestan|cuesta)\b"
            r"|^(?:/[a-z][\w-]*\s+)?(?:list\s+)?(?:gpus?|prices?|precios|catalog|catalogo|models|modelos|lista\s+de\s+(?:gpus?|precios|modelos))[\W_]*$"
            # the cards asked for with their prices: "list the gpus + hourly prices", "pásame la lista de gpus con precios"
            r"|\b(?:list|show(?:\s+me)?|give\s+me|send\s+me|pasame|dame|muestrame|ensename|mandame)\s+(?:the\s+|your\s+|la\s+|el\s+|las\s+|los\s+|tus\s+)?"
            r"(?:lista\s+de\s+|list\s+of\s+)?(?:gpus?|cards?|tarjetas?|graficas?)\b[^?.!]{0,30}?\b(?:prices?|precios|hourly|rates?)\b"
            # "what's in the catalog right now?", "¿qué hay en el catálogo?"
            r"|\bwhat(?:'?s|\s+is)\s+(?:in|on)\s+(?:the|your)\s+(?:catalog(?:ue)?|price\s+list)\b"
            r"|\bque\s+hay\s+en\s+(?:el|tu|vuestro)\s+catalogo\b"
            # a GPU's hourly price asked for: "what's the hourly rate for the L40S?", "price per hour of an H100", "the
            # A100's hourly price", "¿precio por hora de la L40S?", "¿a cuánto está la H100?", "tarifa de la 4090"
            r"|\b(?:hourly\s+(?:rate|price|cost)|(?:price|cost|rate)\s+(?:per|an|by\s+the)\s+hour|rental\s+(?:price|rate)|rate)"
            r"\s+(?:for|of|on)\s+(?:an?\s+|the\s+|one\s+)?§G\d+§"
            r"|§G\d+§(?:'s|s)?\s+(?:hourly\s+)?(?:price|rate|cost)\s+(?:per\s+hour|an\s+hour|by\s+the\s+hour)?"
            r"|\b(?:precio|coste|costo|tarifa)\s+(?:por\s+hora\s+)?(?:de|del)\s+(?:la\s+|el\s+|una?\s+)?§G\d+§"
            r"|\ba\s+cuanto\s+(?:esta|sale|va)\s+(?:la\s+|el\s+|una?\s+)?§G\d+§"
            # the GPUs of a region asked for: "which GPUs are in Frankfurt?", "do you have anything in Paris?", "¿qué GPUs
            # hay en Fráncfort?", "¿tenéis algo en París?"
            r"|\b(?:which|what)\s+(?:gpus?|cards?)\s+(?:are|is)\s+(?:there\s+)?(?:in|at)\s+§R\d+§"
            r"|\bdo\s+you\s+have\s+(?:anything|any\s+gpus?|gpus?|cards?)\s+(?:in|at)\s+§R\d+§"
            r"|\b(?:tienen|teneis|tienes|hay)\s+(?:algo|gpus?|tarjetas?)\s+en\s+§R\d+§"
            # "show me the catalog", "muéstrame el catálogo": the catalog named as what to see
            # "show me the catalog", "pásame la lista de precios", "can you share the price list?", "¿me pasas el catálogo?",
            # "dame los precios": the catalog or the price list named as what to see (a verb of handing it over)
            r"|^(?:please\s+|por\s+favor\s+|(?:can|could|would)\s+(?:you|u)\s+|(?:me\s+|nos\s+)?(?:puedes|podrias|podeis)\s+|me\s+|nos\s+)?"
            r"(?:show|list|see|send|give|share|post|paste|drop|muestra\w*|ensena\w*|ver|manda\w*|pasa\w*|dame|danos|da\w*"
            r"|comparte\w*|envia\w*|compart\w*)\s+(?:me\s+|us\s+)?(?:the\s+|your\s+|el\s+|tu\s+|la\s+|los\s+|vuestr[oa]\s+|current\s+)?"
            r"(?:catalog(?:ue)?|catalogo|price\s+list|pricing|prices|precios|lista\s+de\s+precios|tarifas)\b"
            r"|\bhow\s+much\s+(?:is|does|do)\s+(?:an?\s+|the\s+)?§G\d+§\s*(?:cost|per\s+hour|an\s+hour)?"
            r"|\b(?:cuanto|que\s+precio)\s+(?:cuesta|vale|tiene)\s+(?:una?\s+|la\s+)?§G\d+§")
CATALOG_MODELS = R(r"\b(?:models|modelos)\b")
# (what stays, and what is still billed, once the job ends: "what stays on storage?", "¿qué seguimos pagando?")
PERSIST = R(r"\b(?:persist\w*|keep|save|store|retain|stays?|remains?|left\s+over|still\s+(?:pay\w*|billed|charged)"
            r"|keep\s+paying|seguimos\s+pagando|siguen?\s+cobrando|seguir[aá]?n?\s+cobrando|seguir\s+pagando|back\s*up|backup|lose|lost|losing|wiped|survives?|guardar|guardo|guarde|guardamos"
            r"|conservar|conservo|conserve|persistir|persiste|mantener|queda\w*|sobrevive\w*|pierd\w*|perder|perdemos|respald\w*"
            # what is deleted or kept: "what gets deleted / erased / removed", "¿qué se guarda / se borra / desaparece?"
            r"|delet\w*|eras\w*|removed|gone|disappear\w*|guarda\w*|borra\w*|desaparec\w*|elimina\w*"
            r"|copia\s+de\s+seguridad|what\s+happens\s+to|que\s+(?:pasa|ocurre|sucede)\s+con)\b")
PERSIST_WHEN = R(r"\b(?:after|when|once|before|if|despues|cuando|al|antes|si)\b[^?.!]{0,40}?\b(?:stop\w*|end\w*|shut\w*|terminat\w*"
                 r"|finish\w*|done|over|is\s+released|released|goes\s+away|deleted|delet\w*|torn\s+down|tear\w*\s+down|reclaim\w*"
                 r"|preempt\w*|apag\w*|termin\w*|deten\w*|detien\w*|para\b|paro\b|acab\w*|finaliz\w*|liber\w*|borr\w*|destru\w*|elimin\w*"
                 r"|cierr\w*|cerra\w*)")
# Named storage kinds are a persist question on their own ("what goes on persistent storage?").
PERSIST_STORAGE = R(r"\b(?:persistent\s+(?:storage|volume|disk|files?)|almacenamiento\s+persistente|volumen\s+persistente"
                    r"|disco\s+persistente)\b")
QUESTION = R(r"\b(?:what|which|should|do\s+i|do\s+we|que|cual|cuales|debo|debemos|deberia|hay\s+que|tengo\s+que|need"
             r"|necesito|necesitamos|how|como|will|se)\b|\?")
CAN_I = R(r"\b(?:can\s+(?:i|we|you|one)|could\s+(?:i|we)|is\s+it\s+possible|possible\s+to|is\s+(?:an?\s+|the\s+)?§G\d+§"
          r"\s+(?:enough|good|ok|fine|big\s+enough)|enough\s+for|puedo|podemos|podria|podriamos|se\s+puede|es\s+posible"
          r"|sirve|da\s+para|alcanza|suficiente|es\s+suficiente)\b"
          # "¿vale una L4 para fine-tuning?", "¿vale la 4090 para afinar?" (the placeholder ends in "§": no \b after it)
          r"|\bvale\s+(?:una?\s+|la\s+|el\s+)?§G\d+§"
          # "is the 4090 any good for fine-tuning?", "can the RTX 6000 Ada train anything?", "can a single L4 handle it?"
          r"|\bis\s+(?:an?\s+|the\s+)?§G\d+§\s+(?:any|much)\s+good\b"
          # "is an L40S any use for fine-tuning?", "is the L4 of any use", "is a 4090 useful / viable / suitable for ...",
          # "would an L40S work for fine-tuning?", "does a single 4090 cut it?", "¿es útil una L40S para afinar?", "¿una L4
          # sirve de algo?", "¿aguanta una 4090 un fine-tuning?"
          r"|\bis\s+(?:an?\s+|the\s+|one\s+|a\s+single\s+)?§G\d+§\s+(?:(?:of\s+)?(?:any|some)\s+use|useful|usable|viable|suitable"
          r"|any\s+help|worth\s+(?:it|renting|using)|capable|up\s+to\s+(?:it|the\s+job))\b"
          r"|\b(?:would|will|does|do)\s+(?:an?\s+|the\s+|one\s+|a\s+single\s+)?§G\d+§\s+(?:work|do|cut\s+it|suffice|be\s+(?:enough|ok|fine))\b"
          r"|\b(?:es|son|seria|serian)\s+(?:una?\s+|la\s+|el\s+)?(?:§G\d+§\s+)?(?:util(?:es)?|viables?|adecuad[oa]s?|suficientes?)\b"
          r"|\baguanta\w*\b"
          r"|\bcan\s+(?:an?\s+|the\s+|one\s+|a\s+single\s+)?§G\d+§\s+(?:train|fine[\s-]*tune|finetune|run|handle|fit|do)\b"
          # the subject before its verb, in a relative clause: "the biggest model I can train on an H200", "what we could
          # fine-tune on an L4"
          r"|\b(?:i|we|one|you)\s+(?:can|could)\s+(?:realistically\s+|actually\s+)?(?:train|fine[\s-]*tune|finetune|tune|run|fit)\b")
GENERIC_LLM = R(r"\b(?:an?\s+|un\s+|una\s+)?(?:llms?|large\s+language\s+models?|language\s+models?|models?|modelos?(?:\s+de\s+lenguaje)?)\b")
COMPARE_JOIN = R(r"§G(\d+)§s?\s*(?:,|or|vs\.?|versus|o|u|/|against|contra)\s*(?:(?:on|in|with|en|con|sobre)\s+)?"
                 r"(?:an?\s+|the\s+|una?\s+|la\s+|el\s+|las\s+|los\s+)?"
                 r"(?:(?:\d+|one|two|three|four|six|eight|sixteen|single|una?|dos|tres|cuatro|seis|ocho|sola)\s*(?:x\s*)?)?§G(\d+)§")
COMPARE_WORD = R(r"\b(?:compare|comparing|comparison|compara\w*|difference|diferencia|better|mejor|cheaper|mas\s+barat\w*"
                 r"|worth|compensa|merece\s+la\s+pena|vale\s+la\s+pena|frente\s+a|over"
                 r"|faster|mas\s+rapid\w*|which|cual|cuales"
                 # "would 4 L40S beat 1 H100", "¿4 L40S le ganan a 1 H100?", "two H100s or would one H200 do?",
                 # "¿dos H100 o basta con una H200?", "¿A100 o con H100?"
                 r"|beats?|outperforms?|le\s+gan\w*|ganan?|or\s+(?:would|will|could|does|do|is)|o\s+(?:basta\w*|bastaria|nos\s+basta|con|sirve))\b")
FOLLOWUP = R(r"^(?:and|y|e|what\s+about|how\s+about|what\s+if|and\s+if|y\s+si|now|ahora|instead|try|same\s+but|same\s+with"
             r"|lo\s+mismo\s+pero|la\s+misma\s+pero|with|without|con|sin|on|en|but|pero|then|entonces|also|tambien|ok|okay"
             r"|vale|change|cambia\w*|make\s+it|hazlo|use|usa|switch|let'?s\s+try|probemos|prueba|otra\s+vez|again|y\s+que\s+tal"
             r"|que\s+tal|and\s+what|y\s+para|for|para|same|igual)\b|\b(?:instead|en\s+(?:vez|lugar)|rather|otra\s+vez|mejor\s+con)\b")


# "cheaper option?", "¿algo más rápido?": the same job, ranked again without the GPU the thread had.
GOAL_COST = R(r"\b(?:cheaper|cheapest|less\s+expensive|lower\s+cost|save\s+money|budget|mas\s+barat\w*|menos\s+car\w*"
              r"|mas\s+economic\w*|ahorrar)\b")
GOAL_SPEED = R(r"\b(?:faster|fastest|quicker|sooner|mas\s+rapid\w*|menos\s+tiempo)\b")


# "which GPU should we rent for fine-tuning?", "¿qué GPU me conviene alquilar para afinar?": the provider's FAQ of
# which GPU to choose, asked with no job named (answered on a reference job, ``answer._faq_choice``).
GPU_CHOICE = R(r"\b(?:which|what)\s+(?:(?:kind|sort|type)s?\s+of\s+)?(?:gpus?|cards?|hardware|accelerators?)\b[^?.!]{0,40}?"
               r"\b(?:should|recommend\w*|suggest\w*|best|pick|choose|rent|use)\b[^.!]{0,40}?\b(?:fine[\s-]*tun\w*|finetun\w*|train\w*|sft)"
               r"|\bque\s+(?:(?:tipo|clase)s?\s+de\s+)?(?:gpus?|tarjetas?|graficas?|hardware)\b[^?.!]{0,40}?\b(?:recomienda\w*|conviene|deberia\w*|debo|debemos|eleg\w*|elij\w*"
               r"|usar|alquilar|uso)\b[^.!]{0,40}?\b(?:fine[\s-]*tun\w*|finetun\w*|afinar|entrenar|ajust\w*|sft)"
               # how to pick one, after GPUs for training were named: "first time renting GPUs for training: how do I pick
               # one?", "es la primera vez que alquilo GPUs para entrenar: ¿cómo elijo una?"
               r"|\b(?:gpus?|cards?)\b[^.!?]{0,40}?\b(?:train\w*|fine[\s-]*tun\w*|finetun\w*)\b[^.!?]{0,20}?\bhow\s+(?:do|should|can)\s+"
               r"(?:i|we)\s+(?:pick|choose|select)\b"
               # "how do I pick a GPU for fine-tuning an LLM?", "¿cómo elijo una GPU para afinar un LLM?"
               r"|\bhow\s+(?:do|should|can)\s+(?:i|we|you)\s+(?:pick|choose|select)\s+(?:an?\s+|the\s+)?(?:gpus?|cards?|hardware)\s+"
               r"(?:for|to)\s+(?:train\w*|fine[\s-]*tun\w*|finetun\w*|sft)"
               r"|\bcomo\s+(?:elijo|escojo|selecciono|elegimos|escogemos|elegir|escoger)\s+(?:una?\s+|la\s+)?(?:gpus?|tarjetas?|graficas?)"
               r"\s+para\s+(?:entren\w*|afinar|ajust\w*)"
               r"|\b(?:gpus?|tarjetas?|graficas?)\b[^.!?]{0,40}?\b(?:entren\w*|afinar|ajust\w*)\b[^.!?]{0,20}?\bcomo\s+"
               r"(?:elijo|escojo|selecciono|elegimos|escogemos|elegir|escoger)\b")
# Words of fine-tuning talk: a number in a message with none of them ("¿dónde está la sala 3?") is no setting asked about.
ABOUT_TRAINING = R(r"\b(?:fine[\s-]*tun\w*|finetun\w*|train\w*|entren\w*|afin\w*|ajust\w*|q?lora|sft|peft|gpus?|seq\w*|secuencia\w*"
                   r"|context\w*|batch\w*|lote\w*|epochs?|epocas?|tokens?|rank|rango|models?|modelos?|llms?|params?|parametros?"
                   r"|cards?|tarjetas?|nodes?|nodos?|dataset|datos|data)\b|§[MGFU]\d+§")


# Talk about people and their plans around a card, not a job to size ("did anyone book the H100s for the demo?", "who
# has the A100 today?", "¿alguien reservó las H100?", "¿quién está usando la L40S?"): with nothing but a GPU said, no
# request to ask a model for.
CHATTER = R(r"\b(?:did|has|have|is|was)\s+(?:anyone|anybody|someone|somebody)\b|\bwho(?:'s|\s+is|\s+has|\s+had|\s+booked"
            r"|\s+took|\s+reserved)\b|\balguien\b|\bquien(?:es)?\s+(?:tiene|tienen|ha|han|reserv\w*|usa\w*|esta\w*|cogio|pill\w*)\b")


# A thanks or an acknowledgement and nothing else ("thanks! 👍", "¡gracias, crack!", "perfect, ty", "vale, genial"):
# no request and no change to the thread's
THANKS = R(r"^[\W_]*(?:(?:thanks?|thank\s+you|thx|ty|cheers|great|perfect|awesome|nice|cool|ok|okay|got\s+it|gracias|muchas"
           r"|genial|perfecto|vale|guay|de\s+lujo|crack|mil|a\s+lot|so\s+much|mate|man|tio|tia|chicos|chavales|bot|team|equipo)"
           r"[\W_]*)+$")


def is_thanks(text: str) -> bool:
    return THANKS.search(text) is not None


def is_chatter(text: str) -> bool:
    return CHATTER.search(text) is not None


def is_gpu_choice(text: str) -> bool:
    return GPU_CHOICE.search(text) is not None


def about_training(text: str) -> bool:
    return ABOUT_TRAINING.search(text) is not None


def goal(text: str) -> str | None:
    """``"cost"`` or ``"speed"`` when a message asks for a cheaper or faster option."""
    if GOAL_COST.search(text):
        return "cost"
    if GOAL_SPEED.search(text):
        return "speed"
    return None


# "scratch that, 8k", "forget that, make it Paris", "olvida lo anterior, 8k": the last value withdrawn and a new one
# given, in a thread: a correction of the thread's request, not a fresh one (as "start over: qlora llama 70b" is)
SCRATCH = R(r"^(?:(?:ok|okay|vale|ah|oh|hmm)[,\s]+)?(?:scratch|scrap|forget|ignore|drop|olvida|ignora|descarta)\s+"
            r"(?:that|this|it|what\s+i\s+(?:just\s+)?said|my\s+last(?:\s+message)?|eso|esto|lo\s+(?:anterior|de\s+antes|ultimo|que\s+dije)"
            r"|(?:(?:the|las|los|la|el)\s+)?(?:\d+\s*(?:x\s*)?)?§[GMR]\d+§)(?:\b|(?<=§))")


def is_reset(text: str) -> bool:
    return RESET.search(text) is not None


def is_scratch(text: str) -> bool:
    return SCRATCH.search(text) is not None


def is_help(text: str) -> bool:
    return HELP.search(text) is not None


def is_persist_question(text: str) -> bool:
    # (the persist cues first: QUESTION's words, "se", "do", "?", stand everywhere in a pasted config, so its search is
    # the slowest of the three; the result is the same conjunction)
    if not (PERSIST_STORAGE.search(text) or (PERSIST.search(text) and PERSIST_WHEN.search(text))):
        return False
    return QUESTION.search(text) is not None


def catalog_question(text: str) -> dict | None:
    if CATALOG.search(text) is None:
        return None
    return {"models": bool(CATALOG_MODELS.search(text))}


def is_can_i(text: str) -> bool:
    return CAN_I.search(text) is not None


def names_generic_model(text: str) -> bool:
    return GENERIC_LLM.search(text) is not None


def compared_gpus(text: str) -> bool:
    """Two GPUs joined by 'or' / 'vs' / 'o', or named with a comparing word."""
    if COMPARE_JOIN.search(text):
        return True
    return len(set(re.findall(r"§G(\d+)§", text))) >= 2 and COMPARE_WORD.search(text) is not None


def has_followup_cue(text: str) -> bool:
    return FOLLOWUP.search(text) is not None
