#!/usr/bin/env python3
"""check_links.py - keeps docs/ honest about the code it describes.

Run from anywhere (Python 3.8+, no dependencies):

    python3 docs/check_links.py        # exit status 0 = every check passed

The pages follow these conventions, and this script enforces them.

1. Twins. Every docs/NAME.md has docs/NAME.zh-CN.md and vice versa. Each page links to its
   twin within its first five lines.

2. Paths. An inline code span that starts with core/, tests/, wasm/, cli/, web/, bench/, scripts/,
   python/ or data/ names a file or a directory of the repository (a '*' in it is a glob that must match something). It may end
   in ':symbol' (the file:function form, e.g. `core/src/ops.cpp:nn::gelu`): then the symbol's
   last identifier must occur in that very file, and a qualified symbol is checked as in 4.

3. Tests. A test is cited as an inline code span that holds a double-quoted string:
   `"a tensor used twice receives the sum of both gradients"`. Every such span, anywhere in a
   page (in prose it follows the word Test / Tests / 测试), must be the name of a TEST_CASE in
   tests/*.cpp. A SECTION is cited as `"test case name" > "section name"` and must be a
   SECTION of that TEST_CASE. In a table column headed Test, Tests or 测试, every cell holds
   only such spans (or a dash). No other code span in the pages starts with a double quote.

4. Symbols. An inline code span that starts with nn::, model::, optim::, data::, sample::,
   ckpt::, train::, kernels::, share:: (or tp::, simd::, io::, json::, safetensors::, gpu::, learn::, watch::, hidden::,
   tinygpt::) names something in core/.
   Every namespace is nested in tinygpt::, and the pages name them relative to it.
   A trailing '(...)' is ignored; a span ending in '::' names a namespace. The leading
   components that are namespaces must be opened ('namespace x {' or 'namespace x::y {') by
   some file in core/; the remaining components must all occur as whole words in one core/
   file that opens that namespace; when two or more remain, the first must be declared
   somewhere in core/ as a class or struct.

6. Flags and knobs. In an inline code span that starts with -- or with "tinygpt ", every --flag
   is a field of the config schema (a row of TINYGPT_CONFIG_FIELDS in core/include/tinygpt/config.h)
   or an option of the CLI (an entry of an option table in cli/main.cpp). So a knob renamed in the
   schema cannot survive in the docs under its old name.

5. Links. A relative markdown link [text](target) to a file must point to an existing file;
   a '#anchor' on a link to a markdown page must match one of its headings (GitHub's rule:
   lower case, punctuation dropped, spaces turned into '-').
"""

import glob
import os
import re
import sys

DOCS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(DOCS)

PATH_PREFIXES = ("core/", "tests/", "wasm/", "cli/", "web/", "bench/", "scripts/", "python/", "data/")
SYMBOL_NAMESPACES = ("nn", "model", "optim", "data", "sample", "ckpt", "train", "kernels", "share",
                     "tp", "simd", "io", "json", "safetensors", "gpu", "learn", "watch", "hidden", "tok", "tinygpt",
                     "onnx", "gguf", "hf", "exporter", "pb")
TEST_HEADERS = {"test", "tests", "测试"}

errors = []
counts = {"pages": 0, "paths": 0, "tests": 0, "sections": 0, "symbols": 0, "flags": 0, "links": 0}


def error(page, line_no, message):
    errors.append(f"{os.path.relpath(page, ROOT)}:{line_no}: {message}")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


# ---- what the code provides ------------------------------------------------------------------

def load_tests():
    """TEST_CASE name -> set of SECTION names inside it."""
    tests = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "*.cpp"))):
        text = read(path)
        cases = [(m.start(), m.group(1)) for m in re.finditer(r'TEST_CASE\(\s*"((?:[^"\\]|\\.)*)"', text)]
        for i, (start, name) in enumerate(cases):
            end = cases[i + 1][0] if i + 1 < len(cases) else len(text)
            body = text[start:end]
            sections = set(re.findall(r'\bSECTION\(\s*"((?:[^"\\]|\\.)*)"', body))
            tests.setdefault(name, set()).update(sections)
    return tests


def load_core():
    """Per core/ file: the namespaces it opens and the words it contains; plus all class names."""
    files = {}
    classes = set()
    for path in sorted(glob.glob(os.path.join(ROOT, "core", "**", "*"), recursive=True)):
        if not path.endswith((".h", ".cpp")):
            continue
        text = read(path)
        opened = []
        namespaces = set()
        for m in re.finditer(r"\bnamespace\s+([A-Za-z_][\w:]*)\s*\{", text):
            name = m.group(1)
            # every namespace is nested in tinygpt::; the docs name them relative to it (nn::gelu)
            if name.startswith("tinygpt::"):
                name = name[len("tinygpt::"):]
            parts = name.split("::")
            for k in range(1, len(parts) + 1):
                namespaces.add("::".join(parts[:k]))
            # a namespace opened after another one in the same file may be nested in it
            for outer in opened:
                namespaces.add(outer + "::" + name)
            opened.append(name)
        words = set(re.findall(r"[A-Za-z_]\w*", text))
        classes.update(re.findall(r"\b(?:class|struct)\s+([A-Za-z_]\w*)", text))
        files[path] = (namespaces, words)
    return files, classes


