#!/usr/bin/env python3
"""No import cycles among the Python modules of tools/ (`make test-tools`).

The tools are scripts that put their own folder on sys.path and import their siblings by name, often inside a
function (a lazy import is still a cycle: two modules that each need the other's code). So every `import X` and
`from X import ...` anywhere in a file counts, X resolved as a module of the file's own folder or, for a tests/
folder, of the folder above. A cycle fails with its modules and the lines that close it; the cure is to move what
both need into a module both import (as tools/character/finder.py holds what evaluate.py and refine.py share).

Usage: tools/check_import_cycles.py [ROOT ...]   (default: the tools/ folder beside this script)
"""
import ast
import pathlib
import sys


def modules(root):
    """{path: (folder, stem)} of the .py files under root."""
    return {p: (p.parent, p.stem) for p in sorted(root.rglob("*.py")) if "venv" not in p.parts}


def imported_names(path):
    """[(name, line)] of the top-level module names a file imports (relative imports as their module)."""
    tree = ast.parse(path.read_text(), str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(alias.name.split(".")[0], node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level and not node.module:  # from . import a, b
                out += [(alias.name, node.lineno) for alias in node.names]
            elif node.module:
                out.append((node.module.split(".")[0], node.lineno))
    return out


def graph(files):
    """{path: [(imported path, line)]}: the imports that resolve to another file of files."""
    by_place = {(folder, stem): path for path, (folder, stem) in files.items()}
    edges = {}
    for path, (folder, _) in files.items():
        places = [folder] + ([folder.parent] if folder.name == "tests" else [])
        found = []
        for name, line in imported_names(path):
            for place in places:
                target = by_place.get((place, name))
                if target is not None:
                    found.append((target, line))
                    break
        edges[path] = found
    return edges


def cycles(edges):
    """The strongly connected components with a cycle (Tarjan), each a sorted list of paths."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w, _ in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or any(t == v for t, _ in edges[v]):
                out.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in edges:
        if v not in index:
            visit(v)
    return out


def main():
    here = pathlib.Path(__file__).resolve().parent
    roots = [pathlib.Path(a).resolve() for a in sys.argv[1:]] or [here]
    files = {}
    for root in roots:
        files.update(modules(root))
    edges = graph(files)
    found = cycles(edges)
    base = pathlib.Path.cwd()

    def name(p):
        try:
            return str(p.relative_to(base))
        except ValueError:
            return str(p)
    if found:
        for component in found:
            members = set(component)
            print(f"check_import_cycles: an import cycle among {', '.join(name(p) for p in component)}:",
                  file=sys.stderr)
            for p in component:
                for target, line in edges[p]:
                    if target in members:
                        print(f"  {name(p)}:{line} imports {target.stem}", file=sys.stderr)
        print("check_import_cycles: move what the modules of a cycle share into a module they all import",
              file=sys.stderr)
        sys.exit(1)
    print(f"import cycles: none among {len(files)} Python files of {', '.join(name(r) for r in roots)} "
          f"({sum(len(e) for e in edges.values())} imports between them)")


if __name__ == "__main__":
    main()
