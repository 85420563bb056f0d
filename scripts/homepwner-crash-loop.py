#!/usr/bin/env python3
"""Kills Homepwner with SIGKILL right after an acknowledgement, round after round, and
checks after every restart that nothing it acknowledged was lost or undone.

Even rounds post creates one at a time, every third operation a delete of an item from
an earlier round, and kill the server while the request after the K-th acknowledgement
is in flight. Odd rounds run 50 clients at once and kill it when the K-th acknowledgement
arrives; every 303 read counts, even one read after the kill: the server sent it.

    scripts/homepwner-crash-loop.py BINARY [ROUNDS] [--database URL] [--seed N]

With a database, the last check is of the database too: a new instance, in a container
of its own, must list every acknowledged create and none of the acknowledged deletes
within --catch-up seconds (default 300), with the killed instance running again beside
it. A change the killed instance saved but never shared counts as lost. The last round
ends with SIGKILL too: a SIGTERM would save the store whole, after which a start
compares every item and finds what a broken cursor lost.

Prints one summary line; exits 1 at the first round that finds a loss.
"""

import argparse
import http.client
import json
import os
import random
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import uuid


def start(binary, container, database, name):
    arguments = [binary, "--port", "0", "--container", container]
    if database:
        arguments += ["--database", database, "--shared-name", name]
    server = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in server.stdout:
        found = re.search(r"is serving http://127\.0\.0\.1:(\d+)", line)
        if found:
            threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
            return server, int(found.group(1))
    raise SystemExit(f"homepwner exited ({server.wait()}) before serving")


def connect(port):
    return http.client.HTTPConnection("127.0.0.1", port, timeout=30)


def headers(port):
    return {
        "Content-Type": "application/x-www-form-urlencoded",
        "Origin": f"http://127.0.0.1:{port}",
        "Host": f"127.0.0.1:{port}",
    }


def post(connection, port, path, body):
    connection.request("POST", path, body=body, headers=headers(port))
    reply = connection.getresponse()
    reply.read()
    return reply.status


def items(port):
    connection = connect(port)
    connection.request("GET", "/api/items", headers={"Host": f"127.0.0.1:{port}"})
    reply = connection.getresponse()
    listed = json.loads(reply.read())
    connection.close()
    return listed


def sequential(port, round_number, kill_after, acknowledged, deleted, rng):
    deletable = items(port)
    rng.shuffle(deletable)
    connection = connect(port)
    for index in range(300):
        if index % 3 == 2 and deletable:
            item = deletable.pop()
            if post(connection, port, f"/items/{item['itemKey']}/delete", "") == 303:
                acknowledged.discard(item["name"])
                deleted.add(item["itemKey"])
        else:
            name = f"r{round_number}-s{index}"
            if post(connection, port, "/items", f"name={name}") == 303:
                acknowledged.add(name)
        if index + 1 == kill_after:
            break
    # The next request is in flight when the kill lands.
    connection.request("POST", "/items", body=f"name=r{round_number}-unacknowledged", headers=headers(port))


def concurrent(port, server, round_number, kill_after, acknowledged):
    lock = threading.Lock()
    count = [0]

    def client(number):
        try:
            connection = connect(port)
            for index in range(100):
                name = f"r{round_number}-c{number}-{index}"
                if post(connection, port, "/items", f"name={name}") != 303:
                    return
                with lock:
                    acknowledged.add(name)
                    count[0] += 1
                    if count[0] == kill_after:
                        server.send_signal(signal.SIGKILL)
        except (OSError, http.client.HTTPException):
            return

    threads = [threading.Thread(target=client, args=(number,)) for number in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def missing(port, acknowledged, deleted):
    """The acknowledged creates the instance at `port` does not list, and the
    acknowledged deletes it still lists."""
    listed = items(port)
    return acknowledged - {item["name"] for item in listed}, deleted & {item["itemKey"] for item in listed}


def shared_catch_up(binary, folder, database, name, acknowledged, deleted, limit):
    """Seconds until a new instance lists what was acknowledged; exits 1 past `limit`."""
    began = time.monotonic()
    killed, _ = start(binary, folder, database, name)
    fresh_folder = tempfile.mkdtemp(prefix="homepwner-crash-fresh-")
    fresh, port = start(binary, fresh_folder, database, name)
    try:
        while True:
            lost, undone = missing(port, acknowledged, deleted)
            if not lost and not undone:
                return time.monotonic() - began
            if time.monotonic() - began > limit:
                print(f"FAIL: after {limit} s a new instance lacks {len(lost)} acknowledged creates and still lists "
                      f"{len(undone)} acknowledged deletes: they never reached the database")
                raise SystemExit(1)
            time.sleep(1)
    finally:
        for server in (killed, fresh):
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
        shutil.rmtree(fresh_folder, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("rounds", type=int, nargs="?", default=1000)
    parser.add_argument("--database")
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--catch-up", type=float, default=300)
    arguments = parser.parse_args()
    rng = random.Random(arguments.seed)
    folder = tempfile.mkdtemp(prefix="homepwner-crash-")
    name = f"crash.{uuid.uuid4()}"
    acknowledged, deleted = set(), set()
    began = time.monotonic()
    try:
        for round_number in range(arguments.rounds + 1):
            server, port = start(arguments.binary, folder, arguments.database, name)
            lost, undone = missing(port, acknowledged, deleted)
            if lost or undone:
                server.kill()
                print(f"FAIL after round {round_number}: {len(lost)} acknowledged creates lost, "
                      f"{len(undone)} acknowledged deletes undone")
                raise SystemExit(1)
            if round_number == arguments.rounds:
                # Shared, killed too: a SIGTERM saves the store whole, and the start after a
                # save compares every item, which would find a change the cursor lost.
                server.send_signal(signal.SIGKILL if arguments.database else signal.SIGTERM)
                server.wait(timeout=30)
                break
            kill_after = rng.randint(1, 150)
            if round_number % 2 == 0:
                sequential(port, round_number, kill_after, acknowledged, deleted, rng)
            else:
                concurrent(port, server, round_number, kill_after, acknowledged)
            server.send_signal(signal.SIGKILL)
            server.wait()
        mode = "shared" if arguments.database else "embedded"
        shared = ""
        if arguments.database:
            seconds = shared_catch_up(
                arguments.binary, folder, arguments.database, name, acknowledged, deleted, arguments.catch_up)
            shared = f"; a new instance listed them all after {seconds:.1f} s"
        print(f"homepwner crash loop ({mode}): {arguments.rounds} kills, 0 acknowledged creates lost "
              f"({len(acknowledged)} standing), 0 of {len(deleted)} acknowledged deletes undone, "
              f"{time.monotonic() - began:.0f} s{shared}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
