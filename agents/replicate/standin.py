"""A stand-in of Replicate's HTTP API for replicateAgent's samples and tests: models by `owner/name`, each a function
of its input giving its output (a list of strings, as language models stream them).

    POST /v1/models/{owner}/{name}/predictions {input}   create a prediction; with `Prefer: wait` it answers
                                                         once the prediction has ended, else while it is starting
    GET  /v1/predictions/{id}                           the prediction now (it has ended)

It checks the `Authorization: Bearer` token, and answers Replicate's problem
details (`{title, detail, status}`) for a bad token (401), an unknown model (404)
and an input without a prompt (422). A model that raises gives a failed prediction.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any, Callable, Mapping

from .._loopback import Answer, Request, json_answer

__all__ = ["ReplicateStandIn", "SAMPLE_MODELS", "SAMPLE_TOKEN"]

SAMPLE_TOKEN = "r8_sample"
Model = Callable[[dict[str, Any]], Any]


def _echo_words(input: dict[str, Any]) -> list[str]:
    """The samples' model: answers "You said: <prompt>" a word at a time."""
    words = f"You said: {input['prompt']}".split(" ")
    return [word if index == 0 else f" {word}" for index, word in enumerate(words)]


SAMPLE_MODELS: dict[str, Model] = {"meta/meta-llama-3-8b-instruct": _echo_words}


class ReplicateStandIn:
    """Replicate's predictions API over `models` (see the module's docstring); every request is kept in `requests`."""

    def __init__(self, models: Mapping[str, Model] | None = None, token: str | None = SAMPLE_TOKEN) -> None:
        self.models = dict(SAMPLE_MODELS if models is None else models)
        self.token = token
        self.requests: list[Request] = []
        self.predictions: dict[str, dict[str, Any]] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def _problem(self, status: int, title: str, detail: str) -> Answer:
        return json_answer(status, {"title": title, "detail": detail, "status": status})

    def answer(self, request: Request) -> Answer:
        with self._lock:
            self.requests.append(request)
            given = request.headers.get("authorization", "")
            if not given.startswith("Bearer ") or (self.token is not None and given != f"Bearer {self.token}"):
                return self._problem(401, "Unauthenticated", "You did not pass a valid authentication token")
            parts = request.path.strip("/").split("/")
            if request.method == "POST" and len(parts) == 5 and parts[:2] == ["v1", "models"] and parts[4] == "predictions":
                return self._create(f"{parts[2]}/{parts[3]}", request)
            if request.method == "GET" and len(parts) == 3 and parts[:2] == ["v1", "predictions"]:
                prediction = self.predictions.get(parts[2])
                if prediction is None:
                    return self._problem(404, "Not found", "The requested resource could not be found.")
                return json_answer(200, self._ended(prediction))
            return self._problem(404, "Not found", "The requested resource could not be found.")

    def _create(self, model: str, request: Request) -> Answer:
        run = self.models.get(model)
        if run is None:
            return self._problem(404, "Not found", f"The requested model {model} could not be found.")
        body = request.json()
        input = body.get("input") if isinstance(body, dict) else None
        if not isinstance(input, dict) or not isinstance(input.get("prompt"), str):
            return json_answer(422, {"title": "Input validation failed", "detail": "- input: prompt is required",
                                     "status": 422, "invalid_fields": [{"type": "required", "field": "input.prompt",
                                                                        "description": "prompt is required"}]})
        number = next(self._ids)
        prediction = {"id": f"p{number:08d}", "model": model, "version": "hidden", "input": input, "logs": "",
                      "output": None, "error": None, "status": "starting", "created_at": "2025-01-01T00:00:00.000Z",
                      "urls": {"get": f"/v1/predictions/p{number:08d}",
                               "cancel": f"/v1/predictions/p{number:08d}/cancel"}, "_run": run}
        self.predictions[prediction["id"]] = prediction
        if request.headers.get("prefer", "").startswith("wait"):
            return json_answer(201, self._ended(prediction))
        return json_answer(201, {key: value for key, value in prediction.items() if key != "_run"})

    def _ended(self, prediction: dict[str, Any]) -> dict[str, Any]:
        """The prediction, run to its end once (succeeded with its output, or failed with the model's error)."""
        if prediction["status"] == "starting":
            try:
                prediction["output"] = prediction["_run"](prediction["input"])
                prediction["status"] = "succeeded"
            except Exception as error:  # noqa: BLE001 - a model's own failure is the prediction's error
                prediction["status"], prediction["error"] = "failed", f"{type(error).__name__}: {error}"
            prediction["completed_at"] = "2025-01-01T00:00:01.000Z"
        return {key: value for key, value in prediction.items() if key != "_run"}
