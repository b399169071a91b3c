"""The container image Kubernetes runs, really built (scripts/build_image.sh) and really run.

Builds the image from the repository's Dockerfile (Docker where its engine answers, else
podman from debootstrapped Debian bases) and runs what it contains the way deploy/k8s
does: as the image's user (10001:10001), a read-only root filesystem with a writable
``/tmp``, the image's own ENTRYPOINT, environment and working directory. It checks
``teoti --help``, the mypyc-compiled rules, the engine, gateway and bot worker started from
the image against the test session's Redis (gRPC health SERVING), ListRulesets listing
every registered ruleset, and a ``teoti demo --target`` game of each to its end through
them (a ruleset whose package data the image lacks fails here). Prints the build time
and the image's size.

Without Docker, ``podman run`` cannot work in this sandbox (cgroups), so the podman path
runs the image's root filesystem (``podman image mount``) in a private mount namespace:
bind-mounted read-only onto itself, a tmpfs on ``/tmp``, the host's ``/dev`` and ``/proc``,
then ``chroot --userspec`` into it. It shares the host's network, like ``--network host``.

Slow (a cold build takes minutes): ``pytest -m slow tests/image``. Skips, saying why, where
neither a Docker engine nor podman + debootstrap (as root) is available.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from teoti_client.proto import game_service_pb2, game_service_pb2_grpc

from services.engine.domain.rulesets import default_registry

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
BUILD_SCRIPT = REPO / "scripts" / "build_image.sh"
TAG = "teotihuacan-server:dev"
BUILD_TIMEOUT_S = 3600
START_TIMEOUT_S = 120
DEMO_TIMEOUT_S = 600
RULESETS = default_registry().names()
"""Every ruleset the service registers: the image must serve and play each one."""

# Runs as root in a private mount namespace, then becomes the image's user in the chroot:
# "$1" root filesystem, "$2" user:group, "$3" working directory, the rest: env -i's args.
CHROOT_SCRIPT = r"""
set -e
rootfs="$1" user="$2" workdir="$3"; shift 3
mount --bind "$rootfs" "$rootfs"
mount -o remount,bind,ro "$rootfs"
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$rootfs/tmp"
mount --rbind /dev "$rootfs/dev"
mount --rbind /proc "$rootfs/proc"
exec chroot --userspec="$user" --groups="${user#*:}" "$rootfs" \
    /usr/bin/env -i -C "$workdir" "$@"
