"""The YAML styles `python -m bench yaml` times are one graph, which graphrt's own reader reads, as PyYAML does."""

import pytest
import yaml

from bench.yaml_styles import STYLES
from graphrt.graphdata import full_yaml, loader
from graphrt.graphdata.quick_yaml import quick_load


@pytest.mark.parametrize("style", STYLES)
def test_each_style_is_read_by_the_quick_reader_as_pyyaml_reads_it(style: str) -> None:
    text = "\n".join(STYLES[style](30)) + "\n"
    quick = quick_load(text, max_depth=loader.MAX_DEPTH, max_values=loader.MAX_VALUES)

    assert quick is not None
    assert quick == yaml.load(text, Loader=full_yaml._GraphLoader)  # noqa: S506 - a safe loader
    assert quick["nodes"]["n29"]["inputs"] in ({"v": ":n28"}, [":n28", "n29"])
