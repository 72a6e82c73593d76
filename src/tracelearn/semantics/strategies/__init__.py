"""Exploration strategies over the symbolic semantics: merged unwinding (BMC) and
single paths (decision sequences, search, from a state to an event)."""
