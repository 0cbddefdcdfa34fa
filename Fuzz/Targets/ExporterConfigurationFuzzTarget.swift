import ReachCore
import ReachSystem

/// One blackbox.yml as reach-exporter reads it (libyaml's tree, every prober's settings,
/// RE2 patterns compiled by ReachRegex), the whole input also read as one pattern.
/// Besides "no trap" and a bounded run on alias bombs: a file is either modules or one
/// printable line that says why.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExporterConfiguration(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let text = String(decoding: FuzzInput.bytes(start, count), as: UTF8.self)
    do {
        let modules = try ExporterConfiguration.parse(text, checkingImplemented: false)
        precondition(!modules.isEmpty, "modules parsed from nothing")
        for module in modules { _ = module.yaml }
    } catch {
        precondition(error.message.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }, "unprintable '\(error.message)'")
    }
    if let regex = try? BlackboxRegex(text) { _ = regex.matches(text) }
    return 0
}
