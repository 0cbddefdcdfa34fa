#!/usr/bin/env bash
# Installs the Debian packages a target needs, only those missing.
#   scripts/install-deps.sh build   libcap-dev, libyaml-dev, zlib1g-dev, libbrotli-dev (to build reach)
#   scripts/install-deps.sh deb     also debhelper and lintian (make deb, make test-deb)
#   scripts/install-deps.sh test    also what the tests start: iproute2, iputils-ping,
#                                   dnsmasq, nftables, hyperfine, mandoc, valgrind, python3,
#                                   procps, libcap2-bin, util-linux, strace, fping, traceroute,
#                                   mtr-tiny, chromium (the exporter's pages, headless); dbus-daemon,
#                                   python3-dbus and python3-pip, with python-dbusmock 0.38.1
#                                   downloaded from the Python package index into
#                                   .build/dbusmock (Debian 12's python3-dbusmock 0.28 has no
#                                   modemmanager template); prometheus,
#                                   prometheus-blackbox-exporter and prometheus-node-exporter
#                                   (the exporter's and --textfile's tests and make bench run
#                                   them as plain processes), nginx-light and
#                                   python3-cryptography (the https probes' server and
#                                   certificates), microsocks (a SOCKS5 proxy_url) and
#                                   wrk (make bench's load); and
#                                   the checkers of make lint besides swift format (mandoc,
#                                   python3 and shellcheck); and time, for make bench's peak
#                                   memory; and grpcio with grpcio-health-checking from
#                                   the Python package index into .build/grpc-health (the
#                                   grpc prober's tests run its health server); and
#                                   smokeping_prober 0.6.1 (prometheus-smokeping-prober,
#                                   apt-get download and dpkg-deb -x into .build/smokeping,
#                                   its service not installed) for the continuous prober's
#                                   tests and make bench
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(libcap-dev libyaml-dev zlib1g-dev libbrotli-dev pkg-config)
# make deb: debhelper and lintian; make test-deb adds what it checks with.
if [ "${1:-build}" = deb ]; then
  packages+=(debhelper lintian libcap2-bin systemd python3)
fi
if [ "${1:-build}" = test ]; then
  packages+=(iproute2 iputils-ping dnsmasq nftables hyperfine mandoc valgrind python3 procps libcap2-bin util-linux strace shellcheck time fping traceroute mtr-tiny)
  packages+=(dbus-daemon python3-dbus python3-pip)
  packages+=(zsh fish)
  packages+=(prometheus prometheus-blackbox-exporter prometheus-node-exporter wrk nginx-light python3-cryptography microsocks)
  # The exporter's pages are loaded in a real browser, headless.
  packages+=(chromium)
fi
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -ne 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "reach: missing Debian packages: ${missing[*]}; run: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
  echo "installing: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # dnsmasq's and nginx's packages start a system-wide service; the tests start their own per namespace.
  # So do prometheus's, prometheus-blackbox-exporter's and prometheus-node-exporter's: the
  # tests start their own. Without systemd as init (a container), the packages' init
  # scripts may have started them.
  for service in dnsmasq prometheus prometheus-blackbox-exporter prometheus-node-exporter nginx; do
    if command -v systemctl >/dev/null 2>&1; then systemctl disable --now "$service" >/dev/null 2>&1 || true; fi
    if [ -x "/etc/init.d/$service" ]; then "/etc/init.d/$service" stop >/dev/null 2>&1 || true; fi
  done
fi
# The ModemManager and NetworkManager the cellular tests run against (python-dbusmock's
# templates, pure Python, run by Debian's /usr/bin/python3 with python3-dbus).
if [ "${1:-build}" = test ]; then
  dbusmock=.build/dbusmock
  if [ ! -f "$dbusmock/python_dbusmock-0.38.1/dbusmock/templates/modemmanager.py" ]; then
    mkdir -p "$dbusmock"
    python3 -m pip download --quiet --disable-pip-version-check python-dbusmock==0.38.1 --no-deps --no-binary :all: -d "$dbusmock"
    tar -xzf "$dbusmock/python_dbusmock-0.38.1.tar.gz" -C "$dbusmock"
  fi
fi
# The gRPC health server the grpc prober's tests run (grpcio's own health service), for
# Debian's /usr/bin/python3: binary wheels only, into a tree of its own.
if [ "${1:-build}" = test ]; then
  grpc=.build/grpc-health
  if [ ! -f "$grpc/grpc_health/v1/health.py" ]; then
    /usr/bin/python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --only-binary :all: --target "$grpc" \
      grpcio==1.85.3 grpcio-health-checking==1.85.1 protobuf==7.36.2
  fi
fi
# smokeping_prober 0.6.1, Debian's, unpacked without installing its service: the continuous
# prober's tests and make bench run it beside reach-exporter.
if [ "${1:-build}" = test ]; then
  smokeping=.build/smokeping
  if [ ! -x "$smokeping/usr/bin/prometheus-smokeping-prober" ]; then
    mkdir -p "$smokeping"
    # A machine whose packages were all present has run no apt-get update: lists may be empty.
    (cd "$smokeping" && { apt-get download prometheus-smokeping-prober 2>/dev/null \
        || { apt-get update -qq && apt-get download prometheus-smokeping-prober; }; })
    dpkg-deb -x "$smokeping"/prometheus-smokeping-prober_*.deb "$smokeping"
  fi
fi
