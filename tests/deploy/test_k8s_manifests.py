"""The Kubernetes manifests in deploy/k8s/, checked offline (no cluster).

Each overlay is rendered with ``kubectl kustomize`` (kustomize v4 or newer) and every
resource is validated against the Kubernetes OpenAPI schemas bundled in the PyPI package
``kubernetes-validate`` (strict: unknown fields are errors). Then structural checks tie the
manifests to the code: probes on the ports and gRPC health service names the servers use,
container args accepted by the real ``teoti`` parser, every ``$(VAR)`` defined, every
referenced ConfigMap/Secret rendered, network policies and autoscalers pointing at real
workloads. Tests skip, with the reason, when kubectl or kubernetes-validate is missing.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

yaml = pytest.importorskip("yaml", reason="PyYAML is in the dev extra (pip install -e '.[dev]')")

REPO = Path(__file__).resolve().parents[2]
K8S = REPO / "deploy" / "k8s"
OVERLAYS = ("dev", "production")
TARGETS = ("base", *OVERLAYS)
# Oldest Kubernetes we support (native gRPC probes are GA since 1.27) and the newest the
# validator knows; both must accept every resource.
K8S_VERSIONS = ("1.29.0", "latest")
COMPONENTS = ("gateway", "engine", "bot", "director")
COMPONENT_LABEL = "app.kubernetes.io/component"
# Created out of band in production (never from the repository); the signing key in
# every environment: a private key in the repository would let anyone sign any log.
SIGNING_SECRET = "teoti-signing-key"
EXTERNAL_SECRETS = {
    "production": {f"teoti-redis-{component}" for component in COMPONENTS}
    | {"teoti-bot-credential", SIGNING_SECRET},
    # The engine and the bot worker refuse a placeholder bot credential (issue 30 item 5).
    "dev": {"teoti-bot-credential", SIGNING_SECRET},
}
# Besides its Redis login, the Secrets each service reads: the bot credential is for the
# engine (which checks it) and the bot worker (which acts under it), never the gateway;
# the gateway's TournamentService logs in as the director's Redis user.
EXTRA_SECRETS = {
    "engine": {"teoti-bot-credential"},
    "bot": {"teoti-bot-credential"},
    "gateway": {"teoti-redis-director"},
}


def _kustomize_problem() -> str | None:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        return "kubectl is not installed (it renders the kustomizations: `kubectl kustomize`)"
    try:
        out = subprocess.run(
            [kubectl, "version", "--client", "-o", "json"],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout
        version = json.loads(out).get("kustomizeVersion", "")
    except (subprocess.SubprocessError, ValueError) as exc:
        return f"cannot ask kubectl for its kustomize version: {exc}"
    found = re.match(r"v?(\d+)\.", version)
    if not found or int(found.group(1)) < 4:
        return f"kubectl's kustomize {version or '(unknown)'} is older than v4"
    return None


@cache
def _render(target: str) -> tuple[dict[str, Any], ...]:
    problem = _kustomize_problem()
    if problem:
        pytest.skip(problem)
    path = K8S / "base" if target == "base" else K8S / "overlays" / target
    result = subprocess.run(
        ["kubectl", "kustomize", str(path)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, f"kustomize {target} failed:\n{result.stderr}"
    return tuple(doc for doc in yaml.safe_load_all(result.stdout) if doc)


@pytest.fixture(params=TARGETS)
def target(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=OVERLAYS)
def overlay(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def of_kind(docs: tuple[dict[str, Any], ...], kind: str) -> list[dict[str, Any]]:
    return [d for d in docs if d["kind"] == kind]


def named(docs: tuple[dict[str, Any], ...], kind: str, name: str) -> dict[str, Any]:
    found = [d for d in of_kind(docs, kind) if d["metadata"]["name"] == name]
    assert len(found) == 1, f"want one {kind} {name}, found {len(found)}"
    return found[0]


def workloads(docs: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
    """The long-running workloads (probed, autoscaled, budgeted)."""
    return [d for d in docs if d["kind"] in ("Deployment", "StatefulSet")]


def pods(docs: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
    """Everything that starts pods: the workloads and the CronJobs."""
    return [d for d in docs if d["kind"] in ("Deployment", "StatefulSet", "CronJob")]


def pod_template(workload: dict[str, Any]) -> dict[str, Any]:
    if workload["kind"] == "CronJob":
        template: dict[str, Any] = workload["spec"]["jobTemplate"]["spec"]["template"]
        return template
    template = workload["spec"]["template"]
    return template


def containers(workload: dict[str, Any]) -> Iterator[dict[str, Any]]:
    spec = pod_template(workload)["spec"]
    yield from spec.get("initContainers", [])
    yield from spec["containers"]


def selects(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    """matchLabels-only selectors (all we use) against a label set."""
    assert set(selector) <= {"matchLabels"}, f"unexpected selector form {selector}"
    return all(labels.get(k) == v for k, v in selector.get("matchLabels", {}).items())


def pod_labels(workload: dict[str, Any]) -> dict[str, str]:
    return dict(pod_template(workload)["metadata"]["labels"])


# --- rendering and schema validation ------------------------------------------------------


def test_renders(target: str) -> None:
    docs = _render(target)
    kinds = {d["kind"] for d in docs}
    assert {"Deployment", "Service", "ConfigMap", "NetworkPolicy"} <= kinds
    assert {"PodDisruptionBudget", "HorizontalPodAutoscaler"} <= kinds


@pytest.mark.parametrize("k8s_version", K8S_VERSIONS)
def test_every_resource_validates(target: str, k8s_version: str) -> None:
    kv = pytest.importorskip(
        "kubernetes_validate", reason="kubernetes-validate is in the dev extra (schemas)"
    )
    version = kv.latest_version() if k8s_version == "latest" else k8s_version
    errors = []
    for doc in _render(target):
        try:
            kv.validate(doc, version, strict=True)
        except kv.ValidationError as exc:
            where = "/".join(str(p) for p in exc.caught.absolute_path)
            errors.append(f"{doc['kind']} {doc['metadata']['name']}: {where}: {exc.caught.message}")
    assert not errors, "\n".join(errors)


def test_validator_is_not_vacuous() -> None:
    kv = pytest.importorskip("kubernetes_validate", reason="kubernetes-validate not installed")
    broken = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "x"},
        "spec": {
            "selector": {},
            "template": {"spec": {"containers": [{"name": "x"}]}},
            "replicas": "two",
        },
    }
    with pytest.raises(kv.ValidationError):
        kv.validate(broken, K8S_VERSIONS[0], strict=True)


def test_namespace_labels_and_images(overlay: str) -> None:
    docs = _render(overlay)
    namespaces = [d["metadata"]["name"] for d in of_kind(docs, "Namespace")]
    assert len(namespaces) == 1
    for doc in docs:
        if doc["kind"] != "Namespace":
            assert doc["metadata"].get("namespace") == namespaces[0], doc["metadata"]["name"]
        labels = doc["metadata"].get("labels", {})
        assert labels.get("app.kubernetes.io/part-of") == "teotihuacan-server" or (
            doc["kind"] == "Namespace"
        ), doc["metadata"]["name"]
    for workload in pods(docs):
        for container in containers(workload):
            name, _, tag = container["image"].rpartition(":")
            assert name and tag and tag != "latest", container["image"]


# --- workloads -------------------------------------------------------------------------


def test_each_component_has_a_deployment(target: str) -> None:
    docs = _render(target)
    for component in COMPONENTS:
        deployment = named(docs, "Deployment", f"teoti-{component}")
        assert pod_labels(deployment)[COMPONENT_LABEL] == component
        assert selects(deployment["spec"]["selector"], pod_labels(deployment))
        assert "replicas" not in deployment["spec"], "the HPA owns replicas"


def test_probes(target: str) -> None:
    from services.bot.health import BOT_WORKER_SERVICE
    from services.engine.entrypoints.servicer import ENGINE_SERVICE
    from services.gateway.server import GAME_SERVICE
    from services.tournament.director import DIRECTOR_SERVICE

    services = {
        "teoti-gateway": GAME_SERVICE,
        "teoti-engine": ENGINE_SERVICE,
        "teoti-bot": BOT_WORKER_SERVICE,
        "teoti-director": DIRECTOR_SERVICE,
    }
    for workload in workloads(_render(target)):
        name = workload["metadata"]["name"]
        for container in containers(workload):
            assert "readinessProbe" in container, f"{name}/{container['name']}: readiness"
            assert "livenessProbe" in container, f"{name}/{container['name']}: liveness"
            if name in services:
                ports = {p["containerPort"] for p in container["ports"]}
                for kind in ("startupProbe", "readinessProbe", "livenessProbe"):
                    probe = container[kind]["grpc"]
                    assert probe["port"] in ports, f"{name} {kind} port"
                    assert probe.get("service", "") in ("", services[name]), f"{name} {kind}"
                assert container["readinessProbe"]["grpc"]["service"] == services[name]


def test_resources(target: str) -> None:
    for workload in pods(_render(target)):
        for container in containers(workload):
            resources = container.get("resources", {})
            for part in ("requests", "limits"):
                assert {"cpu", "memory"} <= set(resources.get(part, {})), (
                    f"{workload['metadata']['name']}/{container['name']}: {part}"
                )


def test_security_contexts(target: str) -> None:
    for workload in pods(_render(target)):
        name = workload["metadata"]["name"]
        pod = pod_template(workload)["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True, name
        assert pod["securityContext"]["runAsUser"] != 0, name
        assert pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault", name
        assert pod.get("automountServiceAccountToken") is False, name
        for container in containers(workload):
            context = container["securityContext"]
            assert context["allowPrivilegeEscalation"] is False, name
            assert context["readOnlyRootFilesystem"] is True, name
            assert context["capabilities"]["drop"] == ["ALL"], name
            assert context.get("runAsUser", 1) != 0, name


def test_args_parse_with_the_real_cli(target: str) -> None:
    from services.cli.commands import build_parser

    parser = build_parser()
    for deployment in of_kind(_render(target), "Deployment"):
        container = deployment["spec"]["template"]["spec"]["containers"][0]
        args = [re.sub(r"\$\((\w+)\)", "placeholder", a) for a in container["args"]]
        parsed = parser.parse_args(args)
        component = pod_labels(deployment)[COMPONENT_LABEL]
        assert parsed.command == component
        if component in ("gateway", "engine"):
            assert parsed.host == "0.0.0.0"
            assert parsed.port in {p["containerPort"] for p in container["ports"]}


def _config_keys(docs: tuple[dict[str, Any], ...], name: str) -> set[str]:
    return set(named(docs, "ConfigMap", name).get("data", {}))


def test_references_resolve(overlay: str) -> None:
    """Every ConfigMap/Secret a pod reads is rendered, and every $(VAR) is defined."""
    docs = _render(overlay)
    config_maps = {d["metadata"]["name"] for d in of_kind(docs, "ConfigMap")}
    secrets = {d["metadata"]["name"] for d in of_kind(docs, "Secret")}
    secrets |= EXTERNAL_SECRETS.get(overlay, set())
    for workload in pods(docs):
        name = workload["metadata"]["name"]
        for volume in pod_template(workload)["spec"].get("volumes", []):
            if "configMap" in volume:
                assert volume["configMap"]["name"] in config_maps, name
            if "secret" in volume:
                assert volume["secret"]["secretName"] in secrets, name
        for container in containers(workload):
            defined: set[str] = set()
            for source in container.get("envFrom", []):
                ref = source["configMapRef"]["name"]
                assert ref in config_maps, f"{name}: envFrom {ref}"
                defined |= _config_keys(docs, ref)
            for var in container.get("env", []):
                refs = re.findall(r"\$\((\w+)\)", var.get("value", ""))
                assert set(refs) <= defined, f"{name}: {var['name']} uses undefined {refs}"
                source = var.get("valueFrom", {})
                if "secretKeyRef" in source:
                    assert source["secretKeyRef"]["name"] in secrets, f"{name}: {var['name']}"
                if "configMapKeyRef" in source:
                    assert source["configMapKeyRef"]["name"] in config_maps
                defined.add(var["name"])
            for arg in container.get("args", []) + container.get("command", []):
                refs = set(re.findall(r"\$\((\w+)\)", arg))
                assert refs <= defined, f"{name}: {arg} uses undefined {refs - defined}"


# --- services, network policies, disruption budgets, autoscalers ----------------------


def test_only_the_gateway_is_exposed(target: str) -> None:
    docs = _render(target)
    exposed = [
        s["metadata"]["name"]
        for s in of_kind(docs, "Service")
        if s["spec"].get("type", "ClusterIP") in ("LoadBalancer", "NodePort")
    ]
    assert exposed == ["teoti-gateway"]
    assert not of_kind(docs, "Ingress")


def test_engine_calls_spread_over_every_engine_pod(target: str) -> None:
    """Issue 12: a ClusterIP pins each gateway connection to one engine pod; a headless
    Service's name lists every pod. Issue 16: the clients reach the engines on the engine
    link, the port every engine serves it on, through the Service and the policy."""
    from services.engine.transport.link_client import parse_target

    docs = _render(target)
    engine = named(docs, "Service", "teoti-engine")
    assert engine["spec"]["clusterIP"] == "None"
    config = next(
        c for c in of_kind(docs, "ConfigMap") if c["metadata"]["name"].startswith("teoti-config")
    )
    assert "TEOTI_ENGINE_TRANSPORT" not in config["data"]  # the link is the only transport
    assert config["data"]["ENGINE_TARGET"] == "dns:///teoti-engine:50053"
    ((host, port),) = parse_target(config["data"]["ENGINE_TARGET"])
    assert host == "teoti-engine"
    (service_port,) = [p for p in engine["spec"]["ports"] if p["port"] == port]
    (container,) = containers(named(docs, "Deployment", "teoti-engine"))
    assert f"--link-port={port}" in container["args"]
    named_ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert named_ports[service_port["targetPort"]] == port
    policy = named(docs, "NetworkPolicy", "teoti-engine")
    assert {"port": port, "protocol": "TCP"} in policy["spec"]["ingress"][0]["ports"]
    for component in ("gateway", "bot", "director"):
        (client,) = containers(named(docs, "Deployment", f"teoti-{component}"))
        assert "--engine=$(ENGINE_TARGET)" in client["args"], component


def test_services_select_pods_and_ports(target: str) -> None:
    docs = _render(target)
    for service in of_kind(docs, "Service"):
        matches = [
            w
            for w in workloads(docs)
            if selects({"matchLabels": service["spec"]["selector"]}, pod_labels(w))
        ]
        assert len(matches) == 1, service["metadata"]["name"]
        port_names = {p.get("name") for c in containers(matches[0]) for p in c.get("ports", [])}
        for port in service["spec"]["ports"]:
            assert port["targetPort"] in port_names, service["metadata"]["name"]


def _policies_for(docs: tuple[dict[str, Any], ...], labels: dict[str, str]) -> list[Any]:
    return [p for p in of_kind(docs, "NetworkPolicy") if selects(p["spec"]["podSelector"], labels)]


def _ingress_sources(policy: dict[str, Any]) -> list[dict[str, Any] | None]:
    """Each ingress rule's peers; None stands for a rule open to every source."""
    sources: list[dict[str, Any] | None] = []
    for rule in policy["spec"].get("ingress", []):
        sources += rule.get("from") or [None]
    return sources


