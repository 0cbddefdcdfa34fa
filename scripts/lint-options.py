#!/usr/bin/env python3
"""make lint: every option the command-line declarations hold is in the man page's option
lists, and every option those lists name is declared.

    scripts/lint-options.py PROGRAM MANPAGE

PROGRAM --list-options prints the declared options, one `COMMAND OPTION` a line (hidden
test-only options left out). In MANPAGE (mdoc(7)), an option list entry is an `.It` line
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


def declared(program):
    listing = subprocess.run([program, "--list-options"], check=True, capture_output=True, text=True).stdout
    options = {}
    for line in listing.splitlines():
        command, option = line.split(" ", 1)
        options.setdefault(command, set()).add(option)
    return options


def listed(path, name):
    """(option, line number, region) for each option an `.It` line names; region is the
    command whose subsection it is in, "shared" for the shared options, "ping-shared" for
    `Options of reach ping`, None elsewhere."""
    entries = []
    region = None
    with open(path, encoding="utf-8") as page:
        for number, line in enumerate(page, 1):
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
                for index, word in enumerate(words[:-1]):
                    if word == "Fl":
                        entries.append(("-" + words[index + 1].rstrip(","), number, region))
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
        found = {option for option, _, region in entries if region in regions}
        for option in sorted(spellings - found):
            problems.append(f"{page}: {name} {command} {option} is declared, but not in the man page's option lists")
    for option, number, region in entries:
        if option in PROGRAM_OPTIONS:
            continue
        if not has_commands:
            owners = options.get(name, set())
        elif region == "shared":
            owners = set().union(*(spellings for command, spellings in options.items() if command + "-shared" not in {e[2] for e in entries}))
        else:
            owners = options.get(region.removesuffix("-shared"), set())
        if option not in owners:
            problems.append(f"{page}:{number}: {option} is in the option list, but no declaration there has it")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
