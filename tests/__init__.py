"""The test suite.

The test process runs the services in-process, as ``teoti serve`` runs them: it sets
gRPC's experiments as :func:`services.cli.main` does, before any test module imports
grpc (importing :mod:`services` sets nothing; services/grpc_experiments.py). The
processes the tests start (``python -m services.cli``) set them themselves.
"""

from services.grpc_experiments import apply_default

apply_default()
