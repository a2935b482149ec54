"""graphrt reads entry points without importlib.metadata (base/entry_points.py): the same ones."""

from __future__ import annotations

from importlib import metadata

from graphrt.base.entry_points import by_name, derived, entry_points, normalized


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


def test_a_package_installed_after_a_reading_is_seen(installed_package) -> None:
    before = entry_points("demo.group")
    installed_package("demo-late", entry_points={"demo.group": {"late": "demo_late:THING"}})
    assert before == [] and [(point.name, point.dist_name) for point in entry_points("demo.group")] == [("late", "demo_late")]


def test_by_name_lets_a_third_party_entry_point_replace_graphrt_s_own(installed_package) -> None:
    installed_package("demo-replacing", entry_points={"graphrt.agents": {"graphrt": "demo_replacing:INDEX"}})
    assert by_name("graphrt.agents")["graphrt"].value == "demo_replacing:INDEX"


def test_what_is_made_from_the_entry_points_is_made_once_and_again_when_a_folder_comes_onto_sys_path(
        tmp_path, monkeypatch) -> None:
    made: list[int] = []

    def make() -> int:
        made.append(len(made) + 1)
        return made[-1]

    assert derived("tests: made", make) == derived("tests: made", make) == 1
    monkeypatch.syspath_prepend(str(tmp_path))
    assert derived("tests: made", make) == 2
