"""SampleProject and SHOP: the shop as one value, carrying what a run of it needs."""

from __future__ import annotations

import dataclasses

import pytest

from reactlab import fix_failing_test_task
from reactlab.samples import (
    SHOP,
    SHOP_FILES,
    SHOP_READ_ONLY,
    SHOP_TEST_COMMAND,
    SampleProject,
    shop_cassette_path,
    shop_path,
    shop_task,
)


def test_the_shop_carries_its_files_read_only_paths_and_test_command():
    assert SHOP.files == ("shop/delivery.py", "shop/settings.json", "tests/test_delivery.py")
    assert SHOP.read_only == ("shop/settings.json", "tests")
    assert all((SHOP.path / path).is_file() for path in SHOP.files)
    assert all((SHOP.path / path).exists() for path in SHOP.read_only)
    assert SHOP.test_command == "python3 -m unittest discover -s tests -v"
    with pytest.raises(dataclasses.FrozenInstanceError):
        SHOP.test_command = "true"  # type: ignore[misc]


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_task_names_the_files_the_command_and_the_protected_paths_folders_with_a_slash(lang):
    assert SHOP.task(lang) == fix_failing_test_task(
        SHOP.files, ["shop/settings.json", "tests/"], SHOP.test_command, lang
    )


def test_a_sample_project_finds_its_cassette_per_language_beside_its_folder(tmp_path):
    (tmp_path / "project" / "tests").mkdir(parents=True)
    (tmp_path / "project" / "conf.json").write_text("{}")
    project = SampleProject(tmp_path / "project", ("a.py",), ("tests", "conf.json"), "pytest -q", "run")
    assert project.cassette_path("en") == tmp_path / "run.json"
    assert project.cassette_path("ru") == tmp_path / "run_ru.json"
    assert "tests/, conf.json" in project.task("en") and "pytest -q" in project.task("en")
    assert [path.exists() for path in (SHOP.cassette_path("en"), SHOP.cassette_path("ru"))] == [True, True]


def test_the_names_of_before_are_the_shops_values():
    assert (SHOP_FILES, SHOP_READ_ONLY) == (list(SHOP.files), list(SHOP.read_only))
    assert SHOP_TEST_COMMAND == SHOP.test_command
    assert shop_path() == SHOP.path
    assert (shop_task("ru"), shop_cassette_path("ru")) == (SHOP.task("ru"), SHOP.cassette_path("ru"))
