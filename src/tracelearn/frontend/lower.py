"""C translation unit -> IR program."""

from __future__ import annotations

import copy
import functools
from collections import Counter
from pathlib import Path
from typing import Callable, Sequence, TypeVar

from pycparser import c_ast, c_generator

from ..bigstack import run_with_big_stack
from ..errors import TracelearnError, UnsupportedError
from ..ir.datamodel import DataModel, StdTypes
from ..ir.expr import AddrOf, Const, Reg, walk
from ..ir.program import (
    Call,
    GlobalVar,
    Nondet,
    Procedure,
    Program,
    Return,
    SourceLoc,
    Variable,
)
from ..ir.types import ArrayType, CType, FunctionType, VoidType
from .annotations import LoopAnnotation, parse_expression
from .context import FunctionContext
from .conversions import convert, fold, promote, same_repr
from .lower_expr import ExprLowering
from .lower_init import InitLowering
from .lower_stmt import StmtLowering
from .link import link_renames, unit_symbols
from .lvalues import LVMem, LVReg
from .parser import parse_text
from .preprocess import display_name, preprocess, where_in_preprocessed
from .scopes import FuncBinding, Scopes, VarBinding
from .typebuilder import TypeBuilder
from .units import resolve_units

T = TypeVar("T")
INIT_PROC = "__tl_init_globals"
VA_PARAM = "__tl_va"
MODELS_C = Path(__file__).parent / "libc" / "models.c"


def addr_taken_names(node: c_ast.Node | None, out: set[str]) -> None:
    """Names of identifiers whose address is taken with ``&``."""
    if node is None:
        return
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, c_ast.UnaryOp) and n.op == "&":
            inner = n.expr
            if isinstance(inner, c_ast.ID):
                out.add(inner.name)
        stack.extend(c for _, c in n.children())


