"""Matchmaking: players ask for a game (a seek) and are seated with compatible others.

``seeks`` (the request and its rating window) and ``matching`` (who sits together) are
pure; ``redis_pool`` keeps the waiting seeks in Redis and places a table atomically, so
several gateways can match at once and a restart loses nothing.
"""
