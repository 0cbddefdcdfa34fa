/// A program's commands and options as the completion scripts need them.
public struct CompletionProgram: Sendable {
    public let name: String
    /// The commands; a program without commands (`reach-exporter`) gives one whose path is
    /// the program's name.
    public let commands: [CommandSummary]
    /// Options of the program itself, completed before a command (`--help`, `--version`).
    public let programOptions: [String]
    /// The command a command line without one runs (`reach --json` is `reach status --json`):
    /// its options are completed where a command could stand, and after an option there.
    public let defaultCommand: String?

    public init(name: String, commands: [CommandSummary], programOptions: [String], defaultCommand: String? = nil) {
        self.name = name
        self.commands = commands
        self.programOptions = programOptions
        self.defaultCommand = defaultCommand
    }

    /// The default command's summary, if there is one.
    var defaultSummary: CommandSummary? {
        commands.first { $0.about.name == defaultCommand }
    }

    /// Whether the program has commands (`reach ping`) or is one (`reach-exporter`).
    var hasCommands: Bool { commands.count != 1 || commands[0].about.path != name }
}

/// Shell completion scripts for bash, zsh and fish, written from the declarations: every
/// command, every option that help lists, and file names after an option whose value is one.
public enum Completions {
    /// The option that prints a script, and the shells it takes.
    static let scriptOption = ProgramOption.completionScript
    static let shells = ["bash", "zsh", "fish"]

    /// The option that prints a script, without its shell.
    public static var shellMissing: UsageError { UsageError("\(scriptOption) needs one shell: bash, zsh or fish") }

    public static func script(for shell: String, program: CompletionProgram) throws(UsageError) -> String {
        switch shell {
        case "bash": return bash(program)
        case "zsh": return zsh(program)
        case "fish": return fish(program)
        default: throw UsageError("no completion script for '\(PrintableText.escaped(shell))' (shells: bash, zsh, fish)")
        }
    }

    /// An option's value is a file name (`--targets-from <file>`, `--textfile <path>`).
    static func takesFile(_ option: OptionName) -> Bool {
        option.valueName == "file" || option.valueName == "path"
    }

    /// An option's value is a link's name (`-I <interface>`, `--oif <interface>`).
    static func takesInterface(_ option: OptionName) -> Bool {
        option.valueName == "interface"
    }

    /// A value the script completes by itself: a file, a link, or one of the choices.
    static func completesValue(_ option: OptionName) -> Bool {
        takesFile(option) || takesInterface(option) || !option.choices.isEmpty
    }

    static func shown(_ command: CommandSummary) -> [OptionName] {
        command.options.filter { $0.help != nil }
    }

    static func spellings(_ option: OptionName) -> [String] {
        var words: [String] = []
        if let letter = option.letter { words.append("-" + String(decoding: [letter], as: UTF8.self)) }
        if let long = option.long { words.append("--" + long) }
        return words
    }

    static func function(_ program: CompletionProgram) -> String {
        "_" + program.name.replacingDashes()
    }

    // MARK: bash (bash(1), "Programmable Completion": complete -F, compgen -W)

    static func bash(_ program: CompletionProgram) -> String {
        var text = "# bash completion for \(program.name), written by `\(program.name) \(scriptOption) bash`.\n"
        text += "\(function(program))() {\n"
        text += "    local current=\"${COMP_WORDS[COMP_CWORD]}\" previous=\"${COMP_WORDS[COMP_CWORD-1]}\" command=\"\" index words\n"
        if program.hasCommands {
            let names = program.commands.map(\.about.name).joined(separator: "|")
            text += "    for ((index = 1; index < COMP_CWORD; index++)); do\n"
            text += "        case \"${COMP_WORDS[index]}\" in \(names)) command=${COMP_WORDS[index]}; break ;; esac\n"
            text += "    done\n"
            if let defaultCommand = program.defaultCommand {
                // An option first: the default command's line (`reach -4 --flags`).
                text += "    [[ -z $command && COMP_CWORD -gt 1 && ${COMP_WORDS[1]} == -* ]] && command=\(defaultCommand)\n"
            }
        } else {
            text += "    command=\(program.name)\n"
        }
        text += "    case \"$command:$previous\" in\n"
        if program.programOptions.contains(scriptOption) {
            text += "        *:\(scriptOption)) " + bashReply(shells.joined(separator: " "))
        }
        for command in program.commands { text += bashValueCases(command) }
        text += "    esac\n    case \"$command\" in\n"
        if program.hasCommands {
            let options = program.defaultSummary.map { shown($0).flatMap(spellings) } ?? []
            let words = program.commands.map(\.about.name) + ["help"] + program.programOptions + options
            text += "        \"\") words=\"\(words.joined(separator: " "))\" ;;\n"
        }
        for command in program.commands {
            let words = shown(command).flatMap(spellings) + [ProgramOption.help]
            text += "        \(command.about.name)) words=\"\(words.joined(separator: " "))\" ;;\n"
        }
        text += "    esac\n"
        text += "    mapfile -t COMPREPLY < <(compgen -W \"$words\" -- \"$current\")\n"
        text += "}\ncomplete -F \(function(program)) \(program.name)\n"
        return text
    }

