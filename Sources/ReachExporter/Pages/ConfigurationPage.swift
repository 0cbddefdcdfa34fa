/// `/config`: the modules in force, as blackbox_exporter 0.23's `/config` shows its
/// configuration (`main.go`: yaml.Marshal of the loaded Config, as plain text): each module as
/// the debug output prints it, four spaces a level, credentials as `<secret>`.
public enum ConfigurationPage {
    public static let contentType = "text/plain; charset=utf-8"

    public static func render(_ modules: [ExporterModule]) -> [UInt8] {
        var text = "modules:\n"
        for module in modules {
            text += "    \(DebugValue.text(module.name) ?? "\"\""):\n"
            for line in module.yaml.split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
                text += "        \(line)\n"
            }
        }
        return Array(text.utf8)
    }
}
