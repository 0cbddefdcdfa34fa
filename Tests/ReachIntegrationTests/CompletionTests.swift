#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TestSupport
import XCTest

/// The completion scripts `reach --generate-completion-script` writes, run by the shells
/// themselves: bash's `complete -F` function with COMP_WORDS, fish's `complete -C`, and
/// zsh's completion system driven in a pseudo-terminal (zsh/zpty), as at a prompt.
final class CompletionTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "reach-completions-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: directory + "/targets.txt", contents: Data("127.0.0.1\n".utf8))
        for (shell, file) in [("bash", "reach.bash"), ("zsh", "_reach"), ("fish", "reach.fish")] {
            let result = try ReachBinary.run(["--generate-completion-script", shell])
            XCTAssertEqual(result.status, 0, "\(result)")
            _ = FileManager.default.createFile(atPath: directory + "/" + file, contents: Data(result.standardOutput))
        }
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// (the command line up to the cursor, a word its completions must hold)
    private let cases: [(line: String, expected: String)] = [
        ("reach pi", "ping"),
        ("reach st", "status"),
        ("reach ping --ta", "--targets-from"),
        ("reach host --ti", "--timeout"),
        ("reach watch --no-c", "--no-cellular"),
        ("reach addr --o", "--oif"),
        // A value from its choices, or a link's name (loopback is in every namespace).
        ("reach watch --until ", "reachable"),
        ("reach watch --until un", "unreachable"),
        ("reach ping -M ", "want"),
        ("reach tr", "trace"),
        ("reach trace -M ", "icmp"),
        ("reach trace --fl", "--flows"),
        ("reach ping -I l", "lo"),
        ("reach addr --oif l", "lo"),
        ("reach watch --interface l", "lo"),
        // Bare `reach` is `reach status`: its options where a command could stand, and after one.
        ("reach --fl", "--flags"),
        ("reach -4 --fl", "--flags"),
        ("reach --generate-completion-script ", "zsh"),
    ]

    private func shell(_ name: String) throws -> String {
        for directory in ["/usr/bin", "/bin"] where access(directory + "/" + name, X_OK) == 0 { return directory + "/" + name }
        try ContinuousIntegration.cannotRun("\(name) is not installed (scripts/install-deps.sh test installs it)")
    }

    func testBash() throws {
        let bash = try shell("bash")
        for (line, expected) in cases + [("reach ping --targets-from \(directory)/tar", "\(directory)/targets.txt")] {
            let script = """
                source \(directory)/reach.bash
                read -ra COMP_WORDS <<< "$1"
                [[ $1 == *" " ]] && COMP_WORDS+=("")
                COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
                _reach
                printf '%s\\n' "${COMPREPLY[@]}"
                """
            let result = try Subprocess.run([bash, "-c", script, "bash", line])
            XCTAssertEqual(result.status, 0, "\(result)")
            XCTAssertTrue(result.stdoutLines.contains(expected), "bash: \(line) gave \(result.stdoutLines)")
        }
    }

    func testFish() throws {
        let fish = try shell("fish")
        for (line, expected) in cases + [("reach ping --targets-from \(directory)/tar", "\(directory)/targets.txt")] {
            let result = try Subprocess.run([fish, "--no-config", "-c", "source \(directory)/reach.fish; complete -C '\(line)'"])
            XCTAssertEqual(result.status, 0, "\(result)")
            let words = result.stdoutLines.map { String($0.prefix { $0 != "\t" }) }
            XCTAssertTrue(words.contains(expected), "fish: \(line) gave \(words)")
        }
    }

    func testZsh() throws {
        let zsh = try shell("zsh")
        let driver = directory + "/drive.zsh"
        _ = FileManager.default.createFile(atPath: driver, contents: Data(Self.zshDriver.utf8))
        for (line, expected) in cases + [("reach ping --targets-from \(directory)/tar", "targets.txt")] {
            let result = try Subprocess.run([zsh, "-f", driver, directory, line], timeout: 20)
            XCTAssertEqual(result.status, 0, "\(result)")
            XCTAssertTrue(result.stdoutLines.contains(expected), "zsh: \(line) gave \(result.stdoutLines)")
        }
    }

    /// Starts an interactive zsh in a pseudo-terminal with the completion system on (compinit,
    /// the script's directory first in fpath), types the line and a key bound to a completion
    /// widget, and prints every match the completion functions added (compadd -O).
    static let zshDriver = #"""
        zmodload zsh/zpty
        dir=$1 line=$2
        zpty z zsh -f -i
        zpty -w z "PS1='' PROMPT_EOL_MARK=''; unsetopt zle_bracketed_paste 2>/dev/null"
        zpty -w z "fpath=($dir \$fpath); autoload -Uz compinit; compinit -u -D"
        zpty -w z 'compadd() { local -a hits; builtin compadd -O hits "$@"; print -r -l -- "MATCH:"${^hits}; builtin compadd "$@" }'
        zpty -w z '_capture() { _main_complete; print -r -- DONE$((6*7)); }; zle -C capture complete-word _capture; bindkey "^T" capture'
        zpty -n -w z "$line"$'\x14'
        output=""
        while (( SECONDS < 15 )); do
            zpty -r -t z chunk 2>/dev/null && output+=$chunk || sleep 0.05
            [[ $output == *DONE42* ]] && break
        done
        zpty -d z
        print -r -- "$output" | tr -d '\r' | grep -a -o 'MATCH:[^ "[:cntrl:]]*' | sed 's/^MATCH://' | sort -u
        """#
}
