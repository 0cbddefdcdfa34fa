#!/usr/bin/python3
"""Writes a test CA and server certificates signed by it into DIRECTORY, for the https
probes' tests: ca.pem; valid, expired and wrong-name certificates (NAME.pem and
NAME-key.pem), the first two for far.lab and 198.18.0.1, the last for other.lab only.
Every run makes a new CA, so no test trusts anything but its own.

    make-test-certificates.py DIRECTORY

Needs python3-cryptography (Debian's): x509.CertificateBuilder, with dates in the past
for the expired one.
"""
import datetime
import ipaddress
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def name(common, organization="reach tests"):
    return x509.Name([
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization),
        x509.NameAttribute(NameOID.COMMON_NAME, common),
    ])


def write_key(path, key):
    with open(path, "wb") as out:
        out.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption()))


def main():
    directory = sys.argv[1]
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = name("reach test CA")
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=3650))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                       data_encipherment=False, key_agreement=False, key_cert_sign=True, crl_sign=True,
                                       encipher_only=False, decipher_only=False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    with open(f"{directory}/ca.pem", "wb") as out:
        out.write(ca.public_bytes(serialization.Encoding.PEM))
    servers = {
        "valid": (["far.lab"], ["198.18.0.1", "2001:db8::1"], now - datetime.timedelta(days=1), now + datetime.timedelta(days=90)),
        "expired": (["far.lab"], ["198.18.0.1", "2001:db8::1"], now - datetime.timedelta(days=60), now - datetime.timedelta(days=2)),
        "wrongname": (["other.lab"], [], now - datetime.timedelta(days=1), now + datetime.timedelta(days=30)),
    }
    for label, (dns, addresses, start, end) in servers.items():
        key = ec.generate_private_key(ec.SECP256R1())
        alternatives = [x509.DNSName(n) for n in dns] + [x509.IPAddress(ipaddress.ip_address(a)) for a in addresses]
        certificate = (x509.CertificateBuilder().subject_name(name(dns[0])).issuer_name(ca_name)
                       .public_key(key.public_key()).serial_number(x509.random_serial_number())
                       .not_valid_before(start).not_valid_after(end)
                       .add_extension(x509.SubjectAlternativeName(alternatives), critical=False)
                       .add_extension(x509.ExtendedKeyUsage([x509.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
                       .sign(ca_key, hashes.SHA256()))
        with open(f"{directory}/{label}.pem", "wb") as out:
            out.write(certificate.public_bytes(serialization.Encoding.PEM))
        write_key(f"{directory}/{label}-key.pem", key)
    print("written", flush=True)


if __name__ == "__main__":
    main()
