"""A Griffe extension for the API reference: docstrings read as Markdown.

The package's docstrings carry doctests (``>>>`` lines and their output) and Sphinx
roles (``:class:`Round```). Markdown would read a doctest as nested quotes and its
output as links, so each doctest becomes a ``pycon`` code block and each role the
code it names.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:mod|class|meth|func|attr|data|exc|obj|const):`~?([^`]+)`")


def markdown(text: str) -> str:
    """The docstring ``text`` with its doctests fenced and its roles as code.

    >>> markdown("Read cards.\\n\\n>>> 1 + 1\\n2\\n\\nSee :func:`parse_cards`.").splitlines()
    ['Read cards.', '', '```pycon', '>>> 1 + 1', '2', '```', '', 'See `parse_cards`.']
    """
    lines = _ROLE.sub(r"`\1`", text).split("\n")
    out: list[str] = []
    fence = False
    index = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.lstrip()
        if stripped.startswith("```"):
            fence = not fence
        if not fence and stripped.startswith(">>>"):
            indent = line[: len(line) - len(stripped)]
            out.append(f"{indent}```pycon")
            while index < len(lines) and lines[index].strip():
                out.append(lines[index])
                index += 1
            out.append(f"{indent}```")
            continue
        out.append(line)
        index += 1
    return "\n".join(out)


class DoctestBlocks(griffe.Extension):
    """Rewrites every docstring with :func:`markdown` as it is loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Called by Griffe for every object it loads."""
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
