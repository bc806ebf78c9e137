"""Shared helpers of the canopyd tests: a dump directory laid out the way
canopy-collect writes it, a canopyd started on a free port of 127.0.0.1, and the
protocol client of scripts/canopyd_client.py. Python 3 standard library only."""
import atexit
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from canopyd_client import Connection, ConnectionClosed  # noqa: E402,F401  (one protocol client for tests and scripts)


def raise_file_limit(wanted):
    """Raises this process's open-file soft limit towards @wanted; returns the limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class DumpStore:
    """DIR/dump-*/ and the DIR/current link, switched as canopy-collect does."""

    def __init__(self, path):
        self.path = path
        os.makedirs(path, exist_ok=True)

    def add(self, name, source_dir):
        shutil.copytree(source_dir, os.path.join(self.path, name))
        return os.path.join(self.path, name)

    def publish(self, name):
        """Points current at @name: a new symlink renamed over the old one (atomic)."""
        tmp = os.path.join(self.path, ".current-tmp")
        if os.path.lexists(tmp):
            os.unlink(tmp)
        os.symlink(name, tmp)
        os.rename(tmp, os.path.join(self.path, "current"))


_running = set()  # canopyd processes not stopped yet: killed when the test exits, however it exits


@atexit.register
def _kill_running():
    for process in list(_running):
        process.kill()
        process.wait()


class Canopyd:
    """A canopyd process on 127.0.0.1 with a port it chose; stderr goes to a log file."""

    def __init__(self, bin_dir, dump_dir, work_dir, **params):
        self.log_path = os.path.join(work_dir, "canopyd-%d.log" % time.monotonic_ns())
        env = dict(os.environ, CANOPY_LOG_LEVEL="info", CANOPY_SERVICE_POLL_MS="50")
        for name, value in params.items():
            env["CANOPY_" + name.upper()] = str(value)
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen([os.path.join(bin_dir, "canopyd"), "--dump-dir", dump_dir,
                                         "--listen", "127.0.0.1:0"], stdout=subprocess.DEVNULL,
                                        stderr=self.log, env=env)
        _running.add(self.process)
        try:
            self.port = self._wait_for_port()
        except RuntimeError:
            self.stop()
            raise

    def _wait_for_port(self):
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("canopyd exited: " + self.log_text())
            for line in self.log_text().splitlines():
                if " listening on 127.0.0.1:" in line:
                    return int(line.split(" listening on 127.0.0.1:")[1].split(",")[0])
            time.sleep(0.02)
        raise RuntimeError("canopyd did not start: " + self.log_text())

    def log_text(self):
        with open(self.log_path) as f:
            return f.read()

    def client(self, json_mode=False, timeout=10, rcvbuf=None):
        c = Connection("127.0.0.1", self.port, timeout, rcvbuf)
        if json_mode:
            assert c.ask_json("json on")["json"] is True
        return c

    def signal(self, sig):
        self.process.send_signal(sig)

    def stop(self):
        """SIGTERM; returns the exit status (killed after 10 s)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        _running.discard(self.process)
        self.log.close()
        return self.process.returncode


def wait_until(condition, timeout=10, step=0.02):
    """The first true value of condition() within timeout; a connection refused or closed
    meanwhile counts as not yet."""
    def attempt():
        try:
            return condition()
        except (ConnectionClosed, OSError):
            return None

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = attempt()
        if value:
            return value
        time.sleep(step)
    return condition()


def gen_fabric(source_dir, out, hosts, levels):
    subprocess.run([sys.executable, os.path.join(source_dir, "scripts", "gen_fabric.py"), "dump", "--hosts",
                    str(hosts), "--levels", str(levels), "--out", out], check=True, capture_output=True)
    return out


def canopy_json(bin_dir, *args):
    r = subprocess.run([os.path.join(bin_dir, "canopy"), *args, "--json"], capture_output=True, text=True,
                       timeout=60)
    if r.returncode != 0:
        raise RuntimeError("canopy %s: %s" % (" ".join(args), r.stderr))
    return json.loads(r.stdout)


class Checks:
    """Collects named pass/fail results and prints them the way the other suites do."""

    def __init__(self):
        self.failures = []

    def __call__(self, name, condition, detail=""):
        print(("ok   " if condition else "FAIL ") + name + ("" if condition else ": %s" % (detail,)), flush=True)
        if not condition:
            self.failures.append(name)
        return condition

    def finish(self):
        print("%d failed" % len(self.failures) if self.failures else "all passed", flush=True)
        return 1 if self.failures else 0


def keep_logs_on_failure(check, work):
    """Removes the work folder after a clean run; keeps it (and says where) after a failure."""
    if not check.failures:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("logs kept in", work)


def temp_dir(prefix):
    return tempfile.mkdtemp(prefix=prefix)
