"""Every generated page by its path under docs/, and what kept any of them from being whole."""

from __future__ import annotations

__all__ = ["generated_pages"]


def generated_pages() -> tuple[dict[str, str], list[str]]:
    """(pages by path, problems): the CLI, HTTP API, agents, errors and Python API references."""
    from docsite.agent_reference import agent_pages
    from docsite.cli_reference import cli_page
    from docsite.error_reference import error_page
    from docsite.http_reference import http_page
    from docsite.python_reference import python_pages

    agents = agent_pages()
    pages = {"reference/cli.md": cli_page(), "reference/http-api.md": http_page(), "reference/errors.md": error_page(),
             **agents.pages, **python_pages()}
    problems = [f"the reference of agent {name} is missing: its pack's extra is not installed where the site is built"
                for name in agents.missing]
    return pages, problems
