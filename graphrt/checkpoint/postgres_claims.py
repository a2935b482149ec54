"""Several `graphrt serve` on one PostgreSQL store: the servers that serve it, and which of them runs each run.

SQLite's store has one owner, a server holding its lease (graphrt/serve/lease.py). On PostgreSQL any
number of servers share the store. Each one is a row of `graphrt_servers` (its id, made new at each
start; what it says of itself; until when it lives unless it renews that: its heartbeat), and each run it
runs is a row of `graphrt_run_claims` (the run, its server, a token counted up at each claim). A claim
lives as long as its server does: one heartbeat renews them all.

A server claims the runs it is given (a new run at submit, a resumed one) and the runs other servers
left: saved running while their claim's server is gone (its row expired, or given up: `server = ''`).
A run that no server has a free slot for waits in the store's queue: saved running, its claim given up
(`server = ''`) by the server that took its request (`LEAVE_QUEUED`, while the store's queue is under that
server's bound), for the first server with a free slot to claim, oldest first.
A cancel asked of a server that does not hold the run is a mark on its claim (`cancel`), which the server
that holds it reads at its next look (`cancels`) and carries out; a claim a request makes clears it.
Those are claimed with `FOR UPDATE SKIP LOCKED` on the run's row and an insert whose conflict updates
the claim only while its holder is still gone, so each run goes to exactly one server.

What servers write for each other is announced as it is committed (NOTIFY; postgres_notices.py hears it): a
trigger announces each run whose events were saved (once per transaction however many), and the statements
that ask a server to cancel or drain, or leave runs for others, announce that server (or '': any).

The fence is the database's: a trigger on every table a run writes (its record's updates, its rows, its
events, its journal) refuses, in the write's own transaction, the write of a run whose claim is held by
another server than the writer's connection says it is (`graphrt.server`, set on the connection when
the server joins), or given up while the writer is a server. The claim's row is locked (FOR SHARE) until
the commit, so no claim changes hands between the check and the write. A process that is no server
(`graphrt resume`) writes a run no server holds. Time is the database's (`clock_timestamp()`), one clock
for every server.
"""

from __future__ import annotations

import hashlib

from graphrt.base.states import RunStatus

__all__ = ["ANNOUNCE_CLAIMS", "ENDED_SPELLINGS", "FENCE_TABLE", "TABLES_DIGEST", "TABLES_MADE", "SERVER_SETTING", "TABLES",
           "claim_left", "CLAIM_FOR", "IN_STORE_QUEUE", "LEAVE_QUEUED", "NOW", "STORE_QUEUED"]

FENCE_TABLE = "graphrt_run_claims"
"""What the fence's refusal names (the driver's error says it): the write becomes a LeaseLost."""

SERVER_SETTING = "graphrt.server"
"""The connection's setting that says which server writes through it."""

NOW = "extract(epoch FROM clock_timestamp())::float8"

STORE_QUEUED = ("SELECT count(*) FROM graphrt_run_claims c JOIN graphrt_runs r ON r.run_id = c.run_id "
                "WHERE c.server = '' AND r.status = 'running'")
"""How many runs wait in the store's queue: saved running, claimed by no server."""

QUEUE_AGED_SECONDS = 1.0
"""How long a run waits in the store's queue before it is claimed ahead of the runs a server prefers (its own)."""

QUEUE_LOCK_KEY = 7074012
"""The advisory lock one server at a time holds to put a run in the store's queue, so that its bound holds whatever
the servers do at once."""

LEAVE_QUEUED = "SELECT graphrt_leave_queued(?, ?, ?)"
"""Leaves a run a server claimed (its id, the server) in the store's queue while fewer than a bound wait there,
announced to every server, in one call (the function of TABLES, which counts once it holds the queue's lock): how
many wait there now, -1 if it was not left."""

IN_STORE_QUEUE = ("SELECT c.run_id FROM graphrt_run_claims c JOIN graphrt_runs r ON r.run_id = c.run_id "
                  "WHERE c.run_id = ANY(?::text[]) AND c.server = '' AND r.status = 'running'")
"""Which of some runs (a list of ids) wait in the store's queue."""

