"""The LLM pack's one provider design: every provider below its agents, openAIAgent's module included."""

from __future__ import annotations

import subprocess
import sys


def test_a_provider_s_agent_imports_no_other_agent_s_module() -> None:
    code = """
import sys
import graphrt_agents.llm.embeddings, graphrt_agents.llm.provider, graphrt_agents.llm.retries
for pack in ("graphrt_agents.anthropic.agent", "graphrt_agents.gemini.agent"):
    try:
        __import__(pack)
    except ImportError:  # its extra is not installed
        pass
assert "graphrt_agents.llm.openai_agent" not in sys.modules, sorted(sys.modules)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
