"""Protobuf/gRPC stubs of the public API, generated at build time (never committed).

``game_service_pb2`` (messages, with a ``.pyi`` type stub), ``game_service_pb2_grpc``
(``GameServiceStub``) and ``rpc_status_pb2`` (the refusal details) are written here by
``build_stubs.py`` when the distribution is built or installed.
"""
