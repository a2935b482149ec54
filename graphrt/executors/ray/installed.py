"""Ray itself, when it is installed: the one module that imports it.

graphrt.executors.ray stays importable without Ray, so that making a RayExecutor
can say what to install (`require_ray`) instead of failing on an import.
"""

from __future__ import annotations

from graphrt.base.extras import needs_extra
from graphrt.engine.executor import ExecutorError

try:
    import ray
    import ray.exceptions
except ImportError as missing:  # the classes stay readable, so that making one can say what to install
    ray = None
    _RAY_MISSING: ImportError | None = missing
    LOST_WORKER: tuple[type[BaseException], ...] = ()
else:
    _RAY_MISSING = None
    # Failures of the cluster rather than of the agent: the attempt fails and the node's `retry` decides.
    LOST_WORKER = (
        ray.exceptions.WorkerCrashedError,
        ray.exceptions.RayActorError,
        ray.exceptions.NodeDiedError,
        ray.exceptions.ObjectLostError,
        ray.exceptions.OutOfMemoryError,
        ray.exceptions.LocalRayletDiedError,
    )

__all__ = ["LOST_WORKER", "ray", "require_ray"]


def require_ray() -> None:
    """Raises ExecutorError, saying what to install, when Ray is not installed.

    Raises:
        ExecutorError: Ray cannot be imported.
    """
    if _RAY_MISSING is not None:
        raise ExecutorError(needs_extra("the Ray executor", "ray") or f"the Ray executor cannot start: {_RAY_MISSING}")
