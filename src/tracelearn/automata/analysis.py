"""Post-processing of learned automata (language of error, paper Sec. 7.2).

All notions are about *accepted words*: an edge, letter or state "dominates" when
every accepted word's run uses it. On the language of error that means: every
failing path (up to the bounds) performs that event. If the language is empty,
nothing is reported (there is no accepted word to explain).
"""

from __future__ import annotations

from collections import deque

from .dfa import DFA, Edge


def _accepting_reachable(dfa: DFA, skip_letter: str | None = None, skip_edge: Edge | None = None,
                         skip_state: int | None = None) -> bool:
    """Whether an accepting state is reachable from the initial state when one
    letter, one edge or one state is removed."""
    if skip_state == dfa.initial:
        return False
    seen = {dfa.initial}
    todo = [dfa.initial]
    while todo:
        s = todo.pop()
        if s in dfa.accepting:
            return True
        for a, t in dfa.successors(s):
            if a == skip_letter or (s, a, t) == skip_edge or t == skip_state or t in seen:
                continue
            seen.add(t)
            todo.append(t)
    return False


def _witness_run(dfa: DFA) -> tuple[list[int], list[Edge]] | None:
    """States and edges along the run of the shortest accepted word."""
    w = dfa.shortest_word()
    if w is None:
        return None
    states = [dfa.initial]
    edges: list[Edge] = []
    for a in w:
        t = dfa.transitions[(states[-1], a)]
        edges.append((states[-1], a, t))
        states.append(t)
    return states, edges


def dominating_letters(dfa: DFA) -> tuple[str, ...]:
    """Letters without which no accepting state is reachable (alphabet order).

    pv's "dominating edges" box: remove every edge carrying the letter and test
    whether an accepting state is still reachable from the initial state."""
    run = _witness_run(dfa)
    if run is None:
        return ()
    # A dominating letter occurs on every accepted word, so on the shortest one.
    candidates = {a for _, a, _ in run[1]}
    return tuple(a for a in dfa.alphabet if a in candidates and not _accepting_reachable(dfa, skip_letter=a))


def dominating_edges(dfa: DFA) -> tuple[Edge, ...]:
    """Edges ``(s, a, t)`` whose removal alone makes every accepting state unreachable."""
    run = _witness_run(dfa)
    if run is None:
        return ()
    out = []
    for e in dict.fromkeys(run[1]):  # distinct edges of the shortest accepted run, in order
        if not _accepting_reachable(dfa, skip_edge=e):
            out.append(e)
    return tuple(out)


def dominator_states(dfa: DFA) -> frozenset[int]:
    """States visited by the run of every accepted word (the initial state included).

    pv draws these states green."""
    run = _witness_run(dfa)
    if run is None:
        return frozenset()
    return frozenset(s for s in set(run[0]) if not _accepting_reachable(dfa, skip_state=s))


def doomed_states(dfa: DFA) -> frozenset[int]:
    """States from which reaching an accepting state is inevitable (Hoenicke et al. 2010).

    Defined on the trimmed automaton (dead states and their incoming edges removed,
    as pv draws it; missing transitions reject, i.e. the event cannot happen on a
    failing path): a state is doomed iff it is accepting, or it is not accepting,
    has at least one edge to a live state, and every edge to a live state leads to
    a doomed state. This is the *least* fixpoint, computed bottom-up from the
    accepting states, so a cycle of non-accepting states that can be followed
    forever without accepting is not doomed. Dead states are never doomed. Returned
    in the numbering of ``dfa``."""
    live = dfa.live_states()
    succ: dict[int, set[int]] = {s: set() for s in live}
    preds: dict[int, set[int]] = {s: set() for s in live}
    for (s, _), t in dfa.transitions.items():
        if s in live and t in live:
            succ[s].add(t)
            preds[t].add(s)
    doomed = set(dfa.accepting) & live
    # Count, for every non-accepting live state, the successors not yet known doomed.
    pending = {s: len(succ[s]) for s in live if s not in doomed}
    todo = deque(doomed)
    while todo:
        t = todo.popleft()
        for s in preds[t]:
            if s in pending:
                pending[s] -= 1
                if pending[s] == 0 and succ[s]:
                    del pending[s]
                    doomed.add(s)
                    todo.append(s)
    return frozenset(doomed)
