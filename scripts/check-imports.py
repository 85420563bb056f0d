#!/usr/bin/env python3
"""Checks that every module a target imports is one it declares: a target of its own
package, or a product of a package it depends on (or a module of the toolchain). SwiftPM
lets a target import any module that happens to be built before it, so an undeclared
import compiles until the build order changes, or until a user builds that target alone.

Reads each package's manifest with `swift package dump-package`, and each dependency's
from its checkout (`.build/checkouts`, resolving a package first if it has none) or its
path. Prints one line per undeclared import and exits
1 if there is any.

Usage: scripts/check-imports.py [PACKAGE-DIR ...]   (default: every package of the repository)
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = [".", "Apps", "Tools", "Cloud", "Benchmarks", "Tests/TestSupport"]
# Modules of the toolchain and the system, which no manifest declares.
TOOLCHAIN = {
    "Swift", "_Concurrency", "_StringProcessing", "Foundation", "FoundationEssentials",
    "FoundationInternationalization", "FoundationNetworking", "FoundationXML", "Dispatch",
    "Glibc", "Musl", "Darwin", "WinSDK", "Android", "Synchronization", "Observation",
    "Testing", "XCTest", "os", "CoreFoundation", "PackageDescription", "RegexBuilder", "ucrt",
}
IMPORT = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?"
    r"import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([A-Za-z_][A-Za-z0-9_]*)")

manifests = {}


def manifest(path):
    """The package at `path`, as `swift package dump-package` reads it."""
    path = os.path.realpath(path)
    if path not in manifests:
        output = subprocess.run(
            ["swift", "package", "dump-package", "--package-path", path],
            check=True, capture_output=True, text=True).stdout
        manifests[path] = json.loads(output)
    return manifests[path]


def dependency_paths(package_dir, package):
    """Each dependency's identity (lowercased), and the folder its manifest is in."""
    paths = {}
    checkouts = os.path.join(package_dir, ".build", "checkouts")
    present = {name.lower(): name for name in os.listdir(checkouts)} if os.path.isdir(checkouts) else {}
    for dependency in package.get("dependencies", []):
        for kind in ("fileSystem", "sourceControl"):
            for entry in dependency.get(kind, []):
                identity = entry["identity"].lower()
                if kind == "fileSystem":
                    paths[identity] = entry["path"]
                elif identity in present:
                    paths[identity] = os.path.join(checkouts, present[identity])
    return paths


def product_modules(path, product_name):
    """The modules a product of the package at `path` makes importable: its targets."""
    for product in manifest(path).get("products", []):
        if product["name"] == product_name:
            return set(product["targets"])
    return set()


def declared_modules(package_dir, package, target, dependencies):
    """What `target` may import: its own package's targets it names, and the modules of
    the products it names."""
    own = {other["name"] for other in package["targets"]}
    allowed = set()
    for dependency in target.get("dependencies", []):
        if "target" in dependency:
            allowed.add(dependency["target"][0])
        elif "byName" in dependency:
            name = dependency["byName"][0]
            if name in own:
                allowed.add(name)
            else:
                for path in dependencies.values():
                    allowed |= product_modules(path, name)
        elif "product" in dependency:
            name, identity = dependency["product"][0], dependency["product"][1]
            path = dependencies.get((identity or "").lower())
            if path is None:
                print(f"{package_dir}: {target['name']}: cannot find the package {identity} (resolve it first)")
                sys.exit(2)
            allowed |= product_modules(path, name)
    return allowed


def source_folder(package_dir, target):
    if target.get("path"):
        return os.path.join(package_dir, target["path"])
    base = "Tests" if target["type"] == "test" else "Sources"
    return os.path.join(package_dir, base, target["name"])


def swift_files(folder, excluded):
    for directory, subdirectories, files in os.walk(folder):
        subdirectories[:] = [d for d in subdirectories if os.path.join(directory, d) not in excluded]
        for name in files:
            path = os.path.join(directory, name)
            if name.endswith(".swift") and path not in excluded:
                yield path


def check(package_dir):
    package = manifest(package_dir)
    remote = any(dependency.get("sourceControl") for dependency in package.get("dependencies", []))
    if remote and not os.path.isdir(os.path.join(package_dir, ".build", "checkouts")):
        # A package no step has built yet (Benchmarks): resolving it is enough.
        subprocess.run(["swift", "package", "resolve", "--package-path", package_dir],
                       check=True, capture_output=True)
    dependencies = dependency_paths(package_dir, package)
    problems = []
    for target in package["targets"]:
        if target["type"] in ("plugin", "binary", "system"):
            continue
        allowed = declared_modules(package_dir, package, target, dependencies) | TOOLCHAIN | {target["name"]}
        folder = source_folder(package_dir, target)
        excluded = {os.path.join(folder, item) for item in target.get("exclude", [])}
        for path in swift_files(folder, excluded):
            with open(path, encoding="utf-8") as source:
                in_string = False  # inside a multi-line string literal (a Python script, say)
                for number, line in enumerate(source, 1):
                    match = None if in_string else IMPORT.match(line)
                    # A multi-line literal opens with `"""` ending a line, and closes
                    # with `"""` starting one.
                    if in_string:
                        in_string = not re.match(r'\s*"""', line)
                    else:
                        in_string = bool(re.search(r'"""\s*$', line))
                    if match and match.group(1) not in allowed:
                        relative = os.path.relpath(path, ROOT)
                        problems.append(
                            f"{relative}:{number}: {target['name']} imports {match.group(1)}, "
                            "which its target does not declare")
    return problems


def main():
    packages = sys.argv[1:] or [os.path.join(ROOT, name) for name in PACKAGES]
    problems = []
    for package_dir in packages:
        problems += check(os.path.realpath(package_dir))
    for problem in problems:
        print(problem)
    print(f"check-imports: {len(problems)} undeclared imports in {len(packages)} packages")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
