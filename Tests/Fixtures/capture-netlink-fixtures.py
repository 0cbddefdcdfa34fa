#!/usr/bin/env python3
"""Captures real rtnetlink replies for the pure decoding tests.

Not a test, and not run by `make test`: it made the fixtures in
Tests/ReachCoreTests/Fixtures/CapturedReply.swift, and remakes them on demand.

    sudo python3 Tests/Fixtures/capture-netlink-fixtures.py \
        > Tests/ReachCoreTests/Fixtures/CapturedReply.swift

It needs root (`ip netns add`). It builds a private topology in two network
namespaces of its own (rch-unit-cap, rch-unit-peer), sends the RTM_GETROUTE /
RTM_GETLINK requests that reach itself encodes (the bytes the encoding tests pin),
and prints every datagram the kernel answered as a commented hex literal, one
comment per field. No packet leaves the namespaces: route lookups send nothing,
and the only addresses used are the test ranges (198.18.0.0/15, 198.51.100.0/24,
203.0.113.0/24, 2001:db8::/32). The namespaces are deleted even on failure.

Netlink integers are host-endian: fixtures captured on x86_64 are little-endian.
Indices, port ids and cache lifetimes differ from one capture to the next, so
remaking the fixtures means updating the values the tests expect.
"""
import ast
import datetime
import fcntl
import os
import platform
import socket
import struct
import subprocess
import sys
import time

CAP = "rch-unit-cap"
PEER = "rch-unit-peer"

NLM_F_REQUEST, NLM_F_MULTI, NLM_F_ACK = 0x1, 0x2, 0x4
NLM_F_DUMP = 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
RTM_NEWLINK, RTM_GETLINK, RTM_NEWROUTE, RTM_GETROUTE = 16, 18, 24, 26
AF_INET, AF_INET6 = 2, 10
RTA_DST, RTA_OIF = 1, 4
IFLA_EXT_MASK = 29
RTEXT_FILTER_SKIP_STATS = 1 << 3
SOL_NETLINK, NETLINK_EXT_ACK = 270, 11

MESSAGE_TYPES = {1: "NLMSG_NOOP", 2: "NLMSG_ERROR", 3: "NLMSG_DONE", 4: "NLMSG_OVERRUN",
                 16: "RTM_NEWLINK", 18: "RTM_GETLINK", 24: "RTM_NEWROUTE", 26: "RTM_GETROUTE"}
MESSAGE_FLAGS = [(0x1, "NLM_F_REQUEST"), (0x2, "NLM_F_MULTI"), (0x4, "NLM_F_ACK"), (0x8, "NLM_F_ECHO"),
                 (0x10, "NLM_F_DUMP_INTR"), (0x20, "NLM_F_DUMP_FILTERED"), (0x100, "NLM_F_ROOT / NLM_F_CAPPED"),
                 (0x200, "NLM_F_MATCH / NLM_F_ACK_TLVS")]
RTA_NAMES = {1: "RTA_DST", 2: "RTA_SRC", 3: "RTA_IIF", 4: "RTA_OIF", 5: "RTA_GATEWAY", 6: "RTA_PRIORITY",
             7: "RTA_PREFSRC", 8: "RTA_METRICS", 9: "RTA_MULTIPATH", 11: "RTA_FLOW", 12: "RTA_CACHEINFO",
             15: "RTA_TABLE", 16: "RTA_MARK", 18: "RTA_VIA", 20: "RTA_PREF", 23: "RTA_EXPIRES",
             25: "RTA_UID", 26: "RTA_TTL_PROPAGATE", 30: "RTA_NH_ID"}
