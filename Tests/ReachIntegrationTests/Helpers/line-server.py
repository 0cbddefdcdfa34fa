#!/usr/bin/env python3
"""A line-oriented server in the manner of SMTP, for the tcp prober's query_response.

  line-server.py ADDRESS PORT smtp     greets "220 lab.test ESMTP ready"; to "EHLO NAME"
                                       answers "250 hello NAME" when NAME is lab.test (the
                                       name its greeting gave), else "550 not me"; to "QUIT"
                                       answers "221 bye" and closes; lines end in CRLF
  line-server.py ADDRESS PORT banner   sends "220 lab.test ESMTP ready" and closes at once
  line-server.py ADDRESS PORT long     sends 70,000 bytes without a newline, then waits
  line-server.py ADDRESS PORT starttls CERT KEY
                                       SMTP with STARTTLS (RFC 3207): greets as smtp; to
                                       "EHLO NAME" answers "250-lab.test", "250-STARTTLS",
                                       "250 8BITMIME"; to "STARTTLS" answers "220 go ahead"
                                       and takes a TLS handshake (CERT and KEY, PEM), after
                                       which EHLO answers "250-lab.test", "250-AUTH PLAIN",
                                       "250 8BITMIME"; QUIT as smtp
  line-server.py ADDRESS PORT tlsbanner CERT KEY
                                       TLS from the first byte, then "+OK lab.test ready"
                                       (a POP3S-style banner); closes after the next line
  line-server.py ADDRESS PORT ssh      sends "SSH-2.0-lab.test" (RFC 4253, 4.2); closes after
                                       the next line
  line-server.py ADDRESS PORT irc      IRC registration (RFC 2812, 3.1 and 3.7.2): after
                                       "NICK" and "USER" sends "PING :lab-17"; to "PONG lab-17"
                                       answers ":lab.test 001 NICK :Welcome", to another PONG
                                       ":lab.test 451 NICK :wrong pong"
  line-server.py ADDRESS PORT imapstarttls CERT KEY
                                       IMAP with STARTTLS (RFC 3501, 6.2.1): greets
                                       "* OK [CAPABILITY IMAP4rev1 STARTTLS] lab.test ready";
                                       to "TAG STARTTLS" answers "TAG OK begin TLS" and takes a
                                       TLS handshake; to "TAG CAPABILITY" (any case) answers
                                       "* CAPABILITY IMAP4rev1 AUTH=PLAIN", "TAG OK done"

Each connection is served on a thread of its own and for 30 s at most. Prints "listening"
once it accepts.
"""
import socket
import ssl
import sys
import threading

GREETING = b"220 lab.test ESMTP ready\r\n"


def smtp(connection):
    connection.sendall(GREETING)
    reader = connection.makefile("rb")
    for line in reader:
        words = line.decode("ascii", "replace").strip().split(" ", 1)
        if words[0] == "EHLO":
            name = words[1] if len(words) > 1 else ""
            connection.sendall(f"250 hello {name}\r\n".encode() if name == "lab.test" else b"550 not me\r\n")
        elif words[0] == "QUIT":
            connection.sendall(b"221 bye\r\n")
            return
        else:
            connection.sendall(b"500 what\r\n")


def lines(connection):
    """The lines a peer sends, read byte by byte so that nothing after a STARTTLS line is
    taken from the socket before the handshake."""
    line = b""
    while True:
        byte = connection.recv(1)
        if not byte:
            return
        line += byte
        if byte == b"\n":
            yield line.decode("ascii", "replace").strip()
            line = b""


def starttls(connection, context):
    connection.sendall(GREETING)
    secure = False
    for line in lines(connection):
        words = line.split(" ", 1)
        if words[0] == "EHLO":
            extension = b"250-AUTH PLAIN\r\n" if secure else b"250-STARTTLS\r\n"
            connection.sendall(b"250-lab.test\r\n" + extension + b"250 8BITMIME\r\n")
        elif words[0] == "STARTTLS" and not secure:
            connection.sendall(b"220 go ahead\r\n")
            connection = context.wrap_socket(connection, server_side=True)
            secure = True
            return starttls_after(connection)
        elif words[0] == "QUIT":
            connection.sendall(b"221 bye\r\n")
            return connection
        else:
            connection.sendall(b"500 what\r\n")
    return connection


def starttls_after(connection):
    for line in lines(connection):
        words = line.split(" ", 1)
        if words[0] == "EHLO":
            connection.sendall(b"250-lab.test\r\n250-AUTH PLAIN\r\n250 8BITMIME\r\n")
        elif words[0] == "QUIT":
            connection.sendall(b"221 bye\r\n")
            break
        else:
            connection.sendall(b"500 what\r\n")
    return connection


def irc(connection):
    nick = "*"
    for line in lines(connection):
        words = line.split(" ")
        if words[0] == "NICK" and len(words) > 1:
            nick = words[1]
        elif words[0] == "USER":
            connection.sendall(b"PING :lab-17\r\n")
        elif words[0] == "PONG":
            answer = "001 {} :Welcome".format(nick) if words[1:] == ["lab-17"] else "451 {} :wrong pong".format(nick)
            connection.sendall(f":lab.test {answer}\r\n".encode())


def imap_starttls(connection, context):
    connection.sendall(b"* OK [CAPABILITY IMAP4rev1 STARTTLS] lab.test ready\r\n")
    secure = False
    for line in lines(connection):
        words = line.split(" ")
        command = words[1].upper() if len(words) > 1 else ""
        if command == "STARTTLS" and not secure:
            connection.sendall(f"{words[0]} OK begin TLS\r\n".encode())
            connection = context.wrap_socket(connection, server_side=True)
            secure = True
            return imap_starttls_after(connection)
        connection.sendall(f"{words[0]} BAD what\r\n".encode())
    return connection


def imap_starttls_after(connection):
    for line in lines(connection):
        words = line.split(" ")
        if len(words) > 1 and words[1].upper() == "CAPABILITY":
            connection.sendall(f"* CAPABILITY IMAP4rev1 AUTH=PLAIN\r\n{words[0]} OK done\r\n".encode())
        else:
            connection.sendall(f"{words[0]} BAD what\r\n".encode())
    return connection


def serve(connection, mode, context):
    connection.settimeout(30)
    try:
        if mode == "starttls":
            connection = starttls(connection, context)
        elif mode == "tlsbanner":
            connection = context.wrap_socket(connection, server_side=True)
            connection.sendall(b"+OK lab.test ready\r\n")
            next(lines(connection), None)
        elif mode == "imapstarttls":
            connection = imap_starttls(connection, context)
        elif mode == "ssh":
            connection.sendall(b"SSH-2.0-lab.test\r\n")
            next(lines(connection), None)
        elif mode == "irc":
            irc(connection)
        elif mode == "smtp":
            smtp(connection)
        elif mode == "banner":
            connection.sendall(GREETING)
        elif mode == "long":
            connection.sendall(b"x" * 70000)
            connection.recv(1)
    except (OSError, ssl.SSLError):
        pass
    finally:
        connection.close()


def main():
    address, port, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    context = None
    if mode in ("starttls", "tlsbanner", "imapstarttls"):
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[4], sys.argv[5])
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((address, port))
    listener.listen(64)
    print("listening", flush=True)
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=serve, args=(connection, mode, context), daemon=True).start()


if __name__ == "__main__":
    main()