METRICS_POLICY = "teoti-metrics"
"""The one policy letting another namespace in (Prometheus, to the metrics ports only:
:func:`test_metrics_are_scraped_off_the_public_face`)."""


def test_network_policies(target: str) -> None:
    docs = _render(target)
    components = {pod_labels(w)[COMPONENT_LABEL]: w for w in pods(docs)}
    for component, workload in components.items():
        policies = [
            p
            for p in _policies_for(docs, pod_labels(workload))
            if p["metadata"]["name"] != METRICS_POLICY
        ]
        assert any(
            p["spec"]["podSelector"].get("matchLabels", {}).get(COMPONENT_LABEL) == component
            for p in policies
        ), f"no NetworkPolicy of its own for {component}"
        assert any("ingress" not in p["spec"] for p in policies), f"no default deny: {component}"
        sources = [s for p in policies for s in _ingress_sources(p)]
        if component == "gateway":
            assert None in sources, "the gateway must be reachable from outside"
            continue
        assert None not in sources, f"{component} is open to every source"
        allowed = set()
        for source in sources:
            assert source is not None and set(source) == {"podSelector"}, (component, source)
            allowed.add(source["podSelector"]["matchLabels"][COMPONENT_LABEL])
        want = {
            "engine": {"gateway", "bot", "director"},
            "bot": set(),
            "director": set(),
            "redis": {*COMPONENTS, "archive"},
            "archive": set(),
        }
        assert allowed == want[component], component