IFLA_NAMES = {7: "IFLA_STATS", 23: "IFLA_STATS64", 1: "IFLA_ADDRESS", 2: "IFLA_BROADCAST", 3: "IFLA_IFNAME", 4: "IFLA_MTU", 5: "IFLA_LINK",
              6: "IFLA_QDISC", 10: "IFLA_MASTER", 13: "IFLA_TXQLEN", 14: "IFLA_MAP", 16: "IFLA_OPERSTATE",
              17: "IFLA_LINKMODE", 18: "IFLA_LINKINFO", 20: "IFLA_IFALIAS", 21: "IFLA_NUM_VF",
              26: "IFLA_AF_SPEC", 27: "IFLA_GROUP", 30: "IFLA_PROMISCUITY", 31: "IFLA_NUM_TX_QUEUES",
              32: "IFLA_NUM_RX_QUEUES", 33: "IFLA_CARRIER", 35: "IFLA_CARRIER_CHANGES", 37: "IFLA_LINK_NETNSID",
              39: "IFLA_PROTO_DOWN", 40: "IFLA_GSO_MAX_SEGS", 41: "IFLA_GSO_MAX_SIZE", 43: "IFLA_XDP",
              47: "IFLA_CARRIER_UP_COUNT", 48: "IFLA_CARRIER_DOWN_COUNT", 50: "IFLA_MIN_MTU",
              51: "IFLA_MAX_MTU", 52: "IFLA_PROP_LIST", 54: "IFLA_PERM_ADDRESS", 58: "IFLA_GRO_MAX_SIZE",
              59: "IFLA_TSO_MAX_SIZE", 60: "IFLA_TSO_MAX_SEGS", 61: "IFLA_ALLMULTI", 63: "IFLA_GSO_IPV4_MAX_SIZE",
              64: "IFLA_GRO_IPV4_MAX_SIZE"}
IFLA_INFO_NAMES = {1: "IFLA_INFO_KIND", 2: "IFLA_INFO_DATA", 3: "IFLA_INFO_XSTATS", 4: "IFLA_INFO_SLAVE_KIND",
                   5: "IFLA_INFO_SLAVE_DATA"}
NLMSGERR_NAMES = {1: "NLMSGERR_ATTR_MSG", 2: "NLMSGERR_ATTR_OFFS", 3: "NLMSGERR_ATTR_COOKIE",
                  4: "NLMSGERR_ATTR_POLICY", 5: "NLMSGERR_ATTR_MISS_TYPE", 6: "NLMSGERR_ATTR_MISS_NEST"}
IFF_NAMES = [(0x1, "UP"), (0x2, "BROADCAST"), (0x8, "LOOPBACK"), (0x10, "POINTOPOINT"), (0x40, "RUNNING"),
             (0x80, "NOARP"), (0x100, "PROMISC"), (0x1000, "MULTICAST"), (0x10000, "LOWER_UP"),
             (0x20000, "DORMANT")]
OPERSTATES = ["unknown", "notpresent", "down", "lowerlayerdown", "testing", "dormant", "up"]
ROUTE_TYPES = ["RTN_UNSPEC", "RTN_UNICAST", "RTN_LOCAL", "RTN_BROADCAST", "RTN_ANYCAST", "RTN_MULTICAST",
               "RTN_BLACKHOLE", "RTN_UNREACHABLE", "RTN_PROHIBIT", "RTN_THROW"]
ROUTE_FLAGS = [(0x1, "RTNH_F_DEAD"), (0x4, "RTNH_F_ONLINK"), (0x10, "RTNH_F_LINKDOWN"), (0x200, "RTM_F_CLONED"),
               (0x1000, "RTM_F_LOOKUP_TABLE"), (0x2000, "RTM_F_FIB_MATCH"), (0x80000000, "RTCF_LOCAL")]
SCOPES = {0: "RT_SCOPE_UNIVERSE", 200: "RT_SCOPE_SITE", 253: "RT_SCOPE_LINK", 254: "RT_SCOPE_HOST"}
ERRNO_NAMES = {0: "0 (ACK)", -19: "-ENODEV", -22: "-EINVAL", -13: "-EACCES", -101: "-ENETUNREACH",
               -113: "-EHOSTUNREACH"}


# ---------------------------------------------------------------- requests (as reach encodes them)

def attribute(kind, value):
    length = 4 + len(value)
    return struct.pack("=HH", length, kind) + value + b"\0" * ((4 - length % 4) % 4)


