"""graphrt reads entry points without importlib.metadata (authoring/entry_points.py): the same ones."""

from __future__ import annotations

from importlib import metadata

from graphrt.authoring.entry_points import entry_points, normalized


def test_every_group_has_the_entry_points_importlib_metadata_finds() -> None:
    groups = {point.group for dist in metadata.distributions() for point in dist.entry_points}
    assert "graphrt.agents" in groups and "console_scripts" in groups
    for group in groups:
        ours = sorted((point.name, point.value, point.dist_name) for point in entry_points(group))
        theirs = sorted((point.name, point.value, normalized(point.dist.name)) for point in metadata.entry_points(group=group))
        assert ours == theirs, group


def test_an_entry_point_loads_the_object_it_names() -> None:
    (builtin,) = [point for point in entry_points("graphrt.agents") if point.dist_name == "graphrt"]
    import graphrt_agents

    assert builtin.load() is graphrt_agents.INDEX
