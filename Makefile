# reach — build, test, install. `make help` lists the targets.
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
RELEASE_FLAGS = -c release --static-swift-stdlib
BIN = .build/release/reach
# libstdc++, which the Swift runtime uses, is linked statically as well when its archive
# is installed: loading libstdc++.so costs its symbol relocations at every start. The linker
# reaches the archive through a linker script named libstdc++.so, in a directory it searches
# first. Why each flag below, with its figures: docs/PERFORMANCE-NOTES.md, "Footprint".
STATIC_CXX := $(wildcard $(shell $(CC) -print-file-name=libstdc++.a 2>/dev/null))
STATIC_CXX_SCRIPT = $(if $(STATIC_CXX),.build/static-libstdc++/libstdc++.so)
RELEASE_FLAGS += $(if $(STATIC_CXX),-Xlinker -L$(CURDIR)/.build/static-libstdc++)
# libgcc too: libgcc_s.so's constructor probes the CPU with cpuid, which traps to the
# hypervisor on a virtual machine.
RELEASE_FLAGS += -Xswiftc -Xclang-linker -Xswiftc -static-libgcc
# Linked by lld (the toolchain's), for two things gold lacks. Relative relocations packed
# as RELR (glibc 2.36): as .rela.dyn entries the dynamic loader reads them all at every
# start. And a symbol ordering file: the functions a short run executes laid out together,
# so that the kernel's fault-around maps a few windows of .text, not most of it
# (scripts/link-order.sh).
LINK_ORDER = scripts/link-order.txt
# Whole-program LTO of reach's modules and its packages (the prebuilt standard library is
# not bitcode): fewer instructions a flood echo, less code, less resident at start-up.
RELEASE_FLAGS += --experimental-lto-mode=full
RELEASE_FLAGS += -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs
RELEASE_FLAGS += -Xlinker --symbol-ordering-file=$(CURDIR)/$(LINK_ORDER) -Xlinker --no-warn-symbol-ordering
# Data symbols (metadata, descriptors) out of the dynamic symbol table, which the runtime's
# start-up dladdr walks whole (scripts/dynamic-symbols.map says which and why).
DYNAMIC_SYMBOLS = -Xlinker --version-script=$(CURDIR)/scripts/dynamic-symbols.map
RELEASE_FLAGS += $(DYNAMIC_SYMBOLS)
STRIP ?= strip
# zsh's completions: site-functions under /usr/local; Debian's zsh reads packages' from
# /usr/share/zsh/vendor-completions (debian/rules sets it).
ZSH_COMPLETIONS ?= $(PREFIX)/share/zsh/site-functions
# reach-exporter: a release build with the standard library (and libstdc++, libgcc) linked
# statically, in a scratch path of its own, so the two builds' different flags do not
# rebuild each other's modules. No whole-program LTO: over SwiftNIO and BoringSSL it made
# the stripped binary larger, not smaller (more inlining), and its one-threaded link added
# minutes to CI's build; no link order: its start-up is not what is measured. Figures:
# docs/PERFORMANCE-NOTES.md, "reach-exporter's footprint".
EXPORTER_BIN = .build-exporter/release/reach-exporter
EXPORTER_FLAGS = -c release --static-swift-stdlib --scratch-path .build-exporter
# Swift code optimised for size: 1.05 MB less stripped, for CPU per probe within a few percent
# of -O's (make bench's exporter part measures both against blackbox_exporter).
EXPORTER_FLAGS += -Xswiftc -Osize
EXPORTER_FLAGS += $(if $(STATIC_CXX),-Xlinker -L$(CURDIR)/.build/static-libstdc++)
EXPORTER_FLAGS += -Xswiftc -Xclang-linker -Xswiftc -static-libgcc
# lld with RELR, as for reach: fewer relocated pages of data written at start, so less
# resident memory.
EXPORTER_FLAGS += -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs
# Its own version script: only reach's modules' functions in the dynamic symbol table, for
# backtraces; the libraries' 11,000 symbols out (1.3 MB less stripped, and less resident: the
# runtime's start-up dladdr walks the table, its strings included).
EXPORTER_FLAGS += -Xlinker --version-script=$(CURDIR)/scripts/exporter-dynamic-symbols.map

.PHONY: help deps build build-exporter run test test-flakes bench lint install install-caps uninstall clean fuzz test-sanitize soak link-order
.PHONY: deb test-deb

