#!/usr/bin/env python3
"""Captures real D-Bus messages for the codec tests.

Not a test, and not run by `make test`: it made the fixtures in
Tests/ReachCoreTests/Fixtures/CapturedDBus.swift, and remakes them on demand.

    /usr/bin/python3 Tests/Fixtures/capture-dbus-fixtures.py DBUSMOCK_TREE \\
        > Tests/ReachCoreTests/Fixtures/CapturedDBus.swift

DBUSMOCK_TREE is an unpacked python-dbusmock 0.38.1 (`pip download
python-dbusmock==0.38.1 --no-deps --no-binary :all:`). The script starts a private
dbus-daemon on a socket in a temporary directory and python-dbusmock's
`modemmanager` and `networkmanager` templates on it (with Debian's /usr/bin/python3
and python3-dbus), connects a raw socket, logs in and asks what reach asks, and prints
every message the bus sent back as a commented hex literal, one comment per value.
Nothing leaves the machine: the bus is a unix socket of its own. Unique names and
serials differ between captures; the tests expect the values of this capture.
"""
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/><allow own="*"/>
    <allow send_type="method_call"/><allow send_type="signal"/>
    <allow send_type="method_return"/><allow send_type="error"/>
    <allow receive_type="method_call"/><allow receive_type="signal"/>
    <allow receive_type="method_return"/><allow receive_type="error"/>
  </policy>
