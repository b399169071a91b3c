"""Games declare themselves (GameDeclaration) and are found through entry points: the
declaration's checks, the registry built from entry points (a broken one hides no other),
the default game, declared capabilities checked against the class, and a light import."""

from __future__ import annotations

import random
import subprocess
import sys
from dataclasses import replace
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from services.engine.domain.errors import UnknownRuleset
from services.engine.domain.game_declaration import (
    ENTRY_POINT_GROUP,
    Capability,
    InvalidDeclaration,
    SoloMode,
)
from services.engine.domain.ruleset import (
    SetupRequest,
    bot_policy_of,
    decide_and_fold,
    info_of,
    supports_snapshots,
)
from services.engine.domain.rulesets import (
    RulesetRegistry,
    declarations_from,
    default_registry,
    default_ruleset,
    installed_games,
)
from tests.nim import NIM, NimRuleset

ROOT = Path(__file__).resolve().parents[2]


def entry(name: str, value: str) -> EntryPoint:
    return EntryPoint(name=name, value=value, group=ENTRY_POINT_GROUP)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"name": "Nim"}, "game name"),
        ({"name": "9nim"}, "game name"),
        ({"title": " "}, "title"),
        ({"ruleset": "tests.nim.NimRuleset"}, "ruleset"),
        ({"tui_kit": "no colon"}, "tui_kit"),
        ({"min_seats": 0}, "seats"),
        ({"min_seats": 5, "max_seats": 4}, "seats"),
        ({"max_seats": 9}, "seats"),
        ({"solo": SoloMode({"solo": True}, 5, "Bot")}, "solo"),
        ({"capabilities": frozenset({"apply"})}, "unknown capabilities"),
        ({"archive_dictionaries": "tests.nim"}, "archive_dictionaries"),
        ({"archive_dictionaries": "tests:../outside"}, "archive_dictionaries"),
        ({"archive_dictionaries": "tests:/etc"}, "archive_dictionaries"),
    ],
)
def test_a_wrong_declaration_names_its_field(changes: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidDeclaration, match=field):
        replace(NIM, **changes)  # type: ignore[arg-type]


def test_capabilities_given_as_a_set_are_frozen() -> None:
    declared = replace(NIM, capabilities={Capability.SNAPSHOTS})  # type: ignore[arg-type]
    assert declared.capabilities == frozenset({Capability.SNAPSHOTS})
    assert declared.has(Capability.SNAPSHOTS) and not declared.has(Capability.APPLY)


def test_the_installed_games_are_the_game_folders_and_their_classes_agree() -> None:
    games = {g.name: g for g in installed_games()}
    folders = ROOT / "services" / "games"
    shipped = {p.name for p in folders.iterdir() if (p / "__init__.py").is_file()}
    assert set(games) >= shipped  # every folder is registered by its entry point
    registry = default_registry()
    for name, game in games.items():
        ruleset = registry.get(name)
        assert ruleset.declaration is game and ruleset.name == name
        assert info_of(ruleset) == game.info
        assert supports_snapshots(ruleset) == game.has(Capability.SNAPSHOTS)
        assert (bot_policy_of(ruleset) is not None) == game.has(Capability.BOT_POLICY)


def test_a_broken_misnamed_or_duplicate_entry_point_hides_no_other() -> None:
    found = declarations_from(
        [
            entry("nim", "tests.nim:NIM"),
            entry("nim", "tests.clocks.helpers:BotNimRuleset"),  # not a declaration
            entry("missing", "no_such_package:GAME"),
            entry("other", "tests.nim:NIM"),  # names "nim"
            entry("nim", "tests.nim:NIM"),  # twice
        ]
    )
    assert found == (NIM,)


def test_the_default_is_the_declared_one_else_the_first_by_name() -> None:
    declared = [g.name for g in installed_games() if g.default]
    assert default_ruleset() == min(declared or [g.name for g in installed_games()])
    b, a = replace(NIM, name="b"), replace(NIM, name="a")
    assert default_ruleset([b, a]) == "a"
    assert default_ruleset([a, replace(b, default=True)]) == "b"
    assert default_ruleset([replace(b, default=True), replace(a, default=True)]) == "a"
    with pytest.raises(UnknownRuleset, match="no game is installed"):
        default_ruleset([])


def test_a_registered_declaration_answers_without_importing_and_the_class_must_agree() -> None:
    registry = RulesetRegistry()
    registry.register_game(NIM)
    assert registry.declaration("nim") is NIM and registry.names() == ["nim"]
    registry.register_game(replace(NIM, name="liar", capabilities=frozenset(Capability)))
    assert [d.name for d in registry.declarations()] == ["liar", "nim"]
    with pytest.raises(UnknownRuleset, match="its class declares 'nim'"):
        registry.get("liar")
    registry.register_game(replace(NIM, ruleset="no_such_package:Rules"))
    with pytest.raises(UnknownRuleset, match="not available"):
        registry.get("nim")


def test_declared_capabilities_must_exist_on_the_class() -> None:
    class Boastful(NimRuleset):
        declaration = replace(NIM, capabilities=frozenset(Capability))

    registry = RulesetRegistry()
    registry.register("nim", Boastful)
    with pytest.raises(UnknownRuleset, match="apply, bot_policy"):
        registry.get("nim")
    registry.register("other", NimRuleset)
    with pytest.raises(UnknownRuleset, match="all three must agree"):
        registry.get("other")


def test_decide_and_fold_uses_apply_only_when_declared() -> None:
    calls: list[str] = []

    class Applying(NimRuleset):
        declaration = replace(NIM, capabilities=NIM.capabilities | {Capability.APPLY})

        def apply(self, state, seat, action, rng):  # type: ignore[no-untyped-def]
            calls.append("apply")
            events = self.decide(state, seat, action, rng)
            for event in events:
                state = self.evolve(state, event)
            return events, state

    class Undeclared(Applying):
        declaration = NIM

    for rules, expected in ((Applying(), ["apply"]), (Undeclared(), [])):
        calls.clear()
        rng = random.Random(1)
        state = None
        for event in rules.setup(SetupRequest(2), rng):
            state = rules.evolve(state, event)
        events, after = decide_and_fold(rules, state, 0, {"take": 1}, rng)
        assert calls == expected
        assert [e.type for e in events] == ["StonesTaken"] and after.pile == state.pile - 1


def test_reading_the_declarations_imports_no_rules_and_no_redis() -> None:
    code = (
        "import sys\n"
        "from services.engine.domain.rulesets import default_registry\n"
        "assert default_registry().declarations()\n"
        "loaded = [m for m in sys.modules if m.startswith('services.games.') and "
        "'.rules' in m or m == 'redis' or m.startswith('grpc')]\n"
        "assert not loaded, loaded\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
