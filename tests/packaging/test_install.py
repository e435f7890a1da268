"""The distributions as a user gets them: the sdist holds everything the wheel ships (web files, migrations, the
bots' weights), and the wheel installed with its base dependencies only, in a fresh venv, plays a game, keeps a
score and says which extra ``luz serve`` needs."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

from luz.cli.extras import EXTRA_MODULES

# Slow (deselected by make test-fast); one xdist worker builds and installs once for all (make test: --dist loadgroup).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("packaging")]

ROOT = Path(__file__).resolve().parents[2]
MINUTES = 600  # a ceiling for a stuck subprocess on a loaded machine, never a wait
NOT_SOURCES = shutil.ignore_patterns(
    ".git", ".venv", "dist", "build", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis", "test-artifacts"
)


def run(*args: str | Path, input: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], input=input, capture_output=True, text=True, timeout=MINUTES, cwd=cwd)


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist and the wheel built from it (``python -m build``), from a copy of the checkout."""
    source = tmp_path_factory.mktemp("source") / "luz"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCES)
    out = tmp_path_factory.mktemp("dist")
    built = run(sys.executable, "-m", "build", "--outdir", out, source)
    assert built.returncode == 0, built.stdout + built.stderr
    return out


@pytest.fixture(scope="module")
def base_venv(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv holding the wheel and its base dependencies, at the versions of constraints.txt."""
    home = tmp_path_factory.mktemp("venv")
    venv.create(home, with_pip=True)
    (wheel,) = dist.glob("luz_game-*.whl")
    installed = run(home / "bin" / "python", "-m", "pip", "install", "-q", "-c", ROOT / "constraints.txt", wheel)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return home


def test_the_sdist_holds_every_file_the_wheel_ships(dist: Path) -> None:
    (wheel,) = dist.glob("luz_game-*.whl")
    (sdist,) = dist.glob("luz_game-*.tar.gz")
    shipped = {name for name in zipfile.ZipFile(wheel).namelist() if name.startswith("luz/")}
    with tarfile.open(sdist) as archive:
        sources = {m.name.split("/src/", 1)[1] for m in archive.getmembers() if m.isfile() and "/src/luz/" in m.name}
    assert shipped == sources
    for expected in ("luz/web/static/index.html", "luz/server/migrations/env.py", "luz/py.typed"):
        assert expected in shipped, expected
    assert any(name.startswith("luz/web/static/js/") for name in shipped)
    assert any(name.startswith("luz/server/migrations/versions/") for name in shipped)
    assert any(name.startswith("luz/bots/") and name.endswith(".npz") for name in shipped)
    tracked = run("git", "ls-files", "src/luz", cwd=ROOT)
    if tracked.returncode == 0:  # in a git checkout: every committed file of the package is shipped
        assert {name.removeprefix("src/") for name in tracked.stdout.split()} <= shipped


def test_the_base_install_is_luz_game_without_any_extra(base_venv: Path) -> None:
    listed = run(base_venv / "bin" / "python", "-m", "pip", "list", "--format", "json")
    installed = {p["name"].lower().replace("_", "-"): p["version"] for p in json.loads(listed.stdout)}
    assert installed["luz-game"] == "0.1.0"
    assert {"numpy", "numba", "typer", "rich"} <= installed.keys()
    assert not {"fastapi", "uvicorn", "sqlalchemy", "matplotlib", "scipy", "gymnasium", "torch"} & installed.keys()
    every_extra = sorted({module for modules in EXTRA_MODULES.values() for module in modules} - {"pydantic"})
    probe = f"import importlib.util as u; print([m for m in {every_extra!r} if u.find_spec(m)])"
    found = run(base_venv / "bin" / "python", "-c", probe)
    assert found.stdout.strip() == "[]", found.stdout + found.stderr
    server = run(base_venv / "bin" / "python", "-c", "import luz.server")
    assert server.returncode != 0 and "ModuleNotFoundError" in server.stderr


def test_luz_play_a_whole_game_then_replay_and_view_its_record(base_venv: Path, tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    keys = "\n".join(itertools.islice(itertools.cycle(map(str, range(11))), 3000)) + "\n"  # bids; slots 1..10
    luz = base_venv / "bin" / "luz"
    played = run(luz, "play", "--players", "3", "--bots", "random", "--seed", "7", "--record", record, input=keys)
    assert played.returncode == 0, played.stdout[-2000:] + played.stderr
    assert "Traceback" not in played.stdout + played.stderr
    assert f"Record saved to {record}" in played.stdout
    outcome = json.loads(record.read_text(encoding="utf-8"))["outcome"]
    replayed = run(luz, "replay", record, "--json")
    assert replayed.returncode == 0, replayed.stderr
    report = json.loads(replayed.stdout)
    assert report["finished"] is True
    assert {key: report[key] for key in outcome} == outcome
    viewed = run(luz, "view", record, "--seat", "1", "--after", "5")
    assert viewed.returncode == 0, viewed.stderr
    own = json.loads(viewed.stdout)["hands"][1]
    assert own and all(card["value"] is None for card in own if not card["played"])  # never one's own values


def test_luz_score_reads_a_document_on_standard_input(base_venv: Path) -> None:
    document = {"edition": "iello-2024", "players": 3, "deals": [{"bids": [2, 1, 3], "tricks": [2, 2, 6]}]}
    scored = run(base_venv / "bin" / "luz", "score", "-", input=json.dumps(document))
    assert scored.returncode == 0, scored.stderr
    report = json.loads(scored.stdout)
    assert report["deals"] == [{"first_player": 0, "scores": [10, -5, -15]}] and report["next_first_player"] == 1


@pytest.mark.parametrize(
    ("args", "command", "extra"),
    [
        (["serve"], "luz serve", "server"),
        (["bench", "server"], "luz bench server", "server"),
        (["arena", "--bots", "random,random,random"], "luz arena", "arena"),
    ],
)
def test_a_command_without_its_extra_names_it_in_one_line(
    base_venv: Path, args: list[str], command: str, extra: str
) -> None:
    refused = run(base_venv / "bin" / "luz", *args)
    assert refused.returncode == 2
    assert refused.stdout == ""
    assert refused.stderr == f"{command} needs the {extra} extra: pip install 'luz-game[{extra}]'\n"
