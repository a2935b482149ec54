"""CORS settings (serve/cors.py): a page of an allowed origin may call the API with the key; others may not."""

from __future__ import annotations

from .conftest import HELLO

ORIGIN = "https://app.example.com"
PREFLIGHT = {"Origin": ORIGIN, "Access-Control-Request-Method": "POST",
             "Access-Control-Request-Headers": "authorization, content-type"}


def test_an_allowed_origin_gets_its_preflight_answered_and_may_read_the_answers(serve):
    served = serve({"hello.yaml": HELLO}, api_key="k3y", cors_origins=[ORIGIN])
    with served.client() as client:
        preflight = client.options("/graphs/hello/runs", headers=PREFLIGHT)  # a preflight carries no key
        assert preflight.status_code == 200  # was 405
        assert preflight.headers["access-control-allow-origin"] == ORIGIN
        assert "authorization" in preflight.headers["access-control-allow-headers"].lower()
        started = client.post("/graphs/hello/runs", json={}, headers={"Origin": ORIGIN, "Authorization": "Bearer k3y"})
        assert started.status_code == 202 and started.headers["access-control-allow-origin"] == ORIGIN
        assert "Location" in started.headers["access-control-expose-headers"]
        assert client.get("/graphs", headers={"Origin": ORIGIN}).status_code == 401  # the key is still needed

        other = client.options("/graphs/hello/runs", headers={**PREFLIGHT, "Origin": "https://evil.example"})
        assert other.status_code == 403 and "access-control-allow-origin" not in other.headers  # serve/origin.py


def test_without_settings_no_origin_is_allowed(serve):
    served = serve({"hello.yaml": HELLO})
    with served.client() as client:
        assert "access-control-allow-origin" not in client.options("/graphs/hello/runs", headers=PREFLIGHT).headers
        assert "access-control-allow-origin" not in client.get("/graphs", headers={"Origin": ORIGIN}).headers
