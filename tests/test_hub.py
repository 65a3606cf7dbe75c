"""Models from the Hugging Face Hub and pasted config.json, against a fake Hub on loopback
(tests/fakehub.py speaks the Hub's resolve/redirect/ETag protocol to huggingface_hub)."""

import json
import socket

import pytest

from advisor.answer import Advisor
from advisor.hub import HubConfigError, HubNotFound, HubReader, HubUnreachable, architecture_from_config
from tests.conftest import DATA
from tests.fakehub import FakeHub

CONFIGS = {p.stem.replace("__", "/"): json.loads(p.read_text()) for p in (DATA / "hub_configs").glob("*.json")}


@pytest.fixture
def hub():
    repos = {repo: {"config.json": cfg, "model.safetensors": b"\0" * 64, "modeling_x.py": b"raise SystemExit"}
             for repo, cfg in CONFIGS.items()}
    with FakeHub(repos, gated={"meta-llama/Llama-4-Gated-17B"} ) as fake:
        fake.add("meta-llama/Llama-4-Gated-17B", {"config.json": CONFIGS["Qwen/Qwen3-4B"]})
        yield fake


@pytest.fixture
def reader(hub, tmp_path):
    return HubReader(tmp_path / "state.db", endpoint=hub.url, cache_dir=tmp_path / "hf-cache")


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.mark.parametrize("repo,catalog_id", [("Qwen/Qwen3-4B", "qwen3-4b"), ("mistralai/Mixtral-8x7B-v0.1", "mixtral-8x7b"),
                                             ("google/gemma-3-4b-it", "gemma-3-4b")])
def test_a_hub_config_reads_into_the_catalogs_own_architecture(repo, catalog_id, reader, catalog):
    model = reader.model(repo)
    assert model.arch == catalog.model(catalog_id).arch
    assert model.source == "hub" and len(model.commit) == 40 and model.etag


def test_only_config_json_is_fetched_and_a_second_reader_finds_it_in_the_state_db(reader, hub, tmp_path):
    first = reader.model("HuggingFaceTB/SmolLM3-3B")
    assert {p.rsplit("/", 1)[1] for p in hub.paths()} == {"config.json"}
    seen = len(hub.requests)
    again = HubReader(tmp_path / "state.db", endpoint=closed_port_url(), cache_dir=tmp_path / "other-cache")
    second = again.model("HuggingFaceTB/SmolLM3-3B")
    assert (second.source, second.arch, second.commit, len(hub.requests)) == ("state-db", first.arch, first.commit, seen)


def test_a_model_that_needs_remote_code_is_read_from_its_fields_only(reader, hub):
    model = reader.model("internlm/internlm2_5-7b-chat")
    assert model.remote_code and model.arch.kv_heads == 8 and model.arch.vocab == 92544
    assert not any(p.endswith(".py") for p in hub.paths())
    assert "trust_remote_code" in model.describe("en") and "trust_remote_code" in model.describe("es")


@pytest.mark.parametrize("config,words", [
    (CONFIGS["deepseek-ai/DeepSeek-V3"], ["latent attention"]),
    ({"model_type": "llama", "num_hidden_layers": 4, "vocab_size": 100}, ["hidden_size", "num_attention_heads"]),
    ({"model_type": "qwen2_moe", **{k: CONFIGS["Qwen/Qwen3-4B"][k] for k in ("hidden_size", "num_hidden_layers",
      "num_attention_heads", "vocab_size", "intermediate_size")}, "num_experts": 60, "shared_expert_intermediate_size": 5632},
     ["shared experts"]),
])
def test_a_config_we_cannot_model_is_refused_with_what_it_lacks(config, words):
    with pytest.raises(HubConfigError) as info:
        architecture_from_config(config, "x/y")
    assert all(w in str(info.value) for w in words)


def test_unknown_and_gated_repositories_say_so(reader):
    with pytest.raises(HubNotFound, match="no such model repository"):
        reader.model("nobody/nothing-7b")
    with pytest.raises(HubNotFound, match="gated"):
        reader.model("meta-llama/Llama-4-Gated-17B")


def test_an_unreachable_hub_is_a_clear_error_naming_hf_endpoint(tmp_path):
    url = closed_port_url()
    with pytest.raises(HubUnreachable) as info:
        HubReader(None, endpoint=url, cache_dir=tmp_path / "c", timeout_s=2).model("org/model-7b")
    assert "HF_ENDPOINT" in str(info.value) and url in str(info.value)


def test_a_stale_config_is_kept_when_the_hub_is_away(reader, tmp_path):
    reader.model("Qwen/Qwen3-4B")
    away = HubReader(tmp_path / "state.db", endpoint=closed_port_url(), cache_dir=tmp_path / "c2", max_age_s=0, timeout_s=2)
    model = away.model("Qwen/Qwen3-4B")
    assert model.source == "state-db" and any("could not be reached" in n for n in model.notes)


def _env(hub, tmp_path, **extra):
    return {"HF_ENDPOINT": hub.url, "HF_HUB_CACHE": str(tmp_path / "hf"), "ADVISOR_STATE_DB": str(tmp_path / "state.db"),
            **extra}


