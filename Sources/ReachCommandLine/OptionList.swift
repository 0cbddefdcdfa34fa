/// Every option a program declares, one per line as `COMMAND OPTION<tab>VALUE<tab>DEFAULT`
/// (`ping -c\tcount\t`, `reach-exporter --queue\tn\t256`), the value's name and the default
/// empty where there is none, hidden ones left out: what `scripts/lint-options.py` compares
/// with the man page's option lists.
public enum OptionList {
    public static func text(_ commands: [CommandSummary]) -> String {
        var text = ""
        for command in commands {
            for option in command.options where option.help != nil {
                let details = "\t" + (option.valueName ?? "") + "\t" + (option.defaultValue ?? "") + "\n"
                for spelling in Completions.spellings(option) { text += command.about.name + " " + spelling + details }
            }
        }
        return text
    }
}
