"""Webhooks: `graphrt serve` calls a URL when a run settles, signed, retried, and saved so that a restart keeps them.

A webhook is the server's (`--webhook-url`, called for every run) or a run's
(`"webhook"` in the POST that starts it; which URLs are allowed: webhook_targets.py).
It is called with a POST of JSON when a run

- finishes (`run.finished`, with its results), fails (`run.failed`, with the error
  located at its node) or is cancelled (`run.cancelled`); or
- stops to wait for a person (`run.interrupted`, with the question): resuming it
  later ends in another call.

The body is redacted as the HTTP answers are (the run's own JSON, without its
node states and inputs):

    {"type": "run.finished", "delivery_id": "...", "time": 1764650000.1,
     "run": {"id": "...", "graph": "hello", "status": "finished", "results": {...},
             "created_at": ..., "updated_at": ..., "url": "/runs/..."}}

Each call is signed with the API key (graphrt/base/signatures.py: how a receiver
checks it, and refuses replays). Any answer but a 2xx is a failure: the call is
made again after 1 s, then 2, 4, ... up to 10 min between calls, 10 calls in all
(`WebhookSettings`), then the delivery is `failed` and a warning says so. Every
delivery is a row of the run's store (checkpoint.base.WebhookStore) from the moment
the run settles, so a server killed with deliveries pending makes them when it
starts again (or, on a store several servers share, by another: each due delivery is taken by one server for
the time of its call, `WebhookStore.take_deliveries`, and is another's to take only once that time has passed
without its outcome saved). Calls go out from one task of their own, a few at once: a slow or
dead receiver never holds a run or a worker, and each call has a deadline (10 s),
so that receivers that trickle their answer cannot hold every call slot. Of an
answer only the status counts: at most `ANSWER_BYTES` of its body are read. Logs name the URL without its query
(webhook_targets.shown_url) and never the body.

A run that settled in the moment before its delivery row was written (a few
milliseconds; the server killed then) is called by the next server if it has a
URL of its own (`catch_up`: its subscription says it was not called for its end).
The server's own URL has no such record: such a run is not called on it.
"""

from __future__ import annotations

import json
import logging
import math
import time
import uuid
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio
import httpx

from graphrt.base.signatures import SIGNATURE_HEADER, sign_webhook
from graphrt.base.states import NodeState, RunStatus
from graphrt.checkpoint.base import WebhookStore
from graphrt.checkpoint.records import Delivery
from graphrt.serve.served_run import ServedRun
from graphrt.serve.webhook_targets import WebhookRefused, check_url, resolve_target, shown_url

__all__ = ["EVENTS", "WebhookSettings", "Webhooks"]

log = logging.getLogger("graphrt.serve")

EVENTS = {  # the statuses a webhook is called on, and the event it names
    RunStatus.FINISHED: "run.finished",
    RunStatus.FAILED: "run.failed",
    RunStatus.CANCELLED: "run.cancelled",
    RunStatus.INTERRUPTED: "run.interrupted",
}
ANSWER_BYTES = 4096  # the most of a receiver's answer read: its status says all, and a body may never end
SUBSCRIBED = "subscribed"  # the event (and state) of a run's own URL, saved when the run is submitted
ENDED = "ended"  # the state of a run's own URL once the run has ended and its delivery is saved


@dataclass(frozen=True)
class WebhookSettings:
    """How a server calls webhooks.

    Attributes:
        url: the server's webhook, called for every run (None: only runs' own).
        allow_private: per-run URLs may name loopback, private and link-local hosts (webhook_targets.py).
        key: what signs each call (graphrt serve gives its API key); None: calls go unsigned.
        attempts: calls of one delivery at most.
        first_delay, longest_delay: seconds before the first retry, doubling up to the longest.
        timeout: seconds one call may take in all (resolving its host, connecting, sending, the answer's status):
            a receiver that trickles its answer is cut off at it, and the call counts as failed.
        at_once: calls in flight at most.
    """

    url: str | None = None
    allow_private: bool = False
    key: str | None = None
    attempts: int = 10
    first_delay: float = 1.0
    longest_delay: float = 600.0
    timeout: float = 10.0
    at_once: int = 8

    def __post_init__(self) -> None:
        if self.url is not None:
            check_url(self.url)
        if self.attempts < 1 or self.first_delay <= 0 or self.longest_delay < self.first_delay or self.at_once < 1:
            raise ValueError("attempts and at_once must be at least 1, and 0 < first_delay <= longest_delay")

    @property
    def taken_for(self) -> float:
        """Seconds a delivery taken for a call is this server's alone on a store several servers share: its
        deadline, and as long again to save its outcome. A server killed mid-call leaves it to another after that."""
        return 2 * self.timeout

    def delay(self, attempts: int) -> float:
        """Seconds before the call after `attempts` failed ones."""
        return min(self.longest_delay, self.first_delay * 2 ** min(attempts - 1, 60))


