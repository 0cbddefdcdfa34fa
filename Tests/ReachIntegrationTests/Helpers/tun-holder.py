"""Holds a tun (or tap) device open, so that it has carrier while this process lives.

    python3 tun-holder.py DEVICE tun|tap

The device is made beforehand with `ip tuntap add` (persistent, so it outlives this
process); TUNSETIFF with IFF_TUN | IFF_NO_PI (IFF_TAP with `tap`) on /dev/net/tun
attaches to it. Prints `attached` once the device is held, then waits until its standard
input closes (the harness closes it, or stops the process).
"""
import fcntl, os, struct, sys

TUNSETIFF = 0x400454ca
IFF_TUN, IFF_TAP, IFF_NO_PI = 0x0001, 0x0002, 0x1000
mode = IFF_TAP if sys.argv[2] == "tap" else IFF_TUN
fd = os.open("/dev/net/tun", os.O_RDWR)
fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", sys.argv[1].encode(), mode | IFF_NO_PI))
print("attached", flush=True)
sys.stdin.read()  # until the test closes our stdin or ends
