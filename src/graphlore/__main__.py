"""``python -m graphlore``: the same as the ``graphlore`` command."""

from graphlore.adapters.cli import main

main()