def webhook_run(run: ServedRun) -> dict[str, Any]:
    """The run as a webhook tells it: as GET /runs/{id} shows it (redacted alike), without nodes and inputs."""
    shown = run.to_json()
    outcome = {key: shown[key] for key in ("id", "graph", "status", "results", "error", "question", "parent",
                                           "created_at", "updated_at") if key in shown}
    failed = [node_id for node_id, state in run.nodes.items() if state == NodeState.FAILED]
    if run.status == RunStatus.FAILED and failed:
        outcome["node"] = failed[0]
    return {**outcome, "url": f"/runs/{run.id}"}


class Webhooks:
    """The webhooks of one server: subscriptions, deliveries saved to `store`, and the task that makes the calls."""

    def __init__(self, store: WebhookStore, settings: WebhookSettings, *, shared: bool = False,
                 saved: Callable[[str], Awaitable[None]] | None = None) -> None:
        self.store = store
        self.settings = settings
        self.shared = shared  # several servers on the store: a run may have been given its URL through another
        self.saved = saved  # called with a run whose deliveries (of one settling) are saved
        self._settled: deque[tuple[str, str, float, dict[str, Any]]] = deque()  # (run id, event, time, run): to save
        self._in_flight: set[str] = set()
        self._subscribed: set[str] = set()  # runs with a URL of their own (read at start, then added to)
        self._soonest = math.inf  # time.time() of the soonest retry this server knows of
        self._wake = anyio.Event()
        self._client: httpx.AsyncClient | None = None

    # ----- runs -----

    async def check(self, url: object) -> str:
        """The URL a run may have as its own webhook (WebhookRefused: why not)."""
        url = check_url(url)
        await resolve_target(url, allow_private=self.settings.allow_private)
        return url

    async def subscribe(self, run_id: str, url: str) -> None:
        """Saves `url` as run `run_id`'s own webhook, called at each settling of the run from now on."""
        await self.store.add_deliveries([Delivery(uuid.uuid4().hex, run_id, url, SUBSCRIBED, state=SUBSCRIBED)])
        self._subscribed.add(run_id)

    def settled(self, run: ServedRun) -> bool:
        """The run settled (EVENTS): its deliveries are saved and made by the task, never by the caller. Whether
        some may be (then `saved` is called with the run once they are)."""
        event = EVENTS.get(run.status)
        if event is None or (self.settings.url is None and run.id not in self._subscribed and not self.shared):
            return False  # no URL to call: no delivery, and no store read for it
        self._settled.append((run.id, event, time.time(), webhook_run(run)))
        self._wake.set()
        return True

    # ----- the task -----

    async def serve(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Saves and makes deliveries until cancelled."""
        async with httpx.AsyncClient(timeout=self.settings.timeout, follow_redirects=False, trust_env=False) as client, \
                anyio.create_task_group() as tg:
            self._client = client
            self._soonest = 0.0  # what an earlier server left pending is due now
            self._subscribed = set(await self.store.subscribed_runs())
            task_status.started()
            pause = 0.5
            while True:
                try:
                    await self._save_settled()
                    await self._start_due(tg)
                    pause = 0.5
                except Exception as error:  # noqa: BLE001 - a store that fails now may answer later
                    log.warning("webhooks: the store failed (%s: %s); trying again in %g s",
                                type(error).__name__, error, pause)
                    await anyio.sleep(pause)
                    pause = min(30.0, pause * 2)
                    continue
                with anyio.move_on_after(max(0.0, min(30.0, self._soonest - time.time()))):
                    await self._wake.wait()
                self._wake = anyio.Event()

    async def _save_settled(self) -> None:
        """Turns what settled into delivery rows: one per URL (the server's, and the run's own)."""
        while self._settled:
            run_id, event, when, shown = self._settled[0]
            urls = [self.settings.url] if self.settings.url else []
            own: list[str] = []
            if run_id in self._subscribed or self.shared:  # shared: subscribed through another server, maybe since
                own = [item.url for item in await self.store.run_deliveries(run_id)  # this one started
                       if item.state == SUBSCRIBED]
            urls += [url for url in own if url not in urls]
            now = time.time()
            deliveries = []
            for url in urls:
                delivery_id = uuid.uuid4().hex
                body = json.dumps({"type": event, "delivery_id": delivery_id, "time": when, "run": shown},
                                  ensure_ascii=False)
                deliveries.append(Delivery(delivery_id, run_id, url, event, body, next_at=now, created_at=now))
            await self.store.add_deliveries(deliveries)
            self._settled.popleft()
            if deliveries:
                self._soonest = min(self._soonest, now)
            if event != EVENTS[RunStatus.INTERRUPTED] and (run_id in self._subscribed or own):
                await self._ended(run_id)
            if self.saved is not None:
                await self.saved(run_id)

    async def _ended(self, run_id: str) -> None:
        """A run with a URL of its own has ended and its delivery is saved: it settles no more (a fork is a run
        of its own), so its subscription is marked so and the next server does not look at it."""
        for item in await self.store.run_deliveries(run_id):
            if item.state == SUBSCRIBED:
                await self.store.update_delivery(item.delivery_id, state=ENDED, attempts=0, next_at=0.0, error=None)
        self._subscribed.discard(run_id)

    async def delivered(self, run: ServedRun) -> bool:
        """Whether the deliveries of the run's end are saved (all are, or none: they are saved in one write)."""
        return any(item.event == EVENTS[run.status] for item in await self.store.run_deliveries(run.id))

    async def catch_up(self, find: Callable[[str], Awaitable[ServedRun | None]]) -> int:
        """Makes the deliveries a killed server did not save: those of runs with a URL of their own that ended
        in the moment before their delivery was written. Called once at start; returns how many."""
        caught = 0
        for run_id in sorted(self._subscribed):
            run = await find(run_id)
            if run is None or run.status not in RunStatus.ENDED:
                continue
            if not await self.delivered(run):
                self.settled(run)
                caught += 1
            else:
                await self._ended(run_id)
        if caught:
            log.info("webhooks: %d run(s) ended without their delivery saved; it is made now", caught)
            self._wake.set()
        return caught

    async def _start_due(self, tg: anyio.abc.TaskGroup) -> None:
        """Starts the calls that are due, as many as may be in flight; learns when the next one is."""
        room = self.settings.at_once - len(self._in_flight)
        if room <= 0 or self._soonest > time.time():
            return
        now = time.time()
        due = [item for item in await self.store.take_deliveries(now, now + self.settings.taken_for,
                                                                 limit=self.settings.at_once * 2)
               if item.delivery_id not in self._in_flight]
        for delivery in due[:room]:
            self._in_flight.add(delivery.delivery_id)
            tg.start_soon(self._attempt, delivery)
        if len(due) <= room:  # nothing else is due now: the soonest is the next pending one
            upcoming = [item for item in await self.store.due_deliveries(math.inf, limit=len(self._in_flight) + 1)
                        if item.delivery_id not in self._in_flight]
            self._soonest = upcoming[0].next_at if upcoming else math.inf

    async def _attempt(self, delivery: Delivery) -> None:
        """One call of a delivery, and its outcome saved."""
        try:
            error = await self._call(delivery)
            attempts = delivery.attempts + 1
            if error is None:
                state, next_at = "delivered", time.time()
            elif attempts >= self.settings.attempts:
                state, next_at = "failed", time.time()
                log.warning("webhook %s of run %s to %s failed %d times, the last: %s; not called again",
                            delivery.delivery_id, delivery.run_id, shown_url(delivery.url), attempts, error)
            else:
                state, next_at = "pending", time.time() + self.settings.delay(attempts)
                log.info("webhook %s of run %s to %s: call %d failed (%s); again in %.2f s", delivery.delivery_id,
                         delivery.run_id, shown_url(delivery.url), attempts, error, next_at - time.time())
            try:
                with anyio.CancelScope(shield=True):
                    await self.store.update_delivery(delivery.delivery_id, state=state, attempts=attempts,
                                                     next_at=next_at, error=error)
            except Exception as failure:  # noqa: BLE001 - it stays pending in the store: called again later
                log.warning("webhook %s: could not save its outcome: %s", delivery.delivery_id, failure)
                next_at = time.time() + self.settings.delay(attempts)
            if state == "pending":
                self._soonest = min(self._soonest, next_at)
        finally:
            self._in_flight.discard(delivery.delivery_id)
            self._wake.set()

    async def _call(self, delivery: Delivery) -> str | None:
        """Calls the receiver once; None when it took the delivery, else why not (no URL, no body in it)."""
        body = (delivery.body or "").encode("utf-8")
        headers = {"Content-Type": "application/json", "User-Agent": "graphrt-webhooks",
                   "Graphrt-Event": delivery.event, "Graphrt-Delivery": delivery.delivery_id}
        if self.settings.key:
            headers[SIGNATURE_HEADER] = sign_webhook(self.settings.key, body)
        status: int | None = None
        try:
            with anyio.move_on_after(self.settings.timeout):  # the whole call: a byte a second is no answer
                trusted = delivery.url == self.settings.url  # the operator's own URL is called as given
                target = await resolve_target(delivery.url, allow_private=trusted or self.settings.allow_private)
                if target.host_header is not None:
                    headers["Host"] = target.host_header
                extensions = {"sni_hostname": target.tls_name} if target.tls_name else {}
                assert self._client is not None
                async with self._client.stream("POST", target.url, content=body, headers=headers,
                                               extensions=extensions) as response:
                    status = response.status_code
                    await _read_some(response)
        except WebhookRefused as refused:
            return str(refused)
        except (httpx.HTTPError, OSError) as error:
            if status is None:
                said = str(error).replace(delivery.url, shown_url(delivery.url))  # no query (a token) in what is saved
                return f"{type(error).__name__}: {said}" if said else type(error).__name__
        if status is None:
            return f"no answer within {self.settings.timeout:g} s, the deadline of a call"
        if 200 <= status < 300:
            return None  # the status says it: a body cut short, or past the deadline, does not undo it
        return f"the receiver answered HTTP {status}"


async def _read_some(response: httpx.Response) -> None:
    """Reads at most ANSWER_BYTES of an answer's body, which nobody needs: a short one read whole lets the
    connection serve the next call; a longer one is left unread, and the connection is closed."""
    size = 0
    async for chunk in response.aiter_raw():
        size += len(chunk)
        if size > ANSWER_BYTES:
            return