def test_metrics_are_scraped_off_the_public_face(target: str) -> None:
    """Issue 34: every pod says where Prometheus finds its /metrics (the annotations
    Prometheus's pod discovery reads), on a port the container declares and the process is
    told to serve (--metrics-port, the command's documented port), which no Service
    exposes; only Prometheus's namespace may reach it, and only it."""
    from services.metrics.exposition import METRICS_PORTS

    docs = _render(target)
    exposed = {p["port"] for s in of_kind(docs, "Service") for p in s["spec"]["ports"]}
    metrics_ports = set()
    for component in COMPONENTS:
        deployment = named(docs, "Deployment", f"teoti-{component}")
        annotations = deployment["spec"]["template"]["metadata"]["annotations"]
        port = METRICS_PORTS[component]
        assert annotations["prometheus.io/scrape"] == "true", component
        assert annotations["prometheus.io/port"] == str(port), component
        assert annotations["prometheus.io/path"] == "/metrics", component
        (container,) = deployment["spec"]["template"]["spec"]["containers"]
        assert f"--metrics-port={port}" in container["args"], component
        declared = {p["name"]: p["containerPort"] for p in container["ports"]}
        assert declared["metrics"] == port, component
        assert port not in exposed, f"{component}'s metrics port is behind a Service"
        metrics_ports.add(port)
    policy = named(docs, "NetworkPolicy", METRICS_POLICY)
    (rule,) = policy["spec"]["ingress"]
    assert {p["port"] for p in rule["ports"]} == metrics_ports
    assert all(set(source) == {"namespaceSelector"} for source in rule["from"])
    gateway = named(docs, "NetworkPolicy", "teoti-gateway")
    open_ports = {p["port"] for r in gateway["spec"]["ingress"] for p in r.get("ports", [])}
    assert not open_ports & metrics_ports, "the gateway's public rule opens a metrics port"


