/// Every option a program declares, one per line as `COMMAND OPTION` (`ping -c`,
/// `ping --json`), hidden ones left out: what `scripts/lint-options.py` compares with the
/// man page's option lists.
public enum OptionList {
    public static func text(_ commands: [CommandSummary]) -> String {
        var text = ""
        for command in commands {
            for option in command.options where option.help != nil {
                for spelling in Completions.spellings(option) { text += command.about.name + " " + spelling + "\n" }
            }
        }
        return text
    }
}
