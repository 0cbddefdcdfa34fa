#!/usr/bin/env python3
"""A line-oriented server in the manner of SMTP, for the tcp prober's query_response.

  line-server.py ADDRESS PORT smtp     greets "220 lab.test ESMTP ready"; to "EHLO NAME"
                                       answers "250 hello NAME" when NAME is lab.test (the
                                       name its greeting gave), else "550 not me"; to "QUIT"
                                       answers "221 bye" and closes; lines end in CRLF
  line-server.py ADDRESS PORT banner   sends "220 lab.test ESMTP ready" and closes at once
  line-server.py ADDRESS PORT long     sends 70,000 bytes without a newline, then waits

Each connection is served on a thread of its own and for 30 s at most. Prints "listening"
once it accepts.
"""
import socket
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


def serve(connection, mode):
    connection.settimeout(30)
    try:
        if mode == "smtp":
            smtp(connection)
        elif mode == "banner":
            connection.sendall(GREETING)
        elif mode == "long":
            connection.sendall(b"x" * 70000)
            connection.recv(1)
    except OSError:
        pass
    finally:
        connection.close()


def main():
    address, port, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((address, port))
    listener.listen(64)
    print("listening", flush=True)
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=serve, args=(connection, mode), daemon=True).start()


if __name__ == "__main__":
    main()