def test_disruption_budgets_and_autoscalers(target: str) -> None:
    docs = _render(target)
    deployments = {d["metadata"]["name"]: d for d in of_kind(docs, "Deployment")}
    budgets = of_kind(docs, "PodDisruptionBudget")
    for name, deployment in deployments.items():
        assert any(selects(b["spec"]["selector"], pod_labels(deployment)) for b in budgets), name
    for hpa in of_kind(docs, "HorizontalPodAutoscaler"):
        assert hpa["apiVersion"] == "autoscaling/v2"
        ref = hpa["spec"]["scaleTargetRef"]
        assert ref["kind"] == "Deployment" and ref["name"] in deployments, ref
        assert 1 <= hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]
        assert hpa["spec"]["metrics"]
        for container in containers(deployments[ref["name"]]):
            assert "cpu" in container["resources"]["requests"], "CPU utilization needs requests"
    hpas = of_kind(docs, "HorizontalPodAutoscaler")
    assert {h["spec"]["scaleTargetRef"]["name"] for h in hpas} == set(deployments)


def test_the_archive_cronjob_runs_teoti_archive_as_the_engine(target: str) -> None:
    """Issue 34: retention runs on a schedule, one pass at a time, in the services' image,
    as the engine's Redis user (it deletes games' streams and seeds), within limits; its
    arguments parse with the real CLI."""
    from services.cli.commands import build_parser

    docs = _render(target)
    cron = named(docs, "CronJob", "teoti-archive")
    engine = named(docs, "Deployment", "teoti-engine")
    assert cron["spec"]["concurrencyPolicy"] == "Forbid"
    assert len(cron["spec"]["schedule"].split()) == 5
    job = cron["spec"]["jobTemplate"]["spec"]
    assert pod_template(cron)["spec"]["restartPolicy"] == "Never"
    assert job["activeDeadlineSeconds"] > 0 and job["backoffLimit"] >= 1
    (container,) = containers(cron)
    (engine_container,) = containers(engine)
    assert container["image"] == engine_container["image"]
    parsed = build_parser().parse_args(container["args"])
    assert parsed.command == "archive" and parsed.older_than_days > 0
    logins = {
        v["valueFrom"]["secretKeyRef"]["name"]
        for v in container["env"]
        if "secretKeyRef" in v.get("valueFrom", {})
    }
    assert logins == {"teoti-redis-engine"}
    redis_url = {v["name"]: v.get("value") for v in container["env"]}["REDIS_URL"]
    assert redis_url == {v["name"]: v.get("value") for v in engine_container["env"]}["REDIS_URL"]
    assert {"cpu", "memory"} <= set(container["resources"]["limits"])