help:
	@echo "make build     release build (standard library linked statically): $(BIN)"
	@echo "make build-exporter  release build of the Prometheus exporter: $(EXPORTER_BIN)"
	@echo "make run       build, then run 'reach status'"
	@echo "make test      install test dependencies (Debian), build, run every test"
	@echo "make bench     start-up and evaluation cost beside 'ip route get'; watch beside 'ip monitor'; ping beside ping, fping;"
	@echo "               reach-exporter beside blackbox_exporter, prober by prober; writes docs/BENCHMARKS.md (root;"
	@echo "               fails on a missed target, or a skipped part unless BENCH_ALLOW_SKIP=1)"
	@echo "make test-sanitize  the tests under AddressSanitizer, then ThreadSanitizer (.build-asan, .build-tsan)"
	@echo "make test-flakes  the flake hunt: the integration tests FLAKE_RUNS (5) times, FLAKE_LOAD=1 beside a busy"
	@echo "               loop on every core, FLAKE_SANITIZER=address for that build; a table of every test that failed"
	@echo "make soak      watch through 10,000 flaps, ping through 200,000 echoes: memory, fds, events (root)"
	@echo "make fuzz      libFuzzer on every parser, FUZZ_SECONDS (60) each; fails on a crash, leak or timeout"
	@echo "make lint      the man page (its option lists against the declarations too), swift format's rules,"
	@echo "               layout, shell and Python scripts, layers"
	@echo "make install   PREFIX=$(PREFIX) DESTDIR=: binary (stripped), man page, shell completions"
	@echo "make install-caps  opt-in: setcap cap_net_raw+p on the installed binary (reach ping as any user)"
	@echo "make deb      Debian packages reach and reach-exporter (debian/, release builds): .build/deb/"
	@echo "make test-deb  make deb, then install, check and purge the packages (root)"
	@echo "make link-order  rewrite $(LINK_ORDER) from callgrind runs of the release build (root)"
	@echo "make clean     remove build products"

deps:
	@scripts/install-deps.sh build

build: deps $(STATIC_CXX_SCRIPT)
	$(SWIFT) build $(RELEASE_FLAGS) --product reach

build-exporter: deps $(STATIC_CXX_SCRIPT)
	$(SWIFT) build $(EXPORTER_FLAGS) --product reach-exporter

.build/static-libstdc++/libstdc++.so:
	mkdir -p $(@D)
	echo "INPUT($(STATIC_CXX))" > $@

run: build
	$(BIN) status

# Unit tests run anywhere; the namespace tests need root and skip without it
# (in CI, where CI=true, they fail instead of skipping).
test:
	@scripts/install-deps.sh test
	$(SWIFT) build --build-tests
	SWIFT_BACKTRACE=enable=no $(SWIFT) test --skip-build

# The flake hunt (scripts/test-flakes.sh says its settings): the same tests run again and again,
# under load if asked, and every test that failed in any run listed with its count.
test-flakes:
	@scripts/install-deps.sh test
	scripts/test-flakes.sh

# Every part in turn (scripts/bench-all.py), then docs/BENCHMARKS.md rewritten from the run.
# Fails when a target is missed, or when a part was skipped (no root) unless BENCH_ALLOW_SKIP=1.
bench: build build-exporter
	$(SWIFT) build $(RELEASE_FLAGS) --product reach-parser-floor
	EXPORTER=$(EXPORTER_BIN) python3 scripts/bench-all.py

# The unit and integration tests under ASan (with LeakSanitizer) and TSan, each build in
# its own scratch path; suppressions with their reasons in scripts/sanitizers/.
test-sanitize:
	@scripts/install-deps.sh test
	scripts/test-sanitize.sh

# Long runs, bounded (a few minutes): figures printed, exit 1 if a target is missed.
soak: build
	python3 scripts/soak.py

# libFuzzer targets, built with swiftc -sanitize=fuzzer,address into .build/fuzz (not products).
fuzz:
	scripts/fuzz.sh

# The README stays the user's first page: at most 450 lines, details in the man pages.
# swift format's rules (naming, shorthand types, semicolons...) with the settings in
# .swift-format. Its whitespace check is off (--debug-disable-pretty-print): the code
# aligns end-of-line comments and wraps arguments its own way, and reformatting every
# file is not worth the churn. Layout is checked here instead: no tabs, no trailing
# blanks, at most 140 columns (generated fixtures, whose comments quote whole set-ups, aside).
SWIFT_FILES = $(shell find Sources Tests Benchmarks Fuzz -name '*.swift' -not -path '*/Fixtures/*') Package.swift

# Then ShellCheck on every shell script and a syntax check of every Python file
# (scripts/lint-scripts.sh), small pieces (scripts/lint-function-length.py: no function,
# accessor or closure over 60 lines, no file of more than 12 types, known offenders in
# scripts/lint-function-length.allow), and last the layers (scripts/lint-layers.sh, after
# its own test): only ReachSystem imports the C library, imports point down, and comments
# cite only what the repository holds. The checkers come with `scripts/install-deps.sh test`.
lint:
	@scripts/install-deps.sh test
	mandoc -Tlint -Wwarning man/reach.1 man/reach-exporter.1
	@lines=$$(wc -l < README.md); test "$$lines" -le 450 || { echo "README.md: $$lines lines, more than 450: details go to the man pages"; exit 1; }
	$(SWIFT) format lint --strict --debug-disable-pretty-print --recursive Sources Tests Benchmarks Fuzz Package.swift
	@awk '/\t/ { print FILENAME ":" FNR ": tab"; bad = 1 } \
	      / +$$/ { print FILENAME ":" FNR ": trailing blanks"; bad = 1 } \
	      length > 140 { print FILENAME ":" FNR ": " length " columns, more than 140"; bad = 1 } \
	      END { exit bad }' $(SWIFT_FILES)
	scripts/lint-scripts.sh
	scripts/lint-function-length.py --self-test
	scripts/lint-function-length.py
	scripts/lint-layers-test.sh
	scripts/lint-layers.sh
	$(SWIFT) build
	scripts/lint-options.py .build/debug/reach man/reach.1
	scripts/lint-options.py .build/debug/reach-exporter man/reach-exporter.1
	scripts/lint-option-literals.py --self-test
	scripts/lint-option-literals.py .build/debug/reach .build/debug/reach-exporter

