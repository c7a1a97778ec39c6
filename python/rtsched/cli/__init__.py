"""The ``rtsched`` command."""
