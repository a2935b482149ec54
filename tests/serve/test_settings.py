"""One settings object for a server: `graphrt serve` builds it once from its options, create_app and the
RunService read it, and its defaults are graphrt.base's, so the command and the library cannot drift apart."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from graphrt.base.defaults import KEEP_RUNS, RUNS_IN_MEMORY
from graphrt.cli.main import build_parser
from graphrt.cli.serve_command import server_settings
from graphrt.engine.graph import make_registry
from graphrt.serve import GraphCatalog, ServerSettings, create_app
from graphrt.serve.retention import Retention
from graphrt.serve.webhooks import WebhookSettings

from .conftest import HELLO


def _options(*argv: str) -> ServerSettings:
    return server_settings(build_parser(["serve", "graphs", *argv]).parse_args(["serve", "graphs", *argv]))


def test_graphrt_serve_without_options_serves_with_the_settings_create_app_takes_by_default() -> None:
    given = _options()
    # The connections the process may open are the machine's to say; every other setting is the default's.
    assert dataclasses.replace(given, max_connections=ServerSettings().max_connections,
                               max_streams=ServerSettings().max_streams) == ServerSettings()
    assert given.max_streams == min(ServerSettings().max_streams, given.max_connections // 2)


def test_each_option_of_graphrt_serve_is_a_setting() -> None:
    given = _options("--host", "127.0.0.2", "--port", "0", "--api-key", "k3y", "--max-runs", "3", "--max-queue", "4",
                     "--max-body", "5000", "--keep-runs", "-1", "--keep-days", "2",
                     "--cors-origin", "https://a.example", "--allowed-host", "box.local",
                     "--webhook-url", "https://hooks.example/x", "--webhook-allow-private", "--lease-seconds", "9")

    assert (given.host, given.port, given.api_key, given.max_runs, given.max_queue, given.max_body) == (
        "127.0.0.2", 0, "k3y", 3, 4, 5000)
    assert given.retention == Retention(keep_runs=None, keep_days=2.0)
    assert (given.cors_origins, given.allowed_hosts, given.lease_seconds) == (("https://a.example",), ("box.local",), 9)
    assert given.webhooks == WebhookSettings(url="https://hooks.example/x", allow_private=True)


def test_runs_kept_in_memory_and_ended_runs_the_store_keeps_are_two_settings_of_two_names() -> None:
    settings = ServerSettings()
    assert (settings.runs_in_memory, settings.retention.keep_runs) == (RUNS_IN_MEMORY, KEEP_RUNS)
    assert "keep_runs" not in {field.name for field in dataclasses.fields(ServerSettings)}


def test_webhook_calls_are_signed_with_the_api_key_unless_they_name_a_key_of_their_own() -> None:
    assert ServerSettings().signed_webhooks.key is None
    assert ServerSettings(api_key="k3y").signed_webhooks.key == "k3y"
    assert ServerSettings(api_key="k3y", webhooks=WebhookSettings(key="own")).signed_webhooks.key == "own"


@pytest.mark.parametrize("wrong", [{"max_runs": 0}, {"max_queue": -1}, {"max_body": 0}, {"runs_in_memory": 0},
                                   {"lease_seconds": 0}, {"event_hold_seconds": -1}])
def test_settings_a_server_cannot_run_with_are_refused_when_made(wrong: dict) -> None:
    with pytest.raises(ValueError):
        ServerSettings(**wrong)


def test_create_app_and_its_run_service_read_the_one_settings_object(tmp_path: Path) -> None:
    (tmp_path / "graphs").mkdir()
    (tmp_path / "graphs" / "hello.yaml").write_text(HELLO, encoding="utf-8")
    settings = ServerSettings(max_runs=2, max_queue=5, lease_seconds=7, cors_origins=["https://a.example"])
    service = create_app(GraphCatalog([tmp_path / "graphs"], make_registry(None)), str(tmp_path / "runs.db"),
                         settings).state.service

    assert service.settings is settings and settings.cors_origins == ("https://a.example",)
    assert (service.queue.max_runs, service.queue.max_queue, service.lease.seconds) == (2, 5, 7)
