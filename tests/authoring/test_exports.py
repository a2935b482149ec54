"""The authoring API is exported from the graphrt package."""

import graphrt

AUTHORING = ["agent", "tool", "toolset", "as_agent", "Progress", "AgentFilter", "cache_filter",
             "input_validation_filter", "stream_filter", "Registry", "AgentInfo", "AgentContext", "Sample",
             "default_registry", "RegistrationError", "ToolCallError"]


def test_the_authoring_names_are_in_all_and_importable() -> None:
    for name in AUTHORING:
        assert name in graphrt.__all__, name
        assert getattr(graphrt, name) is not None