    /// The end of a case that offers `words` (compgen expands them: `$(...)` is run).
    static func bashReply(_ words: String) -> String {
        "mapfile -t COMPREPLY < <(compgen -W \"\(words)\" -- \"$current\"); return ;;\n"
    }

    /// The `command:option)` cases of one command: a file name, a link name (as
    /// /sys/class/net lists them), one of the choices, or nothing to offer.
    static func bashValueCases(_ command: CommandSummary) -> String {
        let name = command.about.name
        func pattern(_ options: [OptionName]) -> String {
            options.flatMap(spellings).map { "\(name):\($0)" }.joined(separator: "|")
        }
        var text = ""
        let files = shown(command).filter(takesFile)
        if !files.isEmpty {
            text += "        \(pattern(files)))\n            mapfile -t COMPREPLY < <(compgen -f -- \"$current\"); return ;;\n"
        }
        let interfaces = shown(command).filter(takesInterface)
        if !interfaces.isEmpty {
            text += "        \(pattern(interfaces)))\n"
            text += "            " + bashReply("$(command ls /sys/class/net 2>/dev/null)")
        }
        for option in shown(command) where !option.choices.isEmpty && !takesFile(option) && !takesInterface(option) {
            text += "        \(pattern([option])))\n"
            text += "            " + bashReply(option.choices.joined(separator: " "))
        }
        let values = shown(command).filter { $0.takesValue && !completesValue($0) }
        if !values.isEmpty { text += "        \(pattern(values))) COMPREPLY=(); return ;;\n" }
        return text
    }

    // MARK: zsh (zshcompsys(1): #compdef, _arguments, _describe)

    static func zsh(_ program: CompletionProgram) -> String {
        var text = "#compdef \(program.name)\n"
        text += "# zsh completion for \(program.name), written by `\(program.name) \(scriptOption) zsh`.\n"
        for command in program.commands {
            text += "\(function(program))_\(command.about.name.replacingDashes())() {\n    _arguments -s"
            for option in shown(command) {
                let help = zshEscaped(option.help ?? "")
                let value = option.valueName.map { ":\(zshEscaped($0)):" + zshAction(option) } ?? ""
                let repeats = option.repeats ? "*" : ""
                for spelling in spellings(option) {
                    text += " \\\n        '\(repeats)\(spelling)[\(help)]\(value)'"
                }
            }
            text += " \\\n        " + zshHelp
            if let operand = command.operand {
                text += " \\\n        '*:\(zshEscaped(operand.name)):_default'"
            }
            text += "\n}\n"
        }
        if program.hasCommands {
            text += "\(function(program))() {\n"
            if let defaultCommand = program.defaultCommand {
                // An option where the command would stand: the default command's line.
                let defaultFunction = "\(function(program))_\(defaultCommand.replacingDashes())"
                let optionFirst = "(( CURRENT > 2 )) && [[ $words[2] == -* && $words[2] != \(scriptOption) ]]"
                text += "    if \(optionFirst); then \(defaultFunction); return; fi\n"
                let extra = program.programOptions.filter { $0 != ProgramOption.help }.joined(separator: " ")
                text += "    if (( CURRENT == 2 )) && [[ $PREFIX == -* ]]; then compadd -- \(extra); \(defaultFunction); return; fi\n"
            }
            text += "    local state line\n    local -a commands=(\n"
            for command in program.commands {
                text += "        '\(command.about.name):\(zshEscaped(command.about.abstract))'\n"
            }
            text += "        'help:Show subcommand help information.'\n    )\n"
            text += "    _arguments -C '(- *)\(ProgramOption.version)[Show the version.]' " + zshHelp + " \\\n"
            if program.programOptions.contains(scriptOption) {
                text += "        '(- *)\(scriptOption)[Print the completion script.]:shell:(\(shells.joined(separator: " ")))' \\\n"
            }
            text += "        '1: :->command' '*:: :->arguments'\n"
            text += "    case $state in\n"
            text += "        command) _describe 'command' commands ;;\n"
            text += "        arguments)\n            case $line[1] in\n"
            for command in program.commands {
                text += "                \(command.about.name)) \(function(program))_\(command.about.name.replacingDashes()) ;;\n"
            }
            text += "                help) _describe 'command' commands ;;\n"
            text += "            esac ;;\n    esac\n}\n"
        } else {
            text += "\(function(program))() {\n    \(function(program))_\(program.name.replacingDashes())\n}\n"
        }
        text += "\(function(program)) \"$@\"\n"
        return text
    }

