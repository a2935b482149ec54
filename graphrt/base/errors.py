"""The errors graphrt raises: one tree, each error knows where it happened.

    GraphError                .node_id .field .location (file:line:col)
      GraphLoadError          the file cannot be read or is not valid YAML/JSON
      GraphValidationError    .issues: every problem found before the run
      ResolveError            a reference cannot be resolved at run time
      AgentError              an agent failed; __cause__ is its exception, unless it raised one of these
        LLMRequestError       the LLM server refused a request, or failed every attempt    agents/llm/errors
          MalformedReplyError it answered, but not with a whole reply (retried)           agents/llm/errors
        EmbeddedModelError    the embedded model is not installed or did not start         agents/llm/local_model
        WikiUnavailableError  a wiki backend cannot be used (no corpus, API unreachable)   agents/wiki/backends
        FetchFailed           a request failed or went past its limits; also a TypeError   agents/_http
        WikipediaError        the wiki cannot be reached or does not answer as MediaWiki   agents/service/wikipedia
        XmlError              a response is not well-formed XML; also a ValueError         agents/service/xml
        OutsideBaseFolder     a path would leave the base folder; also a PermissionError   agents/files/confined
        NotAFile              a file agent's path is a FIFO, socket or device; also an OSError  agents/files/confined
        ShellNotAllowed       runShellAgent may not run the program; also a PermissionError  agents/shell/programs
        ShellOutputLimit      a program wrote more than runShellAgent keeps; it was stopped  agents/shell/process
        BrowserUnavailable    no Chromium to drive, or it did not start                   agents/net/puppeteer/settings
        PageRefused           a page not http(s), or past puppeteerAgent's limits         agents/net/puppeteer/settings
          PageTimeout         a page did not settle in time; also a TimeoutError          agents/net/puppeteer/settings
      NodeTimeoutError        a node ran past its timeout (also a TimeoutError)
      GraphAbortedError       the run was aborted
        RunTimeoutError       the whole run took longer than its timeout
        BudgetExceeded        the next call would pass a budget: .limit .allowed .spent .budget_node .at
      GraphInterrupted        an agent asked a person (.question); resume with the answer
      JournalError            the journal cannot answer an outside call as the run asks it; .path .index
        JournalMismatch       the call asks what its journaled one did not (.diff)        engine/journal
        UncertainCall         it started before a crash and its result was not kept       engine/journal
        CassetteError         a cassette cannot be read, or is another graph's            testing/cassette
      CheckpointError         a run cannot be saved to or resumed from a checkpoint store
        Unsavable             a value JSON cannot hold, so it is not saved                 checkpoint/errors
        StoreFailed           the store itself failed: no connection, a driver's error     checkpoint/errors
          LeaseLost           a write the store refused: another process took its lease    checkpoint/errors
        RunTaken              another process or task is running the run now               checkpoint/errors
      RegistrationError       bad agent or function info
        UnsupportedType       a type hint has no JSON Schema                               base/schema
      ToolCallError           bad tool arguments; the text goes back to the LLM
      InputLimitError         a value from outside is past a limit of base/limits (depth, Unicode)
      UsageConfigError        a budget, price table or rate limit that cannot be used (zero, unknown unit, ...)
      ServiceError            an outside service of the run failed to start, died or hung; .service
        ServiceFailed         a run service could not be opened, or ended while needed     authoring/services
        McpServerError        an MCP server failed to start, ended, or did not answer      mcp/client
      McpToolError            an MCP tool failed, or its server refused the call           mcp/client
      McpConfigError          the MCP server configuration is not usable                   mcp/config
      ExecutorError           an executor cannot be made                                   engine/executor
      CatalogError            the folder given to `graphrt serve` holds no graph           serve/catalog
      StoreLeased             another `graphrt serve` owns the checkpoint store (a lease)   durable/served
      RequestError            a request to a server cannot be served; .status (HTTP), .headers
        RunNotFound           404: no such run or graph                                    serve/refusals
        RunConflict           409: the run's state does not allow the request              serve/refusals
        QueueFull             429: the queue is at its bound; .retry_after                 serve/refusals
        BodyTooLarge          413: the request body is over the limit                      serve/security
        CompletionRefused     an OpenAI-compatible request refused, in OpenAI's error shape  serve/completions
        WebhookRefused        400: a webhook URL the server will not call (scheme, host)   serve/webhook_targets

The last column is where a class outside this module lives (under graphrt/, or
agents/ for the agent library). The agent library's classes that are also a built-in
error keep the JavaScript error GraphAI's agent throws (fetch's TypeError, ...).

`Interrupt` is not an error but a signal: an agent raises it to ask a person
something, and the run stops with GraphInterrupted once its state is saved.

Outside the tree are only programming errors, each documented where it is raised:
a bad argument to graphrt's Python API (`ValueError`: `max_buffer` below 1, say),
a call in the wrong state (`RuntimeError`: services used outside `async with`, a
nested graph from a context no run made), a missing name in a mapping (`KeyError`
from `Registry[name]`), and `AssertionError` from `graphrt.testing`'s sample checks.
An agent's own exception is not graphrt's: the run wraps it in an AgentError.
`tests/test_error_tree.py` checks that no other exception class appears.

Every message is built from the fields, so the text always names the file, the
node and the field, e.g.
`graphs/react.yaml:14:5: node 'act', field 'inputs.query': unknown node 'serch'`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from graphrt.base.frozen import Frozen

__all__ = [
    "Location",
    "GraphError",
    "GraphLoadError",
    "ValidationIssue",
    "GraphValidationError",
    "ResolveError",
    "AgentError",
    "NodeTimeoutError",
    "GraphAbortedError",
    "RunTimeoutError",
    "BudgetExceeded",
    "GraphInterrupted",
    "JournalError",
    "CheckpointError",
    "Interrupt",
    "RegistrationError",
    "ToolCallError",
    "InputLimitError",
    "UsageConfigError",
    "ServiceError",
    "RequestError",
    "Locator",
    "caused_by",
    "error_message",
]


@dataclass(slots=True, init=False, repr=False, eq=False)
class Location(Frozen):
    """A place in a graph file; line and column are 1-based."""

    file: str | None = None
    line: int | None = None
    column: int | None = None

    # A dataclass (fields, replace) whose methods are Frozen's and written here, not generated (base/frozen.py).
    def __init__(self, file: str | None = None, line: int | None = None, column: int | None = None) -> None:
        self._set(file=file, line=line, column=column)

    def __str__(self) -> str:
        parts = [self.file or "<graph>"]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)


def describe_issue(
    message: str, node_id: str | None, field: str | None, location: Location | None, nested: tuple[str, ...] = ()
) -> str:
    where = []
    if node_id is not None:
        where.append(" > ".join(f"'{n}'" for n in (node_id, *nested)).join(("node ", "")))
    if field:
        where.append(f"field '{field}'")
    text = ", ".join(where)
    text = f"{text}: {message}" if text else message
    if location is not None and (location.file or location.line is not None):
        text = f"{location}: {text}"
    return text


class Locator(Protocol):
    """What finds a field in a graph file (graphrt.graphdata.loader's GraphSource)."""

    def locate_field(self, node_id: str | None, field: str | None) -> Location | None:
        """The file position of a node's dotted field; of the graph when `node_id` is None."""


class GraphError(Exception):
    """Raised for anything that goes wrong with a graph; the base of every graphrt error."""

    def __init__(
        self,
        message: str,
        *,
        node_id: str | None = None,
        field: str | None = None,
        location: Location | None = None,
    ) -> None:
        self.message = message
        self.node_id = node_id
        self.field = field
        self.location = location
        self.nested: tuple[str, ...] = ()
        super().__init__(message)

    def __str__(self) -> str:
        return describe_issue(self.message, self.node_id, self.field, self.location, self.nested)

    @classmethod
    def from_exception(
        cls,
        error: Exception,
        *,
        node_id: str | None = None,
        field: str | None = None,
        source: Locator | None = None,
        doing: str | None = None,
    ) -> "GraphError":
        """`error` as a GraphError that names its node, its field and its place in the file: the one way to wrap.

        A GraphError stays itself, and what it knows wins: its node, field and position
        are filled in only where missing. Any other exception becomes an error of the
        kind this is called on, whose message is `[doing: ]Type: text` and whose
        `__cause__` is it: `ResolveError.from_exception(error, node_id="a", field="inputs",
        source=spec.source, doing="cannot compute the inputs")`.

        Args:
            error: what was raised.
            node_id: the node it happened in (None: the graph itself, e.g. `loop.while`).
            field: the node's dotted field (`inputs`, `console`, `if`, ...).
            source: the graph's file, to find the position of the field in.
            doing: what was being done, for the message of a wrapped foreign exception.
        """
        if not isinstance(error, GraphError):
            text = f"{type(error).__name__}: {error}"
            error = cls(f"{doing}: {text}" if doing else text).with_cause(error)
        if error.field is None:
            error.field = field
        error.with_context(node_id=node_id)
        if error.location is None and source is not None:
            error.location = source.locate_field(error.node_id, error.field)
        return error

    def with_cause(self, cause: BaseException) -> "GraphError":
        """Chains the exception that caused this one (as `raise ... from cause` does); returns self."""
        self.__cause__ = cause
        return self

    def with_context(self, *, node_id: str | None = None, location: Location | None = None) -> "GraphError":
        """Fills in the node and location where they are not known yet; returns self."""
        if self.node_id is None and node_id is not None:
            self.node_id = node_id
        if self.location is None and location is not None:
            self.location = location
        return self


class GraphLoadError(GraphError):
    """Raised when a graph file cannot be read or parsed."""


@dataclass(slots=True, init=False, repr=False, eq=False)
class ValidationIssue(Frozen):
    """One problem found by validation; `severity` is "error" or "warning"."""

    message: str
    node_id: str | None = None
    field: str | None = None
    location: Location | None = None
    severity: str = "error"

    # A dataclass (fields, replace) whose methods are Frozen's and written here, not generated (base/frozen.py).
    def __init__(self, message: str, node_id: str | None = None, field: str | None = None,
                 location: Location | None = None, severity: str = "error") -> None:
        self._set(message=message, node_id=node_id, field=field, location=location, severity=severity)

    def __str__(self) -> str:
        return describe_issue(self.message, self.node_id, self.field, self.location)


class GraphValidationError(GraphError):
    """Raised before a run when the graph is invalid; `.issues` lists every problem."""

    def __init__(self, issues: list[ValidationIssue]) -> None:
        self.issues = issues
        first = issues[0]
        super().__init__(first.message, node_id=first.node_id, field=first.field, location=first.location)

    def __str__(self) -> str:
        text = str(self.issues[0])
        if len(self.issues) > 1:
            rest = "\n".join(f"  {issue}" for issue in self.issues[1:])
            text = f"{text}\n  ... and {len(self.issues) - 1} more:\n{rest}"
        return text


class ResolveError(GraphError):
    """Raised when a node's inputs cannot be computed (e.g. `jsonParse()` of bad JSON)."""


class AgentError(GraphError):
    """Raised when an agent fails; the agent's own exception is the `__cause__`."""

    def __init__(self, message: str, *, agent_id: str | None = None, **context) -> None:
        self.agent_id = agent_id
        super().__init__(message, **context)

    def __str__(self) -> str:
        text = super().__str__()
        return f"{text} (agent {self.agent_id})" if self.agent_id else text


class NodeTimeoutError(GraphError, TimeoutError):
    """Raised when a node's agent runs longer than the node's `timeout`."""


class GraphAbortedError(GraphError):
    """Raised by a run that was aborted with `Graph.abort()`."""


class RunTimeoutError(GraphAbortedError):
    """Raised by a run stopped because it took longer than its `timeout` (a node's own limit is NodeTimeoutError)."""


class BudgetExceeded(GraphAbortedError):
    """Raised by a run stopped before a call that would pass one of its budgets (graphrt.base.budget).

    The check is made before each LLM request and tool call, so no call is made past the limit; the
    run keeps the results it computed so far (`Run.results()`) and its usage (`Run.usage`). A
    checkpointed run resumes with a larger budget without running again what it completed.

    Attributes:
        limit: the unit that would be passed: `tokens`, `cost`, `llm_calls`, `tool_calls` or `seconds`.
        allowed: the limit.
        spent: what was spent when the check was made (the run's, or the node's for a node's budget), calls in
            flight included.
        budget_node: the node whose budget it is (its key: `react`, `map/3/react`); None for the run's.
        at: the node about to make the call, with its path of nested graphs (`react/llm`).
        need: about what the call would have added (its prompt's tokens, their cost), when the limit is of those.
        unpriced: the model (`openai:o3`) whose cost a cost limit could not count: it has no price.
    """

    def __init__(self, *, limit: str, allowed: float, spent: float, budget_node: str | None = None,
                 at: str | None = None, need: float | None = None, unpriced: str | None = None,
                 **context: Any) -> None:
        self.limit = limit
        self.allowed = allowed
        self.spent = spent
        self.budget_node = budget_node
        self.at = at
        self.need = need
        self.unpriced = unpriced
        whose = f"node '{budget_node}'" if budget_node is not None else "the run"
        unit = _UNIT_TEXT.get(limit, limit)
        if unpriced is not None:
            why = f"; the cost of {unpriced} is unknown (no price for it in the config's prices)"
        else:
            why = f"; the call needs about {_amount(limit, need)} more" if need else ""
        where = f"; stopped before a call of node '{at}'" if at else ""
        super().__init__(f"budget exceeded: {whose} may spend {_amount(limit, allowed)} {unit} and has spent "
                         f"{_amount(limit, spent)}{why}{where}", **context)

    def to_dict(self) -> dict[str, Any]:
        """What a saved run's record and graphrt serve's answer say of it."""
        return {"limit": self.limit, "allowed": self.allowed, "spent": self.spent, "node": self.budget_node,
                "at": self.at}


_UNIT_TEXT = {"tokens": "tokens", "cost": "USD", "llm_calls": "LLM calls", "tool_calls": "tool calls",
              "seconds": "seconds"}


def _amount(limit: str, value: float | None) -> str:
    if value is None:
        return "?"
    if limit == "cost":
        return f"${value:,.4f}".rstrip("0").rstrip(".") if value else "$0"
    if limit == "seconds":
        return f"{value:,.1f}" if value >= 1 else f"{value:.3g}"
    return f"{int(value):,}" if float(value).is_integer() else f"{value:,}"


class GraphInterrupted(GraphError):
    """Raised by a run that stopped because an agent asked a question (see Interrupt).

    Completed nodes keep their results; resuming the run with an answer runs the
    asking node again with `ctx.answer` set. `key` names the asking node within
    nested graphs (`outer/inner`, `outer/0/inner` for a mapAgent row).
    """

    def __init__(self, question: str, *, key: str | None = None, **context) -> None:
        self.question = question
        super().__init__(f"waiting for an answer: {question}", **context)
        self.key = key if key is not None else self.node_id

    def within(self, node_id: str) -> "GraphInterrupted":
        """The same question, seen from the node of a parent graph that ran this one."""
        outer = GraphInterrupted(self.question, key=self.key, node_id=node_id, location=self.location)
        outer.nested = (self.node_id, *self.nested) if self.node_id is not None else self.nested
        return outer


class JournalError(GraphError):
    """Raised when a run's journal of outside calls (graphrt/engine/journal.py) cannot answer a call as the run
    makes it; `.path` is the node path that made it (`agent/0/tool`), `.index` its index among that path's calls.

    It is the run's error, not a tool's: it goes up through the graph agents that ran the call as it is (a
    toolsAgent does not hand it to its LLM), each adding its node (`within`).
    """

    def __init__(self, message: str, *, path: str = "", index: int = 0, **context) -> None:
        self.path = path
        self.index = index
        super().__init__(message, **context)

    def within(self, node_id: str) -> "JournalError":
        """The same error, seen from the node of a parent graph that ran this one."""
        outer = copy.copy(self)
        outer.nested = (self.node_id, *self.nested) if self.node_id is not None else self.nested
        outer.node_id = node_id
        outer.__cause__ = self.__cause__
        return outer


class CheckpointError(GraphError):
    """Raised when a run cannot be saved to, found in, or resumed from a checkpoint store."""


class Interrupt(Exception):
    """Raised by an agent to stop the run and ask a person `question`; a signal, not a GraphError.

    The node does not fail and is not retried: the run saves its state and
    raises GraphInterrupted. Resumed with an answer, the node runs again and
    finds the answer in `ctx.answer` (`ctx.ask(question)` does both steps).
    `key` names the question when it is not the node's own (the journal asks
    of one call of a node that makes many: `agent/0/tool#2`).
    """

    def __init__(self, question: str, key: str | None = None) -> None:
        self.question = str(question)
        self.key = key
        super().__init__(self.question)


class RegistrationError(GraphError):
    """Raised when an agent or its function info cannot be registered."""


class ToolCallError(GraphError):
    """Raised for a bad tool call; its message is written for the LLM to correct itself."""


class InputLimitError(GraphError):
    """Raised for a value from outside (a request body, tool arguments) past a limit of graphrt.base.limits."""


class UsageConfigError(GraphError):
    """Raised for a budget, a price table or a rate limit that cannot be used: a limit that is not a number
    above 0, an unknown unit, a price that is not a number, a budget below what a resumed run already spent.
    Its message is one line that names where the setting came from (`--budget`, `config.yaml: prices...`)."""


class ServiceError(GraphError):
    """Raised when an outside service the run depends on (e.g. an MCP server) cannot be used.

    It failed to start, ended mid-run or did not answer in time. Unlike a tool's own
    failure, it is not handed to an LLM as a tool message: the node fails with it.
    `.service` names the service.
    """

    def __init__(self, message: str, *, service: str, **context) -> None:
        self.service = service
        super().__init__(message, **context)


class RequestError(GraphError):
    """Raised when a request to a server (`graphrt serve`, its extensions) cannot be served.

    `.status` is the HTTP status that says why (400 unless a subclass or the raiser
    says otherwise), `.headers` what the answer adds (`Retry-After`).
    """

    status = 400

    def __init__(self, message: str, *, status: int | None = None, headers: dict[str, str] | None = None,
                 **context) -> None:
        super().__init__(message, **context)
        if status is not None:
            self.status = status
        self.headers = dict(headers or {})


_E = TypeVar("_E", bound=BaseException)


def caused_by(error: BaseException | None, kind: type[_E] | tuple[type[_E], ...]) -> _E | None:
    """The exception of `kind` that `error` is, or that caused it (its `__cause__`, and theirs): why it failed, when
    that is a budget, a question for a person, a service gone. A chain of causes that comes round to itself ends."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, kind):
            return error
        seen.add(id(error))
        error = error.__cause__
    return None


def error_message(error: BaseException) -> str:
    """What went wrong, without where: a GraphError's own message (its node, field and place are said apart, by
    whoever shows them), any other exception's text."""
    return error.message if isinstance(error, GraphError) else str(error)
