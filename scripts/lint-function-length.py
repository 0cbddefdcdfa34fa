#!/usr/bin/env python3
"""Small pieces: no Swift function, initializer, accessor or closure longer than MAX_LINES
lines, and no file declaring more than MAX_TYPES types.

    scripts/lint-function-length.py [--self-test] [FILE_OR_DIR...]   (default: Sources Tests)

Each offender is printed as FILE:LINE: NAME: N lines (or FILE:1: N types) and the exit
status is 1. A line of scripts/lint-function-length.allow ("PATH NAME", or "PATH types")
excuses one known offender; an entry that no longer matches an offender is an error too,
so the list only shrinks.

The reading is lexical, not a parser: comments and string literals (with their
interpolations) are blanked, then braces are matched and the statement before each '{'
says what it opens: a declaration (func, init, deinit, subscript, a computed property or
an accessor), a type, a control-flow block, or else a closure. A length counts the lines
from the declaration's first line (a closure's '{') to its '}' inclusive.
"""

import os
import re
import sys

MAX_LINES = 60
MAX_TYPES = 12
ALLOW_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lint-function-length.allow")

MODIFIERS = (r"(?:(?:@\w+(?:\([^)]*\))?|public|private|fileprivate|internal|package|open|static|class|final|override|"
             r"mutating|nonmutating|convenience|required|nonisolated|dynamic|lazy|weak|unowned|indirect|"
             r"private\(set\)|public\(set\)|fileprivate\(set\)|internal\(set\))\s+)*")
FUNC = re.compile(r"^\s*" + MODIFIERS + r"func\s+([^\s(<]+)")
INIT = re.compile(r"^\s*" + MODIFIERS + r"(init[?!]?|deinit|subscript)\b")
ACCESSOR = re.compile(r"^\s*" + MODIFIERS + r"(get|set|willSet|didSet|_read|_modify)\b")
PROPERTY = re.compile(r"^\s*" + MODIFIERS + r"(?:var|let)\s+(\w+)")
TYPE = re.compile(r"^\s*" + MODIFIERS + r"(struct|class|enum|extension|protocol|actor)\s")
CONTROL = re.compile(r"^\s*(?:\}\s*)?(if|guard|else|for|while|switch|do|catch|defer|repeat)\b|\belse\s*$")
TYPE_DECLARATION = re.compile(r"(?:^|[\s;{}])(?:" + MODIFIERS + r")(struct|enum|protocol|actor|class)\s+([A-Za-z_]\w*)")


def blank(text):
    """The text with comments and string literals replaced by spaces (newlines kept)."""
    out = list(text)
    i, n = 0, len(text)
    # Each frame: ("code", paren_depth) for code inside an interpolation, or a string's closing.
    stack = []

    def wipe(start, end):
        for k in range(start, end):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        in_string = stack and stack[-1][0] == "string"
        if in_string:
            closing = stack[-1][1]
            if text.startswith("\\" + closing[1:] + "(", i) if closing.startswith("#") else text.startswith("\\(", i):
                hashes = len(closing) - len(closing.lstrip("#")) if closing.startswith("#") else 0
                width = 2 + hashes
                wipe(i, i + width)
                i += width
                stack.append(["code", 0])
                continue
            if text[i] == "\\" and not closing.startswith("#"):
                wipe(i, min(i + 2, n))
                i += 2
                continue
            if text.startswith(stack[-1][2], i):
                end = stack[-1][2]
                wipe(i, i + len(end))
                i += len(end)
                stack.pop()
                continue
            wipe(i, i + 1)
            i += 1
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            wipe(i, end)
            i = end
            continue
        if text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            wipe(i, j)
            i = j
            continue
        match = re.match(r'(#*)("""|")', text[i:i + 12])
        if match and (match.group(1) == "" or text[i] == "#"):
            hashes, quote = match.group(1), match.group(2)
            opening = hashes + quote
            wipe(i, i + len(opening))
            i += len(opening)
            # [kind, marker, closing]: the marker "#..." or "" says how interpolation starts.
            stack.append(["string", hashes + "(" if hashes else "", quote + hashes])
            continue
        if stack and stack[-1][0] == "code":
            if text[i] == "(":
                stack[-1][1] += 1
            elif text[i] == ")":
                if stack[-1][1] == 0:
                    wipe(i, i + 1)
                    stack.pop()
                    i += 1
                    continue
                stack[-1][1] -= 1
            wipe(i, i + 1)
        i += 1
    return "".join(out)


def statement(header):
    """The last statement of the text before a '{': lines joined while one continues another."""
    lines = header.split("\n")
    parts = [lines.pop()]
    depth = sum(parts[0].count(c) for c in "([") - sum(parts[0].count(c) for c in ")]")
    while lines:
        current = parts[0].strip()
        previous = lines[-1].rstrip()
        continues = (depth < 0 or current.startswith((".", "&&", "||", "->", "where", "throws", "async", "?", ":", "=", "+", "-"))
                     or previous.endswith((",", "(", "[", "&&", "||", "=", "->", ":", "+", "-", "?")) or not current)
        if not continues:
            break
        line = lines.pop()
        depth += sum(line.count(c) for c in "([") - sum(line.count(c) for c in ")]")
        parts.insert(0, line)
    return "\n".join(parts), len(parts)


def unclosed(header):
    """Whether the '{' after `header` sits inside an open '(' or '[' of its statement (an argument)."""
    depth = 0
    for char in reversed(header):
        if char in ")]":
            depth += 1
        elif char in "([":
            if depth == 0:
                return True
            depth -= 1
        elif char in "{};":
            return False
    return False


