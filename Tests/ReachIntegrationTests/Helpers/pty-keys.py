"""Runs a command on a pseudo-terminal, as a person at a terminal would, and types a key.

    python3 pty-keys.py MARKER COUNT KEY -- COMMAND...

Starts COMMAND with a new pseudo-terminal as its standard input, output and error
(pty.fork), reads what it writes until MARKER has appeared COUNT times (frames of a live
view), types KEY, then reads to the end. Writes everything the command wrote to standard
output, and exits with the command's status (128 + the signal when a signal ended it).
Gives up after 30 seconds: kills the command and exits 124.
"""
import os, pty, select, signal, sys, time

marker, count, key = sys.argv[1].encode(), int(sys.argv[2]), sys.argv[3].encode()
command = sys.argv[sys.argv.index("--") + 1:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(command[0], command)
output, typed, deadline = b"", False, time.monotonic() + 30
while True:
    if time.monotonic() > deadline:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        sys.stdout.buffer.write(output)
        sys.exit(124)
    ready, _, _ = select.select([fd], [], [], 0.1)
    if ready:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the command closed the terminal
            chunk = b""
        if not chunk:
            break
        output += chunk
    if not typed and output.count(marker) >= count:
        os.write(fd, key)
        typed = True
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(output)
sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