def test_production_scales_the_gateway_and_bots_on_metrics_the_adapter_serves() -> None:
    """Issue 34: where CPU is the wrong signal, the production overlay's HPAs also read
    the gateway's request rate (a Pods metric) and the bot backlog (an External metric);
    deploy/monitoring/prometheus-adapter-rules.yaml serves exactly those names, from
    families the code exports. Dev (no adapter) keeps CPU alone: an HPA missing a
    metric would never scale down."""
    from tests.deploy.test_monitoring import served_families

    adapter = yaml.safe_load((REPO / "deploy/monitoring/prometheus-adapter-rules.yaml").read_text())
    served = {
        kind: {rule["name"]["as"]: rule for rule in rules}
        for kind, rules in adapter["rules"].items()
    }
    for rules in served.values():
        for rule in rules.values():
            (family,) = re.findall(r"teoti_[a-z_]+", rule["seriesQuery"])
            assert family.removesuffix("_total") in served_families(), family
    production = _render("production")
    wanted = {"teoti-gateway": ("Pods", "custom"), "teoti-bot": ("External", "external")}
    for name, (kind, api) in wanted.items():
        metrics = named(production, "HorizontalPodAutoscaler", name)["spec"]["metrics"]
        assert {m["type"] for m in metrics} == {"Resource", kind}, name
        (extra,) = [m for m in metrics if m["type"] == kind]
        metric = extra[kind.lower()]["metric"]["name"]
        assert metric in served[api], f"{name} reads {metric}, which the adapter does not serve"
    for hpa in of_kind(_render("dev"), "HorizontalPodAutoscaler"):
        assert [m["type"] for m in hpa["spec"]["metrics"]] == ["Resource"]


