"""The table opener: creates the game of every started lobby table and placed match
(services.opener.opener), reading their streams as a Redis consumer group
(services.opener.streams)."""
