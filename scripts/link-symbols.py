#!/usr/bin/env python3
"""Turns the code spans of the DocC articles that name a symbol of the library into
symbol links, which the documentation build then checks: a renamed or removed symbol
is an unresolved link, a warning, and scripts/docs.sh fails on warnings.

A span is a symbol when it names one unambiguously: a type (`ItemStore`), a member of
a type (`ItemStore.flush()`, `ItemStore/flush()`), or a member of the type the
section named last (`flush()` after ``ItemStore``). The link is absolute
(``/AppStores/ItemStore/flush()``), since the articles live in the Keepsake module and
the symbols in the modules it re-exports. Spans that name an overloaded symbol, or
nothing of ours (Apple's API, files, commands), stay code; --report lists them.

Usage: scripts/link-symbols.py SYMBOL_GRAPH_DIR [--check] [--report] ARTICLE.md ...
  --check   changes nothing; exits 1 when an article has a span it would link.
"""
import collections
import glob
import json
import re
import sys


def load_symbols(directory):
    """Each public symbol path (components joined by '/') -> the modules that have it,
    with how many symbols share that path there (more than one: overloaded)."""
    paths = collections.defaultdict(collections.Counter)
    for file in glob.glob(f"{directory}/**/*.symbols.json", recursive=True):
        graph = json.load(open(file))
        module = graph["module"]["name"]
        if "@" in file.rsplit("/", 1)[-1] or module in ("Keepsake", "Snippets"):
            continue  # extensions of other modules' types; the umbrella; snippets
        for symbol in graph["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            paths["/".join(symbol["pathComponents"])][module] += 1
    return paths


SPAN = re.compile(r"(?<![`\w])`([^`\n]+)`(?!`)")
TYPE = re.compile(r"^[A-Z][A-Za-z0-9]*$")
MEMBER = re.compile(r"^[a-z_][A-Za-z0-9_]*(\([A-Za-z0-9_:]*\))?$")


def resolve(span, paths, current_type):
    """The absolute link target for `span`, or None; and the type it names, if any."""
    name = span.replace(".", "/")
    candidates = [name]
    if current_type and MEMBER.match(span):
        candidates.append(f"{current_type}/{span}")
    for path in candidates:
        modules = paths.get(path)
        if not modules:
            continue
        if len(modules) != 1:
            return None, None, f"in several modules: {sorted(modules)}"
        module, count = next(iter(modules.items()))
        if count != 1:
            return None, None, f"overloaded ({count})"
        first = path.split("/")[0]
        return f"/{module}/{path}", first if TYPE.match(first) else None, None
    return None, None, None


def link_article(text, paths, report):
    out = []
    changed = 0
    in_code_block = False
    current_type = None
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            in_code_block = not in_code_block
        if in_code_block or line.startswith("#") or not line.strip():
            if line.startswith("#"):
                current_type = None  # a new section names its own type
            out.append(line)
            continue

        def replace(match):
            nonlocal current_type, changed
            span = match.group(1)
            target, named_type, why = resolve(span, paths, current_type)
            if target is None:
                if why:
                    report.append(f"`{span}`: {why}")
                if TYPE.match(span) and span in paths:
                    current_type = span
                return match.group(0)
            if named_type:
                current_type = named_type
            changed += 1
            return f"``{target}``"

        out.append(SPAN.sub(replace, line))
    return "\n".join(out), changed


def main():
    args = sys.argv[1:]
    check = "--check" in args
    show = "--report" in args
    args = [a for a in args if not a.startswith("--")]
    paths = load_symbols(args[0])
    if not paths:
        sys.exit(f"link-symbols: no symbol graphs in {args[0]}")
    would = 0
    for article in args[1:]:
        text = open(article).read()
        report = []
        linked, changed = link_article(text, paths, report)
        would += changed
        if changed and not check:
            open(article, "w").write(linked)
        if changed or (show and report):
            print(f"{article}: {changed} spans {'to link' if check else 'linked'}")
        if show:
            for line in sorted(set(report)):
                print(f"    left as code: {line}")
    if check and would:
        sys.exit(f"link-symbols: {would} code spans name a symbol; run scripts/link-symbols.py to link them")


if __name__ == "__main__":
    main()
