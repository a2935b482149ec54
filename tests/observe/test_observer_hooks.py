"""graphrt's own observers name every keyword a run passes to the hooks they override.

A hook that names them all binds a call's keywords without building a dict for
`**future` (observer.py); one that forgets a keyword, or a keyword added to
RunObserver later, makes every node of every observed run pay for that dict.
"""

import inspect

import pytest

from graphrt.durable.writer import CheckpointWriter
from graphrt.observe.events import EventObserver
from graphrt.observe.observer import HOOKS, RunObserver
from graphrt.observe.progress import RunProgress
from graphrt.serve.event_backpressure import EventBackpressure


def _keywords(function) -> list[str]:
    return [name for name, parameter in inspect.signature(function).parameters.items()
            if parameter.kind is inspect.Parameter.KEYWORD_ONLY]


@pytest.mark.parametrize("observer", [RunProgress, EventObserver, CheckpointWriter, EventBackpressure])
def test_each_overridden_hook_names_the_keywords_of_run_observer(observer: type[RunObserver]) -> None:
    overridden = [name for name in HOOKS if getattr(observer, name) is not getattr(RunObserver, name)]
    assert overridden
    for name in overridden:
        assert _keywords(getattr(observer, name)) == _keywords(getattr(RunObserver, name)), name
        assert "future" in inspect.signature(getattr(observer, name)).parameters, name
