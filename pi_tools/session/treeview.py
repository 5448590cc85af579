"""A readable tree of a session's entries: linear runs flat, each branch point indented, labels and the leaf."""

from __future__ import annotations

from typing import Any

from pi_tools.output.words import counted
from pi_tools.session.preview import entry_preview, shorten
from pi_tools.session.tree import PathCycleError, SessionTree


def render_tree(tree: SessionTree, width: int = 100) -> list[str]:
    """Lines of the entry tree: branch points indent, linear runs stay flat; marks labels and the leaf."""
    children = tree.children_by_entry()
    header = tree.header or {}
    lines = [
        f"session {header.get('id')}  cwd={header.get('cwd', '')}"
        + (f"  name={tree.name!r}" if tree.name else "")
        + f"  entries={len(tree.entries)}"
    ]
    leaf = tree.leaf_id
    leaf_entry = tree.by_id.get(leaf) if isinstance(leaf, str) else None
    try:
        active = {id(e) for e in tree.path(leaf)}
    except PathCycleError:
        active = set()  # the cycle is reported with the diagnostics below
    shown: set[int] = set()
    # Explicit stack of (entry, prefix for this line, prefix for its children); no recursion.
    stack: list[tuple[Any, str, str]] = [
        (root, "", "") for root in reversed(children.get(None, []))
    ]
    roots = children.get(None, [])
    if len(roots) > 1:
        stack = []
        for index, root in reversed(list(enumerate(roots))):
            last = index == len(roots) - 1
            stack.append((root, "└─ " if last else "├─ ", "   " if last else "│  "))
    while stack:
        entry, prefix, child_prefix = stack.pop()
        shown.add(id(entry))
        entry_id = entry.get("id")
        marks = []
        label = tree.labels.get(entry_id) if isinstance(entry_id, str) else None
        if label:
            marks.append(f"[label: {label}]")
        if entry is leaf_entry:
            marks.append("◀ leaf")
        elif id(entry) in active:
            marks.append("•")
        text = shorten(entry_preview(entry), max(20, width - len(prefix) - 12))
        lines.append(f"{prefix}{entry_id} {text}" + (("  " + " ".join(marks)) if marks else ""))
        kids = children.get(id(entry), [])
        if len(kids) == 1:
            stack.append((kids[0], child_prefix, child_prefix))
        else:
            for index, kid in reversed(list(enumerate(kids))):
                last = index == len(kids) - 1
                stack.append((kid, child_prefix + ("└─ " if last else "├─ "), child_prefix + ("   " if last else "│  ")))
    hidden = [e for e in tree.entries if isinstance(e, dict) and id(e) not in shown]
    if hidden:
        lines.append(f"! {counted(len(hidden), 'entry is', 'entries are')} not reachable from any root (parentId cycle): "
                     + ", ".join(str(e.get("id")) for e in hidden[:10]) + (" …" if len(hidden) > 10 else ""))
    for diag in tree.diagnostics:
        lines.append(f"! line {diag.get('line')}: {diag.get('code')}: {diag.get('message')}")
    return lines
