"""A MkDocs hook: the pages that may not be written yet join the navigation when they are.

``validation.omitted_files: warn`` makes a page left out of the navigation fail
``mkdocs build --strict``; a page named in the navigation but missing fails it too.
The pages below are put in their section of the navigation when their file exists,
and nothing is said when it does not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: Each optional page: the section of the navigation it goes in, its title, its file.
OPTIONAL_PAGES = (
    ("The table server", "The back office report", "report.md"),
    ("Rules and math", "Notes on the rules and the math", "rules-and-math-notes.md"),
)


def with_optional_pages(nav: list[Any], docs: Path) -> list[Any]:
    """``nav`` with each optional page whose file is in ``docs`` added to its section.

    >>> nav = [{"Home": "index.md"}, {"Rules and math": [{"Simulation": "simulation.md"}]}]
    >>> with_optional_pages(nav, Path("/nowhere")) == nav
    True
    """
    for section, title, file in OPTIONAL_PAGES:
        if not (docs / file).is_file():
            continue
        for entry in nav:
            if isinstance(entry, dict) and section in entry:
                pages = entry[section]
                if {title: file} not in pages:
                    pages.append({title: file})
                break
        else:
            nav.append({title: file})
    return nav


def on_config(config: Any, **kwargs: Any) -> Any:
    """MkDocs calls it once the configuration is read."""
    config["nav"] = with_optional_pages(config["nav"], Path(config["docs_dir"]))
    return config
