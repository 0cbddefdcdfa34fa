/// `reach`'s help as swift-argument-parser printed it before the one declaration per option
/// replaced it, captured from the binary, with the command lines that printed each: the
/// declarations' help must say the same, word for word (long lines are wrapped here to fit
/// the file, so the words are compared, not the lines).
enum HelpGolden {
    static let cases: [(forms: [[String]], text: String)] = [
        (
            [["--help"], ["help"], ["-h"]],
            #"""
            OVERVIEW: Is the network up, can I get there, and how fast does it answer.

            Exit status: 0 reachable, 1 not reachable, 2 name not resolved, 64 usage error,
            71 system failure, 77 not permitted.

            USAGE: reach <subcommand>

            OPTIONS:
              --version               Show the version.
              -h, --help              Show help information.
              --generate-completion-script <shell>
                                      Print the completion script for bash, zsh or fish.

            SUBCOMMANDS:
              status (default)        Is the internet reachable: the route the kernel would
                                      pick, per address family.
              host                    Can these hosts be reached: every address getaddrinfo
                                      gives, evaluated.
              addr                    Can these IP addresses be reached: the kernel's route
                                      lookup decides.
              watch                   Print the reachability state now, then a line each
                                      time it changes; or wait for a state.
              ping                    Send ICMP echo requests and report the replies, as
                                      iputils ping does.

              See 'reach help <subcommand>' for detailed help.
            """#
        ),
        (
            [["help", "status"], ["status", "--help"]],
            #"""
            OVERVIEW: Is the internet reachable: the route the kernel would pick, per
            address family.

            With neither -4 nor -6, reachable when either family is; with both, when both
            are.

            USAGE: reach status [-4] [-6] [--no-cellular] [--no-expensive] [--reference <address> ...] [--probe <spec>
            ...] [--probe-timeout <duration>] [--expect <text>] [--json] [--flags] [--quiet]

            OPTIONS:
              -4                      IPv4 only.
              -6                      IPv6 only.
              --no-cellular           Count a path over a cellular link as not reachable.
              --no-expensive          Count an expensive path (cellular, or metered in
                                      NetworkManager) as not reachable.
              --reference <address>   Look this address up for its family instead of
                                      8.8.8.8 or 2001:4860:4860::8888 (one per family).
              --probe <spec>          Check connectivity: icmp:HOST, tcp:HOST:PORT or
                                      http://HOST[:PORT]/PATH (repeatable).
              --probe-timeout <duration>
                                      Bound on each probe: 5, 1.5s, 300ms. (default: 5s)
              --expect <text>         Text the body of an HTTP 200 must contain to pass.
              --json                  Print JSON: one object on one line; watch prints one
                                      per event (schema in reach(1)).
              --flags                 Add the flag string (WR ctiCDld) to text output.
              -q, --quiet             Print nothing; the exit status tells.
              --version               Show the version.
              -h, --help              Show help information.
            """#
        ),
        (
            [["help", "host"], ["host", "-h"]],
            #"""
            OVERVIEW: Can these hosts be reached: every address getaddrinfo gives,
            evaluated.

            Several names are resolved together, each within --timeout; a line (or, with
            --json, a result) each, in the order given. Exit status: 0 all reachable
            (--any: at least one), else 2 when a name did not resolve, else 1.

            USAGE: reach host [<names> ...] [--timeout <duration>] [--targets-from <file> ...] [--any] [-4] [-6]
            [--no-cellular] [--no-expensive] [--json] [--flags] [--quiet]

            ARGUMENTS:
              <names>                 Host names (or anything getaddrinfo accepts).

            OPTIONS:
              --timeout <duration>    Bound on name resolution: 5, 1.5s, 300ms, 1m.
                                      (default: 5s)
              --targets-from <file>   Read targets from FILE, one a line ('-': standard
                                      input).
              --any                   With several targets: succeed when any one is
                                      reachable, not only when all are.
              -4                      IPv4 only.
              -6                      IPv6 only.
              --no-cellular           Count a path over a cellular link as not reachable.
              --no-expensive          Count an expensive path (cellular, or metered in
                                      NetworkManager) as not reachable.
              --json                  Print JSON: one object on one line; watch prints one
                                      per event (schema in reach(1)).
              --flags                 Add the flag string (WR ctiCDld) to text output.
              -q, --quiet             Print nothing; the exit status tells.
              --version               Show the version.
              -h, --help              Show help information.
            """#
        ),
        (
            [["help", "addr"], ["addr", "--help"]],
            #"""
            OVERVIEW: Can these IP addresses be reached: the kernel's route lookup decides.

            Several addresses: a line (or, with --json, a result) each, in the order given.
            Exit status: 0 all reachable (--any: at least one), 1 otherwise.

            USAGE: reach addr [<options>] [<addresses> ...]

            ARGUMENTS:
              <addresses>             IPv4 or IPv6 literals; IPv6 may carry %zone.

            OPTIONS:
              --targets-from <file>   Read targets from FILE, one a line ('-': standard
                                      input).
              --any                   With several targets: succeed when any one is
                                      reachable, not only when all are.
              -4                      IPv4 only.
              -6                      IPv6 only.
              --no-cellular           Count a path over a cellular link as not reachable.
              --no-expensive          Count an expensive path (cellular, or metered in
                                      NetworkManager) as not reachable.
              --from <address>        Look routes up as from this source address (ip route
                                      get ... from).
              --oif <interface>       Look routes up through this interface (ip route get
                                      ... oif).
              --mark <mark>           Look routes up with this firewall mark, decimal or 0x
                                      hex (ip route get ... mark).
              --uid <uid>             Look routes up for this user id (ip route get ...
                                      uid).
              --json                  Print JSON: one object on one line; watch prints one
                                      per event (schema in reach(1)).
              --flags                 Add the flag string (WR ctiCDld) to text output.
              -q, --quiet             Print nothing; the exit status tells.
              --version               Show the version.
              -h, --help              Show help information.
            """#
        ),
        (
            [["help", "watch"], ["watch", "--help"]],
            #"""
            OVERVIEW: Print the reachability state now, then a line each time it changes;
            or wait for a state.

            Without a target, watches what `status` evaluates; with a host name or an
            address, what `host` or `addr` would. Exit status: 0 when --until is met,
            --count is reached, the reader of the output goes away, or on SIGINT/SIGTERM; 1
            when --timeout passes (or a signal arrives) while --until still waits.

            With --probe, connectivity (none, limited, portal, full) is part of the state:
            the probes run again after every route or link change and every
            --probe-interval, and --until reachable then waits for full. A loss upstream is
            seen within the probe interval plus the probe timeout; while the probes fail
            the interval doubles, up to 4 times, so a recovery can take up to 4 intervals
            plus the timeout to be seen.

            USAGE: reach watch [<options>] [<targets> ...]

            ARGUMENTS:
              <targets>               Host names or IP addresses; none: the internet, as in
                                      `status`. Several: one stream.

            OPTIONS:
              --until <reachable|unreachable>
                                      Exit 0 as soon as this state holds.
              --timeout <duration>    End after this long: 30, 1.5s, 500ms, 2m (exit 1 if
                                      --until still waits).
              --settle <duration>     Report a new state only after it has held this long.
                                      (default: 0)
              --count <n>             Exit after this many changes (the first line does not
                                      count).
              --interface <interface> Count a path as reachable only through this link.
              --resolve-interval <duration>
                                      Look a host name up again this often, and after link
                                      or route changes. (default: 60s)
              --probe-interval <duration>
                                      With --probe: check again this often (up to 4 times
                                      as long while failing). (default: 60s)
              --textfile <path>       Also write the internet's state as Prometheus metrics
                                      to this file, replaced at start and on each change.
              --notify                Tell systemd over $NOTIFY_SOCKET: STATUS= at each
                                      state, READY=1 once --until holds (without it: at the
                                      first).
              --targets-from <file>   Read targets from FILE, one a line ('-': standard
                                      input).
              --any                   With several targets: succeed when any one is
                                      reachable, not only when all are.
              -4                      IPv4 only.
              -6                      IPv6 only.
              --no-cellular           Count a path over a cellular link as not reachable.
              --no-expensive          Count an expensive path (cellular, or metered in
                                      NetworkManager) as not reachable.
              --probe <spec>          Check connectivity: icmp:HOST, tcp:HOST:PORT or
                                      http://HOST[:PORT]/PATH (repeatable).
              --probe-timeout <duration>
                                      Bound on each probe: 5, 1.5s, 300ms. (default: 5s)
              --expect <text>         Text the body of an HTTP 200 must contain to pass.
              --json                  Print JSON: one object on one line; watch prints one
                                      per event (schema in reach(1)).
              --flags                 Add the flag string (WR ctiCDld) to text output.
              -q, --quiet             Print nothing; the exit status tells.
              --version               Show the version.
              -h, --help              Show help information.
            """#
        ),
        (
            [["help", "ping"], ["ping", "--help"]],
            #"""
            OVERVIEW: Send ICMP echo requests and report the replies, as iputils ping does.

            Durations are seconds as numbers (fractions allowed; -w takes whole seconds, as
            iputils). Exit status: 0 a reply came (with -c and -w: count replies), 1 no
            reply, 2 name not resolved, 64 bad input, 71 system failure, 77 not permitted
            (see CAPABILITIES in reach(1)).

            Several targets (or --targets-from, --generate, an fping option): fping's model
            and output, one ICMP socket per family; exit 0 when every target answered
            (reach(1)).

            USAGE: reach ping [<options>] [<hosts> ...]

            ARGUMENTS:
              <hosts>                 Host names or IPv4/IPv6 literals; IPv6 may carry
                                      %interface. Several: fping's model.

            OPTIONS:
              -c <count>              Stop after sending count probes (with -w: after count
                                      replies).
              -i <seconds>            Seconds between probes, 0-86400 (default 1; several
                                      targets: between any two, default 0.01); below 0.002
                                      needs CAP_NET_RAW.
              -W <seconds>            Seconds to wait for each reply, at most 86400
                                      (default 10; several targets: see reach(1)).
              -w <seconds>            Stop after this many seconds (0-86400), whatever is
                                      outstanding.
              -s <bytes>              Data bytes per probe (default 56).
              -t <ttl>                IP time to live / IPv6 hop limit (1-255).
              -I <interface>          Interface name or source address.
              -p <pattern>            Fill each probe's data with this pattern: 1 to 16
                                      bytes in hex (iputils -p).
              -M <do|want|dont>       Path MTU discovery: do (set DF, never fragment),
                                      want, or dont (iputils -M).
              -4                      IPv4 only.
              -6                      IPv6 only.
              -q                      Quiet: the header and the statistics only.
              -n                      Numeric output (reach never looks up names of
                                      repliers).
              -D                      Print a timestamp before each line.
              -O                      Report outstanding replies before sending the next
                                      probe.
              -f                      Flood: as fast as replies come, at least 100 a second
                                      (needs CAP_NET_RAW).
              -b                      Allow pinging a broadcast address (iputils -b).
              --json                  One JSON object per event, then a summary (schema in
                                      reach(1)).
              --period <seconds>      Several targets: seconds between probes to one
                                      target, at most 86400 (fping -p; default 1).
              --alive                 Several targets: print the targets that answered
                                      (fping -a).
              --unreachable           Several targets: print the targets that did not
                                      answer (fping -u).
              --each-rtt              Several targets: each probe's round trip in the
                                      summary, '-' for a loss (fping -C).
              --targets-from <file>   Read targets from FILE, one a line ('-': standard
                                      input).
              --generate <cidr|start> Ping every host address of a prefix, or from START to
                                      the END given as operand (fping -g; at most 65536).
              --elapsed               Several targets: each alive line with its round trip
                                      (fping -e).
              --stats                 Several targets: totals over the run on stderr at the
                                      end (fping -s).
              --loop                  Several targets: probe until interrupted, a line per
                                      probe (fping -l).
              --squiet <seconds>      Several targets: counters of the last interval every
                                      this many seconds (at most 86400), on stderr (fping
                                      -Q).
              --percentiles           One more statistics line: the round trips' 50th, 90th
                                      and 99th percentiles (estimated within 0.27 %;
                                      reach(1)).
              --version               Show the version.
              -h, --help              Show help information.
            """#
        ),
    ]
}
