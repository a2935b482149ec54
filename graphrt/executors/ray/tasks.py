"""What a Ray worker runs for one agent call: `invoke` as a task, or an `AgentActor` that holds a stateful agent.

It calls the agent as graphrt.engine.node.call_in_process does in the driver,
with its context rebuilt from the `Call` (large inputs fetched from the object store,
its events relayed to the driver), and sends back an `Outcome`.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo
from graphrt.executors.ray.installed import ray
from graphrt.executors.ray.relay import Relayed
from graphrt.executors.ray.values import is_large, materialized
from graphrt.executors.ray.wire import Call, Outcome, failure

__all__ = ["AgentActor", "invoke"]


def invoke(call: Any, request: Call, large_value_bytes: int) -> Outcome:
    """Runs an agent on a worker, as graphrt.engine.node.call_in_process does in the driver.

    A sync agent runs on the worker's main thread, so that `ray.cancel` interrupts it.
    """
    recorder = Relayed(request.relay, request.key)
    ctx = AgentContext(
        inputs=materialized(request.inputs), params=request.params, node_id=request.node_id,
        agent_id=request.agent_id, filter_params=request.filter_params, config=request.config,
        retry_count=request.retry_count, emitter=recorder, run_id=request.run_id,  # type: ignore[arg-type]
        path=request.path, answer=request.answer, agent_info=call if isinstance(call, AgentInfo) else None,
    )
    try:
        if isinstance(call, AgentInfo):
            result = asyncio.run(call.func(ctx)) if call.is_async else call.func(ctx)
        else:
            result = call(ctx)
        if inspect.isawaitable(result):
            result = asyncio.run(_awaited(result))
    except Exception as error:  # noqa: BLE001 - every agent failure goes back to the driver
        return failure(error)
    finally:
        recorder.close()
    if is_large(result, large_value_bytes):
        return Outcome(result_ref=ray.put(result))
    return Outcome(result=result)


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


class AgentActor:
    """Holds one stateful agent (a toolset instance) for every call of it on the cluster."""

    def __init__(self, call: Any, large_value_bytes: int) -> None:
        self._call = call
        self._large = large_value_bytes

    def run(self, request: Call) -> Outcome:
        return invoke(self._call, request, self._large)
