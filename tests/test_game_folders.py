"""A game is one folder (issue 31): no tracked file outside ``services/games/<name>/`` names it.

For every game folder under ``services/games/`` (the folder's name is the ruleset's name),
this lists each file git tracks outside that folder whose path or text names the game, as
a word, in any case: ``teotihuacan/first_game``, ``schemas_teotihuacan_0`` and
``"Teotihuacan"`` name it; ``TeotihuacanRuleset`` (one identifier) and ``teoti`` do not.
A third game therefore touches nothing outside its folder but its one entry-point line.

Not counted, each for its reason:

- the project's own names (``PROJECT_NAMES``): the ``teotihuacan-server`` distribution,
  the ``teotihuacan_server`` entry-point group and the ``teotihuacan-client`` distribution
  (``teotihuacan_client-*.whl``) name the project, which shares the first game's name;
- this check itself, which must spell those names;
- ``docs/``, ``README*`` and every ``*.md`` file: prose for readers, who are told what the
  games are (each game's page, the event-schema registry of each ruleset);
- in ``pyproject.toml``, the lines of the games' entry-point table: that one line per game
  is how the platform finds a game installed from any distribution;
- ``services/web/static/``: the reference web client's build output (clients/web's
  build.mjs), which bundles each game's board from its folder's ``web/`` (the source
  naming the game stays in the folder; the bundle is generated, never edited);
- ``deploy/k8s/overlays/production/``: the production overlay's Kubernetes namespace and
  host names are the deployment's name (``teotihuacan``), chosen by whoever deploys the
  project, not the game.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
GAMES = REPO / "services" / "games"

PROJECT_NAMES = (
    "teotihuacan-server",
    "teotihuacan_server",
    "teotihuacan-client",
    "teotihuacan_client",
)
"""The project's own names (its distributions, their wheels' file names, the entry-point
group), not the game's."""

THIS_CHECK = "tests/test_game_folders.py"
"""This file: it spells the project's names and examples of the word match."""

PROSE_DIRS = ("docs/",)
"""Folders of prose for readers (see the module doc)."""

DEPLOYMENT_NAMED = ("deploy/k8s/overlays/production/",)
"""Folders whose names are the deployment's choice (see the module doc)."""

BUILT = ("services/web/static/",)
"""The web client's build output, generated from the games' web/ folders (module doc)."""

ENTRY_POINT_TABLE = '[project.entry-points."teotihuacan_server.games"]'
"""pyproject.toml's table of one line per game (see the module doc)."""


def game_names() -> list[str]:
    """The game folders under services/games/ (a package each), by name."""
    return sorted(p.name for p in GAMES.iterdir() if (p / "__init__.py").is_file())


def tracked_files() -> list[str]:
    """Paths (relative to the checkout) of every file git tracks."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.decode()
    return [path for path in listed.split("\0") if path]


def name_pattern(game: str) -> re.Pattern[str]:
    """``game`` as a word in any case: not inside a longer run of letters and digits
    (``_``, ``-``, ``.`` and ``/`` separate words here, as in file and module names)."""
    return re.compile(rf"(?<![a-z0-9]){re.escape(game)}(?![a-z0-9])", re.IGNORECASE)


def without_project_names(text: str) -> str:
    """``text`` with the project's own names blanked out (they are not the game's)."""
    for name in PROJECT_NAMES:
        text = re.sub(re.escape(name), " ", text, flags=re.IGNORECASE)
    return text


def is_prose(path: str) -> bool:
    """True for docs/, README files and Markdown (see the module doc)."""
    name = path.rsplit("/", 1)[-1]
    return path.startswith(PROSE_DIRS) or name.startswith("README") or name.endswith(".md")


def without_entry_points(text: str) -> str:
    """pyproject.toml's text without its games' entry-point table (one line per game)."""
    kept: list[str] = []
    in_table = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            in_table = stripped == ENTRY_POINT_TABLE
        if not in_table:
            kept.append(line)
    return "\n".join(kept)


def checked_text(path: str) -> str | None:
    """What of ``path`` the check reads: its path, and its text unless it is binary
    (a gzip log names its game in its path; its bytes are compressed)."""
    data = (REPO / path).read_bytes()
    if b"\0" in data[:8192]:
        return path
    text = data.decode("utf-8", errors="replace")
    if path == "pyproject.toml":
        text = without_entry_points(text)
    return f"{path}\n{text}"


def files_naming(game: str, files: list[str]) -> Iterator[str]:
    """The files outside ``services/games/<game>/`` that name ``game`` (not counting the
    exclusions of the module doc)."""
    pattern = name_pattern(game)
    folder = f"services/games/{game}/"
    for path in files:
        if path.startswith(folder) or is_prose(path) or path.startswith(DEPLOYMENT_NAMED + BUILT):
            continue
        if path == THIS_CHECK:
            continue
        if not (REPO / path).is_file():  # deleted in the work tree, not yet committed
            continue
        text = checked_text(path)
        if text is not None and pattern.search(without_project_names(text)):
            yield path


@pytest.fixture(scope="module")
def files() -> list[str]:
    """Every tracked file, or skip outside a git checkout (an unpacked sdist has no list)."""
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout: no list of tracked files")
    return tracked_files()


def test_every_game_folder_is_a_registered_ruleset() -> None:
    from services.engine.domain.rulesets import default_registry

    assert game_names() == default_registry().names()


def test_the_word_match_tells_the_game_from_the_project() -> None:
    pattern = name_pattern("teotihuacan")
    named = [
        'ruleset="teotihuacan"',
        "tests/fixtures/logs/teotihuacan/x.jsonl.gz",
        "schemas_teotihuacan_0",
        "Teotihuacan: City of Gods",
        "services.games.teotihuacan.rules",
    ]
    not_named = [
        "pip install teotihuacan-server",
        'group = "teotihuacan_server.games"',
        "the teotihuacan-client distribution",
        "TEOTI_BOT_SECRET",
        "TeotihuacanRuleset",
        "teotibot",
    ]
    assert all(pattern.search(without_project_names(text)) for text in named)
    assert not any(pattern.search(without_project_names(text)) for text in not_named)
    assert not name_pattern("nim").search("minimal animation")


def test_the_entry_point_line_is_the_only_line_of_pyproject_allowed_to_name_a_game() -> None:
    text = "\n".join(
        [
            "[project]",
            'name = "teotihuacan-server"',
            ENTRY_POINT_TABLE,
            'archaeology = "services.games.archaeology:GAME"',
            "[tool.pytest.ini_options]",
            'x = ["archaeology"]',
        ]
    )
    kept = without_entry_points(text)
    assert "services.games.archaeology:GAME" not in kept
    assert 'x = ["archaeology"]' in kept


@pytest.mark.parametrize("game", game_names())
def test_no_file_outside_a_game_folder_names_the_game(game: str, files: list[str]) -> None:
    new = sorted(files_naming(game, files))
    assert not new, (
        f"{len(new)} files outside services/games/{game}/ name {game!r}; move them into the "
        f"game's folder or make them iterate the registered games:\n" + "\n".join(new)
    )
