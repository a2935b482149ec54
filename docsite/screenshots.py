"""`python -m docsite.screenshots`: the run viewer's pictures in docs/images/, taken again from a real browser.

The viewer's browser tests (tests/serve/test_viewer*.py) drive Debian's chromium through Playwright
(`executable_path`, never a browser download) through real runs on a real server; each takes its picture
at the moment it has checked when the variable below names a file. This runs those tests with every
variable set, so a picture shows what a passing test saw. Look at each PNG before committing it.

    python -m docsite.screenshots          # all of them
    python -m docsite.screenshots map      # some, by name (see SHOTS)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "images"

# name: (the variable the test reads, the picture, the test that takes it)
SHOTS: dict[str, tuple[str, str, str]] = {
    "run": ("GRAPHRT_VIEWER_SCREENSHOT", "serve-viewer.png",
            "tests/serve/test_viewer.py::test_a_run_goes_live_from_start_to_answer_to_results"),
    "tools": ("GRAPHRT_VIEWER_SCREENSHOT_TOOLS", "serve-viewer-tools.png",
              "tests/serve/test_viewer.py::test_tokens_stream_into_their_node_and_tool_calls_show"),
    "node": ("GRAPHRT_VIEWER_SCREENSHOT_DETAIL", "serve-viewer-node.png",
             "tests/serve/test_viewer_detail.py::"
             "test_a_clicked_node_shows_its_inputs_result_error_attempts_and_timings"),
    "map": ("GRAPHRT_VIEWER_SCREENSHOT_INSIDE", "serve-viewer-map.png",
            "tests/serve/test_viewer_inside.py::"
            "test_a_map_node_opens_into_its_rows_and_an_inner_node_shows_its_detail"),
    "opened": ("GRAPHRT_VIEWER_SCREENSHOT_OPENED", "serve-viewer-opened.png",
               "tests/serve/test_viewer_inside.py::"
               "test_a_nested_graph_and_a_map_open_in_the_main_picture_with_their_states_and_rows"),
    "large": ("GRAPHRT_VIEWER_SCREENSHOT_LARGE", "serve-viewer-large.png",
              "tests/serve/test_viewer_large.py::test_a_500_node_graph_is_legible_zooms_pans_fits_and_finds_a_node"),
}


def main(argv: list[str]) -> int:
    chosen = argv or list(SHOTS)
    unknown = [name for name in chosen if name not in SHOTS]
    if unknown:
        print(f"screenshots: unknown {', '.join(unknown)} (known: {', '.join(SHOTS)})", file=sys.stderr)
        return 2
    env = {**os.environ, "GRAPHRT_REQUIRE_BROWSER": "1"}  # a missing chromium fails here, it does not skip
    for name in chosen:
        variable, picture, _ = SHOTS[name]
        env[variable] = str(IMAGES / picture)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly",
                           *[SHOTS[name][2] for name in chosen]], cwd=ROOT, env=env)
    if done.returncode == 0:
        for name in chosen:
            print(f"screenshots: {IMAGES / SHOTS[name][1]}")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
