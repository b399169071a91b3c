"""deploy/monitoring: the alert rules (PrometheusRule) and the Grafana dashboard, checked
offline against the metrics the code serves and the runbook in docs/operations.md
(issue 34)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

yaml = pytest.importorskip("yaml", reason="PyYAML is in the dev extra (pip install -e '.[dev]')")

REPO = Path(__file__).resolve().parents[2]
MONITORING = REPO / "deploy" / "monitoring"
SUFFIXES = re.compile(r"_(bucket|count|sum|total)$")


def served_families() -> set[str]:
    """Every metric family name the code serves: those of services.metrics.families and
    the samplers (literals in services/metrics and services/app.py) and the engine's
    tallies."""
    from services.metrics.families import ENGINE_TALLIES

    sources = [*(REPO / "services" / "metrics").glob("*.py"), REPO / "services" / "app.py"]
    names = {
        name for path in sources for name in re.findall(r'"(teoti_[a-z_]+)"', path.read_text())
    }
    return names | {f"teoti_engine_{name}" for name in ENGINE_TALLIES}


def families_in(expr: str) -> set[str]:
    return {SUFFIXES.sub("", name) for name in re.findall(r"\bteoti_[a-z_]+", expr)}


def rules() -> list[dict[str, Any]]:
    document = yaml.safe_load((MONITORING / "prometheusrule.yaml").read_text())
    assert document["apiVersion"] == "monitoring.coreos.com/v1"
    assert document["kind"] == "PrometheusRule"
    return [rule for group in document["spec"]["groups"] for rule in group["rules"]]


def test_every_alert_reads_served_metrics_and_has_its_runbook() -> None:
    served = served_families()
    guide = (REPO / "docs" / "operations.md").read_text()
    found = rules()
    assert len(found) >= 5
    for rule in found:
        name = rule["alert"]
        assert families_in(rule["expr"]) and families_in(rule["expr"]) <= served, name
        assert rule["labels"]["severity"] in {"critical", "warning", "info"}, name
        assert re.fullmatch(r"\d+[sm]", rule["for"]), name
        page, _, anchor = rule["annotations"]["runbook_url"].partition("#")
        assert page == "docs/operations.md" and anchor == name.lower(), name
        assert f"\n### {name}\n" in guide, f"docs/operations.md has no runbook for {name}"


def test_the_dashboard_reads_served_metrics() -> None:
    dashboard = json.loads((MONITORING / "grafana-dashboard.json").read_text())
    served = served_families()
    assert dashboard["uid"] and dashboard["panels"]
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    for panel in dashboard["panels"]:
        assert panel["datasource"]["uid"] == "${datasource}", panel["title"]
        for target in panel["targets"]:
            assert families_in(target["expr"]) <= served, (panel["title"], target["expr"])
            assert families_in(target["expr"]), panel["title"]
    shown = {
        name for p in dashboard["panels"] for t in p["targets"] for name in families_in(t["expr"])
    }
    # Every family of services.metrics.families is on the dashboard.
    from services.metrics import families

    defined = {v.name for v in vars(families).values() if hasattr(v, "labelnames")}
    assert defined <= shown, defined - shown


def test_the_checks_are_not_vacuous() -> None:
    assert "teoti_requests" in served_families()
    assert not families_in("rate(teoti_no_such_metric_total[5m])") <= served_families()
