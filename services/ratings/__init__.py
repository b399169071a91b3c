"""Ratings outside tournaments (issue 32): rated games' outcomes, the rater that applies
finished games to the one rating book (services.tournament.ratings_book), and the
audit that recomputes every rating from public logs (docs/ratings.md)."""
