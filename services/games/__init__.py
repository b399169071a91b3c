"""The games this distribution ships, one folder each (docs/architecture.md, "Adding a game").

A game's folder holds its pure rules, its data, its bots, its terminal kit and its
declaration; the platform finds it through the ``teotihuacan_server.games`` entry points,
never by importing this package.
"""
