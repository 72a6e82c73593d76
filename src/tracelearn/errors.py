"""Errors a user can cause. The CLI prints them as one line, never a traceback."""

from __future__ import annotations


class TracelearnError(Exception):
    """A problem with the user's input or options.

    ``where`` is ``file:line:col`` when the problem has a source location."""

    def __init__(self, message: str, where: object | None = None) -> None:
        super().__init__(message)
        self.message = message
        # (a SourceLoc given by an analysis is kept as its text: the JSON error document has it)
        self.where = None if where is None else str(where)

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


class ParseError(TracelearnError):
    """Malformed C."""


class UnsupportedError(TracelearnError):
    """A C construct tracelearn does not handle."""


class OptionError(TracelearnError):
    """A bad command-line or API option."""
