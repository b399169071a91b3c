"""The lobby: tables waiting for players (open, join, leave, start), generic over games.

``tables`` decides (pure); ``redis_tables`` keeps the tables in Redis and applies a
decision atomically, so several gateways serve one lobby.
"""
