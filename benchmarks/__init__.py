"""Benchmarks (README: how to run them).

Importing :mod:`services` first gives every benchmark process gRPC's experiments as the
project's processes run them (:mod:`services.grpc_experiments`): the drivers import
grpc before the project's client, and gRPC reads its experiments on that first import.
"""

import services  # noqa: F401
