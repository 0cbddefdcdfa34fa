#!/usr/bin/env python3
"""make lint: no string literal in Sources spells a declared option again. A message or a help
text that names an option takes the name from the option's declaration (`Self.count.name.spelled`),
so a renamed option cannot leave a message behind that still says the old name.

    scripts/lint-option-literals.py PROGRAM...
    scripts/lint-option-literals.py --self-test

Each PROGRAM --list-options prints its declared options (see scripts/lint-options.py). Every
string literal of every Swift file under Sources is read (interpolations are code, not text), and
each `--name` or `-x` in it that a PROGRAM declares is a finding, FILE:LINE. Not findings: another
tool's spelling (`fping -g`, `iputils -p`, `sysctl -w`), and ReachCommandLine, the machinery that
spells options from their declarations (and writes shell code, whose own flags look alike).
The program's own options (`--help`, `--version`, `--generate-completion-script`,
`--list-options`) are looked for everywhere, ReachCommandLine too, but in their one table,
ReachCommandLine/ProgramOption.swift.
Exit 1 when there is any finding.
"""
import os
import re
import subprocess
import sys

SOURCES = "Sources"
MACHINERY = os.path.join(SOURCES, "ReachCommandLine")
PROGRAM_TABLE = os.path.join(MACHINERY, "ProgramOption.swift")
PROGRAM_OPTIONS = {"--help", "--version", "--generate-completion-script", "--list-options"}
# A word before a short option that makes it another program's option, not reach's.
OTHER_TOOLS = ("fping", "iputils", "sysctl")
OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9.-]*[a-z0-9]|-[A-Za-z0-9])(?![\w-])")


def declared(programs):
    """Every option spelling the programs declare (`--json`, `-c`)."""
    spellings = set()
    for program in programs:
        listing = subprocess.run([program, "--list-options"], check=True, capture_output=True, text=True).stdout
        for line in listing.splitlines():
            spellings.add(line.split("\t")[0].split(" ", 1)[1])
    return spellings


def block_comment_end(text, index):
    """The index after the block comment that starts at `index`; Swift's nest."""
    depth = 0
    while index < len(text):
        if text.startswith("/*", index):
            depth, index = depth + 1, index + 2
        elif text.startswith("*/", index):
            depth, index = depth - 1, index + 2
            if depth == 0:
                return index
        else:
            index += 1
    return index


def literals(text):
    """(line, text) of each piece of string literal in Swift source `text`: the text between
    quotes (`"..."`, `\"\"\"...\"\"\"`, raw `#"..."#`), without comments and without the code
    of interpolations (`\\(...)`, `\\#(...)` in a raw literal)."""
    pieces = []
    index, line, length = 0, 1, len(text)
    # Each open interpolation: how many parentheses it has open, and the literal it is in.
    stack = []
    # The literal the text is in: its closing delimiter and its escape (`\\`, `\\#`); None in code.
    quote = None
    start = 0

    def close_piece(end):
        if end > start:
            pieces.append((line - text.count("\n", start, end), text[start:end]))

    while index < length:
        char = text[index]
        if quote is None:
            if text.startswith("//", index):
                end = text.find("\n", index)
                index = length if end < 0 else end
                continue
            if text.startswith("/*", index):
                end = block_comment_end(text, index)
                line += text.count("\n", index, end)
                index = end
                continue
            opening = re.match(r'(#*)("""|")', text[index:index + 64])
            if opening and (opening.group(1) == "" or char == "#"):
                hashes, quotes = opening.groups()
                quote = (quotes + hashes, "\\" + hashes)
                index += opening.end()
                start = index
                continue
            if stack:
                if char == "(":
                    stack[-1][0] += 1
                elif char == ")":
                    stack[-1][0] -= 1
                    if stack[-1][0] == 0:
                        quote = stack.pop()[1]
                        index += 1
                        start = index
                        continue
        else:
            closing, escape = quote
            if text.startswith(escape, index):
                after = index + len(escape)
                if after < length and text[after] == "(":
                    close_piece(index)
                    stack.append([1, quote])
                    quote = None
                    index = after + 1
                    continue
                # A backslash may end a line of a multi-line literal.
                line += text.count("\n", after, after + 1)
                index = after + 1
                continue
            if text.startswith(closing, index):
                close_piece(index)
                index += len(closing)
                quote = None
                continue
        if char == "\n":
            line += 1
        index += 1
    return pieces


def self_test():
    """The reading of literals on a sample: exit 1 if it is wrong."""
    sample = (
        'let a = "--count \\(x.map { "-c" }) and --loop" // "--json"\n'
        '/* "--probe" /* nested */ "--probe" */ let b = #"raw \\(--until) \\#(y) -i"#\n'
        'let c = """\n    first --timeout \\\n    second \\(z("--from")) end\n    """\n'
    )
    got = [(line, option) for line, option, _ in spelled(sample)]
    wanted = [(1, "--count"), (1, "-c"), (1, "--loop"), (2, "--until"), (2, "-i"), (4, "--timeout"), (5, "--from")]
    if got != wanted:
        print(f"self-test: read {got}, wanted {wanted}")
        return 1
    return 0


def spelled(text):
    """(line, option, the literal's words before it) of each option-like word in a literal."""
    for line, piece in literals(text):
        for match in OPTION.finditer(piece):
            yield line + piece.count("\n", 0, match.start()), match.group(1), piece[: match.start()].split()


def findings(path, spellings):
    with open(path, encoding="utf-8") as source:
        text = source.read()
    found = []
    for line, option, before in spelled(text):
        if option not in spellings:
            continue
        if option[1] != "-" and before and before[-1].strip("(") in OTHER_TOOLS:
            continue
        source = "ProgramOption" if option in PROGRAM_OPTIONS else "the option's declaration"
        found.append(f"{path}:{line}: '{option}' is spelled again; take it from {source}")
    return found


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    spellings = declared(sys.argv[1:])
    problems = []
    for directory, _, names in sorted(os.walk(SOURCES)):
        machinery = directory == MACHINERY or directory.startswith(MACHINERY + os.sep)
        for name in sorted(names):
            path = os.path.join(directory, name)
            if name.endswith(".swift") and path != PROGRAM_TABLE:
                problems += findings(path, PROGRAM_OPTIONS if machinery else spellings | PROGRAM_OPTIONS)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
