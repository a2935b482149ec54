"""`pip install graphrt openai-agents` gives a working graphrt and a working `from agents import Agent` (issue 10).

graphrt's agent library installs as `graphrt_agents`, so the OpenAI Agents SDK's
package `agents` is the SDK's. The SDK is in the `test` extra; both run here in
one fresh process, each against the local scripted OpenAI-compatible server.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

GRAPH = """
nodes:
  name:
    value: Ada
  prompt:
    agent: stringTemplateAgent
    inputs: {name: ":name"}
    params: {template: "Greet ${name}"}
  llm:
    agent: openAIAgent
    inputs: {prompt: ":prompt"}
  greeting:
    agent: copyAgent
    inputs: {text: ":llm.text"}
    isResult: true
"""

BOTH = """
import json, sys
import graphrt
from agents import Agent, Runner, set_default_openai_api, set_tracing_disabled

set_default_openai_api("chat_completions")
set_tracing_disabled(True)
sdk = Runner.run_sync(Agent(name="helper", instructions="Be brief."), "Say hello")
results = graphrt.run(sys.argv[1])
print(json.dumps({"agent_class": f"{Agent.__module__}.{Agent.__qualname__}", "sdk": sdk.final_output,
                  "graphrt": results}))
"""


def test_the_agents_sdk_and_graphrt_work_in_one_process(openai_server: Any, reply: Any, tmp_path: Path) -> None:
    graph = tmp_path / "greet.yaml"
    graph.write_text(GRAPH, encoding="utf-8")
    openai_server.script(reply.text("Hello from the SDK"), reply.text("Hello, Ada!"))
    # A folder of its own as the working directory: the repository's agents/ folder must not be on the path.
    done = subprocess.run([sys.executable, "-c", BOTH, str(graph)], cwd=tmp_path, env=dict(os.environ),
                          capture_output=True, text=True, timeout=120)

    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {
        "agent_class": "agents.agent.Agent",
        "sdk": "Hello from the SDK",
        "graphrt": {"greeting": {"text": "Hello, Ada!"}},
    }
    assert [request["messages"][-1]["content"] for request in openai_server.requests] == ["Say hello", "Greet Ada"]
