"""One way to walk the IR: ``visit(node)`` calls ``visit_<ClassName>(node, ...)``.

A node class without its method fails loudly (``MissingCase`` naming the
visitor and the class), so adding a statement, terminator or expression kind to the
IR shows at once every engine that has not learned it yet, instead of a silent
fall-through. pycparser's ``NodeVisitor`` is the model; the dispatch is cached per
class (engines visit millions of nodes).
"""

from __future__ import annotations

from typing import Any, Callable


class MissingCase(TypeError):
    """A visitor met an IR node kind it has no ``visit_`` method for (a bug of the
    engine, never of the user's program)."""


class IRVisitor:
    """Subclass and define ``visit_Assign``, ``visit_Branch``, ``visit_Binary``, ...
    Arguments after the node are passed through."""

    _dispatch: dict[type, str]

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        cls._dispatch = {}

    def visit(self, node: Any, *args: Any) -> Any:
        name = self._dispatch.get(type(node))
        if name is None:
            name = "visit_" + type(node).__name__
            if not hasattr(self, name):
                return self.missing(node, *args)
            self._dispatch[type(node)] = name
        return getattr(self, name)(node, *args)

    def missing(self, node: Any, *args: Any) -> Any:
        raise MissingCase(f"{type(self).__name__} has no case for IR node {type(node).__name__}: {node!r}")

    def method(self, node_type: type) -> Callable[..., Any]:
        """The bound method for ``node_type`` (for compilers that look it up once)."""
        name = "visit_" + node_type.__name__
        if not hasattr(self, name):
            raise MissingCase(f"{type(self).__name__} has no case for IR node {node_type.__name__}")
        return getattr(self, name)
