"""``argue serve`` bounded (issue 39 item 4): the figures behind the README's serve lines.

Run: ``.venv/bin/python bench/serve_bounds.py [--debates 1000] [--idle-s 20]``

On ``--debates`` whole debate folders (copies of one scripted 3-round debate, 66 files each,
as bench/status_scale.py makes them) plus 20 broken ones (bad JSON, a 20 MB state.json, a
config nested 50,000 deep):

* **first view**: a fresh ``argue serve`` process, the wall time of its first ``GET /`` (cold:
  nothing cached), and from the process's launch to that page, against ``argue status`` on
  the same folder (median of 3, start-up included); the ratio is the figure;
* **later views**: the median of 10 more ``GET /`` (cached rows; broken folders not parsed
  again);
* **idle tab**: one index stream open, the server process's CPU time (``/proc``) over
  ``--idle-s`` seconds, as a share of one core;
* **shutdown**: 10 event streams, 20 idle sockets and 20 half-sent requests open, then
  SIGTERM: seconds until the process is gone.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from status_scale import _folders, _template  # noqa: E402

ENV = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120"}


def _broken(root: Path, count: int) -> None:
    for i in range(count):
        folder = root / f"argue_20000101_{i:06d}"
        folder.mkdir()
        if i == 0:
            (folder / "config.json").write_text("{}", encoding="utf-8")
            (folder / "state.json").write_text('{"a": "' + "x" * 20_000_000 + '"}')
        elif i % 2:
            (folder / "config.json").write_text("[" * 50_000, encoding="utf-8")
        else:
            (folder / "config.json").write_text("{not json", encoding="utf-8")


def _status_s(root: Path, runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "argue", "status", "--debates-dir", str(root)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=True,
            env=ENV,
        )
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _serve(root: Path) -> tuple[subprocess.Popen[str], str, float]:
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "argue", "serve", "--port", "0", "--debates-dir", str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=ENV,
    )
    assert process.stdout is not None
    return process, process.stdout.readline().strip(), started


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _read_stream(url: str, stop: threading.Event) -> None:
    try:
        with (
            httpx.Client(timeout=httpx.Timeout(60.0)) as client,
            client.stream("GET", url) as reply,
        ):
            for _ in reply.iter_lines():
                if stop.is_set():
                    return
    except httpx.HTTPError:
        return


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--debates", type=int, default=1000)
    parser.add_argument("--idle-s", type=float, default=20.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        os.environ.setdefault("ARGUE_HOME", str(base / "home"))
        ENV["ARGUE_HOME"] = os.environ["ARGUE_HOME"]
        template = _template(base / "template")
        root = _folders(template, base / "debates", args.debates, whole=True)
        _broken(root, 20)
        status = _status_s(root)

        process, url, launched = _serve(root)
        base_url, _, query = url.partition("/?")
        try:
            with httpx.Client(timeout=120.0) as client:
                t0 = time.perf_counter()
                first = client.get(url)
                first_s = time.perf_counter() - t0
                since_launch = time.perf_counter() - launched
                assert first.status_code == 200, first.status_code
                later = []
                for _ in range(10):
                    t0 = time.perf_counter()
                    assert client.get(url).status_code == 200
                    later.append(time.perf_counter() - t0)

            stop = threading.Event()
            reader = threading.Thread(
                target=_read_stream, args=(f"{base_url}/stream?{query}", stop), daemon=True
            )
            reader.start()
            time.sleep(2.0)  # the stream's first update
            cpu0, wall0 = _cpu_s(process.pid), time.perf_counter()
            time.sleep(args.idle_s)
            idle_share = (_cpu_s(process.pid) - cpu0) / (time.perf_counter() - wall0)
            stop.set()

            readers = [
                threading.Thread(
                    target=_read_stream, args=(f"{base_url}/stream?{query}", threading.Event())
                )
                for _ in range(10)
            ]
            for thread in readers:
                thread.daemon = True
                thread.start()
            port = int(base_url.rpartition(":")[2])
            sockets = [socket.create_connection(("127.0.0.1", port)) for _ in range(40)]
            for sock in sockets[:20]:
                sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
            time.sleep(2.0)
            t0 = time.perf_counter()
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)
            shutdown_s = time.perf_counter() - t0
            for sock in sockets:
                sock.close()
        finally:
            if process.poll() is None:
                process.kill()
    n = args.debates
    print(f"argue serve on {n:,} whole debates + 20 broken folders (one a 20 MB state.json)")
    print(f"  argue status (median of 3, start-up included)  {status:6.2f} s")
    print(f"  first GET / (cold)                             {first_s:6.2f} s")
    print(f"  launch of argue serve → first page             {since_launch:6.2f} s")
    print(f"  later GET / (median of 10)                     {statistics.median(later):6.3f} s")
    print(f"ratio first view / argue status: {first_s / status:.2f}")
    print(f"ratio launch-to-first-page / argue status: {since_launch / status:.2f}")
    print(f"idle index tab: {100 * idle_share:.2f} % of one core over {args.idle_s:g} s")
    print(f"SIGTERM with 10 streams, 20 idle and 20 half-sent sockets: {shutdown_s:.2f} s")


if __name__ == "__main__":
    main()