</busconfig>
"""

MM = "org.freedesktop.ModemManager1"
NM = "org.freedesktop.NetworkManager"
MODEM = "/org/freedesktop/ModemManager1/Modems/8"
MOCK = "org.freedesktop.DBus.Mock"
FIELDS = {1: "PATH", 2: "INTERFACE", 3: "MEMBER", 4: "ERROR_NAME", 5: "REPLY_SERIAL", 6: "DESTINATION",
          7: "SENDER", 8: "SIGNATURE", 9: "UNIX_FDS"}
KINDS = {1: "METHOD_CALL", 2: "METHOD_RETURN", 3: "ERROR", 4: "SIGNAL"}
ALIGN = {"y": 1, "g": 1, "v": 1, "n": 2, "q": 2, "b": 4, "i": 4, "u": 4, "s": 4, "o": 4, "h": 4, "a": 4,
         "x": 8, "t": 8, "d": 8, "(": 8, "{": 8}


def pad(data, alignment):
    while len(data) % alignment:
        data.append(0)


def call(serial, destination, path, interface, member, strings=(), flags=0x2):
    """A little-endian method call whose arguments are strings (all reach sends)."""
    fields = bytearray()

    def field(code, signature, value):
        pad(fields, 8)
        fields.append(code)
        fields.extend(bytes([1]) + signature.encode() + b"\0")
        if signature == "g":
            fields.extend(bytes([len(value)]) + value.encode() + b"\0")
        else:
            pad_to = (len(fields) + 16 + 3) // 4 * 4 - 16
            fields.extend(bytes(pad_to - len(fields)))
            fields.extend(struct.pack("<I", len(value.encode())) + value.encode() + b"\0")

    field(1, "o", path)
    field(2, "s", interface)
    field(3, "s", member)
    field(6, "s", destination)
    if strings:
        field(8, "g", "s" * len(strings))
    body = bytearray()
    for text in strings:
        pad(body, 4)
        body.extend(struct.pack("<I", len(text.encode())) + text.encode() + b"\0")
    header = bytearray(b"l" + bytes([1, flags, 1]) + struct.pack("<III", len(body), serial, len(fields)))
    header.extend(fields)
    pad(header, 8)
    return bytes(header + body)


class Connection:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.buffer = b""
        self.serial = 0
        uid = str(os.getuid()).encode().hex()
        self.sock.sendall(b"\0AUTH EXTERNAL " + uid.encode() + b"\r\nBEGIN\r\n")
        while b"\r\n" not in self.buffer:
            self.buffer += self.sock.recv(4096)
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        assert line.startswith(b"OK "), line

    def send(self, *arguments, **keywords):
        self.serial += 1
        self.sock.sendall(call(self.serial, *arguments, **keywords))
        return self.serial

    def message(self, timeout=5):
        self.sock.settimeout(timeout)
        while True:
            if len(self.buffer) >= 16:
                body, fields = struct.unpack_from("<I", self.buffer, 4)[0], struct.unpack_from("<I", self.buffer, 12)[0]
                total = 16 + (fields + 7) // 8 * 8 + body
                if len(self.buffer) >= total:
                    message, self.buffer = self.buffer[:total], self.buffer[total:]
                    return message
            self.buffer += self.sock.recv(65536)

    def reply(self, serial):
        while True:
            message = self.message()
            if message[1] in (2, 3) and reply_serial(message) == serial:
                return message


def reply_serial(message):
    return header_fields(message).get(5)


def header_fields(message):
    reader = Reader(message)
    reader.offset = 12
    values = {}
    for (_, code), (_, (_, value)) in reader.value("a(yv)")[1]:
        values[code] = value
    return values


class Reader:
    """Reads values and notes, per value, its bytes (padding included) and a comment."""

    def __init__(self, data):
        self.data = data
        self.offset = 0
        self.lines = []

    def take(self, alignment, size, comment, fmt=None):
        start = self.offset
        self.offset = (self.offset + alignment - 1) // alignment * alignment + size
        value = struct.unpack_from(fmt, self.data, self.offset - size)[0] if fmt else None
        self.lines.append((self.data[start:self.offset], comment(value) if callable(comment) else comment))
        return value

    def value(self, signature, label=""):
        kind = signature[0]
        simple = {"y": "<B", "b": "<I", "n": "<h", "q": "<H", "i": "<i", "u": "<I", "x": "<q", "t": "<Q",
                  "d": "<d", "h": "<I"}
        if kind in simple:
            size = struct.calcsize(simple[kind])
            return kind, self.take(ALIGN[kind], size, lambda v: f"{label}{kind} {v}", simple[kind])
        if kind in "so":
            length = self.take(4, 4, f"{label}length", "<I")
            text = self.data[self.offset:self.offset + length].decode()
            self.take(1, length + 1, f"{label}{kind} {text!r} + NUL")
            return kind, text
        if kind == "g":
            length = self.take(1, 1, f"{label}signature length", "<B")
            text = self.data[self.offset:self.offset + length].decode()
            self.take(1, length + 1, f"{label}g {text!r} + NUL")
            return kind, text
        if kind == "v":
            _, inner = self.value("g", f"{label}variant ")
            return kind, self.value(inner, label)
        if kind == "a":
            element = complete(signature[1:])
            length = self.take(4, 4, f"{label}array length", "<I")
            start = self.offset
            alignment = ALIGN[element[0]]
            self.take(alignment, 0, f"{label}(padding to {alignment})")
            end = (start + alignment - 1) // alignment * alignment + length
            items = []
            while self.offset < end:
                items.append(self.value(element, label))
            return kind, items
        if kind in "({":
            self.take(8, 0, f"{label}(padding to 8)")
            fields = []
            for part in split(signature[1:-1]):
                fields.append(self.value(part, label))
            return fields
        raise ValueError(signature)


def complete(signature):
    """The first complete type of a signature."""
    depth = 0
    for index, char in enumerate(signature):
        if char in "({":
            depth += 1
        elif char in ")}":
            depth -= 1
        elif char == "a":
            continue
        if depth == 0:
            return signature[:index + 1]
    raise ValueError(signature)


def split(signature):
    types = []
    while signature:
        first = complete(signature)
        types.append(first)
        signature = signature[len(first):]
    return types


def literal(name, doc, message):
    reader = Reader(message)
    reader.take(1, 1, "byte order 'l': little-endian")
    reader.take(1, 1, lambda v: f"message type {KINDS.get(v, v)}", "<B")
    reader.take(1, 1, lambda v: f"flags 0x{v:x}", "<B")
    reader.take(1, 1, "protocol version 1")
    reader.take(4, 4, lambda v: f"body length {v}", "<I")
    reader.take(4, 4, lambda v: f"serial {v}", "<I")
    reader.take(4, 4, lambda v: f"header fields array length {v}", "<I")
    end = 16 + struct.unpack_from("<I", message, 12)[0]
    signature = ""
    while reader.offset < end:
        reader.take(8, 0, "(padding to 8)")
        code = reader.take(1, 1, lambda v: f"field {FIELDS.get(v, v)}", "<B")
        _, inner = reader.value("g", "variant ")
        _, value = reader.value(inner)
        if code == 8:
            signature = value
    reader.take(8, 0, "(padding to 8: the body starts)")
    for part in split(signature):
        reader.value(part)
    assert reader.offset == len(message), (reader.offset, len(message))
    print(f"    /// {doc}")
    print(f"    static let {name}: [UInt8] = hex(\"\"\"")
    for data, comment in reader.lines:
        if not data:
            continue
        for start in range(0, len(data), 16):
            chunk = data[start:start + 16].hex()
            note = comment if start == 0 else comment + " (continued)"
            print(f"        {chunk:<34}// {note}")
    print('        """)')
    print()


