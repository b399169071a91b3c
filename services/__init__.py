"""teotihuacan-server: the engine service, gateway, bot worker and their shared parts.

Importing the package (or any module of it) changes no environment variable: gRPC's
experiments are set by the processes' entry points (:func:`services.cli.main`, see
:mod:`services.grpc_experiments`).
"""
