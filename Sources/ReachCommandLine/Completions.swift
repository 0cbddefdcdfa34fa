/// A program's commands and options as the completion scripts need them.
public struct CompletionProgram: Sendable {
    public let name: String
    /// The commands; a program without commands (`reach-exporter`) gives one whose path is
    /// the program's name.
    public let commands: [CommandSummary]
    /// Options of the program itself, completed before a command (`--help`, `--version`).
    public let programOptions: [String]

    public init(name: String, commands: [CommandSummary], programOptions: [String]) {
        self.name = name
        self.commands = commands
        self.programOptions = programOptions
    }

    /// Whether the program has commands (`reach ping`) or is one (`reach-exporter`).
    var hasCommands: Bool { commands.count != 1 || commands[0].about.path != name }
}

/// Shell completion scripts for bash, zsh and fish, written from the declarations: every
/// command, every option that help lists, and file names after an option whose value is one.
public enum Completions {
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
        var text = "# bash completion for \(program.name), written by `\(program.name) --generate-completion-script bash`.\n"
        text += "\(function(program))() {\n"
        text += "    local current=\"${COMP_WORDS[COMP_CWORD]}\" previous=\"${COMP_WORDS[COMP_CWORD-1]}\" command=\"\" index words\n"
        if program.hasCommands {
            let names = program.commands.map(\.about.name).joined(separator: "|")
            text += "    for ((index = 1; index < COMP_CWORD; index++)); do\n"
            text += "        case \"${COMP_WORDS[index]}\" in \(names)) command=${COMP_WORDS[index]}; break ;; esac\n"
            text += "    done\n"
        } else {
            text += "    command=\(program.name)\n"
        }
        text += "    case \"$command:$previous\" in\n"
        for command in program.commands {
            let files = shown(command).filter(takesFile).flatMap(spellings)
            let values = shown(command).filter { $0.takesValue && !takesFile($0) }.flatMap(spellings)
            if !files.isEmpty {
                text += "        \(command.about.name):\(files.joined(separator: "|\(command.about.name):")))\n"
                text += "            mapfile -t COMPREPLY < <(compgen -f -- \"$current\"); return ;;\n"
            }
            if !values.isEmpty {
                text += "        \(command.about.name):\(values.joined(separator: "|\(command.about.name):"))) COMPREPLY=(); return ;;\n"
            }
        }
        text += "    esac\n    case \"$command\" in\n"
        if program.hasCommands {
            let words = program.commands.map(\.about.name) + ["help"] + program.programOptions
            text += "        \"\") words=\"\(words.joined(separator: " "))\" ;;\n"
        }
        for command in program.commands {
            let words = shown(command).flatMap(spellings) + ["--help"]
            text += "        \(command.about.name)) words=\"\(words.joined(separator: " "))\" ;;\n"
        }
        text += "    esac\n"
        text += "    mapfile -t COMPREPLY < <(compgen -W \"$words\" -- \"$current\")\n"
        text += "}\ncomplete -F \(function(program)) \(program.name)\n"
        return text
    }

    // MARK: zsh (zshcompsys(1): #compdef, _arguments, _describe)

    static func zsh(_ program: CompletionProgram) -> String {
        var text = "#compdef \(program.name)\n"
        text += "# zsh completion for \(program.name), written by `\(program.name) --generate-completion-script zsh`.\n"
        for command in program.commands {
            text += "\(function(program))_\(command.about.name.replacingDashes())() {\n    _arguments -s"
            for option in shown(command) {
                let help = zshEscaped(option.help ?? "")
                let value = option.valueName.map { ":\(zshEscaped($0)):" + (takesFile(option) ? "_files" : " ") } ?? ""
                let repeats = option.repeats ? "*" : ""
                for spelling in spellings(option) {
                    text += " \\\n        '\(repeats)\(spelling)[\(help)]\(value)'"
                }
            }
            text += " \\\n        '(- *)'{-h,--help}'[Show help information.]'"
            if let operand = command.operand {
                text += " \\\n        '*:\(zshEscaped(operand.name)):_default'"
            }
            text += "\n}\n"
        }
        if program.hasCommands {
            text += "\(function(program))() {\n    local state line\n    local -a commands=(\n"
            for command in program.commands {
                text += "        '\(command.about.name):\(zshEscaped(command.about.abstract))'\n"
            }
            text += "        'help:Show subcommand help information.'\n    )\n"
            text += "    _arguments -C '(- *)--version[Show the version.]' '(- *)'{-h,--help}'[Show help information.]' \\\n"
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
        var text = "# fish completion for \(program.name), written by `\(program.name) --generate-completion-script fish`.\n"
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
            let condition = program.hasCommands ? " -n '__fish_seen_subcommand_from \(command.about.name)'" : ""
            for option in shown(command) {
                var line = "complete -c \(program.name)\(condition)"
                if let letter = option.letter { line += " -s " + String(decoding: [letter], as: UTF8.self) }
                if let long = option.long { line += " -l " + long }
                if option.takesValue { line += takesFile(option) ? " -r -F" : " -r" }
                text += line + " -d \(fishQuoted(option.help ?? ""))\n"
            }
        }
        return text
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
