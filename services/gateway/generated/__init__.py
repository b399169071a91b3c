"""Protobuf/gRPC stubs generated from ../../../proto by services.rpc.stubs (never edited, never committed)."""
