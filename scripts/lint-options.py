#!/usr/bin/env python3
"""make lint: every option the command-line declarations hold is in the man page's option
lists, and every option those lists name is declared, with the declaration's value name and
default.

    scripts/lint-options.py PROGRAM MANPAGE

PROGRAM --list-options prints the declared options, one `COMMAND OPTION<tab>VALUE<tab>DEFAULT`
a line, VALUE and DEFAULT empty where there is none (hidden test-only options left out).
An entry's value is the words after the option's `Fl` up to the next `Fl`, as they print
(`Ar address : Ns Ar port` is `address:port`, `Oo Ar a Oc` is `[a]`); a declared default must
be in the entry as `default X` or `X (the default)`. In MANPAGE (mdoc(7)), an option list entry is an `.It` line
that names options with `Fl`. Each command's options may be listed in its own subsection
(`.Ss reach ping ...`) or in the section of options it shares: `.Sh OPTIONS` up to
`.Ss Options of reach ping` for every command but ping, that subsection for ping. A
program without commands (reach-exporter) lists its options under `.Sh OPTIONS`.
One line per difference, FILE:LINE where there is a line; exit 1 when there is any.
"""
import re
import subprocess
import sys

# Options of the program itself, not of a command's declaration.
PROGRAM_OPTIONS = {"-h", "--help", "--version", "--generate-completion-script", "--list-options"}


# mdoc macros that print nothing of their own, and those that print a bracket.
SILENT_MACROS = {"Ar", "Ns", "Li", "Cm", "No", "Pa"}
BRACKETS = {"Oo": "[", "Oc": "]"}


def declared(program):
    """{command: {option: (value name, default)}}."""
    listing = subprocess.run([program, "--list-options"], check=True, capture_output=True, text=True).stdout
    options = {}
    for line in listing.splitlines():
        spelled, value, default = line.split("\t")
        command, option = spelled.split(" ", 1)
        options.setdefault(command, {})[option] = (value, default)
    return options


def value_words(words):
    """The value an `.It` line gives an option (the words after its name), as it prints."""
    printed = []
    for word in words:
        if word in BRACKETS:
            printed.append(BRACKETS[word])
        elif word not in SILENT_MACROS and word != ",":
            printed.append(word)
    # Words part only where the page has a blank between two values (`start end`).
    text = " ".join(printed).rstrip(",")
    return re.sub(r" ?([:|\[\]]) ?", r"\1", text).replace(" .", ".").replace(". ", ".")


def takes(value, declared):
    """Whether an entry's value is the declared one, or one of its alternatives (`cidr` of
    `cidr|start`, an entry each) with the operands that go with it (`start end`)."""
    if value == declared:
        return True
    first = value.split(" ")[0]
    return first in declared.split("|")


def states_default(body, default):
    """Whether an entry's text says `default` is the default."""
    text = re.sub(r"(^|\s)\.?(" + "|".join(SILENT_MACROS | {"Pq", "Sy"}) + r")(?=\s)", " ", body)
    text = " ".join(text.split())
    value = re.escape(default)
    return re.search(r"[Dd]efault(:| is)? " + value + r"(?![\w:]|\.\w)", text) is not None \
        or re.search(value + r" ,? ?\(the default\)", text) is not None


def listed(path, name):
    """(option, line number, region, value, body) for each option an `.It` line names; region
    is the command whose subsection it is in, "shared" for the shared options, "ping-shared"
    for `Options of reach ping`, None elsewhere; body is the entry's text up to the next `.It`."""
    entries = []
    region = None
    with open(path, encoding="utf-8") as page:
        lines = page.readlines()
    for number, line in enumerate(lines, 1):
        heading = re.match(r"\.(Sh|Ss) (.*)", line)
        if heading:
            kind, title = heading.groups()
            if kind == "Sh":
                region = "shared" if title.strip() == "OPTIONS" else None
            elif title.startswith("Options of " + name + " "):
                region = title.split()[-1] + "-shared"
            elif title.startswith(name + " "):
                region = title.split()[1]
            elif region != "shared":
                region = None
            continue
        if region and line.startswith(".It ") and " Fl " in " " + line[4:]:
            words = line[4:].split()
            body = line[4:]
            for following in lines[number:]:
                if following.startswith((".It ", ".El")):
                    break
                body += following
            starts = [index for index, word in enumerate(words[:-1]) if word == "Fl"] + [len(words)]
            for start, end in zip(starts, starts[1:]):
                option = "-" + words[start + 1].rstrip(",")
                entries.append((option, number, region, value_words(words[start + 2:end]), body))
    return entries


def main():
    program, page = sys.argv[1], sys.argv[2]
    name = program.rsplit("/", 1)[-1]
    options = declared(program)
    entries = listed(page, name)
    problems = []
    has_commands = list(options) != [name]
    for command, spellings in sorted(options.items()):
        if has_commands:
            regions = {command, command + "-shared"} if command + "-shared" in {e[2] for e in entries} else {command, "shared"}
        else:
            regions = {"shared"}
        found = {entry[0] for entry in entries if entry[2] in regions}
        for option in sorted(set(spellings) - found):
            problems.append(f"{page}: {name} {command} {option} is declared, but not in the man page's option lists")
    for option, number, region, value, body in entries:
        if option in PROGRAM_OPTIONS:
            continue
        if not has_commands:
            owners = [options.get(name, {})]
        elif region == "shared":
            owners = [spellings for command, spellings in options.items() if command + "-shared" not in {e[2] for e in entries}]
        else:
            owners = [options.get(region.removesuffix("-shared"), {})]
        declarations = {owner[option] for owner in owners if option in owner}
        if not declarations:
            problems.append(f"{page}:{number}: {option} is in the option list, but no declaration there has it")
            continue
        if not any(takes(value, declared_value) for declared_value, _ in declarations):
            wanted = " or ".join(sorted(f"'{declared_value}'" for declared_value, _ in declarations))
            problems.append(f"{page}:{number}: {option} takes '{value}' here, {wanted} in its declaration")
        # An entry that sends the reader to another of the option's entries (`see below`)
        # need not repeat the default: one of them says it.
        bodies = [e[4] for e in entries if e[0] == option]
        for declared_value, default in declarations:
            if default and takes(value, declared_value) and not any(states_default(text, default) for text in bodies):
                problems.append(f"{page}:{number}: {option}'s entry does not say its default, {default}")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
