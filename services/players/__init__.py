"""Players (issue 32): accounts with a name identity and revocable player credentials.

A platform package: it knows no game and no gRPC. ``names`` (the name identity rule,
shared with tournaments), ``credentials`` (the secret's form and hash), ``errors`` (the
refusals, as the domain errors the gateway already maps), ``model`` (the records),
``repository`` (the Redis keys) and ``service`` (the commands and queries).
"""
