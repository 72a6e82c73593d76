"""Lowering of C statements and conditions to basic blocks."""

from __future__ import annotations

from pycparser import c_ast

from ..errors import TracelearnError, UnsupportedError
from ..ir.expr import Binary, Const
from ..ir.program import Assert, Assume, Branch, Goto, Nondet, Return, SourceLoc, is_library_file
from .annotations import for_loop
from ..ir.types import ArrayType, FunctionType, IntType, PointerType, StructType, VoidType, is_arith
from .context import SwitchContext
from .conversions import convert, fold, promote, to_truth
from .lvalues import LVMem, LVReg
from .scopes import FuncBinding, TypedefBinding, VarBinding


class StmtLowering:
    """Mixin of ``Lowerer``: statements, conditions, local declarations."""

    def goto(self, target: int, loc: SourceLoc) -> Goto:
        return Goto(target, loc)

    # ---------------------------------------------------------- conditions

    def cond_branch(self, node: c_ast.Node, t: int, f: int, source_id: str | None = None,
                    source_text: str | None = None, keyword: SourceLoc | None = None,
                    exits: tuple[int, int] | None = None) -> None:
        """Branch to ``t`` if ``node`` is true, else ``f``; && || ! become several
        branches that share the ``source_id`` of the whole source condition."""
        cfg = self.ctx.cfg
        loc = self.loc(node)
        atomic = source_id is None and not (
            isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||")
            or isinstance(node, c_ast.UnaryOp) and node.op == "!")
        if source_id is None:
            source_id = self.ctx.stable_id(loc, "condition")
            source_text = self.text(node)
            exits = (t, f)
        assert exits is not None
        if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
            mid = cfg.new_block("cond.rhs", loc)
            if node.op == "&&":
                self.cond_branch(node.left, mid, f, source_id, source_text, keyword, exits)
            else:
                self.cond_branch(node.left, t, mid, source_id, source_text, keyword, exits)
            cfg.place(mid, loc)
            self.cond_branch(node.right, t, f, source_id, source_text, keyword, exits)
            return
        if isinstance(node, c_ast.UnaryOp) and node.op == "!":
            self.cond_branch(node.expr, f, t, source_id, source_text, keyword, exits)
            return
        v = self.rvalue(node)
        if not (is_arith(v.type) or isinstance(v.type, PointerType)):
            raise TracelearnError(f"condition of type {v.type} is not a scalar", self.where(node))
        c = fold(to_truth(self.std, v))
        if isinstance(c, Const):
            cfg.terminate(Goto(t if c.value else f, loc), loc)
            return
        did = self.ctx.stable_id(loc, "decision")

        def value(target: int) -> bool | None:
            return True if target == exits[0] else False if target == exits[1] else None
        cfg.terminate(Branch(c, t, f, loc, did, source_id, self.text(node), keyword, atomic,
                             (value(t), value(f))), loc)

    # ----------------------------------------------------------- statements

    def stmt(self, node: c_ast.Node | None) -> None:
        if node is None:
            return
        cfg = self.ctx.cfg
        loc = self.loc(node)
        if isinstance(node, c_ast.Compound):
            self.scopes.push()
            for item in node.block_items or []:
                self.stmt(item)
            self.scopes.pop()
        elif isinstance(node, c_ast.Decl):
            self.local_decl(node)
        elif isinstance(node, c_ast.DeclList):
            for d in node.decls:
                self.local_decl(d)
        elif isinstance(node, c_ast.Typedef):
            self.typedef(node)
        elif isinstance(node, c_ast.If):
            bt, bf, join = cfg.new_block("if.then", loc), cfg.new_block("if.else", loc), cfg.new_block("if.end", loc)
            self.cond_branch(node.cond, bt, bf if node.iffalse is not None else join, keyword=loc)
            cfg.place(bt, loc)
            self.stmt(node.iftrue)
            if node.iffalse is not None:
                cfg.terminate(Goto(join, loc), loc)
                cfg.place(bf, self.loc(node.iffalse))
                self.stmt(node.iffalse)
            cfg.place(join, loc)
        elif isinstance(node, c_ast.While):
            head, body, exit_ = cfg.new_block("while.head", loc), cfg.new_block("while.body", loc), cfg.new_block("while.end", loc)
            cfg.place(head, loc)
            self.loop_invariants(node, loc)
            self.cond_branch(node.cond, body, exit_, keyword=loc)
            cfg.place(body, loc)
            self.loop_body(node.stmt, exit_, head)
            cfg.terminate(Goto(head, loc), loc)
            cfg.place(exit_, loc)
        elif isinstance(node, c_ast.DoWhile):
            body, cont, exit_ = cfg.new_block("do.body", loc), cfg.new_block("do.cond", loc), cfg.new_block("do.end", loc)
            cfg.place(body, loc)
            self.loop_invariants(node, loc)
            self.loop_body(node.stmt, exit_, cont)
            cfg.place(cont, self.loc(node.cond))
            self.cond_branch(node.cond, body, exit_, keyword=loc)
            cfg.place(exit_, loc)
        elif isinstance(node, c_ast.For):
            self.scopes.push()
            if node.init is not None:
                if isinstance(node.init, c_ast.DeclList):
                    for d in node.init.decls:
                        self.local_decl(d)
                else:
                    self.effect(node.init)
            head, body = cfg.new_block("for.head", loc), cfg.new_block("for.body", loc)
            step, exit_ = cfg.new_block("for.step", loc), cfg.new_block("for.end", loc)
            cfg.place(head, loc)
            self.loop_invariants(node, loc)
            if node.cond is not None:
                self.cond_branch(node.cond, body, exit_, keyword=loc)
            else:
                cfg.terminate(Goto(body, loc), loc)
            cfg.place(body, loc)
            self.loop_body(node.stmt, exit_, step)
            cfg.place(step, loc)
            if node.next is not None:
                self.effect(node.next)
            cfg.terminate(Goto(head, loc), loc)
            cfg.place(exit_, loc)
            self.scopes.pop()
        elif isinstance(node, c_ast.Switch):
            self.switch(node)
        elif isinstance(node, (c_ast.Case, c_ast.Default)):
            if not self.ctx.switches:
                raise TracelearnError("case label outside a switch", self.where(node))
            blk = self.ctx.switches[-1].cases[id(node)]
            cfg.place(blk, loc)
            for s in node.stmts or []:
                self.stmt(s)
        elif isinstance(node, c_ast.Break):
            if not self.ctx.breaks:
                raise TracelearnError("break outside a loop or switch", self.where(node))
            cfg.terminate(Goto(self.ctx.breaks[-1], loc), loc)
        elif isinstance(node, c_ast.Continue):
            if not self.ctx.continues:
                raise TracelearnError("continue outside a loop", self.where(node))
            cfg.terminate(Goto(self.ctx.continues[-1], loc), loc)
        elif isinstance(node, c_ast.Goto):
            cfg.terminate(Goto(self.label_block(node.name, loc), loc), loc)
        elif isinstance(node, c_ast.Label):
            blk = self.label_block(node.name, loc)
            cfg.place(blk, loc)
            self.stmt(node.stmt)
        elif isinstance(node, c_ast.Return):
            self.return_stmt(node)
        elif isinstance(node, c_ast.Pragma):
            self.types.pragma(node.string, self.where(node))
        elif isinstance(node, c_ast.EmptyStatement):
            pass
        elif isinstance(node, c_ast.StaticAssert):
            pass
        elif isinstance(node, c_ast.FuncDef):
            raise UnsupportedError("unsupported construct: nested function definition", self.where(node))
        else:
            self.effect(node)

    def loop_invariants(self, node: c_ast.Node, loc: SourceLoc) -> None:
        """A witness's invariants of this loop (``frontend/annotations.py``): assert them,
        forget every variable in scope, assume them."""
        if not self.annotations or loc.file != self.filename:
            return
        mine = for_loop(self.annotations, loc.line, loc.col, self.ctx.name, self.loops_per_line[loc.line])
        if not mine:
            return
        for a in mine:
            a.used = True
            pid = self.ctx.stable_id(loc, "invariant")
            self.emit(Assert(self.truth_value(a.node), loc, pid, "invariant", f"loop invariant {a.text}", "witness"), node)
        seen: set[str] = set()
        for scope in reversed(self.scopes.stack):
            for name, b in scope.names.items():
                if isinstance(b, VarBinding) and name not in seen:
                    seen.add(name)
                    lv = self.var_lvalue(b.var, b.scope)
                    target = lv.reg if isinstance(lv, LVReg) else _mem(lv)
                    self.emit(Nondet(target, loc, f"any value of {name} (loop invariant)", name), node)
        for a in mine:
            self.emit(Assume(self.truth_value(a.node), loc), node)

    def loop_body(self, body: c_ast.Node | None, brk: int, cont: int) -> None:
        self.ctx.breaks.append(brk)
        self.ctx.continues.append(cont)
        self.stmt(body)
        self.ctx.breaks.pop()
        self.ctx.continues.pop()

    def label_block(self, name: str, loc: SourceLoc) -> int:
        if name not in self.ctx.labels:
            self.ctx.labels[name] = self.ctx.cfg.new_block(name, loc)
        return self.ctx.labels[name]

    def return_stmt(self, node: c_ast.Return) -> None:
        loc = self.loc(node)
        rt = self.ctx.ret_type
        if node.expr is None:
            if not isinstance(rt, VoidType):
                self.warn(f"{self.where(node)}: return without a value in a function returning {rt}")
            self.ctx.cfg.terminate(self.missing_return(loc), loc)
            return
        if isinstance(rt, VoidType):
            self.effect(node.expr)
            self.ctx.cfg.terminate(Return(None, loc), loc)
            return
        v = self.assign_convert(self.rvalue(node.expr), rt, node)
        self.ctx.cfg.terminate(Return(v, loc), loc)

    def missing_return(self, loc: SourceLoc) -> Return:
        """Falling off a non-void function: the value is indeterminate, an input."""
        rt = self.ctx.ret_type
        if isinstance(rt, VoidType) or self.ctx.name == "main":
            return Return(None if isinstance(rt, VoidType) else Const(self.std.int, 0), loc)
        tmp = self.ctx.new_temp(rt, loc, "noreturn")
        self.ctx.cfg.emit(Nondet(tmp, loc, f"missing return value of {self.ctx.name}", "return value"), loc)
        return Return(tmp, loc)

    def switch(self, node: c_ast.Switch) -> None:
        cfg = self.ctx.cfg
        loc = self.loc(node)
        v = self.rvalue(node.cond)
        if not isinstance(v.type, IntType):
            raise TracelearnError("switch on a non-integer", self.where(node))
        t = promote(self.std, v.type)
        v = self.materialize(convert(self.std, v, t), node, "switch")
        cases: list[c_ast.Node] = []
        self.collect_cases(node.stmt, cases)
        exit_ = cfg.new_block("switch.end", loc)
        blocks = {id(c): cfg.new_block("case" if isinstance(c, c_ast.Case) else "default", self.loc(c)) for c in cases}
        default = next((blocks[id(c)] for c in cases if isinstance(c, c_ast.Default)), exit_)
        seen: set[int] = set()
        source_id = self.ctx.stable_id(loc, "condition")
        for c in cases:
            if not isinstance(c, c_ast.Case):
                continue
            cv = self.const_int(c.expr)
            cv = t.wrap(cv)
            if cv in seen:
                raise TracelearnError(f"duplicate case value {cv}", self.where(c))
            seen.add(cv)
            nxt = cfg.new_block("switch.next", loc)
            cond = Binary("eq", self.std.int, v, Const(t, cv), t)
            did = self.ctx.stable_id(self.loc(c), "decision")
            cfg.terminate(Branch(cond, blocks[id(c)], nxt, self.loc(c), did, source_id, f"{self.text(node.cond)} == {cv}"), loc)
            cfg.place(nxt, loc)
        cfg.terminate(Goto(default, loc), loc)
        self.ctx.switches.append(SwitchContext(blocks, exit_))
        self.ctx.breaks.append(exit_)
        # cfg.cur is None here: code before the first case label is unreachable.
        self.stmt(node.stmt)
        self.ctx.breaks.pop()
        self.ctx.switches.pop()
        cfg.place(exit_, loc)

    def collect_cases(self, node: c_ast.Node | None, out: list[c_ast.Node]) -> None:
        if node is None or isinstance(node, c_ast.Switch):
            return
        if isinstance(node, (c_ast.Case, c_ast.Default)):
            out.append(node)
        for _, child in node.children():
            self.collect_cases(child, out)

    # ---------------------------------------------------- local declarations

    def typedef(self, node: c_ast.Typedef) -> None:
        t = self.types.build(node.type)
        self.scopes.bind(node.name, TypedefBinding(t))

    def local_decl(self, node: c_ast.Decl) -> None:
        loc = self.loc(node)
        storage = node.storage or []
        if isinstance(node.type, c_ast.FuncDecl):
            self.declare_function(node, file_scope=False)
            return
        if node.name is None:
            self.types.build(node.type)  # struct/union/enum declaration
            return
        if "typedef" in storage:
            self.typedef(node)  # type: ignore[arg-type]
            return
        if "extern" in storage:
            g = self.global_decl(node)
            self.scopes.bind(node.name, VarBinding(g, "global"))
            return
        t = self.types.build(node.type)
        if isinstance(t, ArrayType) and t.length is None:
            t = self.complete_array_type(t, node.init)
            if t.length is None:
                raise TracelearnError(f"array '{node.name}' has no size", self.where(node))
        if isinstance(t, StructType) and not t.complete:
            raise TracelearnError(f"variable '{node.name}' has incomplete type '{t}'", self.where(node))
        if isinstance(t, VoidType):
            raise TracelearnError(f"variable '{node.name}' declared void", self.where(node))
        if "static" in storage:
            g = self.static_local(node, t)
            self.scopes.bind(node.name, VarBinding(g, "global"))
            return
        in_mem = not t.is_scalar() or node.name in self.ctx.addr_taken
        var = self.new_local(self.ctx.unique(node.name), node.name, t, in_mem, loc)
        self.scopes.bind(node.name, VarBinding(var, "local"))
        lv = self.var_lvalue(var, "local")
        if node.init is None:
            # Uninitialised locals hold indeterminate values: inputs of the run.
            self.ctx.cfg.emit(Nondet(lv.reg if isinstance(lv, LVReg) else _mem(lv), loc,
                                     f"uninitialized {node.name}", node.name), loc)
            return
        self.init_object(lv, t, node.init, node, zero_first=True)

    def var_lvalue(self, var, scope: str):
        from ..ir.expr import AddrOf, Reg

        if var.in_memory:
            return LVMem(AddrOf(var.name, self.std.ptr(var.type), scope), var.type, var.display)
        return LVReg(Reg(var.name, var.type, scope), var.display)

    def declare_function(self, node: c_ast.Decl, file_scope: bool) -> FuncBinding:
        ft = self.types.build(node.type)
        assert isinstance(ft, FunctionType)
        name = self.link_name(node.name)
        old = self.func_types.get(name)
        if old is not None and old.prototyped and not ft.prototyped:
            ft = old  # keep the prototype: `int f();` after `int f(int)`
        self.func_types[name] = ft
        if is_library_file(self.loc(node).file):
            self.library_decls.add(name)
        b = FuncBinding(name, ft)
        self.scopes.bind(node.name, b, file_scope=True)
        if not file_scope:
            self.scopes.bind(node.name, b)
        return b


def _mem(lv: LVMem):
    from ..ir.program import Mem

    return Mem(lv.addr, lv.type)
