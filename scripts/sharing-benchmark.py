#!/usr/bin/env python3
"""What a create costs as the inventory grows, embedded and shared.

For each size, starts the homepwner binary on a fresh container (shared: on a fresh
store of the database), fills it with 16 concurrent clients, then makes 200 sequential
creates and reports: the server's CPU per create (utime + stime from /proc), the
acknowledgement's p50 and p99, its RSS and its container's size. Shared, a second
instance is started on the filled store: its first sync time (until it lists every
item) and until it is idle, then the p99 of the lag from each acknowledgement on the
first instance to the second's revision changing. Last, the first instance is killed
with SIGKILL and started again: the lag of one create it acknowledges once it serves
again (a start that compared every item before its first push would show here).
Prints a Markdown table.

    scripts/sharing-benchmark.py BINARY --database URL [--sizes 1000,10000,99800]

scripts/sharing-benchmark.sh builds the release binary and starts a throwaway PostgreSQL.
"""

import argparse
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid

def headers(port):
    return {
        "Content-Type": "application/x-www-form-urlencoded",
        "Origin": f"http://127.0.0.1:{port}",
        "Host": f"127.0.0.1:{port}",
    }


def create(connection, port, name):
    connection.request("POST", "/items", body=f"name={name}&valueInDollars=7", headers=headers(port))
    reply = connection.getresponse()
    reply.read()
    if reply.status != 303:
        raise SystemExit(f"a create was refused: {reply.status}")


def fill(port, count, clients=16):
    def work(first):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        for number in range(first, count, clients):
            create(connection, port, f"seed-{number}")
        connection.close()

    threads = [threading.Thread(target=work, args=(index,)) for index in range(clients)]
    start = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return count / (time.monotonic() - start)


def get(port, path):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    connection.request("GET", path)
    reply = connection.getresponse()
    body = reply.read()
    connection.close()
    return body


def synced(port, size, began, limit=600):
    """When the instance at `port` last changed its revision before it listed `size`
    items. Its revision is polled (cheap); the list (which costs the instance a page of
    every item) only once the revision held still for a second."""
    revision, changed = get(port, "/api/revision"), time.monotonic()
    while time.monotonic() - began < limit:
        time.sleep(0.05)
        now = get(port, "/api/revision")
        if now != revision:
            revision, changed = now, time.monotonic()
        elif time.monotonic() - changed > 1 and len(json.loads(get(port, "/api/items"))) >= size:
            return changed
    return time.monotonic()


def settle(pid, limit=300):
    """Waits until `pid` used under 5% of a core over a second: the second instance has
    finished what its first sync left (pushing back nothing, writing its agreement)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        before = cpu_seconds(pid)
        time.sleep(1)
        if cpu_seconds(pid) - before < 0.05:
            return


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_megabytes(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0


def megabytes(folder):
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except FileNotFoundError:
                pass
    return total / 1e6


def percentile(values, fraction):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * fraction))]


def measure(binary, size, database, scratch):
    shared = database is not None
    name = f"bench.{uuid.uuid4()}"
    extra = ["--shared-name", name] if shared else []
    first, port = start(binary, os.path.join(scratch, f"a-{size}-{shared}"), database, extra)
    try:
        fill(port, size)
        time.sleep(1 if shared else 0)
        second = second_port = None
        first_sync = None
        if shared:
            began = time.monotonic()
            second, second_port = start(binary, os.path.join(scratch, f"b-{size}"), database, extra)
            first_sync = synced(second_port, size, began) - began
            settle(second.pid)
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        acks, lags = [], []
        cpu = cpu_seconds(first.pid)
        for number in range(200):
            revision = get(second_port, "/api/revision") if shared else None
            began = time.monotonic()
            create(connection, port, f"timed-{number}")
            acknowledged = time.monotonic()
            acks.append((acknowledged - began) * 1000)
            if shared:
                while get(second_port, "/api/revision") == revision and time.monotonic() - acknowledged < 60:
                    time.sleep(0.002)
                lags.append((time.monotonic() - acknowledged) * 1000)
        cpu = (cpu_seconds(first.pid) - cpu) / 200 * 1000
        connection.close()
        row = {
            "items": size,
            "mode": "shared" if shared else "embedded",
            "cpu": cpu,
            "p50": statistics.median(acks),
            "p99": percentile(acks, 0.99),
            "lag": percentile(lags, 0.99) if lags else None,
            "first_sync": first_sync,
            "rss": rss_megabytes(first.pid),
            "rss_second": rss_megabytes(second.pid) if second else None,
            "container": megabytes(os.path.join(scratch, f"a-{size}-{shared}")),
        }
        if shared:
            first.kill()
            first.wait(30)
            first, port = start(binary, os.path.join(scratch, f"a-{size}-{shared}"), database, extra)
            revision = get(second_port, "/api/revision")
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            create(connection, port, "after-restart")
            acknowledged = time.monotonic()
            while get(second_port, "/api/revision") == revision and time.monotonic() - acknowledged < 120:
                time.sleep(0.002)
            row["restart_lag"] = (time.monotonic() - acknowledged) * 1000
            connection.close()
        if second:
            second.terminate()
            second.wait(30)
        return row
    finally:
        first.terminate()
        first.wait(30)


def start(binary, container, database, extra):
    arguments = [binary, "--port", "0", "--container", container]
    if database:
        arguments += ["--database", database] + extra
    server = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in server.stdout:
        found = re.search(r"is serving http://127\.0\.0\.1:(\d+)", line)
        if found:
            # The rest of the output goes to a log beside the container, for a failed run.
            def keep():
                with open(container + ".log", "w") as log:
                    log.writelines(server.stdout)

            threading.Thread(target=keep, daemon=True).start()
            return server, int(found.group(1))
    raise SystemExit("homepwner did not say where it serves")


def milliseconds(value):
    return "–" if value is None else f"{value:.2f} ms"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--database", required=True)
    parser.add_argument("--sizes", default="1000,10000,99800")
    options = parser.parse_args()
    print(
        "| items | mode | CPU per create | ack p50 | ack p99 | lag p99 | first sync | RSS | RSS, second | container "
        "| lag after kill -9 |")
    print("|--:|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    scratch = tempfile.mkdtemp(prefix="keepsake-sharing-")
    print(f"(servers' output in {scratch}, removed after a run that succeeds)", file=sys.stderr)
    for size in [int(text) for text in options.sizes.split(",")]:
        for database in (None, options.database):
            row = measure(options.binary, size, database, scratch)
            first_sync = "–" if row["first_sync"] is None else f"{row['first_sync']:.1f} s"
            second = "–" if row["rss_second"] is None else f"{row['rss_second']:.0f} MB"
            print(
                f"| {row['items']:,} | {row['mode']} | {milliseconds(row['cpu'])} | {milliseconds(row['p50'])} "
                f"| {milliseconds(row['p99'])} | {milliseconds(row['lag'])} | {first_sync} | {row['rss']:.0f} MB "
                f"| {second} | {row['container']:.1f} MB | {milliseconds(row.get('restart_lag'))} |",
                flush=True,
            )
    shutil.rmtree(scratch, ignore_errors=True)


main()