class Lowerer(ExprLowering, StmtLowering, InitLowering):
    def __init__(self, filename: str, std: StdTypes, checks: frozenset[str],
                 annotations: list[LoopAnnotation] | None = None) -> None:
        self.filename = filename
        self.annotations = annotations or []  # loop invariants from a witness
        self.loops_per_line: Counter = Counter()
        self.std = std
        self.scopes = Scopes()
        self.warnings: list[str] = []
        self.library_decls: set[str] = set()  # functions declared by a bundled header
        self.implicit: set[str] = set()  # functions called without a declaration
        self.types = TypeBuilder(std, self.scopes, self.const_int, self.where, self.warn, self.typeof)
        self.gen = c_generator.CGenerator()
        self.globals: dict[str, GlobalVar] = {}
        self.declared_only: set[str] = set()
        self.procedures: dict[str, Procedure] = {}
        self.func_types: dict[str, FunctionType] = {}
        self.defined: set[str] = set()
        self.addr_taken_global: set[str] = set()
        self.strings: dict[bytes, str] = {}
        self.checks = checks
        self.checks_bounds = "bounds" in checks
        self.checks_div = "div-by-zero" in checks
        self.init_name = INIT_PROC
        self.init_ctx = FunctionContext(INIT_PROC, std.void, set())
        self._library_types: dict[str, FunctionType] | None = None
        self.ctx = self.init_ctx
        self.renames: dict[str, str] = {}  # the unit's static names other units also use
        self.string_prefix = "__str"
        self.in_constant_expr = False  # an integer constant expression: ?: folds
        self.inline_defs: set[str] = set()

    def begin_unit(self, filename: str, renames: dict[str, str]) -> None:
        """Start the next translation unit of a program: file scope (names, tags,
        typedefs, pragmas) starts empty; external names carry over, as the linker
        joins them."""
        self.filename = filename
        self.renames = renames
        self.scopes = Scopes()
        self.types = TypeBuilder(self.std, self.scopes, self.const_int, self.where, self.warn, self.typeof)

    def link_name(self, name: str) -> str:
        """The program-wide name of a file-scope identifier of this unit."""
        return self.renames.get(name, name)

    # ------------------------------------------------------------ utilities

    def where(self, node: c_ast.Node | None) -> str:
        c = getattr(node, "coord", None)
        if c is None:
            return self.filename
        return f"{c.file}:{c.line}:{c.column or 0}"

    def loc(self, node: c_ast.Node | None) -> SourceLoc:
        c = getattr(node, "coord", None)
        if c is None:
            return SourceLoc(self.filename, 0, 0)
        return SourceLoc(c.file, c.line or 0, c.column or 0)

    def warn(self, msg: str) -> None:
        if msg not in self.warnings:
            self.warnings.append(msg)

    def unevaluated(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` (a lowering) for its type only: its code is thrown away."""
        from .cfg import CFGBuilder

        snap = self.ctx.snapshot()
        self.ctx.cfg = CFGBuilder()
        self.ctx.cfg.place(self.ctx.cfg.new_block("scratch"))
        try:
            return fn()
        finally:
            self.ctx.restore(snap)

    def typeof(self, node: c_ast.Node) -> CType:
        """GNU C's ``typeof(e)``: the type of ``e``, not evaluated; an array or a
        function stays one (no decay)."""
        from .lower_expr import LVALUE_NODES

        if isinstance(node, LVALUE_NODES) or (isinstance(node, c_ast.UnaryOp) and node.op == "*"):
            return self.unevaluated(lambda: self.lvalue(node).type)
        return self.unevaluated(lambda: self.rvalue(node).type)

    def constant_value(self, node: c_ast.Node) -> Const | None:
        """The value of ``node`` when it is a constant expression (no code), else None."""
        def value() -> Const | None:
            e = fold(self.rvalue(node))
            return e if isinstance(e, Const) and self.ctx.cfg.emitted == 0 else None

        return self.unevaluated(value)

    def const_int(self, node: c_ast.Node) -> int:
        saved, self.in_constant_expr = self.in_constant_expr, True
        try:
            c = self.constant_value(node)
        finally:
            self.in_constant_expr = saved
        if c is None or isinstance(c.value, float):
            raise UnsupportedError("expression is not an integer constant", self.where(node))
        return int(c.value)

    def library_types(self) -> dict[str, FunctionType]:
        """Prototypes of the C-modelled library (and GCC builtins) in models.c."""
        if self._library_types is None:
            self._library_types = {n: p.type for n, p in _models(self.std, frozenset()).procedures.items()}
        return self._library_types

    def new_local(self, name: str, display: str, t: CType, in_mem: bool, loc: SourceLoc) -> Variable:
        v = Variable(name, display, t, in_mem, loc)
        self.ctx.locals.append(v)
        return v

    def intern_string(self, data: bytes, node: c_ast.Node) -> str:
        if data not in self.strings:
            name = f"{self.string_prefix}{len(self.strings)}"
            t = ArrayType(self.std.char, len(data) + 1)
            shown = data.decode("utf-8", "replace")
            var = Variable(name, repr(shown), t, True, self.loc(node))
            self.globals[name] = GlobalVar(var, data + b"\0", readonly=True, is_string=True)
            self.strings[data] = name
        return self.strings[data]

    def new_global_object(self, t: CType, loc: SourceLoc, hint: str) -> str:
        name = f"__{hint}{len(self.globals)}"
        self.globals[name] = GlobalVar(Variable(name, hint, t, True, loc))
        return name

    # ---------------------------------------------------------------- entry

    def lower(self, ast: c_ast.FileAST) -> None:
        self.note_unit(ast)
        self.lower_unit(ast)
        self.finish_declarations()

    def note_unit(self, ast: c_ast.FileAST) -> None:
        """What every unit's lowering must know of ``ast`` beforehand: its function
        definitions and the globals whose address it takes."""
        for ext in ast.ext:
            if isinstance(ext, c_ast.FuncDef):
                self.defined.add(ext.decl.name)
        addr_taken_names(ast, self.addr_taken_global)

    def lower_unit(self, ast: c_ast.FileAST) -> None:
        if self.annotations:
            self.loops_per_line = _loops_per_line(ast, self.filename)
        for ext in ast.ext:
            self.external(ext)
        for a in self.annotations:
            if not a.used:
                lines = ", ".join(str(n) for n in sorted(self.loops_per_line)) or "none"
                raise TracelearnError(f"no loop starts at line {a.line}"
                                      f"{'' if a.column is None else f', column {a.column}'}"
                                      f"{f' of {a.function}' if a.function else ''} for the invariant {a.text!r} "
                                      f"(loops start at lines {lines})", a.origin)

    def finish_declarations(self) -> None:
        """Globals declared ``extern`` and defined nowhere hold unknown values."""
        for name in sorted(self.declared_only):
            g = self.globals[name]
            if isinstance(g.var.type, ArrayType) and g.var.type.length is None:
                continue
            lv = self.var_lvalue(g.var, "global")
            target = lv.reg if isinstance(lv, LVReg) else _mem(lv)
            self.init_ctx.cfg.emit(Nondet(target, g.var.loc, f"extern {name} (no definition)", name), g.var.loc)

    def external(self, ext: c_ast.Node) -> None:
        self.ctx = self.init_ctx
        if isinstance(ext, c_ast.FuncDef):
            self.function(ext)
        elif isinstance(ext, c_ast.Typedef):
            self.typedef(ext)
        elif isinstance(ext, c_ast.Decl):
            if isinstance(ext.type, c_ast.FuncDecl):
                self.declare_function(ext, file_scope=True)
            elif ext.name is None:
                self.types.build(ext.type)
            elif "typedef" in (ext.storage or []):
                self.typedef(ext)  # type: ignore[arg-type]
            else:
                g = self.global_decl(ext)
                self.scopes.bind(ext.name, VarBinding(g, "global"))
        elif isinstance(ext, c_ast.Pragma):
            self.types.pragma(ext.string, self.where(ext))
        elif isinstance(ext, c_ast.StaticAssert):
            pass
        else:
            raise UnsupportedError(f"unsupported construct: {type(ext).__name__}", self.where(ext))

    # --------------------------------------------------------------- globals

    def global_decl(self, node: c_ast.Decl) -> Variable:
        name = self.link_name(node.name)
        t = self.types.build(node.type)
        extern = "extern" in (node.storage or [])
        if node.init is not None:
            t = self.complete_array_type(t, node.init)
        if isinstance(t, VoidType):
            raise TracelearnError(f"variable '{name}' declared void", self.where(node))
        existing = self.globals.get(name)
        if existing is None:
            in_mem = not t.is_scalar() or node.name in self.addr_taken_global
            var = Variable(name, display_name(node.name), t, in_mem, self.loc(node))
            existing = GlobalVar(var)
            self.globals[name] = existing
            if extern and node.init is None:
                self.declared_only.add(name)
        var = existing.var
        if isinstance(var.type, ArrayType) and var.type.length is None and isinstance(t, ArrayType) and t.length:
            var.type = t
        if not extern or node.init is not None:
            self.declared_only.discard(name)
        if node.init is not None:
            self.scopes.bind(node.name, VarBinding(var, "global"), file_scope=True)
            self.define_global(existing, node)
        return var

    def define_global(self, g: GlobalVar, node: c_ast.Decl) -> None:
        var = g.var
        self.ctx = self.init_ctx
        lv = self.var_lvalue(var, "global")
        if isinstance(lv, LVReg):
            init = node.init
            if isinstance(init, c_ast.InitList):
                init = init.exprs[0] if init.exprs else c_ast.Constant("int", "0")
            if self.direct_nondet(lv, init, node):
                return
            before = self.ctx.cfg.emitted
            v = fold(self.assign_convert(self.rvalue(init), var.type, node))
            if isinstance(v, Const) and self.ctx.cfg.emitted == before:
                size = var.type.size
                g.init_bytes = self.const_bits(v, var.type).to_bytes(size, "little")
            else:
                self.write(lv, v, node)
            return
        assert isinstance(lv, LVMem)
        g.init_bytes = self.global_image(var.type, node.init, lv, node)

    def static_local(self, node: c_ast.Decl, t: CType) -> Variable:
        name = f"{self.ctx.name}::{node.name}"
        n = 1
        while name in self.globals:
            n += 1
            name = f"{self.ctx.name}::{node.name}.{n}"
        in_mem = not t.is_scalar() or node.name in self.ctx.addr_taken
        var = Variable(name, node.name, t, in_mem, self.loc(node))
        g = GlobalVar(var)
        self.globals[name] = g
        if node.init is not None:
            saved = self.ctx
            try:
                self.define_global(g, node)
            finally:
                self.ctx = saved
        return var

    # ------------------------------------------------------------- functions

    def function(self, fd: c_ast.FuncDef) -> None:
        decl = fd.decl
        name = self.link_name(decl.name)
        inline = "inline" in (decl.funcspec or []) and "static" not in (decl.storage or [])
        if name in self.procedures:
            if inline and name in self.inline_defs:
                return  # the same header's inline definition, in another unit
            raise TracelearnError(f"redefinition of function '{name}'", self.where(fd))
        if inline:
            self.inline_defs.add(name)
        if not isinstance(decl.type, c_ast.FuncDecl):
            raise UnsupportedError("function definition with a typedef'd function type", self.where(fd))
        knr = {d.name: d for d in (fd.param_decls or [])}
        ftype = self.types.build(decl.type)
        assert isinstance(ftype, FunctionType)
        param_nodes = []
        if decl.type.args is not None:
            for p in decl.type.args.params:
                if isinstance(p, c_ast.ID):
                    d = knr.get(p.name)
                    if d is None:  # K&R parameter without a declaration is int
                        d = c_ast.Decl(p.name, [], [], [], [], c_ast.TypeDecl(p.name, [], None, c_ast.IdentifierType(["int"])), None, None, coord=p.coord)
                    param_nodes.append(d)
                elif isinstance(p, c_ast.Decl):
                    param_nodes.append(p)
                elif isinstance(p, c_ast.Typename):
                    if not isinstance(self.types.build(p.type), VoidType):
                        raise UnsupportedError("unnamed parameter in a function definition", self.where(p))
                elif isinstance(p, c_ast.EllipsisParam):
                    pass  # the extra arguments arrive in a block: see va_block
        declared = [self.types.adjust_param(self.types.build(p.type)) for p in param_nodes]
        prototyped = ftype.prototyped and not knr and not any(isinstance(p, c_ast.ID) for p in (decl.type.args.params if decl.type.args else []))
        passing = declared if prototyped else [self.passing_type(t) for t in declared]
        variadic = ftype.variadic
        ftype = FunctionType(ftype.ret, tuple(passing), variadic, prototyped or not param_nodes)
        if isinstance(ftype.ret, (ArrayType,)):
            raise TracelearnError("function returning an array", self.where(fd))
        prev = self.func_types.get(name)
        if prev is not None and prev.prototyped and not ftype.prototyped and len(prev.params) == len(passing):
            ftype = FunctionType(ftype.ret, prev.params, False, True)
            passing = list(prev.params)
        self.func_types[name] = ftype
        self.scopes.bind(decl.name, FuncBinding(name, ftype), file_scope=True)

        addr = set()
        addr_taken_names(fd.body, addr)
        self.ctx = FunctionContext(name, ftype.ret, addr)
        ctx = self.ctx
        self.scopes.push()
        loc = self.loc(fd)
        ctx.cfg.place(ctx.cfg.new_block("entry", loc), loc)
        for p, t, pt in zip(param_nodes, declared, passing):
            pname = p.name
            if pname is None:
                continue
            ploc = self.loc(p)
            in_mem = not t.is_scalar() or pname in addr
            if not in_mem and same_repr(t, pt):
                var = Variable(ctx.unique(pname), pname, t, False, ploc, is_param=True)
                ctx.params.append(var)
                self.scopes.bind(pname, VarBinding(var, "local"))
                continue
            preg = Variable(ctx.unique(pname + ".param"), pname, pt, False, ploc, is_param=True)
            ctx.params.append(preg)
            var = self.new_local(ctx.unique(pname), pname, t, in_mem, ploc)
            self.scopes.bind(pname, VarBinding(var, "local"))
            lv = self.var_lvalue(var, "local")
            value = Reg(preg.name, pt, "local")
            self.write(lv, convert(self.std, value, t) if t.is_scalar() else value, p)
        if variadic:
            # The callers' extra arguments: a pointer to their block, which stdarg.h's
            # va_start takes (the name cannot clash: C reserves names with __).
            va = Variable(ctx.unique(VA_PARAM), "...", self.std.ptr(self.std.char), False, loc, is_param=True)
            ctx.params.append(va)
            self.scopes.bind(VA_PARAM, VarBinding(va, "local"))
        self.stmt(fd.body)
        end = self.loc(fd.body)
        if fd.body.coord is not None:
            end = SourceLoc(end.file, end.line, end.col)
        if ctx.cfg.reachable:
            ret = self.missing_return(end)
            ctx.cfg.terminate(ret, end)
        blocks = ctx.cfg.finish(Return(None, end))
        self.scopes.pop()
        self.procedures[name] = Procedure(name, ftype, ctx.params, ctx.locals, blocks, loc)
        self.ctx = self.init_ctx

    def passing_type(self, t: CType) -> CType:
        """Type an argument has when passed to an unprototyped function."""
        if t == self.std.float:
            return self.std.double
        return promote(self.std, t)

    def finish_init(self) -> Procedure:
        ctx = self.init_ctx
        loc = SourceLoc(self.filename, 0, 0)
        blocks = ctx.cfg.finish(Return(None, loc))
        if not blocks:
            from ..ir.program import Block

            blocks = [Block(0, [], Return(None, loc), loc, "entry")]
        return Procedure(INIT_PROC, FunctionType(self.std.void, ()), [], ctx.locals, blocks, loc)


def _mem(lv: LVMem):
    from ..ir.program import Mem

    return Mem(lv.addr, lv.type)


# ------------------------------------------------------------------ public API


def _loops_per_line(ast: c_ast.FileAST, filename: str) -> Counter:
    out: Counter = Counter()

    class Loops(c_ast.NodeVisitor):
        def generic_visit(self, node: c_ast.Node) -> None:
            if isinstance(node, (c_ast.While, c_ast.DoWhile, c_ast.For)) and node.coord is not None and \
                    node.coord.file == filename:
                out[node.coord.line] += 1
            super().generic_visit(node)

    Loops().visit(ast)
    return out


def lower_ast(ast: c_ast.FileAST, filename: str, std: StdTypes, checks: frozenset[str],
              annotations: list[LoopAnnotation] | None = None) -> Lowerer:
    low = Lowerer(filename, std, checks, annotations)
    try:
        low.lower(ast)
    except RecursionError:
        raise UnsupportedError("expression nested too deeply", filename) from None
    return low


def deepest_nesting(text: str) -> str:
    """file:line:col of the most deeply nested parenthesis or brace of preprocessed text."""
    depth = best = best_at = 0
    for i, c in enumerate(text):
        if c in "([{":
            depth += 1
            if depth > best:
                best, best_at = depth, i
        elif c in ")]}":
            depth -= 1
    return where_in_preprocessed(text, best_at)


DEFAULT_CHECKS = frozenset({"bounds", "div-by-zero"})


def load_program(
    path: str | Sequence[str],
    data_model: str | DataModel = "LP64",
    include_dirs: list[str] | None = None,
    defines: dict[str, str] | None = None,
    entry: str = "main",
    checks: frozenset[str] = DEFAULT_CHECKS,
    use_system_cpp: bool = True,
    annotations: list[LoopAnnotation] | None = None,
    units: Sequence[str] = (),
) -> Program:
    """Preprocess, parse and lower a C program into an IR ``Program``.

    ``path``: a C file, or a compilation database (``compile_commands.json``);
    ``units``: more files or databases, linked with it by name (frontend/link.py);
    ``include_dirs``/``defines`` apply to every unit; ``annotations``: loop
    invariants to assert and assume at their loop heads (witness validation)."""
    dm = data_model if isinstance(data_model, DataModel) else DataModel.named(data_model)
    std = StdTypes(dm)
    paths = ([path] if isinstance(path, str) else list(path)) + list(units)
    sources = resolve_units(paths, include_dirs, defines)
    if annotations and len(sources) > 1:
        raise TracelearnError("loop invariants (a correctness witness) are for a program of one file",
                              sources[0].file)
    pres = [preprocess(u.file, dm, u.include_dirs, u.defines, use_system_cpp, u.pre_includes) for u in sources]

    def parse(i: int) -> c_ast.FileAST:
        try:
            return parse_text(pres[i].text, sources[i].file)
        except RecursionError:
            raise UnsupportedError("expression nested too deeply", deepest_nesting(pres[i].text)) from None

    def front() -> tuple[Lowerer, Program]:
        asts = [parse(i) for i in range(len(sources))]
        renames = link_renames([unit_symbols(a, u.file) for a, u in zip(asts, sources)])
        for a in annotations or []:
            if a.node is None:
                a.node = parse_expression(a.text, a.origin)
        low = Lowerer(sources[0].file, std, checks, annotations)
        for a in asts:
            low.note_unit(a)
        try:
            for a, u, r in zip(asts, sources, renames):
                low.begin_unit(u.file, r)
                low.lower_unit(a)
            low.finish_declarations()
        except RecursionError:
            raise UnsupportedError("expression nested too deeply", low.filename) from None
        return low, assemble(low, std, entry, checks)

    # pycparser and the lowering recurse once per nesting level (about 20 frames
    # per parenthesis): a thread with a big stack takes machine-written code too.
    low, program = run_with_big_stack(front)
    program.warnings = [w for p in pres for w in p.warnings] + low.warnings
    for u in sources:
        try:
            program.sources[u.file] = Path(u.file).read_text(errors="replace").splitlines()
        except OSError:
            pass
    return program


# Functions whose calls return more than once or not at all (setjmp.h, ucontext.h):
# without a body they would return any value, so a setjmp could "return 1" with no
# longjmp, a bug no run has.
NON_LOCAL_JUMPS = frozenset({"setjmp", "_setjmp", "__setjmp", "sigsetjmp", "__sigsetjmp", "longjmp", "_longjmp",
                             "siglongjmp", "__longjmp_chk", "getcontext", "setcontext", "swapcontext",
                             "makecontext"})


def assemble(low: Lowerer, std: StdTypes, entry: str, checks: frozenset[str]) -> Program:
    procedures = dict(low.procedures)
    procedures[INIT_PROC] = low.finish_init()
    link_models(procedures, low, std, checks)
    called = called_names(procedures)
    externs = {n: low.func_types.get(n, FunctionType(std.int, (), False, False))
               for n in sorted(called) if n not in procedures}
    jumps = sorted(n for n in externs if n in NON_LOCAL_JUMPS)
    if jumps:  # (at the first statement that calls one or takes its address)
        at = next(s for p in procedures.values() for b in p.blocks for s in [*b.stmts, b.term]
                  if s is not None and functions_named(s) & set(jumps))
        raise UnsupportedError(f"unsupported construct: a non-local jump ({jumps[0]}): a nondeterministic "
                               "value in its place would make up runs the program cannot make", str(at.loc))
    for n in externs:
        # A bundled header's functions are the engines' library models (registry:
        # semantics/library.py); an implicit declaration was warned about already.
        if n not in low.library_decls and n not in low.implicit:
            low.warn(f"no body for function '{n}': calls return a nondeterministic value")
    if entry not in procedures:
        raise TracelearnError(f"no definition of the entry function '{entry}'", low.filename)
    return Program(std.dm, low.globals, procedures, externs, entry, INIT_PROC)


def called_names(procedures: dict[str, Procedure]) -> set[str]:
    """The functions called, and those whose address is taken (called through pointers:
    a bodiless one gets an address and its library model too)."""
    return {n for p in procedures.values() for b in p.blocks for s in [*b.stmts, b.term] if s is not None
            for n in functions_named(s)}


def functions_named(s) -> set[str]:  # noqa: ANN001 - a statement or a terminator
    """The functions statement ``s`` calls or takes the address of."""
    out = {s.callee} if isinstance(s, Call) and s.callee else set()
    for e in s.exprs():
        out.update(x.name for x in walk(e) if isinstance(x, AddrOf) and x.scope == "function")
    return out


def link_models(procedures: dict[str, Procedure], low: Lowerer, std: StdTypes, checks: frozenset[str]) -> None:
    """Add the C bodies of library functions the program calls but does not define."""
    needed = {n for n in called_names(procedures) if n not in procedures}
    if not needed:
        return
    models = _lowered_models(std.dm, checks)
    while True:
        add = {n for n in needed if n in models.procedures and n not in procedures}
        if not add:
            break
        for n in add:
            procedures[n] = copy.deepcopy(models.procedures[n])  # the program's own, to transform
            # with the model's own objects: its static locals, string literals, errno
            for g in sorted(globals_used(procedures[n])):
                if g not in low.globals and g in models.globals:
                    low.globals[g] = copy.deepcopy(models.globals[g])
        needed = {n for n in called_names(procedures) if n not in procedures}


def globals_used(proc: Procedure) -> set[str]:
    from ..ir.expr import AddrOf, walk

    names: set[str] = set()
    for b in proc.blocks:
        written = [getattr(st, "lhs", None) or getattr(st, "target", None) for st in b.stmts]
        for e in list(b.exprs()) + [w for w in written if isinstance(w, Reg)]:
            for x in walk(e):
                if isinstance(x, (Reg, AddrOf)) and x.scope == "global":
                    names.add(x.name)
    return names


@functools.lru_cache(maxsize=8)
def _lowered_models(dm: DataModel, checks: frozenset[str]) -> Lowerer:
    """The models lowered once per process, data model and checks: the file is ours
    and fixed, and a program takes copies of what it links. Parsing it was ~0.1 s per
    program loaded (``fuse``'s differential check loaded 400 programs: 47 s of 53)."""
    return _models(StdTypes(dm), checks)


def _models(std: StdTypes, checks: frozenset[str]) -> Lowerer:
    """The C models, lowered apart: their string literals are named apart from the
    program's, and their static locals are ``function::name`` (a model is linked only
    when the program has no function of that name)."""
    pre = preprocess(str(MODELS_C), std.dm)
    ast = parse_text(pre.text, str(MODELS_C))
    low = Lowerer(str(MODELS_C), std, checks)
    low.string_prefix = "__libstr"
    low.lower(ast)
    # Their objects are initialised statically: the models' init code is not linked
    # (it only draws the extern errno, which a program starts with at 0).
    if any(not isinstance(st, Nondet) for b in low.finish_init().blocks for st in b.stmts):
        raise TracelearnError("internal: models.c needs initialisation code", str(MODELS_C))
    return low


__all__ = ["load_program", "parse_text", "Lowerer", "DEFAULT_CHECKS", "INIT_PROC"]

