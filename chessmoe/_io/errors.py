"""The kit's error for a user's mistake or bad input: one line that names the file and the fix.

Every layer raises :class:`KitError` (or a subclass) for problems a user can act on (a missing
file, a corrupt archive, an unknown parameter); the CLI and the ``make`` targets print its message
as one line and exit with status 2 instead of showing a traceback. Programming errors stay
ordinary exceptions.
"""

from __future__ import annotations

__all__ = ["KitError"]


class KitError(Exception):
    """A problem the user can fix; ``str(error)`` is the one line to show."""
