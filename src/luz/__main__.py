"""``python -m luz``: the same as the ``luz`` command."""

from luz.cli import main

if __name__ == "__main__":
    main()