TESTS = load_tests()
CORE_FILES, CORE_CLASSES = load_core()
ALL_NAMESPACES = set()
for _ns, _words in CORE_FILES.values():
    ALL_NAMESPACES |= _ns


def check_symbol(page, line_no, symbol, in_file=None):
    counts["symbols"] += 1
    name = re.sub(r"\(.*\)$", "", symbol.strip())
    name = name.rstrip("()")
    if name.endswith("::"):  # a namespace on its own, e.g. `kernels::ref::`
        if name[:-2] not in ALL_NAMESPACES:
            error(page, line_no, f"`{symbol}`: no namespace {name[:-2]} is opened in core/")
        return
    parts = name.split("::")
    if not all(re.fullmatch(r"[A-Za-z_]\w*", p) for p in parts):
        error(page, line_no, f"malformed symbol `{symbol}`")
        return
    # longest prefix that is a namespace opened somewhere in core/
    k = 0
    for i in range(len(parts), 0, -1):
        if "::".join(parts[:i]) in ALL_NAMESPACES:
            k = i
            break
    if k == 0:
        error(page, line_no, f"`{symbol}`: namespace {parts[0]} is not opened anywhere in core/")
        return
    ns, rest = "::".join(parts[:k]), parts[k:]
    if not rest:
        return
    candidates = [p for p, (nss, _) in CORE_FILES.items() if ns in nss]
    if in_file is not None:
        candidates = [p for p in candidates if os.path.samefile(p, in_file)]
        if not candidates:
            error(page, line_no, f"`{symbol}`: {os.path.relpath(in_file, ROOT)} does not open namespace {ns}")
            return
    if not any(all(r in CORE_FILES[p][1] for r in rest) for p in candidates):
        error(page, line_no, f"`{symbol}`: no core/ file in namespace {ns} mentions {' and '.join(rest)}")
        return
    if len(rest) >= 2 and rest[0] not in CORE_CLASSES:
        error(page, line_no, f"`{symbol}`: {rest[0]} is not a class or struct in core/")


def check_path(page, line_no, span):
    counts["paths"] += 1
    if " " in span and ":" not in span:  # a command line: `scripts/build-wasm.sh tests`
        span = span.split()[0]
    path, _, symbol = span.partition(":")
    symbol = symbol.strip()
    full = os.path.join(ROOT, path)
    if "*" in path:
        if not glob.glob(full):
            error(page, line_no, f"`{span}`: the pattern {path} matches nothing")
        return
    if not os.path.exists(full):
        error(page, line_no, f"`{span}`: {path} does not exist")
        return
    if not symbol:
        return
    if os.path.isdir(full):
        error(page, line_no, f"`{span}`: {path} is a directory, not a file")
        return
    last = re.sub(r"\(.*\)$", "", symbol).split("::")[-1]
    if last not in set(re.findall(r"[A-Za-z_]\w*", read(full))):
        error(page, line_no, f"`{span}`: {last} does not occur in {path}")
        return
    if "::" in symbol and symbol.split("::")[0] in SYMBOL_NAMESPACES:
        in_file = full if path.startswith("core/") else None
        check_symbol(page, line_no, symbol, in_file)


QUOTED = re.compile(r'^"((?:[^"\\]|\\.)*)"(?:\s*>\s*"((?:[^"\\]|\\.)*)")?$')


def check_test_span(page, line_no, span):
    m = QUOTED.match(span)
    if not m:
        error(page, line_no, f"`{span}`: a code span starting with a double quote must be a test citation")
        return
    name, section = m.group(1), m.group(2)
    counts["tests"] += 1
    if name not in TESTS:
        error(page, line_no, f'no TEST_CASE named "{name}" in tests/*.cpp')
        return
    if section is not None:
        counts["sections"] += 1
        if section not in TESTS[name]:
            error(page, line_no, f'TEST_CASE "{name}" has no SECTION "{section}"')


