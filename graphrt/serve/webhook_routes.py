"""GET /runs/{id}/webhooks: how a run's webhook calls stand, so a client can see whether its receiver got them.

Each delivery: its id (the `Graphrt-Delivery` header), the event, where it goes
(the URL without its query, which may hold a token), its state (`pending`,
`delivered`, `failed`), the calls made, when the next is due and why the last
one failed. The bodies are not repeated: they are the run as GET /runs/{id} shows it.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from graphrt.serve.runs import RunService
from graphrt.serve.webhook_targets import shown_url
from graphrt.serve.webhooks import SUBSCRIBED

__all__ = ["list_webhooks"]


async def list_webhooks(request: Request) -> Response:
    service: RunService = request.app.state.service
    run = await service.get(request.path_params["run_id"])
    deliveries = await service.run_deliveries(run.id)
    return JSONResponse({"run": run.id, "webhooks": [
        {"delivery_id": item.delivery_id, "event": item.event, "url": shown_url(item.url), "state": item.state,
         "calls": item.attempts, **({"next_at": item.next_at} if item.state == "pending" else {}),
         **({"error": item.error} if item.error else {})}
        for item in deliveries if item.event != SUBSCRIBED]})
