#!/usr/bin/env python3
"""canopyd end to end over real sockets on 127.0.0.1: the command line, answers
equal to `canopy route --json` for every host pair, hostile and broken clients,
limits, reloads through the `current` link with connections kept open, corrupt
and vanishing dumps, signals.

Usage: test_canopyd.py BIN_DIR SOURCE_DIR"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from canopyd_harness import (keep_logs_on_failure, Canopyd, Checks, DumpStore, canopy_json, gen_fabric,  # noqa: E402
                             temp_dir, wait_until)

BIN, SRC = sys.argv[1], sys.argv[2]
TWO_SWITCH = os.path.join(SRC, "tests", "data", "cli", "two-switch-dump")
HOSTS = ["H1", "H2", "H3", "H4"]
check = Checks()
WORK = temp_dir("canopyd-test-")


def canopyd_cli(*args):
    return subprocess.run([os.path.join(BIN, "canopyd"), *args], capture_output=True, text=True, timeout=30)


def test_command_line():
    r = canopyd_cli("--help")
    check("--help", r.returncode == 0 and "--dump-dir" in r.stdout and "--listen" in r.stdout, r.stderr)
    r = canopyd_cli("--version")
    check("--version", r.returncode == 0 and "canopyd" in r.stdout, r.stdout)
    r = canopyd_cli()
    check("no --dump-dir: usage error (exit 2)", r.returncode == 2, r.returncode)
    r = canopyd_cli("--dump-dir", WORK, "--listen", "nowhere")
    check("bad --listen: exit 1 with the reason", r.returncode == 1 and "canopyd: error:" in r.stderr
          and "ADDR:PORT" in r.stderr, r.stderr)
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    r = canopyd_cli("--dump-dir", WORK, "--listen", "127.0.0.1:%d" % busy.getsockname()[1])
    busy.close()
    check("port in use: exit 1, cannot listen", r.returncode == 1 and "cannot listen on 127.0.0.1:" in r.stderr,
          r.stderr)
    config = os.path.join(WORK, "config.json")
    with open(config, "w") as f:
        f.write('{"service_threads": -1}')
    r = canopyd_cli("--dump-dir", WORK, "--config", config, "--listen", "127.0.0.1:0")
    check("--config is read (and checked)", r.returncode == 1 and "service_threads" in r.stderr, r.stderr)
    r = canopyd_cli("--dump-dir", config, "--listen", "127.0.0.1:0")
    check("--dump-dir naming a file: exit 1", r.returncode == 1 and "is not a folder" in r.stderr, r.stderr)
    r = canopyd_cli("--dump-dir", "", "--listen", "127.0.0.1:0")
    check("--dump-dir '': usage error (exit 2)", r.returncode == 2 and "empty path" in r.stderr, r.stderr)
    r = canopyd_cli("--dump-dir", WORK, "--listen", "")  # listened on service_listen's default before
    check("--listen '': usage error (exit 2)", r.returncode == 2 and "empty address" in r.stderr, r.stderr)
    with open(config, "w") as f:
        f.write('{"service_poll_ms": 9300000000000}')  # would overflow the reloader's clock
    r = canopyd_cli("--dump-dir", WORK, "--config", config, "--listen", "127.0.0.1:0")
    check("service_poll_ms beyond a day: exit 1", r.returncode == 1 and "service_poll_ms" in r.stderr, r.stderr)
    example = os.path.join(SRC, "contrib", "canopyd.json")
    r = subprocess.run([os.path.join(BIN, "canopy"), "info", "--config", "--json"], capture_output=True, text=True,
                       env=dict(os.environ, CANOPY_CONFIG_FILE=example), timeout=30)
    # service_client_* parameters belong to the clients (canopy query, the C API), not to canopyd.
    params = [p for p in json.loads(r.stdout)
              if p["name"].startswith("service_") and not p["name"].startswith("service_client_")]
    check("contrib/canopyd.json sets every service_* parameter, to its default",
          len(params) >= 8 and all(p["source"].startswith("config file") and p["value"] == p["default"]
                                    for p in params), params)


def test_waits_for_first_dump():
    store = DumpStore(os.path.join(WORK, "first"))
    d = Canopyd(BIN, store.path, WORK)
    c = d.client()
    check("before any dump: ERR no topology loaded yet", c.ask("query H1:H4") == "ERR no topology loaded yet")
    check("before any dump: help answers", c.ask("help").startswith("help query "))
    store.add("dump-a", TWO_SWITCH)
    store.publish("dump-a")
    got = wait_until(lambda: c.ask("query H1:H4") != "ERR no topology loaded yet" and c.ask("query H1:H4"))
    check("first dump loaded while connected", got == "H1 0x0000000000200000 0x0000000000200001 H4", got)
    c.close()
    check("SIGTERM: exit 0", d.stop() == 0, d.log_text()[-500:])
    check("SIGTERM logged", "SIGTERM: shutting down" in d.log_text())


def test_answers_equal_canopy_route(d, dump_path):
    c = d.client(json_mode=True)
    text = d.client()
    for a in HOSTS:
        for b in HOSTS:
            want = canopy_json(BIN, "route", dump_path, a, b)
            got = c.ask_json("route %s %s" % (a, b))
            snapshot = got.pop("snapshot", None)
            ok = got.pop("ok", None)
            check("route %s %s equals canopy route --json" % (a, b), ok is True and snapshot == 1 and got == want,
                  "%s != %s" % (got, want))
            labels = [h["name"] if h["type"] == "host" else h["guid"] for h in want["path"]]
            check("query %s:%s" % (a, b), text.ask("query %s:%s" % (a, b)) == " ".join(labels))
            check("hops %s %s" % (a, b), text.ask("hops %s %s" % (a, b)) == "hops %d" % want["links"])
    hostfile = os.path.join(WORK, "hosts.txt")
    with open(hostfile, "w") as f:
        f.write("\n".join(HOSTS) + "\n")
    want = canopy_json(BIN, "route", dump_path, "--matrix", hostfile)
    got = c.ask_json("matrix all " + " ".join(HOSTS))
    check("matrix all equals canopy route --matrix", [got[k] for k in ("hosts", "hops", "gbps", "delay_us")]
          == [want[k] for k in ("hosts", "hops", "gbps", "delay_us")], got)
    c.close()
    text.close()


def test_bad_input(d):
    c = d.client()
    garbage = bytes(range(256)) * 4 + b"\n\x00\x00\n\xff\xfe\n"
    c.send(garbage)
    answers = [c.line() for _ in range(garbage.count(b"\n"))]
    check("garbage: one ERR per line", all(a is not None and a.startswith("ERR ") for a in answers), answers)
    check("garbage: still answering", c.ask("hops H1 H4") == "hops 3")
    check("NUL", c.ask("query H1:\x00H4") == "ERR request is not text")
    check("unknown host", c.ask("route H1 nosuch") == "ERR unknown host 'nosuch'")
    check("unknown verb", c.ask("fly H1") == "ERR unknown request 'fly' (try help)")
    check("wrong arity", c.ask("route H1") == "ERR usage: route HOST_A HOST_B")
    check("pipelined answers in order", (c.send("hops H1 H2\nhops H1 H4\nrate H1\nhops H1 H1\n") or
                                         [c.line() for _ in range(4)]) == ["hops 2", "hops 3", "rate 4xSDR 8",
                                                                           "hops 0"])
    c.send("x" * 5000 + "\nhops H1 H4\n")
    check("overlong line: ERR", c.line() == "ERR line too long (limit 4096 bytes)")
    check("overlong line: then closed, rest unanswered", c.line() is None)
    c = d.client()
    c.send("hops H1 H4\n" + "y" * 20000)  # no newline at all
    check("overlong unterminated line: answers before it, then ERR and close",
          [c.line(), c.line(), c.line()] == ["hops 3", "ERR line too long (limit 4096 bytes)", None])
    c = d.client()
    c.send("hops H1 H4\r\nquit\nhops H1 H2\n")
    check("quit: bye then closed", [c.line(), c.line(), c.line()] == ["hops 3", "bye", None])
    c = d.client()
    c.send("hops H1 H4\n" * 1000 + "hops H2 H3")
    c.sock.shutdown(socket.SHUT_WR)
    answers = []
    while (line := c.line()) is not None:
        answers.append(line)
    check("half-closed: every answer, the last line without newline too, then EOF",
          answers == ["hops 3"] * 1001, (len(answers), answers[-2:]))
    c = d.client()
    c.sock.shutdown(socket.SHUT_WR)
    check("half-closed without a request: closed", c.line() is None)


def test_slow_reader(d):
    slow = d.client(timeout=30, rcvbuf=4096)
    stop = threading.Event()

    def flood():
        try:
            while not stop.is_set():
                slow.send("route H1 H4\n" * 2000)
        except OSError:
            pass

    flooder = threading.Thread(target=flood)
    flooder.start()
    fast = d.client()
    time.sleep(0.2)
    worst = 0
    for _ in range(100):
        start = time.monotonic()
        answer = fast.ask("query H3:H2")
        worst = max(worst, time.monotonic() - start)
        if answer != "H3 0x0000000000200001 0x0000000000200000 H2":
            break
    check("a client that never reads does not delay another", answer.startswith("H3 ") and worst < 0.5,
          (answer, worst))
    # The fast client keeps asking meanwhile, or the 1 s idle timeout would close it too.
    closed = wait_until(lambda: fast.ask("hops H1 H4") == "hops 3" and "bytes of answers unread" in d.log_text(),
                        timeout=30)
    stop.set()
    flooder.join(30)
    check("the client that never reads is held at service_max_pending_bytes and closed as idle", closed,
          d.log_text()[-400:])
    slow.sock.settimeout(5)
    check("... and sees the connection end", slow.at_eof())
    check("fast client still served", fast.ask("hops H1 H4") == "hops 3")
    fast.close()


def test_reader_behind(d):
    # This client starts reading only after its 200,000 answers (17 MiB, more than the sockets
    # hold) could have been sent: beyond service_max_pending_bytes (256 KiB here) canopyd waits
    # for it instead of closing it.
    c = d.client(timeout=30, rcvbuf=4096)
    count = 200000
    sender = threading.Thread(target=c.send, args=("route H1 H4\n" * count,))
    sender.start()
    time.sleep(0.5)
    answers = []
    while len(answers) < count and (line := c.line()) is not None:
        answers.append(line)
    sender.join(30)
    check("a client that reads behind gets every one of its answers",
          len(answers) == count and len(set(answers)) == 1 and answers[0].startswith("route "),
          (len(answers), answers[-1:], d.log_text()[-300:]))
    c.close()


def test_idle_timeout(d):
    idle = d.client()
    busy = d.client()
    for _ in range(6):
        time.sleep(0.5)
        busy.ask("hops H1 H2")
    idle.sock.settimeout(3)
    check("idle connection closed after service_idle_timeout_s", idle.at_eof())
    check("active connection kept", busy.ask("hops H1 H4") == "hops 3")
    busy.close()


def test_max_clients():
    store = DumpStore(os.path.join(WORK, "limited"))
    store.add("dump-a", TWO_SWITCH)
    store.publish("dump-a")
    d = Canopyd(BIN, store.path, WORK, service_max_clients=3)
    clients = [d.client() for _ in range(3)]
    # canopyd listens before its first dump is loaded: wait for it (on a loaded machine it takes a while).
    wait_until(lambda: clients[0].ask("hops H1 H4") == "hops 3", timeout=10)
    answers = [c.ask("hops H1 H4") for c in clients]
    check("three clients served", answers == ["hops 3"] * 3, answers)
    extra = d.client()
    check("the fourth: ERR too many clients, closed", [extra.line(), extra.line()] ==
          ["ERR too many clients (limit 3)", None])
    clients.pop().close()
    again = wait_until(lambda: d.client().ask("hops H1 H4") == "hops 3", timeout=5)
    check("a slot freed is taken again", again)
    check("max clients: clean exit", d.stop() == 0)


def info(client):
    return client.ask_json("info")


def test_reloads():
    a = gen_fabric(SRC, os.path.join(WORK, "fabric-a"), 16, 2)
    b = gen_fabric(SRC, os.path.join(WORK, "fabric-b"), 16, 3)
    store = DumpStore(os.path.join(WORK, "reload"))
    store.add("dump-a", a)
    store.add("dump-b", b)
    store.publish("dump-a")
    d = Canopyd(BIN, store.path, WORK)
    c = d.client(json_mode=True)
    text = d.client()
    wait_until(lambda: info(c).get("snapshot") == 1)
    hops_a = c.ask_json("hops h0001 h0016")
    want_b = canopy_json(BIN, "route", os.path.join(store.path, "dump-b"), "h0001", "h0016")["links"]
    check("fabric a answers", hops_a["snapshot"] == 1 and hops_a["hops"] != want_b, (hops_a, want_b))
    store.publish("dump-b")
    check("publishing a dump raises the generation", wait_until(lambda: info(c)["snapshot"] == 2), info(c))
    hops_b = c.ask_json("hops h0001 h0016")
    check("answers come from the new fabric on the same connection", hops_b == {"ok": True, "snapshot": 2,
                                                                                  "hops": want_b}, hops_b)
    check("info names the dump loaded", info(c)["source"] == "dump:" + os.path.join(store.path, "dump-b"))
    check("text connection kept too", text.ask("hops h0001 h0016") == "hops %d" % want_b)

    bad = store.add("dump-bad", a)
    with open(os.path.join(bad, "manifest.json"), "w") as f:
        f.write('{"format": "canopy-dump/1", "hosts": 17}')
    store.publish("dump-bad")
    stale = wait_until(lambda: info(c)["state"] == "stale" and info(c))
    check("corrupt dump: stale with the reason", stale and "manifest.json" in stale.get("reason", "")
          and stale["snapshot"] == 2, stale)
    check("corrupt dump: still answering from the last good snapshot",
          c.ask_json("hops h0001 h0016") == hops_b)
    text_info = text.ask("info")
    check("text info: state=stale reason=\"...\"", ' state=stale reason="' in text_info, text_info)
    check("corrupt dump logged at error level", "canopy [error] cannot load " + bad in d.log_text())
    store.publish("dump-a")
    fresh = wait_until(lambda: info(c)["state"] == "fresh" and info(c))
    check("a good dump clears stale", fresh and fresh["snapshot"] == 3 and "reason" not in fresh, fresh)

    d.signal(signal.SIGHUP)
    check("SIGHUP reloads", wait_until(lambda: info(c)["snapshot"] == 4), info(c))

    # Dumps that vanish while (or before) they load: the service must ride it out.
    for i in range(20):
        path = store.add("dump-v%d" % i, b)
        store.publish("dump-v%d" % i)
        time.sleep(0.01 * (i % 5))
        shutil.rmtree(path)
    time.sleep(0.3)
    check("vanishing dumps: still answering", c.ask_json("hops h0001 h0016")["ok"] is True)
    store.publish("dump-b")
    final = wait_until(lambda: info(c)["state"] == "fresh" and info(c)["source"].endswith("/dump-b") and info(c))
    check("vanishing dumps: then a good one loads", final and final["snapshot"] >= 5, final)
    check("vanishing dumps: the connections survived", text.ask("hops h0001 h0016") == "hops %d" % want_b)
    c.close()
    text.close()
    check("reload daemon: clean exit", d.stop() == 0, d.log_text()[-500:])


def main():
    try:
        test_command_line()
        test_waits_for_first_dump()
        store = DumpStore(os.path.join(WORK, "main"))
        store.add("dump-a", TWO_SWITCH)
        store.publish("dump-a")
        d = Canopyd(BIN, store.path, WORK, service_max_line_bytes=4096, service_max_pending_bytes=262144,
                    service_idle_timeout_s=1)
        test_answers_equal_canopy_route(d, os.path.join(store.path, "dump-a"))
        test_bad_input(d)
        test_slow_reader(d)
        test_reader_behind(d)
        test_idle_timeout(d)
        check("main daemon: clean exit", d.stop() == 0, d.log_text()[-500:])
        test_max_clients()
        test_reloads()
    finally:
        keep_logs_on_failure(check, WORK)
    return check.finish()


sys.exit(main())
