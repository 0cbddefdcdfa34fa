#!/usr/bin/env bash
# make fuzz: builds one libFuzzer executable per parser (swiftc -sanitize=fuzzer,address,
# outside the package's products, in .build/fuzz) and runs each for FUZZ_SECONDS (60),
# or for FUZZ_RUNS executions when that is set. Fails on any crash, leak or timeout.
#
#   FUZZ_SECONDS=600 make fuzz              longer runs
#   FUZZ_RUNS=1000000 make fuzz             a fixed number of executions per target
#   FUZZ_TARGETS="netlink" make fuzz        some targets only
#
# Seeds come from Fuzz/corpus/<target> (committed, from real captures); what the fuzzer
# finds goes to .build/fuzz/corpus/<target>, crashes to .build/fuzz/artifacts.
set -euo pipefail
cd "$(dirname "$0")/.."

out=.build/fuzz
seconds=${FUZZ_SECONDS:-60}
runs=${FUZZ_RUNS:-}
swiftc=${SWIFTC:-swiftc}
sanitize="-sanitize=fuzzer,address"

# The exporter's module model: what a module is, and blackbox.yml read into it.
exporter_modules="Sources/ReachExporter/ExporterModule.swift Sources/ReachExporter/ExporterModule+YAML.swift"
exporter_modules+=" Sources/ReachExporter/ExporterConfiguration.swift Sources/ReachExporter/ExporterLog.swift"
# Each prober's folder holds its settings and keys (read here) beside its run and metrics (not).
# The continuous prober's own (its run, its series, its command line) are not read from a file.
exporter_modules+=" $(find Sources/ReachExporter/Modules Sources/ReachExporter/Probers -name '*.swift' \
    ! -name 'ExporterProber+*' ! -name 'ProbeMeasurement+*' ! -name 'SmokepingProber.swift' ! -name 'SmokepingMetrics.swift' \
    ! -name 'SmokepingOptions.swift' | sort | tr '\n' ' ')"
exporter_modules+=" Sources/ReachExporter/ProbeTarget.swift Sources/ReachExporter/URLQuery.swift"

# The allow list's refusals spell --allow from the command line's declaration, which names
# the continuous prober's options too.
exporter_options="Sources/ReachExporter/ExporterOptions.swift Sources/ReachExporter/RoutePrefix.swift"
exporter_options+=" Sources/ReachExporter/Probers/Smokeping/SmokepingOptions.swift"
# What the router names of the pages: a graph's request.
exporter_pages="Sources/ReachExporter/Pages/ContinuousTimelines.swift Sources/ReachExporter/Pages/SmokeGraph.swift"
exporter_pages+=" Sources/ReachExporter/Pages/LatencyTimeline.swift Sources/ReachExporter/Pages/HTMLText.swift"
# ReachExporterProbes' values that need no SwiftNIO, built as that module: what the module
# model names (the TLS settings, a tcp conversation's patterns) and the dns prober's codec
# and exchange (DNS over TLS, which needs SwiftNIO, left out), which the dns target feeds.
probe_values="Sources/ReachExporterProbes/TLSSettings.swift Sources/ReachExporterProbes/TLSProtocolVersion.swift"
probe_values+=" Sources/ReachExporterProbes/TCP/ExpectPattern.swift"
probe_values+=" $(find Sources/ReachExporterProbes/DNS -name '*.swift' ! -name 'DNSOverTLS.swift' | sort | tr '\n' ' ')"

# The command line's readers name the commands' declarations (a message spells an option
# from its declaration), which reach into most of ReachCLI: the whole module goes in.
cli_sources=$(find Sources/ReachCLI -name '*.swift' | sort | tr '\n' ' ')

# name | entry file in Fuzz/Targets | extra sources | longest input
targets=(
    "netlink|NetlinkFuzzTarget.swift||4096"
    "command-line|CommandLineFuzzTarget.swift|$cli_sources|512"
    "icmp|ICMPFuzzTarget.swift||2048"
    "icmp-extensions|ICMPExtensionsFuzzTarget.swift||1024"
    "probe-spec|ProbeSpecFuzzTarget.swift|Sources/ReachCLI/ProbeSpecArgument.swift|512"
    "http|HTTPFuzzTarget.swift||8192"
    "dbus|DBusFuzzTarget.swift||8192"
    "dns|DNSFuzzTarget.swift||1024"
    "exporter-request|ExporterRequestFuzzTarget.swift|Sources/ReachExporter/ExporterRouter.swift Sources/ReachExporter/AllowList.swift $exporter_options $exporter_pages $exporter_modules|1024"
    "exporter-config|ExporterConfigurationFuzzTarget.swift|$exporter_modules|8192"
    # Short: a pattern of n bytes can compile to about n thousand instructions, run over n bytes.
    "regex|RegexFuzzTarget.swift||128"
)
selected=${FUZZ_TARGETS:-$(printf '%s\n' "${targets[@]}" | cut -d'|' -f1 | tr '\n' ' ')}

