"""The architecture, checked: imports go only downward through the layers, no module import circle,
and pyproject's explicit `packages` list names every package folder (see ARCHITECTURE.md).

Every import counts: those inside functions, and those under `if TYPE_CHECKING:`, which never run but
say that one module needs the other's types. A lower module that needs a handle on a higher one names
it by a small protocol of its own (a port), as `engine.context.AgentCalls` names the executor.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Lowest first: a module may import its own layer and the layers before it.
LAYERS = ["base", "graphdata", "observe", "checkpoint", "authoring", "check", "engine", "durable", "testing",
          "executors", "batches", "api", "serve", "mcp", "graphrt_agents", "cli"]

# What is not yet as it should be, each with why; this list may only shrink (issue #10).
KNOWN_UPWARD: dict[tuple[str, str], str] = {}
KNOWN_CIRCLES: list[tuple[set[str], str]] = []
KNOWN_PRIVATE: dict[tuple[str, str], str] = {
    ("graphrt.cli.batch_command", "graphrt.cli.run_command._print_warnings"):
        "the two commands print a graph's warnings alike; not yet shared in the open (issue #38, CLI options)",
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[0] == "agents":
        parts[0] = "graphrt_agents"
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    found = {}
    for top in ("graphrt", "agents"):
        for path in (ROOT / top).rglob("*.py"):
            found[_module_name(path)] = path
    return found


MODULES = _modules()


def _type_checking_lines(tree: ast.AST) -> set[int]:
    """Lines of the imports under `if TYPE_CHECKING:` blocks."""
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for inner in node.body:
                for sub in ast.walk(inner):
                    if isinstance(sub, (ast.Import, ast.ImportFrom)):
                        lines.add(sub.lineno)
    return lines


def _known(name: str) -> str | None:
    """The module of ours that an imported name is (or is in), or None."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def imports(module: str) -> list[tuple[str, int, bool]]:
    """(imported module of ours, line, only for type checkers) of every import in `module`: the last says which
    imports never run, and only the layers' test reads it (an import for type checkers never goes up either)."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = _type_checking_lines(tree)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        for name in names:
            target = _known(name)
            if target is not None and target != module:
                found.append((target, node.lineno, node.lineno in typing_only))
    return found


def layer(module: str) -> int | None:
    parts = module.split(".")
    if parts[0] == "graphrt_agents":
        return LAYERS.index("graphrt_agents")
    if len(parts) > 1 and parts[1] in LAYERS:
        return LAYERS.index(parts[1])
    if module == "graphrt.__main__":  # `python -m graphrt`: the command, as the top layer runs it
        return LAYERS.index("cli")
    return None  # the package root `graphrt`, which loads its names lazily from every layer


def test_the_checks_below_see_the_code_they_check() -> None:
    # Without this, a scan that found no module or no import would pass every check below.
    assert len(MODULES) > 50 and "graphrt.engine.run" in MODULES and "graphrt_agents" in MODULES
    targets = {target for target, _, _ in imports("graphrt.engine.run")}
    assert {"graphrt.authoring.services", "graphrt.engine.execution"} <= targets
    assert layer("graphrt.base.errors") < layer("graphrt.authoring.services") < layer("graphrt.engine.run")


def test_every_module_is_in_a_layer() -> None:
    outside = [module for module in MODULES if module != "graphrt" and layer(module) is None]
    assert not outside, f"modules in no layer (add their package to LAYERS and ARCHITECTURE.md): {outside}"


def test_no_import_goes_up_a_layer() -> None:
    upward = []
    for module in MODULES:
        for target, line, _ in imports(module):
            if layer(module) is not None and layer(target) is not None and layer(target) > layer(module):
                if (module, target) not in KNOWN_UPWARD:
                    upward.append(f"{module}:{line} imports {target}")
    assert not upward, "imports that go up a layer:\n" + "\n".join(upward)


def test_graphrt_never_imports_the_agent_library() -> None:
    found = [f"{module}:{line}" for module in MODULES if module.startswith("graphrt.") or module == "graphrt"
             for target, line, _ in imports(module) if target.startswith("graphrt_agents")]
    assert not found, f"graphrt imports graphrt_agents (agents come in through entry points): {found}"


def _edges() -> dict[str, set[str]]:
    """The import graph: the modules of ours each module imports, imports for type checkers included."""
    return {module: {target for target, _, _ in imports(module)} for module in MODULES}


def _circles() -> list[set[str]]:
    """The strongly connected groups (more than one module) of the import graph, by Tarjan's algorithm."""
    edges = _edges()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in edges[module]:
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == module:
                    break
            if len(group) > 1:
                groups.append(group)

    for module in sorted(edges):
        if module not in index:
            visit(module)
    return groups


def test_no_import_circle() -> None:
    known = [group for group, _ in KNOWN_CIRCLES]
    circles = [sorted(group) for group in _circles() if group not in known]
    assert not circles, f"modules that import each other, directly or around a circle: {circles}"


def test_an_import_for_type_checkers_is_an_edge_of_the_import_graph() -> None:
    # A circle closed by `if TYPE_CHECKING:` imports alone is a circle all the same: the circle check sees them.
    typing_only = {target for target, _, only_for_types in imports("graphrt.engine.run") if only_for_types}
    assert "graphrt.checkpoint.snapshot" in typing_only
    assert typing_only <= _edges()["graphrt.engine.run"]


def test_pyproject_lists_every_package_folder() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(config["packages"])
    folders = {module for module, path in MODULES.items() if path.name == "__init__.py"}
    assert folders <= listed, f"package folders missing from pyproject's packages: {sorted(folders - listed)}"


def test_no_module_imports_another_module_s_private_names() -> None:
    """A name starting with `_` is its module's own: what modules share is public where it lives."""
    found = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and not node.level and _known(node.module or "") not in (None, module):
                found += [f"{module}:{node.lineno} imports {node.module}.{alias.name}" for alias in node.names
                          if alias.name.startswith("_") and not alias.name.startswith("__")
                          and (module, f"{node.module}.{alias.name}") not in KNOWN_PRIVATE]
    assert not found, "private names imported from another module:\n" + "\n".join(found)
