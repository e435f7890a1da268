"""The extras as pyproject.toml declares them, and the modules ``luz.cli.extras`` checks for each."""

from __future__ import annotations

import importlib.metadata
import itertools
import re
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from luz.cli import app
from luz.cli.extras import EXTRA_MODULES, install_hint, missing_modules

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]
TOOL_UV = PYPROJECT["tool"]["uv"]


def canonical(name: str) -> str:
    """A distribution's name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(requirement: str) -> str:
    return canonical(re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0])


def test_the_distribution_is_luz_game_and_imports_as_luz() -> None:
    assert PROJECT["name"] == "luz-game"
    assert PROJECT["scripts"] == {"luz": "luz.cli:main"}


def test_the_base_install_is_the_engine_bots_and_terminal() -> None:
    assert sorted(map(requirement_name, PROJECT["dependencies"])) == ["numba", "numpy", "rich", "typer"]


def test_all_is_every_other_extra() -> None:
    extras = PROJECT["optional-dependencies"]
    (everything,) = extras["all"]
    assert everything == f"luz-game[{','.join(name for name in extras if name != 'all')}]"


@pytest.mark.parametrize("extra", sorted(EXTRA_MODULES))
def test_the_modules_checked_are_the_extras_distributions(extra: str) -> None:
    """Each distribution of the extra is checked through a module of its own, and each module checked is one of
    theirs (read from the installed distributions: this environment has every extra)."""
    distributions = {requirement_name(r) for r in PROJECT["optional-dependencies"][extra]}
    owners = importlib.metadata.packages_distributions()
    checked = {module: {canonical(d) for d in owners.get(module, [])} for module in EXTRA_MODULES[extra]}
    for module, owning in checked.items():
        assert owning & distributions, f"{module} is installed by none of the {extra} extra's distributions"
    for distribution in distributions:
        assert any(distribution in owning for owning in checked.values()), f"no module of {distribution} checked"


def test_every_extra_is_installed_here() -> None:
    assert {extra: missing for extra in EXTRA_MODULES if (missing := missing_modules(extra))} == {}


def test_install_hint_names_the_distribution() -> None:
    assert install_hint("research") == "pip install 'luz-game[research]'"


def test_a_missing_extra_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(EXTRA_MODULES, "server", ("a_module_no_one_installs",))
    result = CliRunner().invoke(app, ["serve"])
    assert result.exit_code == 2
    assert result.output == "luz serve needs the server extra: pip install 'luz-game[server]'\n"


def test_constraints_pin_every_dependency_of_every_extra() -> None:
    """constraints.txt is current (`make lock` after a change of pyproject.toml): each dependency is pinned there,
    and PyTorch at the release pyproject.toml asks uv for."""
    pins = dict(
        line.split("==", 1)
        for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines()
        if "==" in line
    )
    pins = {canonical(name): version.strip() for name, version in pins.items()}
    requirements = [*PROJECT["dependencies"], *itertools.chain(*PROJECT["optional-dependencies"].values())]
    unpinned = {requirement_name(r) for r in requirements} - pins.keys() - {"luz-game"}
    assert unpinned == set(), f"not in constraints.txt (run make lock): {sorted(unpinned)}"
    (torch,) = TOOL_UV["constraint-dependencies"]
    assert f"torch=={pins['torch']}" == torch