# --- the overlays' Redis ----------------------------------------------------------------


def test_dev_redis_is_durable() -> None:
    docs = _render("dev")
    redis = named(docs, "StatefulSet", "teoti-redis")
    config = named(docs, "Service", "teoti-redis")
    assert config["spec"]["ports"][0]["port"] == 6379
    pod = redis["spec"]["template"]["spec"]
    conf_volume = next(v for v in pod["volumes"] if "configMap" in v)
    conf_map = named(docs, "ConfigMap", conf_volume["configMap"]["name"])
    directives = {}
    for line in conf_map["data"]["redis.conf"].splitlines():
        if line.strip() and not line.startswith("#"):
            key, _, value = line.partition(" ")
            directives[key] = value.strip()
    assert directives["appendonly"] == "yes"
    assert directives["appendfsync"] == "always"
    assert directives["maxmemory-policy"] == "noeviction"
    claims = {c["metadata"]["name"] for c in redis["spec"]["volumeClaimTemplates"]}
    mounts = {m["name"]: m["mountPath"] for m in pod["containers"][0]["volumeMounts"]}
    assert directives["dir"] == mounts["data"] and "data" in claims
    app_config = next(
        c for c in of_kind(docs, "ConfigMap") if c["metadata"]["name"].startswith("teoti-config")
    )
    assert app_config["data"]["REDIS_HOST"] == "teoti-redis"
    assert "--requirepass" in pod["containers"][0]["command"]


