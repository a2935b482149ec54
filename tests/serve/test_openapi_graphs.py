"""The OpenAPI document types each graph's start request with its inputs and its run with its results."""

from __future__ import annotations

import jsonschema

GREET = """\
version: 0.5
metadata:
  inputs:
    name: {type: string, description: who to greet}
nodes:
  name: {}
  language:
    value: en
  greeting:
    agent: stringTemplateAgent
    inputs: {name: ":name", language: ":language"}
    params: {template: "[${language}] Hello, ${name}!"}
    isResult: true
"""


def test_each_graph_has_a_typed_start_path(serve):
    served = serve({"team/greet.yaml": GREET, "broken.yaml": "version: 0.5\nnodes:\n  a: {agent: nope}\n"})
    with served.client() as client:
        spec = client.get("/openapi.json").json()
    start = spec["paths"]["/graphs/team/greet/runs"]["post"]
    inputs_ref = start["requestBody"]["content"]["application/json"]["schema"]["properties"]["inputs"]["$ref"]
    inputs = spec["components"]["schemas"][inputs_ref.rsplit("/", 1)[1]]
    assert inputs["properties"]["name"] == {"type": "string", "description": "who to greet"}
    assert inputs["properties"]["language"] == {"type": "string", "default": "en"}
    assert inputs["required"] == ["name"] and inputs["additionalProperties"] is False
    jsonschema.validate({"name": "Ada"}, inputs)
    run_ref = start["responses"]["202"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    assert "greeting" in spec["components"]["schemas"][run_ref]["allOf"][1]["properties"]["results"]["properties"]
    assert "/graphs/broken/runs" not in spec["paths"]  # a graph that cannot run has no start path of its own
    assert "/v1/chat/completions" in spec["paths"]
