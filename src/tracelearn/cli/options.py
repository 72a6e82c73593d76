"""Command-line parsing: one clear error line, exit 2."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, no usage dump
        sys.stderr.write(f"tracelearn: error: {message} (see `{self.prog} --help`)\n")
        sys.exit(2)
