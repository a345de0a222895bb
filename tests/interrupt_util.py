"""Ctrl-C in tests: make a function raise ``KeyboardInterrupt`` at its n-th call."""

from __future__ import annotations


def interrupt_at_call(monkeypatch, owner, name: str, n: int) -> list:
    """Replace ``owner.name`` (a module's function, through ``monkeypatch``) by one that raises
    ``KeyboardInterrupt`` at its ``n``-th call and otherwise calls the original. Returns the list of
    ``(args, kwargs)`` of every call, the interrupted one included."""
    real = getattr(owner, name)
    calls: list = []

    def wrapper(*args, **kwargs):
        calls.append((args, kwargs))
        if len(calls) == n:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, wrapper)
    return calls
