"""The lip-sync tools import each other without a cycle: every import of another tools/lipsync module, at the
top or inside a function (a lazy import closes a cycle as well), read from the source with ast."""

import ast
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.dirname(HERE)


def local_imports():
    """{module: set of the local modules it imports} for tools/lipsync/*.py."""
    modules = {name[:-3] for name in os.listdir(TOOLS) if name.endswith(".py")}
    graph = {}
    for m in sorted(modules):
        with open(os.path.join(TOOLS, m + ".py"), encoding="utf-8") as f:
            tree = ast.parse(f.read(), m + ".py")
        found = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
        graph[m] = (found & modules) - {m}
    return graph


def cycles(graph):
    """The import cycles of `graph`, each as the list of modules along it (empty when there is none)."""
    found, state, path = [], {}, []

    def visit(m):
        state[m] = "open"
        path.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == "open":
                found.append(path[path.index(n):] + [n])
            elif n not in state:
                visit(n)
        path.pop()
        state[m] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m)
    return found


def test_the_cycle_finder_finds_one():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_among_the_tools():
    graph = local_imports()
    assert {"eval", "robustness", "measure"} <= set(graph)
    assert cycles(graph) == [], " ; ".join(" -> ".join(c) for c in cycles(graph))


def test_eval_and_robustness_share_measure_not_each_other():
    graph = local_imports()
    assert "measure" in graph["eval"] and "measure" in graph["robustness"]
    assert "eval" not in graph["robustness"]
    assert not graph["measure"] & {"eval", "robustness"}


def test_robustness_loads_without_eval():
    code = "import sys, robustness; assert 'eval' not in sys.modules, 'robustness imported eval'"
    run = subprocess.run([sys.executable, "-c", code], cwd=TOOLS, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