def message(kind, flags, sequence, payload):
    return struct.pack("=IHHII", 16 + len(payload), kind, flags, sequence, 0) + payload


def route_lookup(address, oif=None, flags=0):
    family = AF_INET6 if ":" in address else AF_INET
    raw = socket.inet_pton(family, address)
    payload = struct.pack("=BBBBBBBBI", family, len(raw) * 8, 0, 0, 0, 0, 0, 0, flags) + attribute(RTA_DST, raw)
    if oif is not None:
        payload += attribute(RTA_OIF, struct.pack("=I", oif))
    return payload


def link_request(index):
    return struct.pack("=BBHiII", 0, 0, 0, index, 0, 0) + attribute(IFLA_EXT_MASK, struct.pack("=I", RTEXT_FILTER_SKIP_STATS))


def exchange(kind, payload, flags=NLM_F_REQUEST, sequence=1):
    """Sends one request on a fresh socket (as reach does: sequence 1) and returns
    every datagram up to the end of the answer."""
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    try:
        sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        sock.bind((0, 0))
        sock.send(message(kind, flags, sequence, payload))
        datagrams = []
        want_ack = bool(flags & NLM_F_ACK)
        while True:
            data = sock.recv(65536)
            datagrams.append(data)
            kinds = [struct.unpack_from("=IH", data, offset)[1] for offset in offsets(data)]
            multi = any(struct.unpack_from("=IHH", data, o)[2] & NLM_F_MULTI for o in offsets(data))
            if NLMSG_ERROR in kinds or NLMSG_DONE in kinds:
                return datagrams
            if not multi and not want_ack:
                return datagrams
    finally:
        sock.close()


def offsets(data):
    offset = 0
    while offset + 16 <= len(data):
        yield offset
        length = struct.unpack_from("=I", data, offset)[0]
        offset += (length + 3) & ~3


# ---------------------------------------------------------------- annotation

def hexline(data, comment, indent):
    words = " ".join(data[i:i + 4].hex() for i in range(0, len(data), 4))
    return f"{indent}{words:<38}// {comment}" if comment else f"{indent}{words}"


def chunked(data, comment, indent, width=16):
    lines = [hexline(data[:width], comment, indent)]
    for start in range(width, len(data), width):
        lines.append(hexline(data[start:start + width], "  ...", indent))
    return lines


def flag_names(value, names):
    found = [name for bit, name in names if value & bit]
    return "|".join(found) if found else "0"


def address_text(value):
    if len(value) == 4:
        return socket.inet_ntop(AF_INET, value)
    if len(value) == 16:
        return socket.inet_ntop(AF_INET6, value)
    return value.hex()


def text(value):
    return value.rstrip(b"\0").decode()


def describe_route_attribute(kind, value):
    name = RTA_NAMES.get(kind, f"type {kind}")
    if kind in (RTA_DST, 2, 5, 7) and len(value) in (4, 16):
        return f"{name} {address_text(value)}"
    if kind in (3, 4, 6, 15, 16, 25) and len(value) == 4:
        return f"{name} {struct.unpack('=I', value)[0]}"
    if kind == 18:
        family = struct.unpack_from("=H", value)[0]
        return f"{name} family {family}, {address_text(value[2:])}"
    if kind == 20:
        return f"{name} {value[0]}"
    return name


def describe_link_attribute(kind, value):
    name = IFLA_NAMES.get(kind, f"type {kind} (newer than this machine's <linux/if_link.h>)")
    if kind in (3, 6, 20):
        return f'{name} "{text(value)}"'
    if kind in (16, 17, 33, 39):
        extra = f" ({OPERSTATES[value[0]]})" if kind == 16 and value[0] < len(OPERSTATES) else ""
        return f"{name} {value[0]}{extra}"
    if len(value) == 4 and kind not in (1, 2, 54):
        return f"{name} {struct.unpack('=I', value)[0]}"
    if kind in (1, 2, 54):
        return f"{name} {':'.join(f'{b:02x}' for b in value)}"
    return name


