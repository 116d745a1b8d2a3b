"""The scripted OpenAI server against the real ``openai`` client: each failure the provider
policy (spec 10) reacts to must reach the client as the exception it will see in production."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam

from tests.conftest import REPO
from tests.support.openai_server import (
    Delay,
    Drop,
    Reply,
    ScriptedOpenAIServer,
    Status,
    action_from_json,
    load_script,
    running_server,
)

API_KEY = "sk-test-scripted-0123456789"
MESSAGES: list[ChatCompletionMessageParam] = [
    {"role": "system", "content": "Return JSON."},
    {"role": "user", "content": "Tag this article."},
]


@pytest.fixture
def client(server: ScriptedOpenAIServer) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(
        base_url=server.base_url, api_key=API_KEY, max_retries=0, timeout=0.5
    ) as real_client:
        yield real_client


def ask(client: openai.OpenAI, model: str, **kwargs: Any) -> ChatCompletion:
    completion: ChatCompletion = client.chat.completions.create(
        model=model, messages=MESSAGES, **kwargs
    )
    return completion


def test_a_reply_is_parsed_by_the_official_client(
    server: ScriptedOpenAIServer, client: openai.OpenAI
) -> None:
    server.script("cheap-a", Reply({"tags": ["economia"]}, prompt_tokens=120, completion_tokens=9))

    completion = ask(client, "cheap-a")

    assert json.loads(completion.choices[0].message.content or "") == {"tags": ["economia"]}
    assert completion.choices[0].finish_reason == "stop"
    assert completion.model == "cheap-a"
    assert completion.usage is not None
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (120, 9)
    assert completion.usage.total_tokens == 129
    assert server.unscripted == []
    assert server.pending() == {}


def test_a_text_reply_is_sent_verbatim(server: ScriptedOpenAIServer, client: openai.OpenAI) -> None:
    server.script("cheap-a", Reply("not json at all"))

    assert ask(client, "cheap-a").choices[0].message.content == "not json at all"


@pytest.mark.parametrize(
    ("code", "error"),
    [
        (400, openai.BadRequestError),
        (401, openai.AuthenticationError),
        (429, openai.RateLimitError),
        (500, openai.InternalServerError),
        (503, openai.InternalServerError),
    ],
)
def test_a_status_raises_the_client_error_for_that_code(
    server: ScriptedOpenAIServer,
    client: openai.OpenAI,
    code: int,
    error: type[openai.APIStatusError],
) -> None:
    server.script("cheap-a", Status(code))

    with pytest.raises(error) as caught:
        ask(client, "cheap-a")

    assert caught.value.status_code == code
    assert (caught.value.request_id or "").startswith("req_scripted_")


@pytest.mark.parametrize("header", ["Retry-After", "retry-after-ms"])
def test_a_429_carries_its_retry_header_to_the_exception(
    server: ScriptedOpenAIServer, client: openai.OpenAI, header: str
) -> None:
    server.script("cheap-a", Status(429, headers={header: "1"}))

    with pytest.raises(openai.RateLimitError) as caught:
        ask(client, "cheap-a")

    assert caught.value.response.headers[header] == "1"


def test_a_status_body_can_be_scripted(server: ScriptedOpenAIServer, client: openai.OpenAI) -> None:
    server.script("cheap-a", Status(503, body="upstream overloaded"))

    with pytest.raises(openai.InternalServerError) as caught:
        ask(client, "cheap-a")

    assert caught.value.response.text == "upstream overloaded"


def test_a_delay_beyond_the_client_timeout_is_a_timeout(server: ScriptedOpenAIServer) -> None:
    server.script("slow", Delay(5, then=Reply("too late")), Reply("in time"))

    with openai.OpenAI(
        base_url=server.base_url, api_key=API_KEY, max_retries=0, timeout=0.2
    ) as impatient:
        with pytest.raises(openai.APITimeoutError):  # not the answer 5 s later
            ask(impatient, "slow")

        # The abandoned slow answer does not block the next request.
        assert ask(impatient, "slow").choices[0].message.content == "in time"


def test_a_delay_within_the_timeout_still_answers(
    server: ScriptedOpenAIServer, client: openai.OpenAI
) -> None:
    server.script("slow", Delay(0.05, then=Reply("late but fine")))

    assert ask(client, "slow").choices[0].message.content == "late but fine"


def test_drop_is_a_connection_error_and_not_a_timeout(
    server: ScriptedOpenAIServer, client: openai.OpenAI
) -> None:
    server.script("flaky", Drop(), Reply("back"), Drop())

    with pytest.raises(openai.APIConnectionError) as caught:
        ask(client, "flaky")
    assert not isinstance(caught.value, openai.APITimeoutError)  # closed, not waited out

    # The server keeps serving; a drop on a reused keep-alive connection also fails cleanly.
    assert ask(client, "flaky").choices[0].message.content == "back"
    with pytest.raises(openai.APIConnectionError) as again:
        ask(client, "flaky")
    assert not isinstance(again.value, openai.APITimeoutError)
    assert len(server.calls_for("flaky")) == 3


def test_calls_are_recorded_per_model_in_order(
    server: ScriptedOpenAIServer, client: openai.OpenAI
) -> None:
    schema_format: dict[str, Any] = {
        "type": "json_schema",
        "json_schema": {"name": "tags", "strict": True, "schema": {"type": "object"}},
    }
    server.script("primary", Status(429, headers={"Retry-After": "0"}), Status(500))
    server.script("fallback", Reply({"tags": []}))

    for _ in range(2):
        with pytest.raises(openai.APIStatusError):
            ask(client, "primary", response_format=schema_format, temperature=0)
    ask(client, "fallback", response_format={"type": "json_object"}, max_tokens=64)

    assert [call.model for call in server.calls] == ["primary", "primary", "fallback"]
    assert [call.action for call in server.calls_for("primary")] == [
        Status(429, headers={"Retry-After": "0"}),
        Status(500),
    ]
    first, fallback = server.calls[0], server.calls_for("fallback")[0]
    assert first.path == "/v1/chat/completions"
    assert first.messages == MESSAGES
    assert first.response_format == schema_format
    assert first.temperature == 0
    assert fallback.response_format == {"type": "json_object"}
    assert fallback.max_tokens == 64
    assert server.calls[0].received_at <= server.calls[1].received_at <= fallback.received_at
    assert server.unscripted == []
    assert server.pending() == {}


def test_an_unscripted_model_gets_a_500_and_is_listed(
    server: ScriptedOpenAIServer, client: openai.OpenAI
) -> None:
    server.script("cheap-a", Reply("only once"))
    ask(client, "cheap-a")

    for model in ("cheap-a", "nobody-scripted-me"):
        with pytest.raises(openai.InternalServerError) as caught:
            ask(client, model)
        assert "unscripted" in caught.value.message

    assert [call.model for call in server.unscripted] == ["cheap-a", "nobody-scripted-me"]
    assert all(call.action is None for call in server.unscripted)


def test_a_body_that_is_not_json_gets_a_400_and_is_listed(server: ScriptedOpenAIServer) -> None:
    request = urllib.request.Request(
        f"{server.base_url}/chat/completions", data=b"{not json", method="POST"
    )

    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=2)
    caught.value.close()

    assert caught.value.code == 400
    assert [(call.model, call.body) for call in server.unscripted] == [(None, None)]


def test_the_authorization_header_reaches_the_server(
    server: ScriptedOpenAIServer, client: openai.OpenAI
) -> None:
    server.script("cheap-a", Reply("ok"))

    ask(client, "cheap-a")

    (call,) = server.calls
    assert call.authorization == f"Bearer {API_KEY}"
    assert {"authorization", "content-type", "x-stainless-retry-count"} <= call.headers_seen


def test_models_lists_the_scripted_models(
    server: ScriptedOpenAIServer, client: openai.OpenAI
) -> None:
    server.script("cheap-b", Reply("b"))
    server.script("cheap-a", Reply("a"))

    assert [model.id for model in client.models.list()] == ["cheap-a", "cheap-b"]


def test_a_responder_answers_by_content_before_the_queue(
    server: ScriptedOpenAIServer, client: openai.OpenAI
) -> None:
    seen: list[tuple[str, str]] = []

    def by_content(model: str, body: dict[str, Any]) -> Reply | None:
        user = body["messages"][-1]["content"]
        seen.append((model, user))
        if "article-b" in user:
            return Reply({"for": "b", "model": model})
        return None  # falls through to the model's queue

    server.respond_with(by_content)
    server.script("cheap-a", Reply({"for": "queue"}))

    def ask_about(article: str, model: str) -> Any:
        completion = client.chat.completions.create(
            model=model, messages=[{"role": "user", "content": f"Tag {article}."}]
        )
        return json.loads(completion.choices[0].message.content or "")

    assert ask_about("article-b", "cheap-a") == {"for": "b", "model": "cheap-a"}
    assert ask_about("article-a", "cheap-a") == {"for": "queue"}
    assert ask_about("article-b", "cheap-z") == {"for": "b", "model": "cheap-z"}
    assert seen == [
        ("cheap-a", "Tag article-b."),
        ("cheap-a", "Tag article-a."),
        ("cheap-z", "Tag article-b."),
    ]
    assert [call.action for call in server.calls] == [
        Reply({"for": "b", "model": "cheap-a"}),
        Reply({"for": "queue"}),
        Reply({"for": "b", "model": "cheap-z"}),
    ]
    assert server.calls[0].messages == [{"role": "user", "content": "Tag article-b."}]
    assert server.pending() == {} and server.unscripted == [] and server.responder_errors == []

    # Unknown content for a model with an empty queue is unscripted, as without a responder.
    with pytest.raises(openai.InternalServerError):
        ask_about("article-c", "cheap-a")
    assert [call.model for call in server.unscripted] == ["cheap-a"]

    server.respond_with(None)
    server.script("cheap-a", Reply("queue again"))
    assert ask(client, "cheap-a").choices[0].message.content == "queue again"
    assert len(seen) == 4  # removed: no longer consulted


def test_a_responder_may_delay_or_fail_like_a_script(
    server: ScriptedOpenAIServer, client: openai.OpenAI
) -> None:
    server.respond_with(lambda model, _body: Status(429) if model == "busy" else Drop())

    with pytest.raises(openai.RateLimitError):
        ask(client, "busy")
    with pytest.raises(openai.APIConnectionError):
        ask(client, "flaky")
    assert [call.action for call in server.calls] == [Status(429), Drop()]


@pytest.mark.parametrize(
    ("misbehaving", "error"),
    [
        (lambda _model, _body: 1 / 0, ZeroDivisionError),
        (lambda _model, _body: {"content": "a dict, not an action"}, TypeError),
    ],
)
def test_a_failing_responder_is_a_500_and_its_error_is_kept(
    server: ScriptedOpenAIServer,
    client: openai.OpenAI,
    misbehaving: Any,
    error: type[Exception],
) -> None:
    server.respond_with(misbehaving)
    server.script("cheap-a", Reply("the queue is not used when the responder fails"))

    with pytest.raises(openai.InternalServerError) as caught:
        ask(client, "cheap-a")

    assert "responder" in caught.value.message
    assert [type(kept) for kept in server.responder_errors] == [error]
    assert [call.model for call in server.unscripted] == ["cheap-a"]
    assert list(server.pending()) == ["cheap-a"]


def test_repeat_last_serves_the_final_action_forever() -> None:
    with running_server(repeat_last=True) as server:
        server.script("demo", Status(503), Reply("steady"))
        with openai.OpenAI(base_url=server.base_url, api_key=API_KEY, max_retries=0) as client:
            with pytest.raises(openai.InternalServerError):
                ask(client, "demo")
            answers = [ask(client, "demo").choices[0].message.content for _ in range(3)]
    assert answers == ["steady"] * 3


def test_script_rejects_what_is_not_an_action(server: ScriptedOpenAIServer) -> None:
    with pytest.raises(TypeError):
        server.script("cheap-a", [Reply("a list by mistake")])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        server.script("cheap-a", Delay(1, then="late"))  # type: ignore[arg-type]


def test_the_server_leaves_no_thread_behind() -> None:
    before = set(threading.enumerate())
    with running_server() as server:
        server.script("cheap-a", Delay(5, then=Reply("never read")))
        with (
            openai.OpenAI(
                base_url=server.base_url, api_key=API_KEY, max_retries=0, timeout=0.2
            ) as client,
            pytest.raises(openai.APITimeoutError),
        ):
            ask(client, "cheap-a")
    assert set(threading.enumerate()) == before


@pytest.mark.parametrize(
    ("spec", "action"),
    [
        ({"reply": {"tags": []}}, Reply({"tags": []})),
        ({"reply_text": "not json", "prompt_tokens": 3}, Reply("not json", prompt_tokens=3)),
        (
            {"status": 429, "headers": {"Retry-After": "1"}},
            Status(429, headers={"Retry-After": "1"}),
        ),
        ({"delay": 3, "then": {"drop": True}}, Delay(3.0, then=Drop())),
        ({"drop": True}, Drop()),
    ],
)
def test_json_actions_decode(spec: dict[str, Any], action: object) -> None:
    assert action_from_json(spec) == action


@pytest.mark.parametrize(
    "spec",
    [
        {},
        {"reply": "a", "drop": True},
        ["reply"],
        {"delay": 1},
        {"reply": 3},
        {"reply_text": {"a": 1}},
    ],
)
def test_malformed_json_actions_are_rejected(spec: object) -> None:
    with pytest.raises(ValueError):
        action_from_json(spec)


def test_the_command_line_serves_a_script_until_sigterm(tmp_path: Path) -> None:
    cases = tmp_path / "cases.json"
    cases.write_text(
        json.dumps({"demo": [{"status": 503}, {"reply": {"secret": "body-marker-42"}}]}),
        encoding="utf-8",
    )
    assert list(load_script(cases)) == ["demo"]
    command = [sys.executable, "-m", "tests.support.openai_server", "--script", str(cases)]
    command.append("--repeat")
    with subprocess.Popen(
        command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as proc:
        try:
            assert proc.stdout is not None
            base_url = proc.stdout.readline().strip()
            assert base_url.startswith("http://127.0.0.1:")
            assert base_url.endswith("/v1")
            with openai.OpenAI(base_url=base_url, api_key=API_KEY, max_retries=0) as client:
                with pytest.raises(openai.InternalServerError):
                    ask(client, "demo")
                for _ in range(2):
                    assert "body-marker-42" in (
                        ask(client, "demo").choices[0].message.content or ""
                    )
        finally:
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0
    assert "demo" in err  # one line per request: path, model, action kind
    for text in (out, err):
        assert "body-marker-42" not in text
        assert "Tag this article" not in text
        assert API_KEY not in text
