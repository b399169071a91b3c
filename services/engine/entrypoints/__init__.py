"""The engine's own server: the processes that expose the domain to the network."""