def attributes(data, describe, indent, nested=None):
    lines = []
    offset = 0
    while offset + 4 <= len(data):
        length, kind = struct.unpack_from("=HH", data, offset)
        value = data[offset + 4:offset + length]
        padded = (length + 3) & ~3
        header = data[offset:offset + 4]
        label = describe(kind & 0x3fff, value) + f" (rta_len {length})"
        if nested and (kind & 0x3fff) in nested:
            lines.append(hexline(header, label + ", nested:", indent))
            lines += attributes(data[offset + 4:offset + padded], nested[kind & 0x3fff], indent + "    ")
        else:
            lines += chunked(data[offset:offset + padded], label, indent)
        offset += padded
    return lines


def describe_info_attribute(kind, value):
    name = IFLA_INFO_NAMES.get(kind, f"type {kind}")
    if kind in (1, 4):
        return f'{name} "{text(value)}"'
    return name


def describe_error_attribute(kind, value):
    name = NLMSGERR_NAMES.get(kind, f"type {kind}")
    if kind == 1:
        return f'{name} "{text(value)}"'
    if kind == 2:
        return f"{name} {struct.unpack('=I', value)[0]}"
    return name


def annotate(datagram, indent="    "):
    lines = []
    for offset in offsets(datagram):
        length, kind, flags, sequence, port = struct.unpack_from("=IHHII", datagram, offset)
        body = datagram[offset + 16:offset + length]
        h = datagram[offset:offset + 16]
        lines += [
            hexline(h[0:4], f"nlmsg_len {length}", indent),
            hexline(h[4:6], f"nlmsg_type {MESSAGE_TYPES.get(kind, kind)} ({kind})", indent),
            hexline(h[6:8], f"nlmsg_flags {flag_names(flags, MESSAGE_FLAGS)}", indent),
            hexline(h[8:12], f"nlmsg_seq {sequence}", indent),
            hexline(h[12:16], f"nlmsg_pid {port} (the receiving socket's port id)", indent),
        ]
        if kind == RTM_NEWROUTE:
            f = struct.unpack_from("=BBBBBBBBI", body)
            lines += [
                hexline(body[0:1], f"rtm_family {'AF_INET' if f[0] == AF_INET else 'AF_INET6'}", indent),
                hexline(body[1:2], f"rtm_dst_len {f[1]}", indent),
                hexline(body[2:3], f"rtm_src_len {f[2]}", indent),
                hexline(body[3:4], f"rtm_tos {f[3]}", indent),
                hexline(body[4:5], f"rtm_table {f[4]}", indent),
                hexline(body[5:6], f"rtm_protocol {f[5]}", indent),
                hexline(body[6:7], f"rtm_scope {SCOPES.get(f[6], f[6])}", indent),
                hexline(body[7:8], f"rtm_type {ROUTE_TYPES[f[7]] if f[7] < len(ROUTE_TYPES) else f[7]}", indent),
                hexline(body[8:12], f"rtm_flags {flag_names(f[8], ROUTE_FLAGS)}", indent),
            ]
            lines += attributes(body[12:], describe_route_attribute, indent)
        elif kind == RTM_NEWLINK:
            family, _, hwtype, index, iff, change = struct.unpack_from("=BBHiII", body)
            lines += [
                hexline(body[0:2], f"ifi_family {family}, pad", indent),
                hexline(body[2:4], f"ifi_type {hwtype} (ARPHRD)", indent),
                hexline(body[4:8], f"ifi_index {index}", indent),
                hexline(body[8:12], f"ifi_flags {flag_names(iff, IFF_NAMES)}", indent),
                hexline(body[12:16], f"ifi_change 0x{change:x}", indent),
            ]
            lines += attributes(body[16:], describe_link_attribute, indent, nested={18: describe_info_attribute})
        elif kind == NLMSG_ERROR:
            error = struct.unpack_from("=i", body)[0]
            lines.append(hexline(body[0:4], f"error {ERRNO_NAMES.get(error, error)}", indent))
            echoed = struct.unpack_from("=I", body, 4)[0]
            capped = flags & 0x100
            echo_length = 16 if capped else echoed
            lines += chunked(body[4:4 + echo_length], f"the request echoed ({'header only' if capped else f'{echoed} bytes'})", indent)
            if flags & 0x200:
                lines += attributes(body[4 + echo_length:], describe_error_attribute, indent)
        elif kind == NLMSG_DONE:
            lines.append(hexline(body[0:4], f"NLMSG_DONE status {struct.unpack_from('=i', body)[0]}", indent))
            if len(body) > 4:
                lines += attributes(body[4:], describe_error_attribute, indent)
        else:
            lines += chunked(body, "payload", indent)
    return lines


