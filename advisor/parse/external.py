"""Models named outside the catalog: a Hugging Face id ("HuggingFaceTB/SmolLM3-3B", a huggingface.co
link) the catalog does not know, and a pasted ``config.json``.

Both are found in the cleaned message (a hub id keeps its case there) before anything else reads
it, and their spans are blanked, so the words inside them ("llama" in ``"model_type": "llama"``,
the numbers of a config) are not read as the request's own. The request then names the model as
the hub id, or as ``config:<sha>`` for a pasted config (``advisor.hub`` reads either; parsing
stays offline).

What is not a hub id although it has a slash: units and pairs ("tokens/s", "$/h", "and/or", "q/v",
"w/o", "1/2"), datasets where a config names one ("dataset: tatsu-lab/alpaca"), and names without
a digit from an organisation we do not know (a model id nearly always carries a size or a version).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from advisor.catalog import Catalog
from advisor.hub import config_sha
from advisor.parse.pasted import json_objects
from advisor.parse.prefilter import ascii_safe, ascii_twin

# A repository's page on the Hub has the id, then the page's own path ("/tree/main", "/blob/main/config.json",
# "/resolve/main/...", "/commit/<sha>", "/discussions/12": huggingface_hub's hf_hub_url and the Hub's web routes): the
# id ends before that path, never inside a name at a dot ("Qwen2.5-0.5B/tree/main" is no "Qwen/Qwen2.5-0").
_HUB_PAGES = r"(?:tree|blob|resolve|raw|commit|commits|discussions|files|edit|settings|viewer)"
# (the link with its scheme or without: people paste "huggingface.co/org/name?library=transformers" as the address bar
# shows it, "https://" cut)
# (or as huggingface_hub's file-system path names a model repository: "hf://org/name", "hf://org/name@main/config.json";
# HfFileSystem's paths are hf://[<repo_type_prefix>]<repo_id>[@<revision>]/<path/in/repo>, the prefix "datasets/" or
# "spaces/" for those repository types and none for a model: huggingface_hub/hf_file_system.py, docs "Interact with
# the Hub through the Filesystem API")
_HUB_ID = re.compile(r"(?<![\w/.@-])(?:(?:https?://)?(?:www\.)?(?:huggingface\.co|hf\.co)/|(?<![\w.@-])hf://(?!datasets/|spaces/))?"
                     r"([A-Za-z0-9][\w.-]{1,95})/"
                     r"([A-Za-z0-9][\w.-]{0,95}[A-Za-z0-9])(?:(?=/" + _HUB_PAGES + r"\b)|(?![\w/-]|\.\w))")
# That page path after a Hub id (kept out of what the rules read: "main", a commit's hex, a file name)
# (and a link's query or fragment after the id or its page: "?library=transformers", "#model-details")
_HUB_PAGE_PATH = re.compile(r"(?<=[A-Za-z0-9])(?:/" + _HUB_PAGES + r"(?:/[\w%@+-]+(?:\.[\w%@+-]+)*)*/?)?"
                            r"(?:[?#][\w%=&+.:-]*[\w%=&+-])?")
# Organisations that publish open LLMs on the Hub (their ids need no digit to be read as models).
KNOWN_ORGS = {"meta-llama", "mistralai", "qwen", "google", "microsoft", "deepseek-ai", "huggingfacetb", "allenai",
              "tiiuae", "01-ai", "ibm-granite", "nvidia", "openai", "tinyllama", "bigcode", "eleutherai",
              "stabilityai", "cohereforai", "databricks", "internlm", "thudm", "zai-org", "moonshotai",
              "unsloth", "nousresearch", "teknium", "lmsys", "mosaicml", "apple", "amd", "baichuan-inc"}
# An organisation said apart from its repository ("01-ai's Yi-34B", "el Yi-34B de 01-ai"): a name, whose digits are no
# setting (only the orgs with a digit in their name matter; the others are words the rules do not read).
_ORG_WORD = re.compile(r"(?<![\w/.@-])(?:" + "|".join(sorted((re.escape(o) for o in KNOWN_ORGS if re.search(r"\d", o)),
                                                             key=len, reverse=True)) + r")(?![\w/-])", re.I)
# A repository named with its organisation said after it in brackets, the owner as a label ("zephyr-7b-beta (org:
# HuggingFaceH4)", "EXAONE-3.5-7.8B-Instruct (organización: LGAI-EXAONE)", "(organization = tiiuae)"): the Hub id
# org/name (the Hub's own id is owner/repository, huggingface_hub.utils.validate_repo_id), said in two pieces.
_NAME_ORG = re.compile(r"(?<![\w/.@-])([A-Za-z0-9][\w.-]{0,95}[A-Za-z0-9])[ \t]*\([ \t]*(?:org|organi[sz]ation|organizaci[oó]n|"
                       r"publisher)[ \t]*[:=][ \t]*([A-Za-z0-9][\w.-]{0,94}[A-Za-z0-9])[ \t]*\)", re.I)
# A dataset or a Space on the Hub, by its link ("hf.co/datasets/HuggingFaceH4/ultrachat_200k", "huggingface.co/spaces/
# acme/demo") or after a dataset's word ("dataset HuggingFaceH4/ultrachat_200k", "datos: tatsu-lab/alpaca"): no model,
# and the digits of its name ("200k") no setting; blanked (the link's host and the dataset's word stay).
_DATASET_ID = re.compile(r"(?:(?:huggingface|hf)\.co/(?:datasets|spaces)/|(?<![\w-])(?:datasets?|data[ _]?set|corpus|datos)"
                         r"[ \t]*[\"']?[ \t]*[:=]?[ \t]*[\"']?)([A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*[A-Za-z0-9])", re.I)
_DATASET_BEFORE = re.compile(r"(?<![\w-])(?:datasets?|data[ _]?set|corpus|datos)[ \t]*[\"']?[ \t]*$", re.I)  # "dataset org/x"
_DATASET_WORD = re.compile(r"datasets?|data[ _]?set|corpus|datos", re.I)  # what every _DATASET_ID match without a link holds
_NAME_ORG_HINT = re.compile(r"\([ \t]*(?:org|organi|publisher)", re.I)  # what every _NAME_ORG match holds
_DATASET_KEY = re.compile(r"(?:dataset\w*|datasets|path|data_files|data_path|data)\s*[\"']?\s*[:=]\s*[\"']?\s*$", re.I)
# torchtune's recipe configs ("llama3_1/8B_lora_single_device", "qwen2_5/7B_full"): a config, not a repo
_TORCHTUNE_CONFIG = re.compile(r"_(?:q?lora|full|dora)(?:_single_device|_distributed)?$|_single_device$", re.I)
# A Kubernetes manifest's ``apiVersion: kubeflow.org/v1`` is GROUP/VERSION (Kubernetes API conventions, "API
# versioning": v1, v2beta1, v1alpha3), and a container's ``image:`` a registry path: neither names a model.
_API_VERSION = re.compile(r"v\d+(?:(?:alpha|beta)\d+)?", re.I)
_NOT_MODEL_KEY = re.compile(r"(?:apiversion|api_version|image)\s*[\"']?\s*[:=]\s*[\"']?\s*$", re.I)
# A file in a path ("deepspeed_configs/zero2.json", "examples/train_lora/llama3_lora_sft.yaml", "scripts/train.py"): a
# file name with its extension, which no Hub repository id needs (a repo named "x.json" is not how people cite models).
_FILE_NAME = re.compile(r".*\.(?:json|ya?ml|py|sh|toml|txt|cfg|ini|md|jsonl|csv|parquet)", re.I)
_NOT_IDS = {"and/or", "w/o", "q/v", "k/v", "i/o", "y/o", "tokens/s", "token/s", "gb/s", "tb/s", "it/s"}


@dataclass(frozen=True)
class External:
    ref: str  # what the request names: "org/name" or "config:<sha12>"
    start: int
    end: int
    config: dict[str, Any] | None = None  # a pasted config.json


def find(text: str, catalog: Catalog) -> list[External]:
    """Hub ids the catalog does not know, and pasted config.json objects, in cleaned text."""
    out: list[External] = []
    for start, end, config in _configs(text):
        out.append(External(f"config:{config_sha(config)[:12]}", start, end, config))
    # every hub id has its "/" (no "/", no id: the pattern, which tries every position, is not run); on a text of
    # ASCII the pattern's ASCII twin reads it alike (``prefilter.ascii_safe``)
    ids = (ascii_twin(_HUB_ID) if ascii_safe(text) else _HUB_ID).finditer(text) if "/" in text else ()
    for m in ids:
        if any(e.start <= m.start() < e.end for e in out):
            continue
        org, name = m.group(1), m.group(2)
        ident = f"{org}/{name}"
        if ident.lower() in _NOT_IDS or org.isdigit() or _FILE_NAME.fullmatch(name) or catalog.find_model(ident) is not None:
            continue
        if catalog.find_gpu(org) is not None or catalog.find_gpu(name) is not None:
            continue  # "A100/80GB", "H100/A100": a GPU with its memory, or two GPUs, not an org's repository
        if not (re.search(r"\d", name) or org.lower() in KNOWN_ORGS) or _API_VERSION.fullmatch(name):
            continue
        line_start = text.rfind("\n", 0, m.start()) + 1
        before = text[line_start:m.start()]
        if _DATASET_KEY.search(before) or _DATASET_BEFORE.search(before) or _NOT_MODEL_KEY.search(before) or re.search(r"--(?:dataset\w*|config)[\s=]+$", before) or _TORCHTUNE_CONFIG.search(name):
            continue
        end = m.end()
        if re.match(r"(?:https?://)?(?:www\.)?(?:huggingface|hf)\.co/", m.group(), re.I):
            tail = _HUB_PAGE_PATH.match(text, end)  # the link's page path and query, blanked with its id
            end = tail.end() if tail else end
        out.append(External(ident, m.start(), end))
    if "(" in text and _NAME_ORG_HINT.search(text):
        for m in _NAME_ORG.finditer(text):
            ident = f"{m.group(2)}/{m.group(1)}"
            if any(e.start <= m.start() < e.end for e in out) or catalog.find_model(ident) is not None \
                    or catalog.find_model(m.group(1)) is not None:
                continue  # a catalog model said so is read by its name ("Qwen2.5-32B (org: Qwen)"; "(org: ml-infra)"
                # beside a catalog model is the team's, no other repository)
            if catalog.find_gpu(m.group(1)) is not None or not (re.search(r"\d", m.group(1))
                                                                or m.group(2).lower() in KNOWN_ORGS):
                continue
            out.append(External(ident, m.start(), m.end()))
    return sorted(out, key=lambda e: e.start)


def blank(text: str, found: list[External]) -> str:
    """``text`` with the found ids and configs blanked, and every Hub page's path after an id (the id itself stays
    where the catalog knows it: the name matcher reads it)."""
    for e in found:
        text = text[:e.start] + " " * (e.end - e.start) + text[e.end:]
    for e in found:
        text = _repeats(text, e)
    if "/" in text and ("datasets/" in text or "spaces/" in text or _DATASET_WORD.search(text)):
        text = _DATASET_ID.sub(_blank_dataset_id, text)
    if "/" in text and ("huggingface" in text or "hf.co" in text):
        text = _page_paths(text)
    if "-ai" in text or "-AI" in text:
        text = _ORG_WORD.sub(lambda m: " " * len(m.group()), text)
    return text


def _blank_dataset_id(m: re.Match[str]) -> str:
    """The dataset's id blanked where it has a digit to misread ("ultrachat_200k"); a pair of words after "Datos:"
    ("lote/gpu 6", "r/alpha 8/8") is a setting's key, left as it is."""
    if not re.search(r"\d", m.group(1)):
        return m.group()
    return m.group()[:m.start(1) - m.start()] + " " * len(m.group(1))


