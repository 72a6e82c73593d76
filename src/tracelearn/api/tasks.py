"""SV-COMP conventions: property files (``.prp``), task definitions (``.yml``, format
2.0), the verdict a property gives a check's result, and the SV-COMP score.

A property file is a list of ``CHECK( init(main()), LTL(...) )`` lines; each LTL
formula maps to the checks that decide it. SV-COMP's unreach-call is only a call to
``reach_error`` (or the older ``__VERIFIER_error``), whatever its body: the
``error-call`` check, alone. Subproperties tracelearn cannot decide (``valid-memtrack``
without ``valid-memcleanup``) turn a ``true`` into ``unknown``, never into a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import OptionError

# LTL formula -> (checks, the subproperty a failure of each check kind violates)
_FORMULAS = {
    "G ! call(reach_error())": ("unreach-call", frozenset({"error-call"})),
    "G ! call(__VERIFIER_error())": ("unreach-call", frozenset({"error-call"})),
    # a failed assert() (assert.h calls __assert_fail): not an SV-COMP property, but
    # what tracelearn's witnesses for assertions state
    "G ! call(__assert_fail())": ("unreach-assert", frozenset({"assertion"})),
    "G valid-free": ("valid-free", frozenset({"pointer"})),
    "G valid-deref": ("valid-deref", frozenset({"pointer", "bounds"})),
    "G valid-memtrack": ("valid-memtrack", frozenset()),  # decided only through valid-memcleanup
    "G valid-memcleanup": ("valid-memcleanup", frozenset({"memleak"})),
    "G ! overflow": ("no-overflow", frozenset({"overflow"})),
}
_UNSUPPORTED = {"F end": "termination", "G ! data-race": "no-data-race", "G def-behavior": "def-behavior"}
_CHECK = re.compile(r"CHECK\(\s*init\((\w+)\(\)\)\s*,\s*LTL\((.*)\)\s*\)\s*$")

# SV-COMP's scores: a wrong answer costs far more than a right one earns.
# Keys: (answer, expected).
SCORE = {("true", "true"): 2, ("false", "false"): 1, ("false", "true"): -16, ("true", "false"): -32}


@dataclass(frozen=True)
class Property:
    name: str  # the file's stem: "unreach-call", "valid-memsafety", ...
    subproperties: tuple[str, ...]  # "valid-free", "valid-deref", ...
    checks: frozenset[str]
    entry: str = "main"

    @property
    def undecided(self) -> tuple[str, ...]:
        """Subproperties no check decides: a ``true`` is then ``unknown``."""
        if "valid-memtrack" in self.subproperties and "valid-memcleanup" not in self.subproperties:
            return ("valid-memtrack",)
        return ()

    def violated(self, kind: str, prop_id: str) -> str:
        """The subproperty a failed check of ``kind`` violates (the ``false(...)`` of SV-COMP)."""
        if kind == "memleak":
            return "valid-memcleanup"
        if kind == "pointer" and prop_id.endswith(":free"):
            return "valid-free"
        if kind in ("pointer", "bounds"):
            return "valid-deref"
        return self.subproperties[0] if len(self.subproperties) == 1 else self.name


def read_property(path: str | Path) -> Property:
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as e:
        raise OptionError(f"{p}: cannot read the property file ({e.strerror or e})") from None
    return parse_property(text, p.stem, str(p))


def parse_property(text: str, name: str, where: str = "property") -> Property:
    subs: list[str] = []
    checks: set[str] = set()
    entries = set()
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        m = _CHECK.match(line.strip())
        if m is None:
            raise OptionError(f"{where}:{n}:1: not a CHECK( init(f()), LTL(...) ) line: {line.strip()!r}")
        entries.add(m.group(1))
        formula = " ".join(m.group(2).split())
        if formula in _UNSUPPORTED:
            raise OptionError(f"{where}:{n}:1: the property {_UNSUPPORTED[formula]} is not supported "
                              f"(unreach-call, valid-memsafety, valid-memcleanup, no-overflow are)")
        if formula not in _FORMULAS:
            raise OptionError(f"{where}:{n}:1: unknown LTL formula {formula!r}")
        sub, cs = _FORMULAS[formula]
        subs.append(sub)
        checks |= cs
    if not subs:
        raise OptionError(f"{where}: no CHECK line")
    if len(entries) > 1:
        raise OptionError(f"{where}: CHECK lines with different entry functions ({', '.join(sorted(entries))})")
    return Property(name, tuple(subs), frozenset(checks), entries.pop())


@dataclass(frozen=True)
class Task:
    """One verification run: a C file, a property, and what the result should be."""

    source: str  # the task definition (.yml) or the C file given
    file: str  # the C file
    property: Property
    expected: str | None = None  # "true" | "false" | None (not known)
    expected_sub: str | None = None  # e.g. "valid-deref" for an expected false
    data_model: str = "ILP32"
    prp: str = ""  # the property file

    @property
    def name(self) -> str:
        return f"{Path(self.source).stem} ({self.property.name})"


def load_tasks(path: str | Path, property_file: str | Path | None = None, data_model: str = "ILP32") -> list[Task]:
    """The runs ``path`` defines: a ``.yml`` task (each property it lists that
    ``property_file`` selects, else each one tracelearn supports), or a C file checked
    against ``property_file``."""
    p = Path(path)
    chosen = read_property(property_file) if property_file is not None else None
    if p.suffix not in (".yml", ".yaml"):
        if chosen is None:
            raise OptionError(f"{p}: a C file needs --property FILE.prp (or give a task .yml)")
        return [Task(str(p), str(p), chosen, data_model=data_model.upper(), prp=str(property_file))]
    doc = _read_yaml(p)
    files = doc.get("input_files")
    files = [files] if isinstance(files, str) else files
    if not isinstance(files, list) or len(files) != 1:
        raise OptionError(f"{p}: input_files must name one C file (tracelearn checks one translation unit)")
    c_file = p.parent / files[0]
    dm = str((doc.get("options") or {}).get("data_model", data_model)).upper()
    if dm not in ("ILP32", "LP64"):
        raise OptionError(f"{p}: options.data_model {dm!r} (ILP32 or LP64)")
    tasks = []
    for entry in doc.get("properties") or []:
        prp = Path(str(entry.get("property_file", "")))
        if chosen is not None and prp.stem != chosen.name:
            continue
        if "expected_verdict" not in entry:
            continue  # coverage properties: no verdict to check
        prp_path = str(property_file) if chosen is not None else str(p.parent / prp)
        prop = chosen if chosen is not None else _known_property(Path(prp_path))
        if prop is None:
            continue
        expected = str(entry["expected_verdict"]).lower()
        tasks.append(Task(str(p), str(c_file), prop, expected, entry.get("subproperty"), dm, prp_path))
    return tasks


def _known_property(path: Path) -> Property | None:
    """The property file next to the task, read; None for one tracelearn does not
    check (termination, data races) or cannot find."""
    if not path.is_file():
        return None
    try:
        return read_property(path)
    except OptionError:
        return None


def _read_yaml(p: Path) -> dict:
    import yaml  # PyYAML: task files are YAML 1.1 with comments and quoting of all kinds

    try:
        doc = yaml.safe_load(p.read_text())
    except OSError as e:
        raise OptionError(f"{p}: cannot read the task ({e.strerror or e})") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        at = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
        raise OptionError(f"{p}{at}: not a YAML task definition ({getattr(e, 'problem', e)})") from None
    if not isinstance(doc, dict) or "input_files" not in doc:
        raise OptionError(f"{p}: not an SV-COMP task definition (no input_files)")
    return doc


def property_verdict(prop: Property, verdict: str, kind: str | None, prop_id: str | None) -> tuple[str, str | None]:
    """SV-COMP's answer for a check's verdict: ("true" | "false" | "unknown", the
    violated subproperty of a false)."""
    if verdict == "false" and kind is not None:
        return "false", prop.violated(kind, prop_id or "")
    if verdict == "true" and not prop.undecided:
        return "true", None
    return "unknown", None


def status(task: Task, answer: str, sub: str | None) -> tuple[str, int]:
    """("correct" | "wrong" | "unknown", SV-COMP score) of ``answer`` for ``task``."""
    if answer == "unknown" or task.expected is None:
        return "unknown", 0
    if answer == task.expected == "false" and task.expected_sub and sub != task.expected_sub:
        return "wrong", -16  # the wrong subproperty: SV-COMP scores it as a false alarm
    s = SCORE[(answer, task.expected)]
    return ("correct" if s > 0 else "wrong"), s
