"""Benchmarks (README: how to run them).

Every benchmark process runs gRPC with the experiments the project's processes run it
with (:mod:`services.grpc_experiments`, set by :func:`services.cli.main` in ``teoti``):
set here, in the package every driver is run from (``python -m benchmarks.NAME``),
because the drivers import grpc before the project's client and gRPC reads its
experiments on that first import. Importing :mod:`services` alone sets nothing.
"""

from services.grpc_experiments import apply_default

apply_default()