# ---------------------------------------------------------------- topology

def run(*command, namespace=None, check=True):
    prefix = ["ip", "netns", "exec", namespace] if namespace else []
    subprocess.run(prefix + list(command), check=check, stdout=subprocess.DEVNULL)


def sh(namespace, text):
    for line in text.strip().splitlines():
        run(*line.split(), namespace=namespace)


def index_of(name):
    return socket.if_nametoindex(name)


def set_up():
    run("ip", "netns", "add", CAP)
    run("ip", "netns", "add", PEER)
    sh(CAP, f"""
        ip link set lo up
        ip link add u0 type veth peer name u0p netns {PEER}
        ip addr add 198.18.0.1/24 dev u0
        ip addr add 2001:db8:1::1/64 dev u0 nodad
        ip link set u0 up
        ip link add u1 type veth peer name u1p
        ip addr add 198.18.1.1/24 dev u1
        ip link set u1 up
        ip link add u2 type veth peer name u2p
        ip link set u2p up
        ip link set u2 mode dormant
        ip link set u2 up
        ip link add u3 type veth peer name u3p
        ip tuntap add dev utun0 mode tun
        ip addr add 198.18.5.1 peer 198.18.5.2 dev utun0
        ip link set utun0 up
        ip tuntap add dev utap0 mode tap
        ip link add ubr0 type bridge
        ip link add uvx0 type vxlan id 42 dstport 4789 local 198.18.0.1 dev u0
        ip link add umv0 link u0 type macvlan mode bridge
        ip link set uvx0 up
        ip link set umv0 up
        ip rule add to 203.0.113.0/25 table 100 priority 100
        ip route add 203.0.113.0/25 via 198.18.0.2 src 198.18.0.1 table 100
        ip route add 203.0.113.128/25 via inet6 2001:db8:1::2 dev u0
        ip route add unreachable 198.51.100.0/26
        ip route add blackhole 198.51.100.64/26
        ip route add prohibit 198.51.100.128/26
        ip route add throw 198.51.100.192/26
        ip -6 route add 2001:db8:2::/48 via 2001:db8:1::2
        ip -6 route add unreachable 2001:db8:f1::/48
        ip -6 route add blackhole 2001:db8:f2::/48
        ip -6 route add prohibit 2001:db8:f3::/48
    """)
    sh(PEER, """
        ip link set lo up
        ip addr add 198.18.0.2/24 dev u0p
        ip addr add 2001:db8:1::2/64 dev u0p nodad
        ip link set u0p up
    """)


def tear_down():
    for namespace in (CAP, PEER):
        subprocess.run(["ip", "netns", "del", namespace], stderr=subprocess.DEVNULL)


def attach_tun(name):
    """Opens /dev/net/tun and attaches to `name`, as a VPN client would (carrier comes up)."""
    fd = os.open("/dev/net/tun", os.O_RDWR)
    IFF_TUN, IFF_NO_PI, TUNSETIFF = 0x0001, 0x1000, 0x400454CA
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
    return fd


# ---------------------------------------------------------------- captures (run inside CAP)

