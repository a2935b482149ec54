"""The usage vocabulary: sums that say what they do not know, prices from the user's table, one line for a person."""

from __future__ import annotations

import pytest

from graphrt.base.errors import UsageConfigError
from graphrt.base.usage import CallUsage, PriceTable, Usage, estimate_tokens


def _call(input_tokens=100, output_tokens=50, **more) -> CallUsage:
    return CallUsage("openai", "gpt-4o-mini", input_tokens, output_tokens, **more)


def test_no_call_is_a_known_zero():
    shown = Usage().to_dict()
    assert (shown["llm_calls"], shown["total_tokens"], shown["cost_usd"]) == (0, 0, 0.0)


def test_a_call_that_said_nothing_is_counted_as_unknown_beside_the_known():
    usage = Usage()
    usage.add_call(_call(), 0.001, kept=True)
    usage.add_call(None, None, kept=True, label="openai:gpt-4o-mini")
    shown = usage.to_dict()
    assert (shown["llm_calls"], shown["total_tokens"], shown["calls_without_tokens"]) == (2, 150, 1)
    assert shown["cost_usd"] == pytest.approx(0.001) and shown["calls_without_cost"] == 1
    assert usage.summary() == ("2 LLM calls, 150 tokens (100 in, 50 out, 1 call did not say), "
                               "$0.0010 (and unknown for openai:gpt-4o-mini)")


def test_calls_that_all_said_nothing_have_unknown_tokens():
    usage = Usage()
    usage.add_call(None, None, kept=False, label="openai:m")
    assert usage.to_dict()["total_tokens"] is None and usage.to_dict()["cost_usd"] is None
    assert usage.summary() == "1 LLM call (1 retried), tokens unknown, cost unknown (no price for openai:m)"


def test_a_usage_survives_its_json():
    usage = Usage(tool_calls=2, seconds=1.5)
    usage.add_call(_call(cached_tokens=20), 0.5, kept=True)
    usage.add_call(None, None, kept=False, label="openai:gpt-4o-mini")
    assert Usage.from_dict(usage.to_dict()).to_dict() == usage.to_dict()


def test_merged_usages_add_up():
    first, second = Usage(), Usage()
    first.add_call(_call(), 1.0, kept=True)
    second.add_call(_call(10, 5), None, kept=False)
    first.merge(second)
    assert (first.llm_calls, first.tokens, first.cost_usd, first.calls_without_cost) == (2, 165, 1.0, 1)


def test_prices_are_per_million_tokens_with_cached_input_apart():
    prices = PriceTable({"openai": {"gpt-4o-mini": {"input": 0.15, "output": 0.6, "cached_input": 0.075}}})
    cost = prices.cost(_call(1_000_000, 1_000_000, cached_tokens=400_000))
    assert cost == pytest.approx(0.6 * 0.15 + 0.4 * 0.075 + 0.6)


def test_a_price_is_found_under_the_model_asked_when_the_reply_names_a_version():
    prices = PriceTable({"openai": {"gpt-4o-mini": {"input": 1, "output": 1}}})
    dated = CallUsage("openai", "gpt-4o-mini-2024-07-18", 10, 10, asked="gpt-4o-mini")
    assert prices.cost(dated) == pytest.approx(20 / 1e6)
    assert prices.cost(CallUsage("openai", "o3", 10, 10)) is None


@pytest.mark.parametrize("table, said", [
    ([1], "prices: must map providers to models to prices, e.g. {openai: {gpt-4o-mini: {input: 0.15, output: 0.6}}}"),
    ({"openai": 3}, "prices.openai: must map model names to prices, e.g. {gpt-4o-mini: {input: 0.15, output: 0.6}}"),
    ({"openai": {"m": {"input": 1}}}, "prices.openai.m: no 'output' (USD per million output tokens (reasoning included))"),
    ({"openai": {"m": {"input": -1, "output": 1}}},
     "prices.openai.m.input: must be a number from 0 (USD per million input tokens), got -1"),
    ({"openai": {"m": {"input": 1, "output": 1, "cache": 1}}},
     "prices.openai.m: unknown key 'cache' (known: input, output, cached_input)"),
])
def test_a_price_table_that_cannot_be_used_is_one_line(table, said):
    with pytest.raises(UsageConfigError) as caught:
        PriceTable(table)
    assert str(caught.value) == said


def test_an_estimate_of_a_prompt_never_counts_less_than_its_bytes_over_three():
    assert estimate_tokens("abcdef") == 2
    assert estimate_tokens([{"role": "user", "content": "hi"}]) >= 10
