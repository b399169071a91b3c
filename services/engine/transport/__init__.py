"""How the gateway and the bot worker reach the engine: in-process or over the network.

:class:`services.engine.transport.client.EngineClient` is the port; each module here is
one adapter of it, raising the domain's errors whichever way the call travelled.
"""
