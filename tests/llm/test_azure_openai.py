"""openAIAgent on Azure OpenAI: through the openai SDK's AsyncAzureOpenAI, against a scripted server on 127.0.0.1
that speaks Azure's paths (`/openai/deployments/{deployment}/chat/completions?api-version=...`) and signing
(`api-key`, or `Authorization: Bearer` for Microsoft Entra ID), and refuses what Azure refuses. The rule GraphAI
uses (a `.openai.azure.com` host) is tested without a request: such a host is not on 127.0.0.0/8."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import openai
import pytest
from graphrt_agents.llm.azure import is_azure_endpoint
from graphrt_agents.llm.openai_provider import OPENAI

from graphrt import AgentError
from graphrt.observe.events import TokenDelta

from ..commands import GRAPHRT
from .scripted_providers import AZURE_DEPLOYMENTS

pytestmark = pytest.mark.anyio


def llm_node(**node: Any) -> dict[str, Any]:
    return {"version": 0.5, "nodes": {"llm": {"agent": "openAIAgent", "isResult": True, **node}}}


def azure_params(server: Any, **more: Any) -> dict[str, Any]:
    return {"baseURL": server.url, "azure": True, "apiKey": "azure-key-0001", **more}


async def test_a_request_goes_to_the_model_s_deployment_with_the_api_version_and_key(azure_api, reply, run_graph):
    azure_api.script(reply.text("Bonjour."))
    results = await run_graph(llm_node(inputs={"prompt": "Say hello"}, params=azure_params(azure_api)))
    assert results["llm"]["text"] == "Bonjour."
    assert results["llm"]["messages"][-1] == {"role": "assistant", "content": "Bonjour."}
    sent = azure_api.requests[0]
    assert sent.path == "/openai/deployments/gpt-4o/chat/completions"
    assert sent.query == {"api-version": ["2025-04-01-preview"]}
    assert sent.headers["api-key"] == "azure-key-0001"
    assert "authorization" not in sent.headers
    assert sent.body == {"model": "gpt-4o", "messages": [{"role": "user", "content": "Say hello"}], "temperature": 0.7}


async def test_the_model_names_the_deployment_as_in_graphai(azure_api, reply, run_graph):
    azure_api.script(reply.text("ok"))
    await run_graph(llm_node(inputs={"prompt": "x"}, params=azure_params(azure_api, model="chat-prod")))
    assert azure_api.requests[0].path == "/openai/deployments/chat-prod/chat/completions"


async def test_deployment_pins_the_path_whatever_the_model(azure_api, reply, run_graph):
    azure_api.script(reply.text("ok"))
    params = azure_params(azure_api, model="gpt-4o-mini", deployment="chat-prod", max_tokens=5)
    await run_graph(llm_node(inputs={"prompt": "x"}, params=params))
    sent = azure_api.requests[0]
    assert sent.path == "/openai/deployments/chat-prod/chat/completions"
    assert sent.body["model"] == "gpt-4o-mini"
    assert sent.body["max_completion_tokens"] == 5 and "max_tokens" not in sent.body  # Azure takes OpenAI's name


async def test_api_version_comes_from_inputs_params_the_environment_or_graphai_s_default(azure_api, reply, run_graph,
                                                                                       monkeypatch):
    monkeypatch.setenv("OPENAI_API_VERSION", "2024-10-21")
    azure_api.script(reply.text("a"), reply.text("b"), reply.text("c"))
    await run_graph(llm_node(inputs={"prompt": "x"}, params=azure_params(azure_api)))
    await run_graph(llm_node(inputs={"prompt": "x"}, params=azure_params(azure_api, apiVersion="2024-06-01")))
    await run_graph(llm_node(inputs={"prompt": "x", "apiVersion": "2025-01-01-preview"},
                             params=azure_params(azure_api, apiVersion="2024-06-01")))
    versions = [request.query["api-version"] for request in azure_api.requests]
    assert versions == [["2024-10-21"], ["2024-06-01"], ["2025-01-01-preview"]]


async def test_an_entra_id_token_is_sent_as_a_bearer_token(azure_api, reply, run_graph):
    azure_api.script(reply.text("ok"))
    params = {"baseURL": azure_api.url, "azure": True, "azureADToken": "eyJ0eXAi.entra.token"}
    await run_graph(llm_node(inputs={"prompt": "x"}, params=params))
    headers = azure_api.requests[0].headers
    assert headers["authorization"] == "Bearer eyJ0eXAi.entra.token"
    assert "api-key" not in headers


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_a_token_provider_given_from_python_is_asked_before_each_request(azure_api, reply, run_graph, kind):
    asked: list[str] = []

    def sync_provider() -> str:
        asked.append(f"token-{len(asked) + 1}")
        return asked[-1]

    async def async_provider() -> str:
        return sync_provider()

    azure_api.script(reply.error(503, "busy"), reply.text("ok"))
    config = {"openAIAgent": {"baseURL": azure_api.url, "azure": True,
                              "azureADTokenProvider": sync_provider if kind == "sync" else async_provider}}
    results = await run_graph(llm_node(inputs={"prompt": "x"}, params={"retryDelay": 0}), config=config)
    assert results["llm"]["text"] == "ok"
    assert [request.headers["authorization"] for request in azure_api.requests] == ["Bearer token-1", "Bearer token-2"]
    assert asked == ["token-1", "token-2"]


async def test_a_token_provider_that_fails_fails_the_node_and_says_so(azure_api, reply, run_graph):
    def provider() -> str:
        raise RuntimeError("no Azure CLI login")

    config = {"openAIAgent": {"baseURL": azure_api.url, "azure": True, "azureADTokenProvider": provider}}
    with pytest.raises(AgentError) as caught:
        await run_graph(llm_node(inputs={"prompt": "x"}), config=config)
    assert caught.value.message == "openAIAgent: azureADTokenProvider failed: RuntimeError: no Azure CLI login"
    assert azure_api.requests == []


async def test_a_token_provider_that_is_not_a_function_is_a_clear_error(azure_api, run_graph):
    params = {"baseURL": azure_api.url, "azure": True, "azureADTokenProvider": "az login"}
    with pytest.raises(AgentError) as caught:
        await run_graph(llm_node(inputs={"prompt": "x"}, params=params))
    assert caught.value.message == ("openAIAgent: azureADTokenProvider must be a function that returns a Microsoft "
                                    "Entra ID token (given in the run's config from Python), got str")


async def test_the_environment_s_endpoint_and_key_are_azure_s_and_openai_s_key_never_goes_there(azure_api, reply,
                                                                                              run_graph, monkeypatch):
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", azure_api.url)
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-env-key-0002")
    azure_api.script(reply.text("ok"))
    results = await run_graph(llm_node(inputs={"prompt": "x"}))
    assert results["llm"]["text"] == "ok"
    headers = azure_api.requests[0].headers
    assert headers["api-key"] == "azure-env-key-0002"
    assert not any("sk-openai-not-for-azure" in value for value in headers.values())


async def test_the_environment_s_entra_token_comes_before_its_key_as_in_the_sdk(azure_api, reply, run_graph,
                                                                              monkeypatch):
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", azure_api.url)
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-env-key-0002")
    monkeypatch.setenv("AZURE_OPENAI_AD_TOKEN", "entra-env-token")
    azure_api.script(reply.text("ok"))
    await run_graph(llm_node(inputs={"prompt": "x"}))
    headers = azure_api.requests[0].headers
    assert headers["authorization"] == "Bearer entra-env-token" and "api-key" not in headers


async def test_openai_s_base_url_comes_before_azure_s_endpoint(azure_api, openai_server, reply, run_graph,
                                                             monkeypatch):
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", azure_api.url)
    openai_server.script(reply.text("from OpenAI's variable"))
    results = await run_graph(llm_node(inputs={"prompt": "x"}))
    assert results["llm"]["text"] == "from OpenAI's variable"
    assert azure_api.requests == []


def _token_module(folder: Path) -> str:
    """A module whose `entra` hands out numbered tokens, as azure-identity's bearer token provider would."""
    (folder / "entra_tokens_for_test.py").write_text(textwrap.dedent("""
        import itertools
        _numbers = itertools.count(1)

        def entra():
            return f"cli-token-{next(_numbers)}"
    """))
    return "entra_tokens_for_test:entra"


