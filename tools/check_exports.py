#!/usr/bin/env python3
"""The exported C symbols against the headers: `make test-exports` (part of `make test-c`).

Three lists must agree, and each difference is named:
  1. the functions the public headers declare (include/*.h, comments stripped: a name followed by `(` that is
     not a macro);
  2. what the version script exports (Sources/Essence2C/exports.map: its `global:` patterns, in its one
     version node): every declared function matches a pattern, and every pattern matches a declared function;
  3. what the library exports (`nm -D --defined-only`, default build/lib/libessence2.so.1): exactly the declared
     functions, each a function (T) in the version node of the map, nothing else.

Usage: tools/check_exports.py [--lib PATH] [--no-lib]   (--no-lib: only 1 and 2, for a tree without a build)
"""
import argparse
import fnmatch
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MAP = ROOT / "Sources/Essence2C/exports.map"


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def declared_functions():
    """{name: header} of the functions the headers declare."""
    found = {}
    for header in sorted((ROOT / "include").glob("*.h")):
        text = strip_comments(header.read_text())
        # Join a macro's continuation lines, then leave the macros out (names in them are not declarations).
        text = re.sub(r"\\\n", " ", text)
        text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
        for match in re.finditer(r"\b(be_[a-z0-9_]+)\s*\(", text):
            name = match.group(1)
            if name in found and found[name] != header.name:
                fail([f"{name} is declared in both {found[name]} and {header.name}"])
            found[name] = header.name
    return found


def version_script():
    """(node, [global patterns], [local patterns]) of the one version node of exports.map."""
    text = strip_comments(MAP.read_text())
    nodes = re.findall(r"([A-Za-z0-9_.]+)\s*\{(.*?)\}\s*;", text, flags=re.S)
    if len(nodes) != 1:
        fail([f"{MAP.relative_to(ROOT)} has {len(nodes)} version nodes; this check expects one"])
    node, body = nodes[0]
    scope, patterns = None, {"global": [], "local": []}
    for token in re.findall(r"[A-Za-z0-9_*?\[\]]+:|[^\s;:]+", body):
        if token.endswith(":"):
            scope = token[:-1]
        elif scope in patterns:
            patterns[scope].append(token)
    return node, patterns["global"], patterns["local"]


def library_exports(lib):
    """{name: (type, version)} of the library's defined dynamic symbols."""
    try:
        out = subprocess.run(["nm", "-D", "--defined-only", str(lib)], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        fail([f"nm -D --defined-only {lib} failed: {error}"])
    symbols = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        kind, symbol = parts[1], parts[2]
        name, _, version = symbol.partition("@")
        symbols[name] = (kind, version.lstrip("@"))
    return symbols


def fail(problems):
    for problem in problems:
        print(f"check_exports: {problem}", file=sys.stderr)
    print("check_exports: the exported C symbols, include/*.h and Sources/Essence2C/exports.map disagree (above); "
          "a function added to a header needs the library rebuilt (make), one removed is an ABI break (a new SONAME)",
          file=sys.stderr)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lib", default=str(ROOT / "build/lib/libessence2.so.1"))
    parser.add_argument("--no-lib", action="store_true")
    args = parser.parse_args()

    declared = declared_functions()
    node, globals_, _ = version_script()
    problems = []
    if not declared:
        problems.append("no be_* function found in include/*.h")
    for name, header in sorted(declared.items()):
        if not any(fnmatch.fnmatchcase(name, p) for p in globals_):
            problems.append(f"{name} ({header}) matches no global pattern of exports.map ({', '.join(globals_)})")
    for pattern in globals_:
        if not any(fnmatch.fnmatchcase(name, pattern) for name in declared):
            problems.append(f"exports.map exports {pattern}, which no header declares")

    exported = {}
    if not args.no_lib:
        lib = pathlib.Path(args.lib)
        if not lib.exists():
            fail([f"{lib} does not exist: build it first (make lib), or pass --no-lib"])
        exported = library_exports(lib)
        for name in sorted(set(declared) - set(exported)):
            problems.append(f"{name} is declared in {declared[name]} but {lib.name} does not export it")
        for name in sorted(set(exported) - set(declared)):
            problems.append(f"{lib.name} exports {name}, which no header in include/ declares")
        for name in sorted(set(exported) & set(declared)):
            kind, version = exported[name]
            if kind not in ("T", "t", "W"):
                problems.append(f"{name} is exported as nm type {kind}, not a function")
            if version != node:
                problems.append(f"{name} is exported in version node '{version or '(none)'}', not {node}")
    if problems:
        fail(problems)
    counts = ", ".join(f"{sum(1 for h in declared.values() if h == header)} in {header}"
                       for header in sorted(set(declared.values())))
    where = f"{pathlib.Path(args.lib).name} exports exactly them, in {node}" if not args.no_lib else "library not checked"
    print(f"exports: {len(declared)} functions declared ({counts}), all matched by exports.map; {where}")


if __name__ == "__main__":
    main()
