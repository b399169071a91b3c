"""Build of ``teotihuacan-client``: the stubs are generated in the ``build_py`` step.

``pip install ./clients/python`` (and ``pip wheel``, ``pip install -e``) run
:class:`BuildPyWithStubs`, which calls ``build_stubs.generate`` before the modules are
collected, so the wheel ships ``teoti_client/proto/*_pb2*.py`` with their ``.pyi`` stubs.
The build reads ``../../proto`` (the repository's proto root) from a checkout; the
sdist carries a copy of the public protos in its own ``proto/`` (:class:`SdistWithProtos`),
so a wheel builds from the sdist alone.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

sys.path.insert(0, str(Path(__file__).resolve().parent))  # build_stubs beside this file
import build_stubs


class BuildPyWithStubs(build_py):
    """``build_py`` that first generates the protobuf/gRPC stubs into the source tree."""

    def run(self) -> None:
        build_stubs.generate(build_stubs.client_sets())
        super().run()


class SdistWithProtos(sdist):
    """``sdist`` that copies the public protos into the release tree's ``proto/``."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        source = build_stubs.public_proto_root()
        for rel in build_stubs.PUBLIC_PROTOS:
            target = Path(base_dir) / "proto" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / rel, target)


setup(cmdclass={"build_py": BuildPyWithStubs, "sdist": SdistWithProtos})
