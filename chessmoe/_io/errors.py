"""The kit's error for a user's mistake or bad input: one line that names the file and the fix.

Every layer raises :class:`KitError` (or a subclass) for problems a user can act on (a missing
file, a corrupt archive, an unknown parameter); the CLI and the ``make`` targets print its message
as one line and exit with status 2 instead of showing a traceback. Programming errors stay
ordinary exceptions.
"""

from __future__ import annotations

__all__ = ["KitError", "error_cause"]


class KitError(Exception):
    """A problem the user can fix; ``str(error)`` is the one line to show."""


_UNSAFE = ("weights_only", "allow_pickle", "arbitrary code", "trusted source")


def error_cause(error: BaseException, limit: int = 200) -> str:
    """Why ``error`` happened, in one line: its type and the part of its message that names
    the cause. Library paragraphs are cut down -- torch's weights-only unpickler message to
    the unpickler's own complaint -- and no sentence advising an unsafe load
    (``weights_only=False``, ``allow_pickle``) is kept."""
    text = " ".join(str(error).split())
    if "WeightsUnpickler error:" in text:  # torch: the cause follows its advice paragraph
        complaint = text.split("WeightsUnpickler error:", 1)[1].split(" Check the ")[0]
        text = f"not a plain tensor file ({complaint.strip()})"
    text = text.replace("Object arrays cannot be loaded when allow_pickle=False",
                        "it holds object arrays, which are never unpickled")
    sentences = [s for s in text.replace("? ", ". ").split(". ")
                 if s and not any(word in s for word in _UNSAFE)]
    head = sentences[0].rstrip(".") if sentences else ""
    if isinstance(error, EOFError) and not head:
        head = "the file is empty or cut short"
    if len(head) > limit:
        head = head[:limit - 3].rstrip() + "..."
    return f"{type(error).__name__}: {head}" if head else type(error).__name__