# The binary is installed stripped (debug information and the static symbol table, more
# than half its size); its dynamic symbols stay, so a crash's backtrace still names functions.
# install-caps comes after: strip rewrites the file, which would drop the capability.
install: build build-exporter
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/reach
	$(STRIP) $(DESTDIR)$(PREFIX)/bin/reach
	install -m 0755 $(EXPORTER_BIN) $(DESTDIR)$(PREFIX)/bin/reach-exporter
	$(STRIP) $(DESTDIR)$(PREFIX)/bin/reach-exporter
	install -m 0644 man/reach.1 $(DESTDIR)$(PREFIX)/share/man/man1/reach.1
	install -m 0644 man/reach-exporter.1 $(DESTDIR)$(PREFIX)/share/man/man1/reach-exporter.1
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	           $(DESTDIR)$(ZSH_COMPLETIONS) \
	           $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	$(BIN) --generate-completion-script bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/reach
	$(BIN) --generate-completion-script zsh > $(DESTDIR)$(ZSH_COMPLETIONS)/_reach
	$(BIN) --generate-completion-script fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/reach.fish
	$(EXPORTER_BIN) --generate-completion-script bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/reach-exporter
	$(EXPORTER_BIN) --generate-completion-script zsh > $(DESTDIR)$(ZSH_COMPLETIONS)/_reach-exporter
	$(EXPORTER_BIN) --generate-completion-script fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/reach-exporter.fish

# The layout of the release link (above): functions run by short commands, from callgrind
# on a build linked with a map. Rerun when the start-up path changes much.
link-order: build
	rm -f $(BIN)
	$(SWIFT) build $(RELEASE_FLAGS) --product reach -Xlinker -Map=$(CURDIR)/.build/reach.map -Xlinker --no-demangle
	scripts/link-order.sh $(BIN) .build/reach.map > $(LINK_ORDER).new
	mv $(LINK_ORDER).new $(LINK_ORDER)
	rm -f $(BIN)
	$(MAKE) build

# Opt-in: lets every user's `reach ping` open a raw ICMP socket. Permitted only (+p), not
# +ep: reach raises CAP_NET_RAW itself around socket() and drops it after, and a +ep binary
# fails to start in containers whose bounding set lacks NET_RAW.
install-caps:
	setcap cap_net_raw+p $(DESTDIR)$(PREFIX)/bin/reach
	getcap $(DESTDIR)$(PREFIX)/bin/reach

# The two packages, from the release builds (debian/rules calls make build, build-exporter
# and install), into .build/deb; lintian checks them (no error, no warning: an override
# only with its reason, in debian/*.lintian-overrides).
deb:
	@scripts/install-deps.sh deb
	dpkg-checkbuilddeps
	debian/rules binary
	lintian --fail-on error,warning .build/deb/reach_$(DEB_VERSION)_$(DEB_ARCH).deb .build/deb/reach-exporter_$(DEB_VERSION)_$(DEB_ARCH).deb

DEB_VERSION = $(shell dpkg-parsechangelog -S Version 2>/dev/null)
DEB_ARCH = $(shell dpkg --print-architecture 2>/dev/null)

# Installs the packages on this machine, checks what they put there (the capability, the
# units under systemd-analyze, the exporter's answers inside a network namespace), purges
# them and checks nothing is left (root; CI runs it).
test-deb: deb
	scripts/test-deb.sh .build/deb/reach_$(DEB_VERSION)_$(DEB_ARCH).deb .build/deb/reach-exporter_$(DEB_VERSION)_$(DEB_ARCH).deb

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/reach $(DESTDIR)$(PREFIX)/share/man/man1/reach.1 \
	      $(DESTDIR)$(PREFIX)/bin/reach-exporter $(DESTDIR)$(PREFIX)/share/man/man1/reach-exporter.1 \
	      $(DESTDIR)$(PREFIX)/share/bash-completion/completions/reach \
	      $(DESTDIR)$(ZSH_COMPLETIONS)/_reach \
	      $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/reach.fish

clean:
	rm -rf .build .build-exporter
