"""constraints.txt, the server's pinned dependencies (issue 34, "Reproducible installs"):
it pins every dependency pyproject.toml names (the dev extra's too) at a version that
pyproject's own range allows, holds nothing of this machine (no index URL, no path), and
is what every install of the server uses: .ci/run, the Dockerfile and the README."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

REPO = Path(__file__).resolve().parents[2]
CONSTRAINTS = REPO / "constraints.txt"


def pins() -> dict[str, Version]:
    """Package name (canonical) -> its pinned version."""
    found: dict[str, Version] = {}
    for line in CONSTRAINTS.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        requirement = Requirement(line)
        (specifier,) = requirement.specifier
        assert specifier.operator == "==", line
        found[canonicalize_name(requirement.name)] = Version(specifier.version)
    return found


def declared() -> list[Requirement]:
    """The server's requirements and its dev extra's, as pyproject.toml declares them."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    texts = project["dependencies"] + project["optional-dependencies"]["dev"]
    return [Requirement(text) for text in texts]


def test_every_declared_dependency_is_pinned_within_its_range() -> None:
    pinned = pins()
    for requirement in declared():
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{name} is not in constraints.txt: run scripts/lock_dependencies.sh"
        assert requirement.specifier.contains(pinned[name], prereleases=True), (
            f"constraints.txt pins {name}=={pinned[name]} outside pyproject's {requirement}"
        )


def test_the_file_names_no_index_or_local_path() -> None:
    text = CONSTRAINTS.read_text()
    assert not re.search(r"^\s*-", text, re.MULTILINE), (
        "options (index URLs, -e) are this machine's"
    )
    assert "file://" not in text and "/work/" not in text


def test_every_install_of_the_server_uses_it() -> None:
    ci = (REPO / ".ci" / "run").read_text()
    assert "pip install --quiet -c constraints.txt -e '.[dev]'" in ci
    dockerfile = (REPO / "Dockerfile").read_text()
    assert dockerfile.count("-c constraints.txt") == 2  # the install and the wheels
    assert "constraints.txt" in dockerfile.split("COPY", 2)[1]
    readme_first_command = (REPO / "README.md").read_text().split("```")[1]
    assert "pip install -c constraints.txt -e '.[dev]'" in readme_first_command


def test_the_dockerfile_pins_agree_with_it() -> None:
    # pip refuses an install whose explicit pin contradicts a constraint.
    pinned = pins()
    for name, version in re.findall(
        r"([A-Za-z0-9_.-]+)==([0-9][0-9.]*)", (REPO / "Dockerfile").read_text()
    ):
        if canonicalize_name(name) in pinned:
            assert pinned[canonicalize_name(name)] == Version(version), name