def main():
    tree = sys.argv[1]
    directory = tempfile.mkdtemp(prefix="reach-dbus-capture-")
    processes = []
    try:
        path = os.path.join(directory, "socket")
        config = os.path.join(directory, "system.conf")
        with open(config, "w") as file:
            file.write(CONFIG.format(socket=path))
        processes.append(subprocess.Popen(["dbus-daemon", "--nofork", f"--config-file={config}"]))
        while not os.path.exists(path):
            time.sleep(0.05)
        environment = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=f"unix:path={path}", PYTHONPATH=tree)

        def mock(template):
            processes.append(subprocess.Popen(["/usr/bin/python3", "-m", "dbusmock", "--system", "--template", template],
                                              env=environment, stdout=subprocess.DEVNULL))

        connection = Connection(path)
        captured = []
        hello = connection.send("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello")
        captured.append(("helloReply", "The bus's answer to Hello: the unique name, as a string.", connection.reply(hello)))
        missing = connection.send(MM, "/org/freedesktop/ModemManager1", "org.freedesktop.DBus.ObjectManager",
                                  "GetManagedObjects")
        captured.append(("nameHasNoOwner", "GetManagedObjects with NO_AUTO_START while ModemManager is not on the bus: the bus answers NameHasNoOwner.",
                         connection.reply(missing)))

        mock("modemmanager")
        mock("networkmanager")
        import dbus
        bus = dbus.bus.BusConnection(f"unix:path={path}")
        for name in (MM, NM):
            while not bus.name_has_owner(name):
                time.sleep(0.05)
        manager = bus.get_object(MM, "/org/freedesktop/ModemManager1")
        manager.AddSimpleModem(dbus_interface=MOCK)
        modem = bus.get_object(MM, MODEM)
        modem.AddProperty("org.freedesktop.ModemManager1.Modem", "Ports",
                          dbus.Array([("wwan0", dbus.UInt32(2)), ("cdc-wdm0", dbus.UInt32(6))], signature="(su)"),
                          dbus_interface=MOCK)
        modem.AddProperty("org.freedesktop.ModemManager1.Modem.Modem3gpp", "RegistrationState", dbus.UInt32(5),
                          dbus_interface=MOCK)
        network = bus.get_object(NM, "/org/freedesktop/NetworkManager")
        device = network.AddEthernetDevice("eth1", "eth1", 100, dbus_interface=MOCK)
        bus.get_object(NM, device).AddProperty("org.freedesktop.NetworkManager.Device", "Metered", dbus.UInt32(1),
                                               dbus_interface=MOCK)

        objects = connection.send(MM, "/org/freedesktop/ModemManager1", "org.freedesktop.DBus.ObjectManager",
                                  "GetManagedObjects")
        captured.append(("managedObjects", "GetManagedObjects: the mock's LTE modem (AddSimpleModem) with Ports wwan0 (NET) "
                         "and cdc-wdm0 (QMI) and RegistrationState 5 (roaming) added, and its SIM.",
                         connection.reply(objects)))
        lookup = connection.send(NM, "/org/freedesktop/NetworkManager", NM, "GetDeviceByIpIface", ["eth1"])
        captured.append(("deviceByInterface", "GetDeviceByIpIface(\"eth1\"): the device's object path.",
                         connection.reply(lookup)))
        metered = connection.send(NM, device, "org.freedesktop.DBus.Properties", "Get",
                                  ["org.freedesktop.NetworkManager.Device", "Metered"])
        captured.append(("meteredYes", "Properties.Get(Device, \"Metered\"): a variant holding NM_METERED_YES (1).",
                         connection.reply(metered)))

        match = connection.send("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "AddMatch",
                                [f"type='signal',sender='{MM}',interface='org.freedesktop.DBus.Properties'"])
        connection.reply(match)
        modem.UpdateProperties("org.freedesktop.ModemManager1.Modem", {"AccessTechnologies": dbus.UInt32(1 << 5)},
                               dbus_interface=MOCK)
        while True:
            message = connection.message()
            if message[1] == 4 and header_fields(message).get(3) == "PropertiesChanged":
                break
        captured.append(("accessTechnologiesChanged", "PropertiesChanged after UpdateProperties: AccessTechnologies UMTS (1 << 5).",
                         message))

        print("// Generated by Tests/Fixtures/capture-dbus-fixtures.py: messages a private dbus-daemon")
        print("// sent to a raw client that asked what reach asks, with python-dbusmock 0.38.1's")
        print(f"// modemmanager and networkmanager templates on the bus ({time.strftime('%Y-%m-%d')}).")
        print("// Each fixture is one whole message; `//` comments name each value.")
        print("// Remake: /usr/bin/python3 Tests/Fixtures/capture-dbus-fixtures.py DBUSMOCK_TREE > Tests/ReachCoreTests/Fixtures/CapturedDBus.swift")
        print("enum CapturedDBus {")
        for name, doc, message in captured:
            literal(name, doc, message)
        print("}")
    finally:
        for process in reversed(processes):
            process.terminate()
            process.wait()
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
