#!/usr/bin/env bash
# Installs the Debian packages a target needs, only those missing.
#   scripts/install-deps.sh build   libcap-dev (to build reach)
#   scripts/install-deps.sh test    also what the tests start: iproute2, iputils-ping,
#                                   dnsmasq, nftables, hyperfine, mandoc, valgrind, python3,
#                                   procps, libcap2-bin, util-linux, strace, fping; and the
#                                   checkers of make lint besides swift format (mandoc,
#                                   python3 and shellcheck); and time, for make bench's
#                                   peak memory; prometheus, prometheus-blackbox-exporter and
#                                   prometheus-node-exporter (the exporter's and --textfile's
#                                   tests and make bench run them as plain processes) and wrk
#                                   (make bench's load)
set -euo pipefail
packages=(libcap-dev pkg-config)
if [ "${1:-build}" = test ]; then
  packages+=(iproute2 iputils-ping dnsmasq nftables hyperfine mandoc valgrind python3 procps libcap2-bin util-linux strace shellcheck time fping
    prometheus prometheus-blackbox-exporter prometheus-node-exporter wrk)
fi
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "reach: missing Debian packages: ${missing[*]}; run: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "installing: ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# dnsmasq's package starts a system-wide service; the tests start their own per namespace.
# So do prometheus's, prometheus-blackbox-exporter's and prometheus-node-exporter's: the
# tests start their own.
# Without systemd as init (a container), the packages' init scripts may have started them.
for service in dnsmasq prometheus prometheus-blackbox-exporter prometheus-node-exporter; do
  if command -v systemctl >/dev/null 2>&1; then systemctl disable --now "$service" >/dev/null 2>&1 || true; fi
  if [ -x "/etc/init.d/$service" ]; then "/etc/init.d/$service" stop >/dev/null 2>&1 || true; fi
done
