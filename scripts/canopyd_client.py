#!/usr/bin/env python3
"""A small client of canopyd's line protocol (docs/protocol.md), standard
library only: one request per line, one answer line per request.

  canopyd_client.py --port P ask REQUEST...
      one connection; prints each answer. Exit status 1 if any answer is ERR.
  canopyd_client.py --port P hold --until FILE REQUEST...
      opens a connection and prints its `info` answer at once, waits until FILE
      exists (bounded by --wait), then sends REQUEST... on that same connection
      and prints the answers: shows that a connection opened before a reload
      keeps working after it. Exit status 1 on an ERR answer, 2 if the server
      closed the connection.

Requests with spaces go in one argument each: ask 'query h0001:h0064' info
"""
import argparse
import json
import os
import socket
import sys
import time


class ConnectionClosed(Exception):
    pass


class Connection:
    """One TCP connection to canopyd. ask() sends a request and returns its answer line;
    send()/line() give the raw stream to tests that pipeline or send malformed input."""

    def __init__(self, host, port, timeout=30.0, rcvbuf=None):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:  # a small receive buffer makes a slow reader (tests)
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(timeout)
        self.sock.connect((host, port))
        self.buffer = b""

    def send(self, data):
        self.sock.sendall(data if isinstance(data, bytes) else data.encode())

    def line(self):
        """The next answer line (str, without '\\n'); None once the server closed the connection."""
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode("utf-8", "replace").rstrip("\r")

    def ask(self, request):
        self.send(request + "\n")
        line = self.line()
        if line is None:
            raise ConnectionClosed(f"the server closed the connection after '{request}'")
        return line

    def ask_json(self, request):
        return json.loads(self.ask(request))

    def at_eof(self):
        """True if the server closed the connection (after any answers still buffered)."""
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return True
                self.buffer += chunk
        except ConnectionResetError:
            return True
        except socket.timeout:
            return False

    def close(self):
        self.sock.close()


def parse_server(text):
    """HOST:PORT -> (host, port)."""
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, not {text!r}")
    return host, int(port)


def ask_all(connection, requests):
    failed = False
    for request in requests:
        answer = connection.ask(request)
        print(answer, flush=True)
        failed |= answer.startswith("ERR")
    return 1 if failed else 0


def wait_for_file(path, limit_s):
    deadline = time.monotonic() + limit_s
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            raise TimeoutError(f"{path} did not appear within {limit_s:g} s")
        time.sleep(0.1)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for each answer")
    modes = parser.add_subparsers(dest="mode", required=True)
    ask = modes.add_parser("ask", help="send the requests, print the answers")
    ask.add_argument("requests", nargs="+")
    hold = modes.add_parser("hold", help="connect now, send the requests once FILE exists")
    hold.add_argument("--until", required=True, metavar="FILE")
    hold.add_argument("--wait", type=float, default=120.0, help="longest wait for FILE (seconds)")
    hold.add_argument("requests", nargs="+")
    args = parser.parse_args(argv)
    try:
        connection = Connection(args.host, args.port, args.timeout)
        if args.mode == "hold":
            print(connection.ask("info"), flush=True)
            wait_for_file(args.until, args.wait)
        return ask_all(connection, args.requests)
    except ConnectionClosed as e:
        print(f"canopyd_client: {e}", file=sys.stderr)
        return 2
    except (OSError, TimeoutError) as e:
        print(f"canopyd_client: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
