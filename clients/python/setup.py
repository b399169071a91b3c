"""Build of ``teotihuacan-client``: the stubs are generated in the ``build_py`` step.

``pip install ./clients/python`` (and ``pip wheel``, ``pip install -e``) run
:class:`BuildPyWithStubs`, which calls ``build_stubs.generate`` before the modules are
collected, so the wheel ships ``teoti_client/proto/*_pb2*.py`` with their ``.pyi`` stubs.
The build reads ``../../proto`` (the repository's proto root): build from a checkout.
"""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

sys.path.insert(0, str(Path(__file__).resolve().parent))  # build_stubs beside this file
import build_stubs


class BuildPyWithStubs(build_py):
    """``build_py`` that first generates the protobuf/gRPC stubs into the source tree."""

    def run(self) -> None:
        build_stubs.generate(build_stubs.client_sets())
        super().run()


setup(cmdclass={"build_py": BuildPyWithStubs})