def test_cli_estimate_reads_a_hub_id_from_the_hub(cli, hub, tmp_path, catalog):
    out = json.loads(cli("estimate", "--model", "Qwen/Qwen3-4B", "--method", "lora", "--seq-len", "4k", "--json",
                         env=_env(hub, tmp_path)).output)
    assert out["spec"]["seq_len"] == 4096 and out["spec"]["method"] == "lora"
    assert out["model_source"]["source"] == "hub" and out["model_source"]["name"] == "Qwen/Qwen3-4B"
    assert out["model_source"]["params_total"] == catalog.model("qwen3-4b").params_total
    assert any(o["fits"] for o in out["options"])
    assert hub.paths()[0] == "/Qwen/Qwen3-4B/resolve/main/config.json"
    assert {p.rsplit("/", 1)[1] for p in hub.paths()} == {"config.json"}  # nothing else, not even telemetry


def test_cli_estimate_with_an_unreachable_hub_names_hf_endpoint(tmp_path):
    from click.testing import CliRunner

    from advisor.cli import main

    env = {"HF_ENDPOINT": closed_port_url(), "HF_HUB_CACHE": str(tmp_path / "hf"), "ADVISOR_STATE_DB": str(tmp_path / "s.db")}
    result = CliRunner().invoke(main, ["estimate", "--model", "Qwen/Qwen3-4B", "--seq-len", "4k"], env=env)
    assert result.exit_code == 2 and "HF_ENDPOINT" in result.output and "--config" in result.output


def test_cli_estimate_reads_a_config_file(cli, tmp_path):
    path = tmp_path / "smol" / "config.json"
    path.parent.mkdir()
    path.write_text(json.dumps(CONFIGS["HuggingFaceTB/SmolLM3-3B"]))
    out = json.loads(cli("estimate", "--config", str(path), "--method", "qlora", "--dataset-tokens", "50M", "--json").output)
    assert out["spec"]["dataset_tokens"] == 50_000_000 and out["model_source"]["source"] == "file"
    assert out["model_source"]["name"] == "smol"


def test_chat_reads_a_hub_id_the_catalog_lacks_and_the_thread_keeps_it(hub, tmp_path, catalog):
    advisor = Advisor(catalog, models=HubReader(tmp_path / "state.db", endpoint=hub.url, cache_dir=tmp_path / "hf"))
    first = advisor.ask("lora HuggingFaceTB/SmolLM3-3B at 4k")
    assert first.kind == "estimate" and first.request.model == "HuggingFaceTB/SmolLM3-3B"
    assert first.data["model_source"]["source"] == "hub" and "Hugging Face Hub" in first.text
    seen = len(hub.requests)
    later = Advisor(catalog, models=HubReader(tmp_path / "state.db", endpoint=closed_port_url(), cache_dir=tmp_path / "x"))
    second = later.ask("what about 8k?", previous=first.request)
    assert (second.kind, second.request.model, second.request.seq_len) == ("followup", "HuggingFaceTB/SmolLM3-3B", 8192)
    assert len(hub.requests) == seen


def test_chat_reads_a_pasted_config_json(tmp_path, catalog):
    text = "qlora this at 8k please:\n```\n" + json.dumps(CONFIGS["internlm/internlm2_5-7b-chat"], indent=1) + "\n```"
    advisor = Advisor(catalog, models=HubReader(tmp_path / "state.db", endpoint=closed_port_url()))
    answer = advisor.ask(text)
    assert answer.kind == "estimate" and answer.request.model.startswith("config:")
    assert (answer.request.method, answer.request.seq_len) == ("qlora", 8192)
    again = Advisor(catalog, models=HubReader(tmp_path / "state.db", endpoint=closed_port_url()))
    assert again.ask("and with rank 64?", previous=answer.request).kind == "followup"


def test_chat_without_a_hub_names_the_closest_catalog_models(catalog):
    answer = Advisor(catalog).ask("lora mistralai/Mistral-7B-Instruct-v0.9")
    assert answer.kind == "clarify" and "mistral-7b" in " ".join(answer.data["suggestions"])


# --- pilots and launch configs for a model only the Hub has -------------------------------------------

# A two-layer Llama-shaped config (a few hundred thousand parameters): small enough to pilot on this CPU.
TINY_HUB = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
            "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 512,
            "max_position_embeddings": 512, "tie_word_embeddings": False, "rms_norm_eps": 1e-5}


@pytest.mark.torch
def test_cli_pilot_runs_a_model_read_from_the_hub(tmp_path):
    from tests.conftest import have, run_advisor

    if not have("torch"):
        pytest.skip("needs the pilot extra (torch)")
    with FakeHub({"test-org/tiny-llama-2l": {"config.json": TINY_HUB}}) as fake:
        env = {**__import__("os").environ, **_env(fake, tmp_path)}
        out = run_advisor("pilot", "run", "--model", "test-org/tiny-llama-2l", "--method", "lora", "--steps", "2",
                          "--seq-len", "32", "--json", "--state-db", str(tmp_path / "state.db"),
                          "--out-dir", str(tmp_path / "runs"), env=env)
        assert out.returncode == 0, out.stderr
        result = json.loads(out.stdout)
        assert result["state"] == "finished" and result["spec"]["model"] == "hf:test-org/tiny-llama-2l"
        assert {p.rsplit("/", 1)[1] for p in fake.paths()} == {"config.json"}


def test_cli_launch_config_says_a_hub_only_model_is_sized_and_piloted_elsewhere(cli, hub, tmp_path):
    from click.testing import CliRunner

    from advisor.cli import main

    result = CliRunner().invoke(main, ["launch-config", "--model", "HuggingFaceTB/SmolLM3-3B", "--format", "trl"],
                                env=_env(hub, tmp_path))
    assert result.exit_code == 2
    assert "not in the catalog" in result.output and "advisor estimate --model" in result.output
