"""Stubs of the internal EngineService, generated at build time (never committed).

``engine_service_pb2`` (with its ``.pyi``) and ``engine_service_pb2_grpc`` are written
here by ``clients/python/build_stubs.py`` from the server's ``setup.py``; they import the
public messages from ``teoti_client.proto``, the same modules the client uses.
"""