def captures():
    route = lambda address, oif=None: exchange(RTM_GETROUTE, route_lookup(address, oif))
    link = lambda name: exchange(RTM_GETLINK, link_request(index_of(name)))
    items = [
        ("routeViaGatewayInTable100", "RTM_GETROUTE 203.0.113.7: an `ip rule` sends it to table 100, "
         "`203.0.113.0/25 via 198.18.0.2 src 198.18.0.1` (unicast, gateway, oif u0, prefsrc). Without "
         "RTM_F_LOOKUP_TABLE the IPv4 answer names table 254 (main) whatever table matched",
         route("203.0.113.7")),
        ("routeViaGatewayLookupTable", "RTM_GETROUTE 203.0.113.7 as above, with RTM_F_LOOKUP_TABLE in rtm_flags "
         "(not what reach sends): the table the route came from, 100",
         exchange(RTM_GETROUTE, route_lookup("203.0.113.7", flags=0x1000))),
        ("routeDirectIPv4", "RTM_GETROUTE 198.18.0.2: the connected /24 on u0 (no gateway)", route("198.18.0.2")),
        ("routeViaIPv6NextHop", "RTM_GETROUTE 203.0.113.200: `203.0.113.128/25 via inet6 2001:db8:1::2 dev u0` (RTA_VIA)",
         route("203.0.113.200")),
        ("routeLocalOwnAddress", "RTM_GETROUTE 198.18.0.1: our own address on u0 (RTN_LOCAL, oif lo)", route("198.18.0.1")),
        ("routeLocalLoopback", "RTM_GETROUTE 127.0.0.1 (RTN_LOCAL, oif lo)", route("127.0.0.1")),
        ("routeIPv6ViaGateway", "RTM_GETROUTE 2001:db8:2::5: `2001:db8:2::/48 via 2001:db8:1::2`", route("2001:db8:2::5")),
        ("routeIPv6LinkLocalWithZone", "RTM_GETROUTE fe80::2 with RTA_OIF = u0's index (fe80::2%u0)",
         route("fe80::2", index_of("u0"))),
        ("routeIPv6Loopback", "RTM_GETROUTE ::1 (RTN_LOCAL)", route("::1")),
        ("routeNoCarrier", "RTM_GETROUTE 198.18.1.2: connected /24 on u1, whose peer u1p is down (no carrier)",
         route("198.18.1.2")),
        ("routePointToPointTun", "RTM_GETROUTE 198.18.5.2: the peer of `198.18.5.1 peer 198.18.5.2 dev utun0`",
         route("198.18.5.2")),
        ("errorNoRoute", "RTM_GETROUTE 198.19.0.1: no route, no default (ENETUNREACH)", route("198.19.0.1")),
        ("errorThrowRoute", "RTM_GETROUTE 198.51.100.200: `throw 198.51.100.192/26` (ENETUNREACH)", route("198.51.100.200")),
        ("errorUnreachableRoute", "RTM_GETROUTE 198.51.100.1: `unreachable 198.51.100.0/26` (EHOSTUNREACH)", route("198.51.100.1")),
        ("errorBlackholeRoute", "RTM_GETROUTE 198.51.100.65: `blackhole 198.51.100.64/26` (EINVAL)", route("198.51.100.65")),
        ("errorProhibitRoute", "RTM_GETROUTE 198.51.100.129: `prohibit 198.51.100.128/26` (EACCES)", route("198.51.100.129")),
        ("errorIPv6NoRoute", "RTM_GETROUTE 2001:db8:ff::1: no IPv6 route (ENETUNREACH)", route("2001:db8:ff::1")),
        ("errorIPv6UnreachableRoute", "RTM_GETROUTE 2001:db8:f1::1: `unreachable 2001:db8:f1::/48`", route("2001:db8:f1::1")),
        ("errorIPv6BlackholeRoute", "RTM_GETROUTE 2001:db8:f2::1: `blackhole 2001:db8:f2::/48`", route("2001:db8:f2::1")),
        ("errorIPv6ProhibitRoute", "RTM_GETROUTE 2001:db8:f3::1: `prohibit 2001:db8:f3::/48`", route("2001:db8:f3::1")),
        ("routeWithAcknowledgement", "RTM_GETROUTE 198.18.0.2 sent with NLM_F_ACK: the route, then an ACK (error 0)",
         exchange(RTM_GETROUTE, route_lookup("198.18.0.2"), flags=NLM_F_REQUEST | NLM_F_ACK)),
        ("errorNoSuchLink", "RTM_GETLINK index 9999: no such link (ENODEV)", exchange(RTM_GETLINK, link_request(9999))),
        ("linkLoopback", "RTM_GETLINK lo", link("lo")),
        ("linkVeth", "RTM_GETLINK u0: veth, up, peer up in rch-unit-peer", link("u0")),
        ("linkVethNoCarrier", "RTM_GETLINK u1: veth, up, its peer u1p down (NO-CARRIER, lowerlayerdown)", link("u1")),
        ("linkVethDormant", "RTM_GETLINK u2: veth in `mode dormant`, up, peer up (operstate dormant)", link("u2")),
        ("linkVethAdminDown", "RTM_GETLINK u3: veth never set up", link("u3")),
        ("linkTunDetached", "RTM_GETLINK utun0: `ip tuntap add mode tun`, up, no process attached (no carrier)", link("utun0")),
    ]
    fd = attach_tun("utun0")
    try:
        time.sleep(1.5)
        items += [
            ("linkTunAttached", "RTM_GETLINK utun0 while this script holds it open (TUNSETIFF)", link("utun0")),
            ("routePointToPointTunAttached", "RTM_GETROUTE 198.18.5.2 through utun0 while attached", route("198.18.5.2")),
        ]
    finally:
        os.close(fd)
    items += [
        ("linkTap", "RTM_GETLINK utap0: `ip tuntap add mode tap` (kind tun, ARPHRD_ETHER)", link("utap0")),
        ("linkBridge", "RTM_GETLINK ubr0: bridge", link("ubr0")),
        ("linkVxlan", "RTM_GETLINK uvx0: vxlan id 42 over u0", link("uvx0")),
        ("linkMacvlan", "RTM_GETLINK umv0: macvlan on u0", link("umv0")),
    ]
    return items