TABLES = f"""
CREATE TABLE IF NOT EXISTS graphrt_shared_tables (
    digest TEXT PRIMARY KEY
);
CREATE TABLE IF NOT EXISTS graphrt_servers (
    server TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    started_at DOUBLE PRECISION NOT NULL,
    expires_at DOUBLE PRECISION NOT NULL,
    draining BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE TABLE IF NOT EXISTS graphrt_run_claims (
    run_id TEXT PRIMARY KEY,
    server TEXT NOT NULL,
    token BIGINT NOT NULL,
    claimed_at DOUBLE PRECISION NOT NULL,
    cancel BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX IF NOT EXISTS graphrt_run_claims_server ON graphrt_run_claims (server);
CREATE OR REPLACE FUNCTION graphrt_run_fence() RETURNS trigger LANGUAGE plpgsql AS $fence$
DECLARE
    me TEXT := coalesce(current_setting('{SERVER_SETTING}', true), '');
    holder TEXT;
BEGIN
    SELECT CASE WHEN c.server = me OR s.expires_at > {NOW} THEN c.server ELSE '' END INTO holder
        FROM graphrt_run_claims c LEFT JOIN graphrt_servers s ON s.server = c.server
        WHERE c.run_id = NEW.run_id FOR SHARE OF c;
    IF holder IS NOT NULL AND holder <> me THEN
        RAISE EXCEPTION '{FENCE_TABLE}: run % is claimed by another graphrt serve', quote_literal(NEW.run_id);
    END IF;
    RETURN NEW;
END
$fence$;
CREATE OR REPLACE TRIGGER graphrt_runs_fence BEFORE UPDATE ON graphrt_runs
    FOR EACH ROW EXECUTE FUNCTION graphrt_run_fence();
CREATE OR REPLACE TRIGGER graphrt_rows_fence BEFORE INSERT ON graphrt_rows
    FOR EACH ROW EXECUTE FUNCTION graphrt_run_fence();
CREATE OR REPLACE TRIGGER graphrt_events_fence BEFORE INSERT ON graphrt_events
    FOR EACH ROW EXECUTE FUNCTION graphrt_run_fence();
CREATE OR REPLACE TRIGGER graphrt_journal_fence BEFORE INSERT OR UPDATE ON graphrt_journal
    FOR EACH ROW EXECUTE FUNCTION graphrt_run_fence();
CREATE OR REPLACE FUNCTION graphrt_announce_events() RETURNS trigger LANGUAGE plpgsql AS $announce$
BEGIN
    PERFORM pg_notify('graphrt_events', NEW.run_id);
    RETURN NULL;
END
$announce$;
CREATE OR REPLACE TRIGGER graphrt_events_announce AFTER INSERT ON graphrt_events
    FOR EACH ROW EXECUTE FUNCTION graphrt_announce_events();
CREATE OR REPLACE FUNCTION graphrt_leave_queued(run TEXT, me TEXT, bound BIGINT) RETURNS BIGINT
LANGUAGE plpgsql VOLATILE AS $leave$
DECLARE
    waiting BIGINT;
BEGIN
    PERFORM pg_advisory_xact_lock({QUEUE_LOCK_KEY});
    waiting := ({STORE_QUEUED});
    IF waiting >= bound THEN
        RETURN -1;
    END IF;
    UPDATE graphrt_run_claims SET server = '', cancel = FALSE WHERE run_id = run AND server = me;
    IF NOT FOUND THEN
        RETURN -1;
    END IF;
    PERFORM pg_notify('graphrt_claims', '');
    RETURN waiting + 1;
END
$leave$"""
"""The tables and the fence, made when the first server joins (a store no server uses has neither)."""

TABLES_DIGEST = hashlib.sha256(TABLES.encode("utf-8")).hexdigest()[:16]
"""Which TABLES made a store's: a server joining a store made by the same makes nothing again."""

TABLES_MADE = "INSERT INTO graphrt_shared_tables (digest) VALUES (?) ON CONFLICT (digest) DO NOTHING"

ANNOUNCE_CLAIMS = "SELECT pg_notify('graphrt_claims', ?)"
"""Announces that a server (its id; '': any server) has something to read of its claims: a cancel, a drain, runs
left."""

_DEAD = f"(s.server IS NULL OR s.expires_at < {NOW})"
_GONE = f"(c.server = '' OR {_DEAD})"
ENDED_SPELLINGS = ", ".join(f"'{status}'" for status in RunStatus.spellings(RunStatus.ENDED))
"""The ended statuses as saved (an older graphrt's spellings too), quoted for SQL."""
_TAKE = (f"ON CONFLICT (run_id) DO UPDATE SET server = excluded.server, token = graphrt_run_claims.token + 1, "
         f"claimed_at = excluded.claimed_at WHERE graphrt_run_claims.server = '' OR NOT EXISTS "
         f"(SELECT 1 FROM graphrt_servers s WHERE s.server = graphrt_run_claims.server AND s.expires_at >= {NOW}) "
         f"RETURNING run_id, token")


def claim_left(limit: int, *, aged_only: bool = False) -> str:
    """The statement that claims for a server (its values: the server twice, then the runs it prefers, a list)
    up to `limit` runs other servers left: saved running, their claim's server gone or given up (a stopped server's,
    or waiting in the store's queue); or ended and still claimed by a server that died before it saved all it had to
    of them (their webhook deliveries); each by one server only. Those made over QUEUE_AGED_SECONDS ago first, oldest
    first; then those it prefers (the runs it left in the store's queue itself: it knows them, and reads nothing back);
    then the others, oldest first. So a busy server mostly runs its own requests, and a run no server prefers (its
    server died) waits no longer than that behind them. `aged_only`: those made over QUEUE_AGED_SECONDS ago alone (what
    a server with no free slot takes, behind the runs waiting in its own queue). The server's own claims are not
    among them: a server woken from a freeze past its lease looks for runs left before its heartbeat renews its
    row, and its runs in flight, claimed again, would be started a second time beside the first."""
    return (f"INSERT INTO graphrt_run_claims (run_id, server, token, claimed_at) "
            f"SELECT picked.run_id, ?, 1, {NOW} FROM (SELECT r.run_id FROM graphrt_runs r "
            f"JOIN graphrt_run_claims c ON c.run_id = r.run_id LEFT JOIN graphrt_servers s ON s.server = c.server "
            f"WHERE ((r.status = 'running' AND {_GONE}) OR (r.status IN ({ENDED_SPELLINGS}) AND c.server <> '' AND {_DEAD})) "
            f"AND c.server <> ? {f'AND r.created_at < {NOW} - {QUEUE_AGED_SECONDS} ' if aged_only else ''}"
            f"ORDER BY r.created_at < {NOW} - {QUEUE_AGED_SECONDS} DESC, r.run_id = ANY(?::text[]) DESC, "
            f"r.created_at LIMIT {int(limit)} "
            f"FOR UPDATE OF r SKIP LOCKED) picked {_TAKE}")


CLAIM_FOR = (f"INSERT INTO graphrt_run_claims (run_id, server, token, claimed_at) VALUES (?, ?, 1, {NOW}) "
             f"{_TAKE.replace('claimed_at = excluded.claimed_at', 'claimed_at = excluded.claimed_at, cancel = FALSE')}")
"""Claims one run (its id, the server) unless a live server holds it: a new run, or one a request resumes."""

