"""teotihuacan-server: the engine service, gateway, bot worker and their shared parts.

Importing the package sets gRPC's experiments for the project's processes before any of
its modules imports grpc (see :mod:`services.grpc_experiments`).
"""

from services.grpc_experiments import apply_default

apply_default()
