"""The record checks of tools/ find what they are for (make test-tools): an import cycle, a target missing from
docs/architecture.md, a declaration the headers' comments only mention."""
import importlib.util
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
TOOLS = HERE.parent


def load(name):
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


cycles = load("check_import_cycles")
architecture = load("check_architecture")
exports = load("check_exports")


def test_a_lazy_import_cycle_is_found_and_a_tests_folder_resolves_to_its_parent(tmp_path):
    (tmp_path / "a.py").write_text("import os\n\ndef f():\n    from b import g\n    return g\n")
    (tmp_path / "b.py").write_text("def g():\n    import a\n    return a\n")
    (tmp_path / "c.py").write_text("import a\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_c.py").write_text("import c\n")
    files = cycles.modules(tmp_path)
    edges = cycles.graph(files)
    assert [[p.name for p in component] for component in cycles.cycles(edges)] == [["a.py", "b.py"]]
    assert [(t.name, line) for t, line in edges[tmp_path / "tests" / "test_c.py"]] == [("c.py", 1)]
    (tmp_path / "b.py").write_text("def g():\n    return 1\n")
    assert cycles.cycles(cycles.graph(cycles.modules(tmp_path))) == []


MANIFEST = '''// The targets (docs/architecture.md):
//   A     the first
//   B     the second
let package = Package(name: "p", targets: [
    .target(name: "A"),
    // .target(name: "Commented"),
    .target(name: "B", dependencies: ["A"], exclude: ["x"]),
    .executableTarget(
        name: "cli",
        dependencies: ["A", "B"]
    ),
])
if Context.environment["FUZZ"] != nil {
    package.targets += [.target(name: "Fuzz", dependencies: ["B"], path: "f")]
}
'''


def test_the_manifest_is_read_with_dependencies_and_the_conditional_block():
    targets = architecture.package_targets(MANIFEST)
    assert targets == {"A": ([], False), "B": (["A"], False), "cli": (["A", "B"], False), "Fuzz": (["B"], True)}
    assert architecture.header_list(MANIFEST) == ["A", "B"]


def test_the_documents_target_table_is_read():
    doc = ("# X\n\n## Targets\n\n| target | kind | depends on | what |\n| --- | --- | --- | --- |\n"
           "| `A` | C | — | a |\n| `B` | Swift | `A` | b, using `X` |\n\n## Next\n| `Z` | not | a | row |\n")
    rows, problems = architecture.document_rows(doc)
    assert rows == {"A": [], "B": ["A"]} and problems == []


def test_only_declarations_count_in_the_headers(tmp_path, monkeypatch):
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "x.h").write_text(
        "/* be_in_a_comment(1) */\n#define BE_CALL(x) be_in_a_macro(x)\n#define LONG \\\n  be_continued(2)\n"
        "// be_line_comment()\nint be_real_one(int a);\ntypedef struct be_type be_type;\n")
    monkeypatch.setattr(exports, "ROOT", tmp_path)
    assert exports.declared_functions() == {"be_real_one": "x.h"}


def test_the_version_script_is_read():
    node, globals_, locals_ = exports.version_script()
    assert node == "ESSENCE2_1" and globals_ == ["be_essence2_*", "be_expression2_*"] and locals_ == ["*"]



def test_the_stage_runner_times_every_stage_runs_the_rest_after_a_failure_and_fails(tmp_path):
    import subprocess

    makefile = tmp_path / "Makefile"
    marks = tmp_path / "marks"
    makefile.write_text(
        f"first:\n\t@echo first >> {marks}\n"
        f"broken:\n\t@false\n"
        f"slow:\n\t@sleep 1; echo slow >> {marks}; echo slow says hello\n"
        f"last:\n\t@echo last >> {marks}\n")
    run = subprocess.run([str(TOOLS / "test_stages.sh"), "first", "slow&", "broken", "last"],
                         env={"PATH": "/usr/bin:/bin", "MAKE": f"make -f {makefile}"}, capture_output=True, text=True)
    assert run.returncode == 1, run.stdout + run.stderr
    assert sorted(marks.read_text().split()) == ["first", "last", "slow"]
    table = run.stdout[run.stdout.index("time per stage"):]
    for line in ("first ", "broken ", "last ", "slow (background) "):
        assert line in table, table
    assert "FAILED: broken" in run.stdout and "slow says hello" in run.stdout
    passing = subprocess.run([str(TOOLS / "test_stages.sh"), "first"],
                             env={"PATH": "/usr/bin:/bin", "MAKE": f"make -f {makefile}"}, capture_output=True, text=True)
    assert passing.returncode == 0 and "every stage passed" in passing.stdout


def test_stage_table_counts_the_cpu_of_each_stage(tmp_path):
    """The CPU column: the user and system seconds of a stage's processes, in the foreground and the background
    alike; a stage that sleeps uses none."""
    import subprocess

    makefile = tmp_path / "Makefile"
    spin = "python3 -c 'import time; t = time.process_time(); exec(\"while time.process_time() - t < 1.5: pass\")'"
    makefile.write_text(f"busy:\n\t@{spin}\nbusy2:\n\t@{spin}\nidle:\n\t@sleep 1.5\n")
    run = subprocess.run([str(TOOLS / "test_stages.sh"), "busy", "busy2&", "idle"],
                         env={"PATH": "/usr/bin:/bin", "MAKE": f"make -f {makefile}"}, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    rows = {}
    for line in run.stdout[run.stdout.index("time per stage"):].splitlines()[2:]:
        parts = line.split()
        if parts and parts[-1] == "ok":
            rows[" ".join(parts[:-3])] = (int(parts[-3]), int(parts[-2]))
    assert rows["busy"][1] >= 1 and rows["busy2 (background)"][1] >= 1, rows
    assert rows["idle"][0] >= 1 and rows["idle"][1] == 0, rows