def _repeats(text: str, e: External) -> str:
    """The repository's own name said again beside its Hub id ("btlm-3b-8k-base, i.e. cerebras/btlm-3b-8k-base",
    "Falcon3-10B-Base, o sea tiiuae/Falcon3-10B-Base"), blanked: the same model named twice, whose digits ("8k") are
    its name's, no setting (a name of three characters or fewer, or without a digit, is left alone: too common a word)."""
    if e.config is not None or "/" not in e.ref:
        return text
    name = e.ref.partition("/")[2]
    if len(name) < 4 or not re.search(r"\d", name) or name.lower() not in text.lower():
        return text
    pattern = re.compile(r"(?<![\w/.@-])" + re.escape(name) + r"(?![\w/-]|\.\w)", re.I)
    return pattern.sub(lambda m: " " * len(m.group()), text)


def _page_paths(text: str) -> str:
    """The page path after each Hub id in a huggingface.co link, blanked."""
    out = []
    last = 0
    for link in re.finditer(r"(?:huggingface\.co|hf\.co)/[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*", text):
        tail = _HUB_PAGE_PATH.match(text, link.end())
        if tail and tail.end() > tail.start():
            out.append(text[last:tail.start()] + " " * (tail.end() - tail.start()))
            last = tail.end()
    return "".join(out) + text[last:] if out else text


def _configs(text: str) -> list[tuple[int, int, dict[str, Any]]]:
    """JSON objects shaped like a Hugging Face model config (a width and a depth)."""
    return json_objects(text, lambda obj: isinstance(obj, dict) and _looks_like_config(obj))


def _looks_like_config(obj: dict[str, Any]) -> bool:
    inner = obj.get("text_config") if isinstance(obj.get("text_config"), dict) else {}
    keys = set(obj) | set(inner)
    return bool(keys & {"hidden_size", "n_embd", "d_model"}) and bool(keys & {"num_hidden_layers", "n_layer", "num_layers"})