def peer_captures():
    dump = exchange(RTM_GETLINK, link_request(0), flags=NLM_F_REQUEST | NLM_F_DUMP)
    return [("linkDump", "RTM_GETLINK with NLM_F_DUMP in rch-unit-peer (lo and the veth u0p): "
             "NLM_F_MULTI messages, then NLMSG_DONE", dump)]


def emit(items):
    print("// Generated by Tests/Fixtures/capture-netlink-fixtures.py: real kernel replies to the requests")
    print("// reach encodes, captured inside network namespaces the script created and deleted")
    print(f"// (kernel {platform.release()}, {platform.machine()}, {datetime.date.today().isoformat()}).")
    print("// Netlink integers are host-endian: these are little-endian. Each fixture is the")
    print("// datagrams the kernel sent for one request, in order; `//` comments name each field.")
    print("// Remake: sudo python3 Tests/Fixtures/capture-netlink-fixtures.py > Tests/ReachCoreTests/Fixtures/CapturedReply.swift")
    print("// (indices and port ids change between captures: update the tests' expectations).")
    print("enum CapturedReply {")
    for name, what, datagrams in items:
        print(f"    /// {what}")
        print(f"    static let {name}: [[UInt8]] = [")
        for datagram in datagrams:
            print('        hex("""')
            for line in annotate(datagram, indent="            "):
                print(line.rstrip())
            print('            """),')
        print("    ]")
        print()
    print("}")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--inside":
        items = captures() if sys.argv[2] == "cap" else peer_captures()
        sys.stdout.buffer.write(repr(items).encode())
        return
    if os.geteuid() != 0:
        sys.exit("capture-netlink-fixtures: needs root (ip netns add)")
    tear_down()
    try:
        set_up()
        time.sleep(2)  # linkwatch applies operstate changes asynchronously (up to a second)
        items = []
        for namespace, which in ((CAP, "cap"), (PEER, "peer")):
            out = subprocess.run(["ip", "netns", "exec", namespace, sys.executable, os.path.abspath(__file__),
                                  "--inside", which], check=True, stdout=subprocess.PIPE).stdout
            items += ast.literal_eval(out.decode())
        emit(items)
    finally:
        tear_down()


if __name__ == "__main__":
    main()
