"""A player's event stream: notices (your turn, game started or finished, table filled,
match found, tournament pairing, rematch offered) kept per player in Redis and delivered
live by a hub, resumable from the last notice a client saw.

``notice`` is the public shape; ``inbox`` posts and reads a player's notices in Redis;
``hub`` fans new notices out to the streams a gateway holds open.
"""