def slug(heading):
    """GitHub's anchor for a heading."""
    text = re.sub(r"[`*_]", lambda m: m.group(0) if m.group(0) == "_" else "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


_anchor_cache = {}


def anchors(path):
    if path not in _anchor_cache:
        found = set()
        in_fence = False
        for line in read(path).splitlines():
            if line.lstrip().startswith("```"):
                in_fence = not in_fence
            m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m and not in_fence:
                base = slug(m.group(1))
                name, k = base, 1
                while name in found:
                    name, k = f"{base}-{k}", k + 1
                found.add(name)
        _anchor_cache[path] = found
    return _anchor_cache[path]


def code_spans(line):
    """Inline code spans of one markdown line (single or double backticks)."""
    return [m.group(2) for m in re.finditer(r"(`+)(.+?)\1", line)]


def split_row(line):
    cells = line.strip().strip("|").split("|")
    return [c.strip() for c in cells]


def load_flags():
    """The config schema's field names and the CLI's option names."""
    schema = set(re.findall(r"^\s*X\((\w+),", read(os.path.join(ROOT, "core/include/tinygpt/config.h")), re.M))
    options = set(re.findall(r'\{"([\w-]+)", k[A-Z]', read(os.path.join(ROOT, "cli/main.cpp"))))
    return schema, options


SCHEMA_FIELDS, CLI_OPTIONS = load_flags()


def check_flags(page, line_no, span):
    for flag in re.findall(r"(?:^|\s)--([A-Za-z][\w-]*)", span):
        counts["flags"] += 1
        if flag in ("help",) or flag in SCHEMA_FIELDS or flag in CLI_OPTIONS:
            continue
        error(page, line_no, f"`{span}`: --{flag} is neither a config field (config.h) nor a CLI option (cli/main.cpp)")


def check_page(page):
    counts["pages"] += 1
    lines = read(page).splitlines()
    in_fence = False
    test_columns = None  # indices of Test columns in the current table
    for i, line in enumerate(lines, start=1):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        # tables: find Test columns from the header row (the row before |---|)
        if line.lstrip().startswith("|"):
            if test_columns is None and i < len(lines) and re.match(r"^\s*\|?\s*:?-{3,}", lines[i]):
                headers = [h.lower().strip("* ") for h in split_row(line)]
                test_columns = [k for k, h in enumerate(headers) if h in TEST_HEADERS]
            elif test_columns and not re.match(r"^\s*\|?\s*:?-{3,}", line):
                cells = split_row(line)
                for k in test_columns:
                    if k >= len(cells):
                        continue
                    cell = cells[k]
                    rest = re.sub(r"`[^`]*`", "", cell)
                    rest = re.sub(r"<br\s*/?>|\band\b|和", "", rest)
                    rest = re.sub(r"[\s,;、，—–-]+", "", rest)
                    if rest or (not code_spans(cell) and cell not in ("—", "-", "–")):
                        error(page, i, f"Test column cell must hold only test spans: {cell}")
        else:
            test_columns = None
        for span in code_spans(line):
            s = span.strip()
            if s.startswith('"'):
                check_test_span(page, i, s)
            elif s.startswith(PATH_PREFIXES):
                check_path(page, i, s)
            elif re.match(r"(%s)::" % "|".join(SYMBOL_NAMESPACES), s):
                check_symbol(page, i, s)
            elif s.startswith(("--", "tinygpt ")):
                check_flags(page, i, s)
        for m in re.finditer(r"\[[^\]]*\]\(([^)\s]+)\)", line):
            target = m.group(1)
            if re.match(r"^[a-z]+:", target):
                continue
            counts["links"] += 1
            file_part, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(page), file_part)) if file_part else page
            if not os.path.exists(dest):
                error(page, i, f"broken link ({target})")
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                error(page, i, f"no heading with the anchor #{anchor} in {os.path.relpath(dest, ROOT)}")
    if in_fence:
        error(page, len(lines), "unclosed code fence")


def check_twins():
    pages = sorted(glob.glob(os.path.join(DOCS, "*.md")))
    english = {os.path.basename(p)[:-3] for p in pages if not p.endswith(".zh-CN.md")}
    chinese = {os.path.basename(p)[:-9] for p in pages if p.endswith(".zh-CN.md")}
    for name in sorted(english - chinese):
        error(os.path.join(DOCS, name + ".md"), 1, f"no Chinese twin {name}.zh-CN.md")
    for name in sorted(chinese - english):
        error(os.path.join(DOCS, name + ".zh-CN.md"), 1, f"no English twin {name}.md")
    for name in sorted(english & chinese):
        for page, twin in ((name + ".md", name + ".zh-CN.md"), (name + ".zh-CN.md", name + ".md")):
            head = "\n".join(read(os.path.join(DOCS, page)).splitlines()[:5])
            if f"]({twin})" not in head:
                error(os.path.join(DOCS, page), 1, f"the first five lines do not link to the twin {twin}")
    return pages


def main():
    pages = check_twins()
    for page in pages:
        check_page(page)
    summary = ", ".join(f"{v} {k}" for k, v in counts.items())
    if errors:
        for e in errors:
            print(e)
        print(f"check_links: {len(errors)} problem(s) ({summary})")
        return 1
    print(f"check_links: OK ({summary}; {len(TESTS)} TEST_CASEs known)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