async def test_the_environment_can_name_a_token_provider_function(azure_api, reply, run_graph, monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", azure_api.url)
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-env-key-0002")  # the provider comes first
    monkeypatch.setenv("GRAPHRT_AZURE_AD_TOKEN_PROVIDER", _token_module(tmp_path))
    azure_api.script(reply.text("ok"))
    await run_graph(llm_node(inputs={"prompt": "x"}))
    headers = azure_api.requests[0].headers
    assert headers["authorization"].startswith("Bearer cli-token-") and "api-key" not in headers


@pytest.mark.parametrize("name, said", [
    ("entra_tokens_for_test", " must name a function as module:attribute, got 'entra_tokens_for_test'"),
    ("no_such_module_here:entra", "=no_such_module_here:entra: cannot import it (ModuleNotFoundError: No module "
                                  "named 'no_such_module_here')"),
    ("entra_tokens_for_test:_numbers", "=entra_tokens_for_test:_numbers is count, not a function"),
])
async def test_a_token_provider_the_environment_names_wrongly_is_a_clear_error(azure_api, run_graph, monkeypatch,
                                                                                tmp_path, name, said):
    monkeypatch.syspath_prepend(str(tmp_path))
    _token_module(tmp_path)
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", azure_api.url)
    monkeypatch.setenv("GRAPHRT_AZURE_AD_TOKEN_PROVIDER", name)
    with pytest.raises(AgentError) as caught:
        await run_graph(llm_node(inputs={"prompt": "x"}))
    assert caught.value.message == f"openAIAgent: GRAPHRT_AZURE_AD_TOKEN_PROVIDER{said}"


async def test_graphrt_run_reaches_azure_with_entra_id_from_the_environment(azure_api, reply, tmp_path):
    graph = tmp_path / "ask.yaml"
    graph.write_text(json.dumps(llm_node(inputs={"prompt": "Say hello"})))
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "AZURE_OPENAI_ENDPOINT": azure_api.url,
           "GRAPHRT_AZURE_AD_TOKEN_PROVIDER": _token_module(tmp_path), "OPENAI_API_VERSION": "2024-10-21"}
    azure_api.script(reply.text("Hello from Azure."))
    done = subprocess.run([*GRAPHRT, "run", str(graph)], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Hello from Azure." in done.stdout
    sent = azure_api.requests[0]
    assert sent.path == "/openai/deployments/gpt-4o/chat/completions"
    assert sent.query == {"api-version": ["2024-10-21"]}
    assert sent.headers["authorization"] == "Bearer cli-token-1"


async def test_without_a_credential_azure_fails_before_any_request(azure_api, run_graph):
    params = {"baseURL": azure_api.url, "azure": True}
    with pytest.raises(AgentError) as caught:
        await run_graph(llm_node(inputs={"prompt": "x"}, params=params))
    assert caught.value.message == (
        f"openAIAgent: {azure_api.url} is Azure OpenAI, which needs a credential: apiKey, azureADToken or "
        "azureADTokenProvider in params or config, or AZURE_OPENAI_API_KEY, AZURE_OPENAI_AD_TOKEN or "
        "GRAPHRT_AZURE_AD_TOKEN_PROVIDER")
    assert azure_api.requests == []


async def test_two_credentials_are_one_too_many(azure_api, run_graph):
    params = azure_params(azure_api, azureADToken="entra")
    with pytest.raises(AgentError) as caught:
        await run_graph(llm_node(inputs={"prompt": "x"}, params=params))
    assert caught.value.message == "openAIAgent: Azure OpenAI takes one credential, not apiKey and azureADToken"


@pytest.mark.parametrize("field, value, said", [("azure", "yes", "azure must be true or false, got str"),
                                                ("apiVersion", 2024, "apiVersion must be text, got int")])
async def test_an_azure_option_of_the_wrong_kind_is_a_clear_error(azure_api, run_graph, field, value, said):
    with pytest.raises(AgentError) as caught:
        await run_graph(llm_node(inputs={"prompt": "x"}, params=azure_params(azure_api, **{field: value})))
    assert caught.value.message == f"openAIAgent: {said}"


async def test_streaming_from_azure_sends_each_token(azure_api, reply, run_graph, events):
    azure_api.script(reply.text("Streamed from Azure."))
    results = await run_graph(llm_node(inputs={"prompt": "x"}, params=azure_params(azure_api, stream=True)))
    assert "".join(event.token for event in events if isinstance(event, TokenDelta)) == "Streamed from Azure."
    assert results["llm"]["text"] == "Streamed from Azure."
    assert azure_api.requests[0].body["stream"] is True


async def test_a_deployment_the_resource_lacks_fails_at_once_in_azure_s_words(azure_api, reply, run_graph):
    azure_api.script(reply.text("unused"))
    with pytest.raises(AgentError) as caught:
        await run_graph(llm_node(inputs={"prompt": "x"}, params=azure_params(azure_api, model="gpt-5")))
    assert caught.value.message == (f"openAIAgent: {azure_api.url} HTTP 404: The API deployment for this resource "
                                    "does not exist.")
    assert "gpt-5" not in AZURE_DEPLOYMENTS and len(azure_api.requests) == 1


async def test_a_throttled_azure_request_is_retried(azure_api, reply, run_graph):
    azure_api.script(reply.error(429, "Rate limit is exceeded.", retry_after_ms="1"), reply.text("ok"))
    results = await run_graph(llm_node(inputs={"prompt": "x"}, params=azure_params(azure_api)))
    assert results["llm"]["text"] == "ok" and len(azure_api.requests) == 2


async def test_a_grammar_never_goes_to_azure(azure_api, reply, run_graph):
    azure_api.script(reply.text("yes"))
    params = azure_params(azure_api, grammar='root ::= "yes"', acceptsGrammar=True)
    await run_graph(llm_node(inputs={"prompt": "x"}, params=params))
    assert "grammar" not in azure_api.requests[0].body


@pytest.mark.parametrize("agent, inputs, path, result", [
    ("openAIImageAgent", {"prompt": "a fox"}, "images/generations", "data"),
    ("ttsOpenaiAgent", {"text": "hello"}, "audio/speech", "buffer"),
    ("sttOpenaiAgent", {"inputStream": b"ID3\x04 speech"}, "audio/transcriptions", "text"),
])
async def test_the_image_and_voice_agents_reach_their_azure_deployments_too(azure_api, reply, run_graph, monkeypatch,
                                                                            agent, inputs, path, result):
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", azure_api.url)
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-env-key-0002")
    azure_api.script(reply.text("heard"))
    results = await run_graph({"version": 0.5, "nodes": {"out": {"agent": agent, "inputs": inputs, "isResult": True}}})
    assert result in results["out"]
    sent = azure_api.requests[0]
    model = {"openAIImageAgent": "dall-e-3", "ttsOpenaiAgent": "tts-1", "sttOpenaiAgent": "whisper-1"}[agent]
    assert sent.path == f"/openai/deployments/{model}/{path}"
    assert sent.query == {"api-version": ["2025-04-01-preview"]} and sent.headers["api-key"] == "azure-env-key-0002"


# --- GraphAI's rule, without a request -------------------------------------------------------


@pytest.mark.parametrize("url, azure", [
    ("https://my-resource.openai.azure.com", True),
    ("https://my-resource.openai.azure.com/", True),
    ("HTTPS://My-Resource.OpenAI.Azure.com:443/", True),
    ("https://openai.azure.com/", False),
    ("https://my-resource.openai.azure.com.example.org/", False),
    ("my-resource.openai.azure.com", False),  # no scheme: JavaScript's URL does not parse it either
    ("https://my-resource.cognitiveservices.azure.com/", False),
    ("https://api.openai.com/v1", False),
    ("http://[::1", False),
    (None, False),
])
def test_graphai_s_rule_is_a_host_ending_in_openai_azure_com(url, azure):
    assert is_azure_endpoint(url) is azure


def test_an_azure_host_gets_the_sdk_s_azure_client_with_graphai_s_api_version(monkeypatch):
    monkeypatch.delenv("OPENAI_API_VERSION", raising=False)
    server = OPENAI.settings({"baseURL": "https://my-resource.openai.azure.com/", "apiKey": "azure-key"}, environ={})
    assert server.azure is not None and server.azure.api_version == "2025-04-01-preview"
    client = OPENAI.client(server, 5.0)
    assert isinstance(client, openai.AsyncAzureOpenAI)
    assert str(client.base_url) == "https://my-resource.openai.azure.com/openai/"
    assert server.is_openai  # OpenAI's request shape: max_completion_tokens, no grammar


def test_azure_false_keeps_an_azure_host_on_openai_s_client():
    server = OPENAI.settings({"baseURL": "https://my-resource.openai.azure.com/openai/v1", "apiKey": "k",
                              "azure": False}, environ={})
    assert server.azure is None
    assert not isinstance(OPENAI.client(server, 5.0), openai.AsyncAzureOpenAI)


def test_a_server_elsewhere_is_not_azure_s():
    server = OPENAI.settings({"baseURL": "http://127.0.0.1:8080/v1"}, environ={"AZURE_OPENAI_API_KEY": "k"})
    assert server.azure is None and server.api_key is None


def test_the_settings_never_show_the_credential_or_the_token_provider():
    def provider() -> str:
        return "secret-token"

    server = OPENAI.settings({"baseURL": "https://r.openai.azure.com", "azureADTokenProvider": provider}, environ={})
    assert server.azure is not None and server.azure.token_provider is provider
    assert "provider" not in repr(server) and "secret" not in repr(server)
