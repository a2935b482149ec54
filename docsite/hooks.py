"""MkDocs' hook (mkdocs.yml `hooks:`): the generated reference pages, added to the site's files as it builds.

The pages are made from the code each time the site is built and never written into docs/, so they cannot
drift from it. An agent that could not be read (its pack's extra is not installed here) is a warning,
which `mkdocs build --strict` makes an error.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `mkdocs build` runs from its own script: the checkout's docsite/ must be importable
    sys.path.insert(0, str(ROOT))

from mkdocs.structure.files import File, Files  # noqa: E402

from docsite.generated import generated_pages  # noqa: E402

log = logging.getLogger("mkdocs.plugins.graphrt")


def on_config(config):  # noqa: ANN001, ANN201 - MkDocs' config object
    """Every agent pack's page under the nav's "Agents" section, after its index: the packs are the code's."""
    from docsite.agent_reference import pack_pages

    def visit(items: list) -> None:
        for item in items:
            if isinstance(item, dict):
                for title, value in item.items():
                    if isinstance(value, list):
                        if title == "Agents" and "reference/agents/index.md" in value:
                            value.extend(path for path in pack_pages() if path not in value)
                        visit(value)

    visit(config["nav"] or [])
    return config


def on_files(files: Files, config) -> Files:  # noqa: ANN001 - MkDocs' config object
    pages, problems = generated_pages()
    for problem in problems:
        log.warning(problem)
    for path, content in pages.items():
        existing = files.get_file_from_path(path)
        if existing is not None:
            files.remove(existing)
        files.append(File.generated(config, path, content=content))
    return files
