"""``python -m croupier``: the same as the ``croupier`` command."""

from croupier.cli import main

main()
