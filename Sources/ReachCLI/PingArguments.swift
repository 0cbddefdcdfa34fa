/// `reach ping`'s command line read the way iputils reads its own (getopt: `-c 5`, `-c5`,
/// grouped flags such as `-qn`, options before or after the host), without ArgumentParser.
///
/// Why: ArgumentParser reflects the whole command tree before it parses anything, about
/// 12 M instructions (4 ms) per start, more than iputils ping takes to start and ping once;
/// `reach ping -c 1` in a script loop, or a 10,000-echo flood, paid it every time. This
/// reader takes only the plain forms. Anything else (help, unknown or repeated options,
/// a missing value, `--`, a second operand) returns nil and goes to ArgumentParser, which
/// says what is wrong; the values themselves are checked by PingSettings either way.
/// PingArgumentsTests hold the two to the same result.
enum PingArguments {
    /// The options `words` (what follows `ping`) give, nil when ArgumentParser should read them.
    static func options(_ words: ArraySlice<String>) -> PingOptions? {
        var options = PingOptions(host: "")
        var host: String?
        var index = words.startIndex
        while index < words.endIndex {
            let word = words[index]
            index += 1
            let bytes = Array(word.utf8)
            if word == "--json" {
                guard !options.json else { return nil }
                options.json = true
            } else if bytes.count >= 2, bytes[0] == UInt8(ascii: "-"), bytes[1] != UInt8(ascii: "-") {
                // One value option, its value joined or next; or a group of flags.
                if isValueOption(bytes[1]) {
                    let value: String
                    if bytes.count > 2 {
                        // `-c5`; a joined value that could read as an option is left to ArgumentParser.
                        guard !bytes[2...].contains(UInt8(ascii: "-")), !bytes[2...].contains(UInt8(ascii: "=")) else { return nil }
                        value = String(decoding: bytes[2...], as: UTF8.self)
                    } else {
                        guard index < words.endIndex else { return nil }
                        value = words[index]
                        index += 1
                        // -I takes its value only when it is not option-like (ArgumentParser's .next);
                        // the numeric ones take whatever follows (-c -1 is a wrong count).
                        if bytes[1] == UInt8(ascii: "I") && (value.hasPrefix("-") || value.isEmpty) { return nil }
                        // ArgumentParser ends options at `--` and looks for help anywhere, values included.
                        if value == "--" || isHelpRequest(value) { return nil }
                    }
                    guard options.setValue(value, for: bytes[1]) else { return nil }
                } else {
                    for letter in bytes[1...] {
                        guard options.setFlag(letter) else { return nil }
                    }
                }
            } else if !bytes.isEmpty, bytes[0] != UInt8(ascii: "-") {
                guard host == nil else { return nil }
                host = word
            } else {
                return nil  // "-", "--", "--help", any other long option, ""
            }
        }
        guard let host else { return nil }
        options.host = host
        return options
    }

    /// getopt's rule that ArgumentParser lacks: a group of flags may end in a value option,
    /// so `-qc1` is `-q -c1` and `-nqc 3` is `-nq -c 3` (`ping -qc1 HOST` is common in
    /// scripts). Splits such words in two; every other word, the word after a value option
    /// that waits for it, and everything after `--` are kept as they are.
    static func splittingFlagGroups(_ words: ArraySlice<String>) -> [String] {
        var split: [String] = []
        split.reserveCapacity(words.count + 1)
        var index = words.startIndex
        while index < words.endIndex {
            let word = words[index]
            index += 1
            if word == "--" {
                split.append(contentsOf: words[(index - 1)...])
                break
            }
            let bytes = Array(word.utf8)
            guard bytes.count >= 2, bytes[0] == UInt8(ascii: "-"), bytes[1] != UInt8(ascii: "-") else {
                split.append(word)
                continue
            }
            // The flags before the first value option, if all of them are flags.
            guard let valueAt = bytes.indices.dropFirst().first(where: { isValueOption(bytes[$0]) }),
                bytes[1..<valueAt].allSatisfy(isFlag)
            else {
                split.append(word)
                continue
            }
            if valueAt > 1 {
                split.append(String(decoding: bytes[0..<valueAt], as: UTF8.self))
                split.append("-" + String(decoding: bytes[valueAt...], as: UTF8.self))
            } else {
                split.append(word)
            }
            // `-c` alone: its value is the next word, whatever it looks like.
            if valueAt == bytes.count - 1, index < words.endIndex {
                split.append(words[index])
                index += 1
            }
        }
        return split
    }

    private static func isFlag(_ letter: UInt8) -> Bool {
        "46qnDOf".utf8.contains(letter)
    }

    private static func isValueOption(_ letter: UInt8) -> Bool {
        switch letter {
        case UInt8(ascii: "c"), UInt8(ascii: "i"), UInt8(ascii: "W"), UInt8(ascii: "w"),
            UInt8(ascii: "s"), UInt8(ascii: "t"), UInt8(ascii: "I"):
            true
        default:
            false
        }
    }

    /// The words by which ArgumentParser prints help or the version.
    private static func isHelpRequest(_ word: String) -> Bool {
        word == "-h" || word == "--help" || word == "-help" || word == "--version"
    }
}

extension PingOptions {
    /// Stores a value option's text; false when the option was given before.
    fileprivate mutating func setValue(_ value: String, for letter: UInt8) -> Bool {
        func store(_ slot: inout String?) -> Bool {
            guard slot == nil else { return false }
            slot = value
            return true
        }
        switch letter {
        case UInt8(ascii: "c"): return store(&count)
        case UInt8(ascii: "i"): return store(&interval)
        case UInt8(ascii: "W"): return store(&timeout)
        case UInt8(ascii: "w"): return store(&deadline)
        case UInt8(ascii: "s"): return store(&size)
        case UInt8(ascii: "t"): return store(&ttl)
        case UInt8(ascii: "I"): return store(&interface)
        default: return false
        }
    }

    /// Sets one flag of a group; false for a letter that is not a flag, or one given before.
    fileprivate mutating func setFlag(_ letter: UInt8) -> Bool {
        func set(_ flag: inout Bool) -> Bool {
            guard !flag else { return false }
            flag = true
            return true
        }
        switch letter {
        case UInt8(ascii: "4"): return set(&ipv4)
        case UInt8(ascii: "6"): return set(&ipv6)
        case UInt8(ascii: "q"): return set(&quiet)
        case UInt8(ascii: "n"): return set(&numeric)
        case UInt8(ascii: "D"): return set(&timestamps)
        case UInt8(ascii: "O"): return set(&outstanding)
        case UInt8(ascii: "f"): return set(&flood)
        default: return false
        }
    }
}