def test_production_ships_no_password_and_names_redis_endpoints() -> None:
    docs = _render("production")
    assert not of_kind(docs, "Secret"), "the production Redis password is created out of band"
    assert not of_kind(docs, "StatefulSet"), "production uses an external Redis"
    config = next(
        c for c in of_kind(docs, "ConfigMap") if c["metadata"]["name"].startswith("teoti-config")
    )["data"]
    assert config["REDIS_SCHEME"] == "rediss"
    nodes = config["REDIS_CLUSTER_NODES"].split(",")
    assert len(nodes) >= 3 and all(re.fullmatch(r"[\w.-]+:\d+", n) for n in nodes), nodes
    for deployment in of_kind(docs, "Deployment"):
        assert deployment["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] == (
            "Always"
        )


def test_dev_secret_is_the_documented_placeholder() -> None:
    docs = _render("dev")
    operations = (REPO / "docs" / "operations.md").read_text()
    secret = named(docs, "Secret", "teoti-redis")
    assert secret["metadata"]["annotations"]["teotihuacan-server/placeholder"] == "true"
    assert secret["stringData"]["password"] == "change-me-dev-only"
    assert "change-me-dev-only" in operations
    for component in COMPONENTS:
        login = named(docs, "Secret", f"teoti-redis-{component}")
        assert login["metadata"]["annotations"]["teotihuacan-server/placeholder"] == "true"
        assert login["type"] == "kubernetes.io/basic-auth"
        assert login["stringData"]["password"] == f"change-me-dev-only-{component}"
        assert f"change-me-dev-only-{component}" in operations


