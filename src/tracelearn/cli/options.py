"""Command-line parsing: one clear error line, exit 2."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn


class ArgumentsRefused(SystemExit):
    """A command line argparse refused (exit status 2); ``message`` says why."""

    def __init__(self, message: str) -> None:
        super().__init__(2)
        self.message = message


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, no usage dump
        sys.stderr.write(f"tracelearn: error: {message} (see `{self.prog} --help`)\n")
        raise ArgumentsRefused(message)
