"""The shared frozen-dataclass helpers (:mod:`services.engine.rules.frozen`), re-exported
under the name the Teotihuacan modules import."""

from services.engine.rules.frozen import replace, without

__all__ = ["replace", "without"]