"""


def _engine() -> str:
    """docker, podman, or a skip with the reason."""
    if shutil.which("docker"):
        answered = subprocess.run(["docker", "info"], capture_output=True, timeout=30)
        if answered.returncode == 0:
            return "docker"
    missing = [
        tool for tool in ("podman", "debootstrap", "unshare", "chroot") if not shutil.which(tool)
    ]
    if missing:
        pytest.skip(
            f"no Docker engine answers and {', '.join(missing)} missing: the image cannot be "
            "built here (apt-get install podman debootstrap)"
        )
    if os.geteuid() != 0:
        pytest.skip("no Docker engine answers and the podman path (debootstrap, chroot) needs root")
    return "podman"


@dataclass
class Image:
    """A built image and how to run a command from it as the container runtime would."""

    engine: str
    tag: str
    config: dict[str, Any]
    size_bytes: int
    podman_args: list[str] = field(default_factory=list)
    rootfs: Path | None = None

    @property
    def user(self) -> str:
        return str(self.config.get("User") or "")

    def argv(
        self, args: Sequence[str], env: dict[str, str], entrypoint: str | None = None
    ) -> list[str]:
        """The host command that runs ``args`` (after the entrypoint) from the image."""
        entry = [entrypoint] if entrypoint else list(self.config.get("Entrypoint") or [])
        command = entry + (list(args) if args else list(self.config.get("Cmd") or []))
        if self.engine == "docker":
            env_flags = [f"--env={k}={v}" for k, v in env.items()]
            entry_flag = [f"--entrypoint={entrypoint}"] if entrypoint else []
            return [
                "docker", "run", "--rm", "--read-only", "--tmpfs=/tmp", "--network=host",
                *env_flags, *entry_flag, self.tag, *(list(args) if args else []),
            ]  # fmt: skip
        assert self.rootfs is not None
        image_env = [str(e) for e in self.config.get("Env") or []]
        extra = [f"{k}={v}" for k, v in env.items()]
        workdir = str(self.config.get("WorkingDir") or "/")
        return [
            "unshare", "--mount", "--propagation=private", "--", "sh", "-c", CHROOT_SCRIPT,
            "in-image", str(self.rootfs), self.user, workdir, *image_env, *extra, *command,
        ]  # fmt: skip

    def run(
        self,
        args: Sequence[str],
        env: dict[str, str] | None = None,
        *,
        entrypoint: str | None = None,
        timeout: float = 120,
    ) -> subprocess.CompletedProcess[str]:
        """Run to the end; stdout and stderr together in ``.stdout``."""
        return subprocess.run(
            self.argv(args, env or {}, entrypoint),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=timeout,
        )

    def start(
        self, args: Sequence[str], env: dict[str, str], log: IO[bytes]
    ) -> subprocess.Popen[bytes]:
        """Start in the background (every wrapper execs, so the pid is the service's)."""
        return subprocess.Popen(self.argv(args, env), stdout=log, stderr=subprocess.STDOUT)


def _build(engine: str) -> float:
    """Run scripts/build_image.sh; seconds it took."""
    started = time.monotonic()
    result = subprocess.run(
        [str(BUILD_SCRIPT), "--tag", TAG],
        env={**os.environ, "TEOTI_IMAGE_ENGINE": engine},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=BUILD_TIMEOUT_S,
    )
    assert result.returncode == 0, "build_image.sh failed:\n" + result.stdout[-6000:]
    return time.monotonic() - started


@pytest.fixture(scope="module")
def image() -> Iterator[Image]:
    engine = _engine()
    seconds = _build(engine)
    if engine == "docker":
        inspect = subprocess.run(
            ["docker", "image", "inspect", TAG], capture_output=True, text=True, check=True
        )
        info = json.loads(inspect.stdout)[0]
        built = Image(engine, TAG, info["Config"], int(info["Size"]))
        print(
            f"\nimage {TAG}: built with docker in {seconds:.0f} s, {built.size_bytes / 1e6:.0f} MB"
        )
        yield built
        return
    podman_args = subprocess.run(
        [str(BUILD_SCRIPT), "--podman-args"], capture_output=True, text=True, check=True
    ).stdout.split()
    podman = ["podman", *podman_args]
    inspect = subprocess.run(
        [*podman, "image", "inspect", TAG], capture_output=True, text=True, check=True
    )
    info = json.loads(inspect.stdout)[0]
    mounted = subprocess.run(
        [*podman, "image", "mount", TAG], capture_output=True, text=True, check=True
    )
    built = Image(
        engine, TAG, info["Config"], int(info["Size"]), podman_args, Path(mounted.stdout.strip())
    )
    print(f"\nimage {TAG}: built with podman in {seconds:.0f} s, {built.size_bytes / 1e6:.0f} MB")
    try:
        yield built
    finally:
        subprocess.run([*podman, "image", "unmount", TAG], capture_output=True, check=False)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serving(port: int, service: str) -> bool:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=service), timeout=2
            )
        except grpc.RpcError:
            return False
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


def test_runs_as_the_non_root_user_of_the_manifests(image: Image) -> None:
    assert image.user == "10001:10001"
    assert image.config.get("Entrypoint") == ["teoti"]
    result = image.run(
        ["sh", "-c", "id -u; id -g; touch /opt/teoti/probe || echo read-only"],
        entrypoint="/usr/bin/env",
    )
    assert result.returncode == 0, result.stdout
    assert result.stdout.split()[:2] == ["10001", "10001"], result.stdout
    assert "read-only" in result.stdout, result.stdout


def test_teoti_help(image: Image) -> None:
    result = image.run(["--help"])
    assert result.returncode == 0, result.stdout
    assert result.stdout.startswith("usage: teoti"), result.stdout
    for command in ("engine", "gateway", "bot", "demo"):
        assert command in result.stdout
    # The image's CMD is --help: `docker run IMAGE` alone prints the same.
    assert image.run([]).stdout == result.stdout


def test_ships_the_compiled_rules(image: Image) -> None:
    # Every registered game's rules (services/games/<name>/rules/), less what setup.py
    # leaves interpreted (a game's bot policy among them).
    interpreted = {"__init__.py", "options.py", "state.py", "policy.py"}
    modules = sorted(
        f"services.games.{name}.rules.{p.stem}"
        for name in RULESETS
        for p in (REPO / "services" / "games" / name / "rules").glob("*.py")
        if p.name not in interpreted
    )
    assert modules
    probe = (
        "import importlib, sys\nfor m in sys.argv[1:]: print(importlib.import_module(m).__file__)"
    )
    result = image.run(["-c", probe, *modules], entrypoint="python")
    assert result.returncode == 0, result.stdout
    files = result.stdout.split()
    assert len(files) == len(modules), result.stdout
    assert all(f.endswith(".so") and f.startswith("/opt/teoti/") for f in files), files


