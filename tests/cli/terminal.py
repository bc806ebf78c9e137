"""Running a command with its stderr on a pseudo-terminal (what a user watching
sees), for the progress lines that only a terminal gets."""
import os
import pty
import subprocess


def run_on_terminal(argv, env, timeout=120):
    """Runs argv with stderr on a pseudo-terminal; returns (exit code, stdout, what the terminal showed)."""
    controller, terminal = pty.openpty()
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=terminal, text=True, timeout=timeout, env=env)
    os.close(terminal)
    shown = b""
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # EIO: the terminal is closed and everything was read
            break
        if not chunk:
            break
        shown += chunk
    os.close(controller)
    return r.returncode, r.stdout, shown.decode().replace("\r\n", "\n")
