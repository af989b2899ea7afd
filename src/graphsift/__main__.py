"""``python -m graphsift``: the same as the ``graphsift`` command."""

from graphsift.adapters.cli import main

main()
