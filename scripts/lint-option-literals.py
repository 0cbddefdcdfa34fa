#!/usr/bin/env python3
"""make lint: no string literal in Sources spells a declared option again. A message or a help
text that names an option takes the name from the option's declaration (`Self.count.name.spelled`),
so a renamed option cannot leave a message behind that still says the old name.

    scripts/lint-option-literals.py PROGRAM...

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
OTHER_TOOLS = ("fping", "iputils", "ping", "sysctl", "setcap")
OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9.-]*[a-z0-9]|-[A-Za-z0-9])(?![\w-])")


def declared(programs):
    """Every option spelling the programs declare (`--json`, `-c`)."""
    spellings = set()
    for program in programs:
        listing = subprocess.run([program, "--list-options"], check=True, capture_output=True, text=True).stdout
        for line in listing.splitlines():
            spellings.add(line.split("\t")[0].split(" ", 1)[1])
    return spellings


def literals(text):
    """(line, text) of each piece of string literal in Swift source `text`: the text between
    quotes, without comments and without the code of interpolations (`\\(...)`)."""
    pieces = []
    index, line, length = 0, 1, len(text)
    # Each open interpolation: how many parentheses it has open, and the literal it is in.
    stack = []
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
                end = text.find("*/", index)
                end = length if end < 0 else end + 2
                line += text.count("\n", index, end)
                index = end
                continue
            if char == '"':
                quote = '"""' if text.startswith('"""', index) else '"'
                index += len(quote)
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
            if char == "\\":
                if index + 1 < length and text[index + 1] == "(":
                    close_piece(index)
                    stack.append([1, quote])
                    quote = None
                    index += 2
                    continue
                # A backslash may end a line of a multi-line literal.
                line += text.count("\n", index + 1, index + 2)
                index += 2
                continue
            if text.startswith(quote, index):
                close_piece(index)
                index += len(quote)
                quote = None
                continue
        if char == "\n":
            line += 1
        index += 1
    return pieces


def findings(path, spellings):
    with open(path, encoding="utf-8") as source:
        text = source.read()
    found = []
    for line, piece in literals(text):
        for match in OPTION.finditer(piece):
            option = match.group(1)
            if option not in spellings:
                continue
            before = piece[: match.start()].split()
            if option[1] != "-" and before and before[-1].strip("(") in OTHER_TOOLS:
                continue
            source = "ProgramOption" if option in PROGRAM_OPTIONS else "the option's declaration"
            found.append(f"{path}:{line + piece.count(chr(10), 0, match.start())}: '{option}' is spelled again; "
                         f"take it from {source}")
    return found


def main():
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
