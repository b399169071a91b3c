"""One widget per part of the table: rondel, seats, tracks, pyramid, offers, actions, log."""
