"""The solo mode: Teotibot, the official solo opponent (RULES.md §8, D5-D7).

Modules: :mod:`.seat` (which seat is the bot, its turn task), :mod:`.setup` (solo setup),
:mod:`.conventions` (how the bot powers up, moves and chooses), :mod:`.actions` (the seven
action tiles with their fallbacks), :mod:`.action_pyramid` (dice, pyramid shift, direction
tiles), :mod:`.turn` (one whole bot turn), :mod:`.displacement` (the bot's displaced worker)
and :mod:`.scoring` (no salary, final scoring, the human wins only with strictly more VP).

This package's ``__init__`` imports nothing on purpose: ``calendar`` and ``worship`` import
the small pure helpers of :mod:`.seat` and :mod:`.scoring`, and the rules of the bot turn
(which import ``calendar``) are registered by the parent package importing :mod:`.turn`.
"""
