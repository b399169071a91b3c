"""The browser face of the public API: HTTP/JSON + server-sent events, driven by the protos.

Generic layer (it imports no game): :mod:`services.web.face` routes each RPC of a service
descriptor to the same servicer object the gRPC server uses; see docs/web.md.
"""
