"""Quick constructors for the engine's small frozen records (events and commands).

A frozen dataclass's own ``__init__`` sets each field through ``object.__setattr__``,
which is about twice as slow as setting the slot directly.  A round makes a dozen
events and several commands, so :func:`quick_init` gives such a class an ``__init__``
that sets its slots directly: same parameters, same defaults, same behaviour.
"""

from __future__ import annotations

import dataclasses

__all__ = ["quick_init"]


def quick_init(cls: type, *, kw_only: bool) -> None:
    """Replace the ``__init__`` of a frozen, slotted dataclass by one that sets its slots.

    Classes with default factories or a ``__post_init__`` keep their own.
    """
    if hasattr(cls, "__post_init__"):
        return
    fields = dataclasses.fields(cls)
    scope: dict[str, object] = {}
    params: list[str] = []
    body: list[str] = []
    for field in fields:
        name = field.name
        if field.default_factory is not dataclasses.MISSING:
            return
        scope[f"_set_{name}"] = getattr(cls, name).__set__
        if field.default is not dataclasses.MISSING:
            scope[f"_default_{name}"] = field.default
            params.append(f"{name}=_default_{name}")
        else:
            params.append(name)
        body.append(f"    _set_{name}(self, {name})\n")
    signature = ", ".join(params)
    if signature:
        signature = ", *, " + signature if kw_only else ", " + signature
    namespace: dict[str, object] = {}
    source = f"def __init__(self{signature}):\n{''.join(body) or '    pass' + chr(10)}"
    exec(source, scope, namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"  # type: ignore[attr-defined]
    cls.__init__ = init  # type: ignore[misc]