def test_engine_gateway_bot_play_a_demo_game(
    image: Image, redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    engine_port, gateway_port, bot_health_port = _free_port(), _free_port(), _free_port()
    link_port = _free_port()
    env = {"REDIS_URL": redis_url}
    # Bot seats act under a credential only the engine and the bot worker hold (issue 12);
    # separate processes share it through the environment, as the k8s Secret does.
    bot_env = {**env, "TEOTI_BOT_SECRET": secrets.token_hex(16)}
    common = ["--key-prefix", key_prefix]
    # As deployed (deploy/k8s): commands on the engine link.
    engine_target = f"127.0.0.1:{link_port}"
    services = {
        "engine": (
            ["engine", "--port", str(engine_port), "--link-port", str(link_port), *common],
            engine_port,
            "gameserver.v1.EngineService",
        ),
        "gateway": (
            ["gateway", "--port", str(gateway_port), "--engine", engine_target, *common],
            gateway_port,
            "gameserver.v1.GameService",
        ),
        "bot": (
            ["bot", "--engine", engine_target, "--health-port", str(bot_health_port),
             *common],
            bot_health_port,
            "gameserver.v1.BotWorker",
        ),
    }  # fmt: skip
    processes: dict[str, subprocess.Popen[bytes]] = {}
    logs = {name: tmp_path / f"{name}.log" for name in services}

    def tails() -> str:
        return "\n".join(
            f"--- {n}:\n{logs[n].read_text(errors='replace')[-3000:]}" for n in services
        )

    try:
        for name, (args, _, _) in services.items():
            with logs[name].open("wb") as log:
                processes[name] = image.start(args, env if name == "gateway" else bot_env, log)
        started = time.monotonic()
        for name, (_, port, service) in services.items():
            while not (_serving(port, "") and _serving(port, service)):
                assert processes[name].poll() is None, f"{name} exited\n" + tails()
                assert time.monotonic() - started < START_TIMEOUT_S, (
                    f"{name} not SERVING\n" + tails()
                )
                time.sleep(0.5)
        print(f"\nengine, gateway, bot SERVING {time.monotonic() - started:.1f} s after start")

        # Every registered ruleset is served (ListRulesets fails as a whole if one
        # ruleset's package data is missing from the image) and plays a game to its end.
        with grpc.insecure_channel(f"127.0.0.1:{gateway_port}") as channel:
            listed = game_service_pb2_grpc.GameServiceStub(channel).ListRulesets(
                game_service_pb2.ListRulesetsRequest(), timeout=30
            )
        assert sorted(r.name for r in listed.rulesets) == RULESETS, listed
        for ruleset in RULESETS:
            played = time.monotonic()
            demo = image.run(
                ["demo", "--target", f"127.0.0.1:{gateway_port}", "--players", "2",
                 "--ruleset", ruleset],
                timeout=DEMO_TIMEOUT_S,
            )  # fmt: skip
            print(f"{ruleset} demo game through the image: {time.monotonic() - played:.1f} s")
            assert demo.returncode == 0, demo.stdout + tails()
            assert re.search(r"finished after \d+ events", demo.stdout), demo.stdout
            places = re.findall(r"^\s+\d\. .+ \(seat \d\): \d+ points?$", demo.stdout, re.M)
            assert len(places) == 2, demo.stdout
        for name in services:
            assert processes[name].poll() is None, f"{name} exited during the game\n" + tails()
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for name, process in processes.items():
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
                print(f"{name} ignored SIGTERM for 30 s", file=sys.stderr)


def test_reports_the_image_size(image: Image) -> None:
    print(f"\nimage {image.tag} size: {image.size_bytes / 1e6:.0f} MB ({image.size_bytes} bytes)")
    assert 50e6 < image.size_bytes < 2e9


def test_the_build_time_ca_bundle_stays_out_of_the_image(image: Image) -> None:
    # build_image.sh lends the host's CA bundle to the RUN steps (a TLS-intercepting proxy's
    # CA, for pip) as a read-only bind mount: none of this host's own CAs may ship.
    local_cas = sorted(Path("/usr/local/share/ca-certificates").glob("**/*.crt"))
    if not local_cas:
        pytest.skip("this host has no local CA that a build could have leaked")
    shipped = image.run(["/etc/ssl/certs/ca-certificates.crt"], entrypoint="cat")
    assert shipped.returncode == 0, shipped.stdout
    shipped_bundle = "".join(shipped.stdout.split())
    assert "BEGINCERTIFICATE" in shipped_bundle
    for ca in local_cas:
        body = "".join(ca.read_text().split())
        assert body not in shipped_bundle, f"{ca} is in the image's CA bundle"
