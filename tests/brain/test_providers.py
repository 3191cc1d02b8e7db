"""The provider interface: the local provider, and the OpenAI-compatible client against a loopback server."""

import pytest

from brain.providers import (
    LocalProvider,
    OpenAICompatibleProvider,
    ProviderError,
    ProviderKeyMissing,
    get_provider,
    register_task,
)
from tests.loopback import LoopbackOpenAI

register_task(
    "tests.echo", system_prompt="Echo the payload's word.", local=lambda p: {"word": p["word"].upper()}
)


def test_the_local_provider_runs_the_registered_deterministic_task(settings):
    settings.BRAIN_LLM_PROVIDER = {"BACKEND": "brain.providers.LocalProvider"}
    provider = get_provider()
    assert isinstance(provider, LocalProvider) and provider.is_usable()
    assert provider.run("tests.echo", {"word": "hi"}) == {"word": "HI"}


def test_the_openai_provider_sends_json_mode_chat_completions_to_its_base_url():
    with LoopbackOpenAI() as server:
        server.chat_answers.append({"word": "from-llm"})
        provider = OpenAICompatibleProvider(
            **{k: v for k, v in server.provider_settings().items() if k != "BACKEND"}
        )
        assert provider.run("tests.echo", {"word": "hi"}) == {"word": "from-llm"}
    sent = server.requests[0]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["body"]["response_format"] == {"type": "json_object"}
    assert sent["auth"] == "Bearer test-key"
    assert '"word": "hi"' in sent["body"]["messages"][1]["content"]


def test_a_missing_key_makes_the_provider_unusable_with_a_reason():
    provider = OpenAICompatibleProvider(BASE_URL="http://127.0.0.1:9/v1", API_KEY="")
    assert provider.unusable_reason == "provider_key_missing"
    with pytest.raises(ProviderKeyMissing):
        provider.run("tests.echo", {"word": "x"})


@pytest.mark.parametrize("answer", ["not json", "[1, 2]"])
def test_malformed_answers_raise_provider_error(answer):
    with LoopbackOpenAI() as server:
        server.chat_answers.append(answer)
        provider = OpenAICompatibleProvider(BASE_URL=server.base_url, API_KEY="test-key")
        with pytest.raises(ProviderError):
            provider.run("tests.echo", {"word": "x"})


def test_http_errors_raise_provider_error():
    with LoopbackOpenAI() as server:
        server.fail_next = 1
        server.chat_answers.append({"word": "x"})
        provider = OpenAICompatibleProvider(BASE_URL=server.base_url, API_KEY="test-key")
        with pytest.raises(ProviderError, match="500"):
            provider.run("tests.echo", {"word": "x"})
