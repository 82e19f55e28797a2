"""Exact game math: the expected return of rule sets and side bets, and the basic strategy."""
