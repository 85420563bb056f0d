#!/usr/bin/env python3
"""Homepwner's acknowledged creates per second, and how long an acknowledgement takes.

Starts the given homepwner binary on a fresh container (and, with --database, on a
shared store in that database), then for 1 and for 50 clients posts creates for a fixed
time, each client on a keep-alive connection of its own, counting only 303 replies:
every one of them is durable (journal fsynced) when it arrives. Prints a Markdown table.

    scripts/homepwner-benchmark.py BINARY [--database URL] [--seconds N]

scripts/homepwner-benchmark.sh builds the release binary, starts a throwaway
PostgreSQL and runs this for both modes.
"""

import argparse
import http.client
import os
import re
import shutil
import signal
import statistics
import subprocess
import tempfile
import threading
import time
import uuid


def start(binary, container, database):
    arguments = [binary, "--port", "0", "--container", container]
    if database:
        arguments += ["--database", database, "--shared-name", f"bench.{uuid.uuid4()}"]
    server = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 60
    for line in server.stdout:
        found = re.search(r"is serving http://127\.0\.0\.1:(\d+)", line)
        if found:
            threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
            return server, int(found.group(1))
        if time.monotonic() > deadline:
            break
    server.kill()
    raise SystemExit("homepwner did not say where it serves")


def client(port, seconds, name, latencies, failures):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        "Origin": f"http://127.0.0.1:{port}",
        "Host": f"127.0.0.1:{port}",
    }
    end = time.monotonic() + seconds
    number = 0
    while time.monotonic() < end:
        body = f"name={name}-{number}&valueInDollars={number % 1000}"
        start = time.monotonic()
        connection.request("POST", "/items", body=body, headers=headers)
        reply = connection.getresponse()
        reply.read()
        if reply.status == 303:
            latencies.append((time.monotonic() - start) * 1000)
        else:
            failures.append(reply.status)
        number += 1
    connection.close()


def run(port, clients, seconds):
    latencies, failures = [], []
    threads = [
        threading.Thread(target=client, args=(port, seconds, f"c{clients}-{index}", latencies, failures))
        for index in range(clients)
    ]
    start = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - start
    if failures:
        raise SystemExit(f"{len(failures)} creates were refused: {sorted(set(failures))}")
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    return len(latencies) / elapsed, statistics.median(latencies), p99, len(latencies)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--database")
    parser.add_argument("--seconds", type=float, default=5)
    arguments = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="homepwner-bench-")
    mode = "shared" if arguments.database else "embedded"
    try:
        server, port = start(arguments.binary, folder, arguments.database)
        try:
            for clients in (1, 50):
                rate, p50, p99, count = run(port, clients, arguments.seconds)
                print(f"| {mode} | {clients} | {rate:.0f} | {p50:.2f} ms | {p99:.2f} ms | {count} |", flush=True)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
