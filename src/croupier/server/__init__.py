"""The table server behind ``croupier serve``: persistence, accounts, wallet and rounds."""