    /// `-h` and `--help` in an _arguments spec.
    static var zshHelp: String { "'(- *)'{\(ProgramOption.helpLetter),\(ProgramOption.help)}'[Show help information.]'" }

    /// What completes an option's value in an _arguments spec: files, the links
    /// (`_net_interfaces`), the choices, or nothing (a space).
    static func zshAction(_ option: OptionName) -> String {
        if takesFile(option) { return "_files" }
        if takesInterface(option) { return "_net_interfaces" }
        if !option.choices.isEmpty { return "(" + option.choices.map(zshEscaped).joined(separator: " ") + ")" }
        return " "
    }

    /// Text inside `'...[...]'` and `:message:` of an _arguments spec.
    static func zshEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "'": escaped += "'\\''"
            case "[", "]", ":", "\\": escaped += "\\" + String(character)
            default: escaped.append(character)
            }
        }
        return escaped
    }

    // MARK: fish (fish's `complete` builtin)

    static func fish(_ program: CompletionProgram) -> String {
        var text = "# fish completion for \(program.name), written by `\(program.name) \(scriptOption) fish`.\n"
        text += "complete -c \(program.name) -f\n"
        let names = program.commands.map(\.about.name).joined(separator: " ")
        if program.hasCommands {
            for command in program.commands {
                text += "complete -c \(program.name) -n '__fish_use_subcommand' -a \(command.about.name)"
                text += " -d \(fishQuoted(command.about.abstract))\n"
            }
            text += "complete -c \(program.name) -n '__fish_use_subcommand' -a help -d 'Show subcommand help information.'\n"
            text += "complete -c \(program.name) -n '__fish_seen_subcommand_from help' -a '\(names)'\n"
        }
        for command in program.commands {
            var conditions = program.hasCommands ? [" -n '__fish_seen_subcommand_from \(command.about.name)'"] : [""]
            // The default command's options also where no command is given (`reach -4 --flags`).
            if program.hasCommands && command.about.name == program.defaultCommand { conditions.append(" -n '__fish_use_subcommand'") }
            for condition in conditions {
                for option in shown(command) { text += "complete -c \(program.name)\(condition)" + fishOption(option) + "\n" }
            }
        }
        if program.programOptions.contains(scriptOption) {
            text += "complete -c \(program.name) -n '__fish_use_subcommand' -l \(scriptOption.dropFirst(2)) -x -a "
            text += fishQuoted(shells.joined(separator: " ")) + " -d 'Print the completion script.'\n"
        }
        return text
    }

    /// An option's names, its value (a file, a link, one of the choices) and its help.
    static func fishOption(_ option: OptionName) -> String {
        var line = ""
        if let letter = option.letter { line += " -s " + String(decoding: [letter], as: UTF8.self) }
        if let long = option.long { line += " -l " + long }
        if option.takesValue {
            if takesFile(option) {
                line += " -r -F"
            } else if takesInterface(option) {
                line += " -x -a '(__fish_print_interfaces)'"
            } else if !option.choices.isEmpty {
                line += " -x -a " + fishQuoted(option.choices.joined(separator: " "))
            } else {
                line += " -r"
            }
        }
        return line + " -d \(fishQuoted(option.help ?? ""))"
    }

    static func fishQuoted(_ text: String) -> String {
        var quoted = "'"
        for character in text {
            if character == "'" || character == "\\" { quoted += "\\" }
            quoted.append(character)
        }
        return quoted + "'"
    }
}

extension String {
    /// `reach-exporter` as a shell function's name part: `reach_exporter`.
    func replacingDashes() -> String {
        String(map { $0 == "-" ? "_" : $0 })
    }
}
