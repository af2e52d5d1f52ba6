#!/usr/bin/env python3
"""docs/architecture.md and Package.swift's header comment against Package.swift's targets (`make test-tools`).

Package.swift's targets are read from its text: every `.target`, `.executableTarget`, `.testTarget` and
`.systemLibrary` call, its `name:` and its `dependencies:` (names in quotes). Then:
  - docs/architecture.md's "## Targets" table has one row per target (the first column, in backticks), every
    row names a target that exists, and its "depends on" column lists exactly the target's dependencies;
  - the header comment's list (the `//   Name  what` lines after "// The targets") names exactly the targets
    declared outside the `if Context.environment[...]` block (the fuzzing targets are documented beside it).
Each difference is named, with what to change.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "Package.swift"
DOC = ROOT / "docs" / "architecture.md"


def call_body(text, start):
    """The text of the call whose '(' is at start, to its matching ')'."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return text[start + 1:i]
    raise ValueError("unbalanced parentheses in Package.swift")


def package_targets(text):
    """{name: (sorted dependencies, conditional)} of Package.swift's targets."""
    code = re.sub(r"//[^\n]*", "", text)
    conditional_from = code.find("if Context.environment")
    targets = {}
    for match in re.finditer(r"\.(target|executableTarget|testTarget|systemLibrary)\s*\(", code):
        body = call_body(code, match.end() - 1)
        name = re.search(r'name:\s*"([^"]+)"', body)
        if not name:
            continue
        deps = re.search(r"dependencies:\s*\[(.*?)\]", body, flags=re.S)
        names = re.findall(r'"([^"]+)"', deps.group(1)) if deps else []
        conditional = 0 <= conditional_from < match.start()
        targets[name.group(1)] = (sorted(names), conditional)
    return targets


def header_list(text):
    """The names of Package.swift's header comment list."""
    lines = text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.startswith("// The targets"))
    except StopIteration:
        return None
    names = []
    for line in lines[start + 1:]:
        if not line.startswith("//"):
            break
        match = re.match(r"//   (\S+)\s{2,}\S", line)
        if match:
            names.append(match.group(1))
    return names


def document_rows(text):
    """{name: sorted dependencies} of the document's Targets table, and the problems in reading it."""
    section = re.search(r"^## Targets\n(.*?)(?=^## )", text, flags=re.S | re.M)
    if not section:
        return None, ["docs/architecture.md has no '## Targets' section"]
    rows, problems = {}, []
    header = None
    for line in section.group(1).splitlines():
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = [c.lower() for c in cells]
            if "depends on" not in header:
                return None, ["docs/architecture.md's target table has no 'depends on' column"]
            continue
        if set(cells[0]) <= set("-: "):
            continue
        names = re.findall(r"`([^`]+)`", cells[0])
        if len(names) != 1:
            problems.append(f"a row of the target table names {len(names)} targets in its first column: {cells[0]}")
            continue
        deps = re.findall(r"`([^`]+)`", cells[header.index("depends on")])
        if names[0] in rows:
            problems.append(f"docs/architecture.md has two rows for {names[0]}")
        rows[names[0]] = sorted(deps)
    return rows, problems


def main():
    package = PACKAGE.read_text()
    targets = package_targets(package)
    rows, problems = document_rows(DOC.read_text())
    if rows is not None:
        for name in sorted(set(targets) - set(rows)):
            problems.append(f"Package.swift's target {name} has no row in docs/architecture.md's target table")
        for name in sorted(set(rows) - set(targets)):
            problems.append(f"docs/architecture.md's target table has a row for {name}, which Package.swift does "
                            "not declare")
        for name in sorted(set(rows) & set(targets)):
            if rows[name] != targets[name][0]:
                problems.append(f"{name} depends on {', '.join(targets[name][0]) or 'nothing'} in Package.swift, "
                                f"on {', '.join(rows[name]) or 'nothing'} in docs/architecture.md")
    listed = header_list(package)
    plain = {name for name, (_, conditional) in targets.items() if not conditional}
    if listed is None:
        problems.append("Package.swift has no '// The targets' comment")
    else:
        for name in sorted(plain - set(listed)):
            problems.append(f"Package.swift's header comment does not list its target {name}")
        for name in sorted(set(listed) - plain):
            problems.append(f"Package.swift's header comment lists {name}, which is not a target (outside the "
                            "fuzzing block)")
    if problems:
        for problem in problems:
            print(f"check_architecture: {problem}", file=sys.stderr)
        print("check_architecture: docs/architecture.md or Package.swift's header comment no longer matches "
              "Package.swift's targets (above): update the record with the change", file=sys.stderr)
        sys.exit(1)
    print(f"architecture: {len(targets)} targets of Package.swift ({len(plain)} always, "
          f"{len(targets) - len(plain)} fuzzing), each with its dependencies in docs/architecture.md and listed "
          "in Package.swift's header comment")


if __name__ == "__main__":
    main()