def _env(container: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {var["name"]: var for var in container.get("env", [])}


def test_each_service_logs_in_to_redis_as_its_own_user(target: str) -> None:
    """Its own Secret teoti-redis-<component> (username, password), in REDIS_URL too; no
    service sees the admin password (Secret teoti-redis) or another service's login."""
    for deployment in of_kind(_render(target), "Deployment"):
        component = pod_labels(deployment)[COMPONENT_LABEL]
        (container,) = containers(deployment)
        env = _env(container)
        for var, key in (("REDIS_USERNAME", "username"), ("REDIS_PASSWORD", "password")):
            ref = env[var]["valueFrom"]["secretKeyRef"]
            assert (ref["name"], ref["key"]) == (f"teoti-redis-{component}", key), component
        assert "://$(REDIS_USERNAME):$(REDIS_PASSWORD)@" in env["REDIS_URL"]["value"]
        secrets = {
            var["valueFrom"]["secretKeyRef"]["name"]
            for var in env.values()
            if "secretKeyRef" in var.get("valueFrom", {})
        }
        assert secrets == {f"teoti-redis-{component}"} | EXTRA_SECRETS.get(component, set()), (
            component
        )


def test_dev_redis_creates_each_services_acl_user() -> None:
    """The dev Redis's --user lines are exactly `teoti redis-acl` for its image's version,
    with each user's name and password from that service's Secret."""
    from services.engine.adapters.acl import DEFAULT_USERNAMES, Role, acl_rules

    docs = _render("dev")
    (container,) = containers(named(docs, "StatefulSet", "teoti-redis"))
    version = tuple(int(p) for p in re.findall(r"\d+", container["image"].partition(":")[2])[:2])
    assert version >= (7, 2), container["image"]
    command = container["command"]
    groups: list[list[str]] = []
    for word in command:
        if word == "--user":
            groups.append([])
        elif groups:
            assert not word.startswith("--"), f"{word}: --user lines must come last"
            groups[-1].append(word)
    env = _env(container)
    assert len(groups) == len(Role)
    for role, words in zip(Role, groups, strict=True):
        name, reset, on, password, *rules = words
        role_var = role.upper()
        assert name == f"$(REDIS_{role_var}_USERNAME)"
        assert [reset, on, password] == ["reset", "on", f">$(REDIS_{role_var}_PASSWORD)"]
        assert rules == acl_rules(role, "teoti", version)[1:], role
        for var, key in (
            (f"REDIS_{role_var}_USERNAME", "username"),
            (f"REDIS_{role_var}_PASSWORD", "password"),
        ):
            ref = env[var]["valueFrom"]["secretKeyRef"]
            assert (ref["name"], ref["key"]) == (f"teoti-redis-{role}", key)
        login = named(docs, "Secret", f"teoti-redis-{role}")
        assert login["stringData"]["username"] == DEFAULT_USERNAMES[role]


def test_the_gateways_tournaments_log_in_as_the_director(target: str) -> None:
    """TournamentService (in the gateway) writes tournament logs: it logs in as the
    director's user (the gateway's own is read only), through the variables the CLI
    reads (services/cli/service_options.py)."""
    from services.cli.service_options import TOURNAMENT_PASSWORD_ENV, TOURNAMENT_USERNAME_ENV

    (container,) = containers(named(_render(target), "Deployment", "teoti-gateway"))
    env = _env(container)
    for var, key in ((TOURNAMENT_USERNAME_ENV, "username"), (TOURNAMENT_PASSWORD_ENV, "password")):
        ref = env[var]["valueFrom"]["secretKeyRef"]
        assert (ref["name"], ref["key"]) == ("teoti-redis-director", key)


def test_directors_run_side_by_side(target: str) -> None:
    """Two directors at least (they share one consumer group), each with a budget."""
    docs = _render(target)
    hpa = named(docs, "HorizontalPodAutoscaler", "teoti-director")
    floor = 1 if target == "dev" else 2
    assert hpa["spec"]["minReplicas"] >= floor
    (container,) = containers(named(docs, "Deployment", "teoti-director"))
    from services.cli.commands import build_parser

    args = [re.sub(r"\$\((\w+)\)", "placeholder", a) for a in container["args"]]
    parsed = build_parser().parse_args(args)
    assert parsed.health_port == container["ports"][0]["containerPort"]


@pytest.mark.parametrize("target", TARGETS)
def test_only_the_gateway_holds_the_signing_key(target: str) -> None:
    """Issue 30 item 10: the gateway signs games' heads with the key of the Secret
    teoti-signing-key, mounted read-only (mode 0400) where TEOTI_SIGNING_KEY_FILE
    points; no other part sees it, and no overlay ships one (created out of band)."""
    docs = _render(target)
    assert not [d for d in of_kind(docs, "Secret") if d["metadata"]["name"] == SIGNING_SECRET]
    for workload in pods(docs):
        component = pod_labels(workload)[COMPONENT_LABEL]
        spec = pod_template(workload)["spec"]
        volumes = {
            v["name"]: v["secret"]
            for v in spec.get("volumes", [])
            if v.get("secret", {}).get("secretName") == SIGNING_SECRET
        }
        if component != "gateway":
            assert not volumes, f"{component} must not see the signing key"
            continue
        ((volume_name, secret),) = volumes.items()
        assert secret["defaultMode"] == 0o400
        (container,) = containers(workload)
        (mount,) = [m for m in container["volumeMounts"] if m["name"] == volume_name]
        assert mount["readOnly"] is True
        env = {v["name"]: v.get("value") for v in container["env"]}
        (item,) = secret["items"]
        assert env["TEOTI_SIGNING_KEY_FILE"] == f"{mount['mountPath']}/{item['path']}"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_no_overlay_ships_a_bot_credential_the_services_refuse(overlay: str) -> None:
    """Issue 30 item 5: the engine and the bot worker refuse the public placeholder, so
    an overlay that applied it would start pods that exit at once; each overlay leaves
    the Secret to be created out of band (docs/operations.md)."""
    from services.engine.domain.bot_credential import BotCredential, BotSecretError

    for secret in of_kind(_render(overlay), "Secret"):
        if secret["metadata"]["name"] == "teoti-bot-credential":
            value = secret["stringData"]["secret"]
            with pytest.raises(BotSecretError):  # shipped: it had better be refused...
                BotCredential.for_split_process({"TEOTI_BOT_SECRET": value})
            pytest.fail(f"{overlay} ships the placeholder bot credential")