mkdir -p "$out/shims" "$out/modules" "$out/artifacts"
# SwiftPM makes the module map of a C target itself; swiftc alone needs one.
cat > "$out/shims/module.modulemap" <<MAP
module CReachShims {
    header "$PWD/Sources/CReachShims/include/CReachShims.h"
    export *
}
MAP
imports=(-I "$out/shims" -I Sources/CLibcap -I Sources/CYAML -I Sources/CCrypt -I Sources/CZlib -I Sources/CBrotli -I "$out/modules")

echo "fuzz: building ReachSystem, ReachCore, ReachCommandLine, ReachExporterSystem and ReachRegex with $sanitize"
clang -O1 -g -fsanitize=fuzzer-no-link,address -I Sources/CReachShims/include \
    -c Sources/CReachShims/shims.c -o "$out/shims.o"
for module in ReachSystem ReachCore ReachCommandLine ReachExporterSystem ReachRegex; do
    mapfile -t module_sources < <(find "Sources/$module" -name '*.swift' | sort)
    # -package-name: ReachCore shares a few `package` declarations with the exporter's modules.
    "$swiftc" -module-name "$module" -package-name reach -swift-version 6 -parse-as-library -O -g -wmo -enable-testing $sanitize \
        "${imports[@]}" -emit-module -emit-module-path "$out/modules/$module.swiftmodule" \
        -c "${module_sources[@]}" -o "$out/$module.o"
done
echo "fuzz: building ReachExporterProbes' values with $sanitize"
# shellcheck disable=SC2086 # $probe_values is a list of paths without blanks
"$swiftc" -module-name ReachExporterProbes -package-name reach -swift-version 6 -parse-as-library -O -g -wmo -enable-testing $sanitize \
    "${imports[@]}" -emit-module -emit-module-path "$out/modules/ReachExporterProbes.swiftmodule" \
    -c $probe_values -o "$out/ReachExporterProbes.o"

declare -A length
for entry in "${targets[@]}"; do
    IFS='|' read -r name file extra max <<< "$entry"
    [[ " $selected " == *" $name "* ]] || continue
    length[$name]=$max
    echo "fuzz: building fuzz-$name"
    # shellcheck disable=SC2086 # $extra is a list of paths without blanks
    # lld: gold warns about every ASan helper symbol it cannot export.
    "$swiftc" -module-name "Fuzz_${name//-/_}" -package-name reach -swift-version 6 -parse-as-library -O -g $sanitize -use-ld=lld "${imports[@]}" \
        Fuzz/Targets/FuzzInput.swift "Fuzz/Targets/$file" $extra \
        "$out/ReachCommandLine.o" "$out/ReachCore.o" "$out/ReachSystem.o" "$out/ReachExporterSystem.o" "$out/ReachRegex.o" \
        "$out/ReachExporterProbes.o" "$out/shims.o" -lcap -lyaml -lcrypt -lz -lbrotlidec -o "$out/fuzz-$name"
done

# Swift's backtracer can hold a crashing process for a minute (docs/LINUX-FACTS.md); libFuzzer
# reports the crash itself. Leaks are checked (LeakSanitizer) after every input run.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
limit=(-max_total_time="$seconds")
[[ -n $runs ]] && limit=(-runs="$runs")

failed=0
summary=()
for name in $selected; do
    [[ -n ${length[$name]:-} ]] || { echo "fuzz: no target '$name'" >&2; exit 64; }
    mkdir -p "$out/corpus/$name" "Fuzz/corpus/$name"
    log="$out/$name.log"
    echo "fuzz: running fuzz-$name (${limit[*]}), log in $log"
    start=$(date +%s)
    status=0
    dictionary=()
    [[ -f Fuzz/$name.dict ]] && dictionary=(-dict="Fuzz/$name.dict")
    "$out/fuzz-$name" "${limit[@]}" "${dictionary[@]}" -timeout=10 -rss_limit_mb=2048 -max_len="${length[$name]}" \
        -print_final_stats=1 -artifact_prefix="$out/artifacts/$name-" \
        "$out/corpus/$name" "Fuzz/corpus/$name" > "$log" 2>&1 || status=$?
    elapsed=$(( $(date +%s) - start ))
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    corpus=$(find "$out/corpus/$name" -type f | wc -l)
    if (( status != 0 )); then
        failed=1
        verdict="FAILED (exit $status)"
        grep -E '^(==[0-9]+==ERROR|SUMMARY|artifact_prefix|Test unit written|.*Fatal error|ALARM|.*deadly signal)' "$log" >&2 || tail -20 "$log" >&2
    else
        verdict=ok
    fi
    summary+=("$(printf '%-14s %12s executions %6ss %6s inputs in corpus  %s' "$name" "${executions:-?}" "$elapsed" "$corpus" "$verdict")")
done

echo
printf '%s\n' "${summary[@]}"
exit $failed
