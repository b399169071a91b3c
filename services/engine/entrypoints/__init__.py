"""The engine's own process: its gRPC server (:mod:`.servicer`) and the clocks'
:mod:`.timekeeper` loop that runs beside it. The top layer: it may import the transport,
the adapters and the domain; nothing in the engine imports it."""
