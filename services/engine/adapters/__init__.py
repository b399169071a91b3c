"""The engine's adapters: its ports (:mod:`services.engine.domain.store_protocol`) on real
I/O. Event stores (Redis Streams, in memory), the Redis key layout and client, archive and
retention, the turn, finished and deadlines streams and sets, ACL users, key and log files.

The records and errors the stores take and raise are the domain's
(:mod:`services.engine.domain.records`, :mod:`services.engine.domain.store_errors`);
import them from there.
"""

from services.engine.adapters.keys import RedisKeys
from services.engine.adapters.memory import InMemoryEventStore
from services.engine.adapters.redis_store import RedisEventStore

__all__ = ["InMemoryEventStore", "RedisEventStore", "RedisKeys"]
