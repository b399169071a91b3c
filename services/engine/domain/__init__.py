"""The engine's domain: pure game-service logic with no I/O of its own.

Folding logs into games, deciding commands, commitments, fairness, audit and the store
*port* (:mod:`services.engine.domain.store_protocol`) it is written against. Adapters
(stores), transport and entrypoints depend on it; it depends on none of them.
"""
