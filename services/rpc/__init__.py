"""gRPC plumbing shared by the gateway and the engine service: stubs, conversions, errors."""
