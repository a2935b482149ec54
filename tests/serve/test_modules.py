"""graphrt serve's modules each do one job, and none needs another that needs it back: not even for a type.

tests/test_layers.py checks the whole code for circles of imports that run; a module that imports
another only for its types (under `if TYPE_CHECKING:`) still cannot be read, changed or replaced
without it, so serve's modules are held to the stricter rule here.
"""

from __future__ import annotations

from ..test_layers import MODULES, imports

SERVE = sorted(module for module in MODULES if module.startswith("graphrt.serve."))


def _reached(start: str, edges: dict[str, set[str]]) -> set[str]:
    reached: set[str] = set()
    todo = list(edges[start])
    while todo:
        module = todo.pop()
        if module not in reached:
            reached.add(module)
            todo.extend(edges.get(module, ()))
    return reached


def test_no_module_of_serve_imports_one_that_imports_it_back_type_only_imports_included() -> None:
    edges = {module: {target for target, _, _ in imports(module) if target in SERVE} for module in SERVE}
    assert "graphrt.serve.webhooks" in edges["graphrt.serve.runs"]  # the check sees serve's imports
    circles = sorted(module for module in SERVE if module in _reached(module, edges))
    assert not circles, f"serve modules that import themselves around a circle: {circles}"