def pieces(text):
    """(kind, name, first line, length) for each function-like body of the file."""
    code = blank(text)
    found = []
    stack = []  # (kind, name, first line) of each open brace
    last = 0  # where the text after the last brace or ';' begins
    line_of = [0] * (len(code) + 1)
    line = 1
    for index, char in enumerate(code):
        line_of[index] = line
        if char == "\n":
            line += 1
    line_of[len(code)] = line
    # Parentheses open in the current brace; a brace inside them (a closure argument, a
    # default value) does not end the statement around it.
    depth, depths = 0, []
    for index, char in enumerate(code):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth = max(0, depth - 1)
        elif char == "{":
            header = code[last:index]
            kind, name, first = classify(header, line_of[index], stack)
            stack.append((kind, name, first))
            depths.append((depth, last))
            depth = 0
            last = index + 1
        elif char == "}":
            if stack:
                kind, name, first = stack.pop()
                if kind in ("function", "closure"):
                    found.append((name, first, line_of[index] - first + 1))
            depth, outer = depths.pop() if depths else (0, 0)
            last = index + 1 if depth == 0 else outer
        elif char == ";" and depth == 0:
            last = index + 1
    return found


def classify(header, brace_line, stack):
    enclosing = next((name for kind, name, _ in reversed(stack) if kind == "function"), None)
    closure = ("closure in " + enclosing) if enclosing else "closure"
    if unclosed(header):
        return "closure", closure, brace_line
    text, count = statement(header)
    first = brace_line - text.count("\n")
    # The statement may begin with blank lines: its first line is the first that holds code.
    for offset, part in enumerate(text.split("\n")):
        if part.strip():
            first = brace_line - (text.count("\n") - offset)
            break
    for pattern in (FUNC, INIT):
        match = pattern.search(text)
        if match:
            return "function", match.group(1), first
    if TYPE.search(text):
        return "type", None, first
    if CONTROL.search(text):
        return "control", None, first
    match = ACCESSOR.search(text)
    if match and stack and stack[-1][0] == "function" and stack[-1][1].startswith("var "):
        return "function", stack[-1][1] + " " + match.group(1), first
    match = PROPERTY.search(text)
    if match and "=" not in text:
        return "function", "var " + match.group(1), first
    return "closure", closure, brace_line


def types(text):
    code = blank(text)
    names = []
    for match in TYPE_DECLARATION.finditer(code):
        keyword, name = match.group(1), match.group(2)
        if keyword == "class" and name in ("func", "var", "let", "subscript"):
            continue
        names.append(name)
    return names


def swift_files(paths):
    for path in paths:
        if os.path.isfile(path):
            yield path
            continue
        for root, dirs, files in os.walk(path):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(".swift"):
                    yield os.path.join(root, name)


def read_allowed():
    allowed = set()
    if not os.path.exists(ALLOW_FILE):
        return allowed
    with open(ALLOW_FILE, encoding="utf-8") as handle:
        for raw in handle:
            entry = raw.split("#", 1)[0].strip()
            if entry:
                path, _, name = entry.partition(" ")
                allowed.add((path, name.strip()))
    return allowed


def check(paths, allowed):
    problems = []
    used = set()
    for path in swift_files(paths):
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        for name, first, length in pieces(text):
            if length <= MAX_LINES:
                continue
            if (path, name) in allowed:
                used.add((path, name))
                continue
            problems.append(f"{path}:{first}: {name}: {length} lines, more than {MAX_LINES}")
        count = len(types(text))
        if count > MAX_TYPES:
            if (path, "types") in allowed:
                used.add((path, "types"))
            else:
                problems.append(f"{path}:1: {count} types, more than {MAX_TYPES}")
    return problems, used


def self_test():
    sample = '''struct A {
    var b: Int {
        get { 1 }
        set { }
    }
    func short() { let s = "}{ \\(x.map { "{" })"; _ = s }
    /* { nested /* } */ */
    init() {
''' + "        let x = 1\n" * 60 + '''    }
    func long(_ a: Int,
              b: Int) -> Int {
''' + "        _ = 1\n" * 59 + '''    }
    let c: [Int] = [1].map {
''' + "        $0 + 1\n" * 60 + '''    }
    func control() {
        if true {
        } else {
        }
    }
    func withDefault(_ a: () -> Void = { },
                     b: Int) {
    }
}
'''
    found = {(name, first, length) for name, first, length in pieces(sample)}
    expected = {("var b", 2, 4), ("var b get", 3, 1), ("var b set", 4, 1), ("short", 6, 1), ("init", 8, 62),
                ("long", 70, 62), ("closure", 132, 62), ("control", 194, 5),
                ("withDefault", 199, 3)}
    missing = expected - found
    extra = {item for item in found - expected if not item[0].startswith("closure")}
    if missing or extra:
        print(f"lint-function-length self-test: missing {sorted(missing)}, unexpected {sorted(extra)}", file=sys.stderr)
        return 1
    many = "\n".join(f"struct T{i} {{}}" for i in range(13)) + "\nextension T0 {}\nclass func f() {}\n"
    if len(types(many)) != 13:
        print(f"lint-function-length self-test: {len(types(many))} types, expected 13", file=sys.stderr)
        return 1
    return 0


def main(arguments):
    if arguments[:1] == ["--self-test"]:
        return self_test()
    allowed = read_allowed()
    if not arguments:
        os.chdir(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    paths = arguments or ["Sources", "Tests"]
    problems, used = check(paths, allowed)
    if not arguments:
        for path, name in sorted(allowed - used):
            problems.append(f"{os.path.relpath(ALLOW_FILE)}: '{path} {name}' excuses nothing: remove it")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
