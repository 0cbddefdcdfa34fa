#!/usr/bin/python3
"""Drives python-dbusmock's modemmanager and networkmanager templates on the private
system bus named by DBUS_SYSTEM_BUS_ADDRESS (Debian's /usr/bin/python3 and python3-dbus).

    dbus-mock-control.py wait-name NAME                 wait (5 s at most) until NAME has an owner
    dbus-mock-control.py add-modem PORT REGISTRATION    AddSimpleModem, then Ports [(PORT, NET)]
                                                        and Modem3gpp.RegistrationState
    dbus-mock-control.py set-technologies BITS          AccessTechnologies (emits PropertiesChanged)
    dbus-mock-control.py set-signal PERCENT             SignalQuality (emits PropertiesChanged)
    dbus-mock-control.py add-ethernet IFACE METERED     AddEthernetDevice, then Device.Metered
    dbus-mock-control.py set-metered IFACE METERED      Device.Metered (emits PropertiesChanged)
"""
import os
import sys
import time

import dbus

MM = "org.freedesktop.ModemManager1"
NM = "org.freedesktop.NetworkManager"
MOCK = "org.freedesktop.DBus.Mock"
MODEM = "org.freedesktop.ModemManager1.Modem"
MODEM_PATH = "/org/freedesktop/ModemManager1/Modems/8"
MM_PORT_TYPE_NET = 2


def main():
    bus = dbus.bus.BusConnection(os.environ["DBUS_SYSTEM_BUS_ADDRESS"])
    command, arguments = sys.argv[1], sys.argv[2:]
    if command == "wait-name":
        deadline = time.monotonic() + 5
        while not bus.name_has_owner(arguments[0]):
            if time.monotonic() > deadline:
                sys.exit(f"{arguments[0]} not on the bus after 5 s")
            time.sleep(0.02)
    elif command == "add-modem":
        bus.get_object(MM, "/org/freedesktop/ModemManager1").AddSimpleModem(dbus_interface=MOCK)
        modem = bus.get_object(MM, MODEM_PATH)
        modem.AddProperty(MODEM, "Ports", dbus.Array([(arguments[0], dbus.UInt32(MM_PORT_TYPE_NET))], signature="(su)"),
                          dbus_interface=MOCK)
        modem.AddProperty(MODEM + ".Modem3gpp", "RegistrationState", dbus.UInt32(int(arguments[1])), dbus_interface=MOCK)
    elif command == "set-technologies":
        bus.get_object(MM, MODEM_PATH).UpdateProperties(MODEM, {"AccessTechnologies": dbus.UInt32(int(arguments[0]))},
                                                         dbus_interface=MOCK)
    elif command == "set-signal":
        quality = dbus.Struct((dbus.UInt32(int(arguments[0])), dbus.Boolean(True)))
        bus.get_object(MM, MODEM_PATH).UpdateProperties(MODEM, {"SignalQuality": quality}, dbus_interface=MOCK)
    elif command == "add-ethernet":
        path = bus.get_object(NM, "/org/freedesktop/NetworkManager").AddEthernetDevice(arguments[0], arguments[0], 100,
                                                                                        dbus_interface=MOCK)
        bus.get_object(NM, path).AddProperty(NM + ".Device", "Metered", dbus.UInt32(int(arguments[1])), dbus_interface=MOCK)
    elif command == "set-metered":
        path = bus.get_object(NM, "/org/freedesktop/NetworkManager").GetDeviceByIpIface(arguments[0])
        bus.get_object(NM, path).UpdateProperties(NM + ".Device", {"Metered": dbus.UInt32(int(arguments[1]))},
                                                  dbus_interface=MOCK)
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main()
