#!/usr/bin/env python3
"""ratios.py RESULTS.TSV TITLE WINDOWS [GOAL]: the per-window summary of
realbench.sh and together.sh. RESULTS.TSV has a row per server and window
(columns server, window, counted, cpu_pct) of a run with windows 1 to
WINDOWS; a window counts when it has a counted row for both twserver and
reference (one with no row at all, a server that did not start, does
not). Prints each server's CPU and the ratio twserver/reference per
window (median, min-max), and every window's ratio in window order with
how many are under GOAL (default 0.4, the goal at 4 and 16 clients; 0.25
at 63); exits 1 when a window did not count or none did.

It also holds the per-window arithmetic both scripts share (window_cpu,
SNAPSHOTS_PER_SECOND), which their inline Python imports."""
import csv
import statistics
import sys

# SNAPSHOTS_PER_SECOND is how many snapshots each server sends a client in
# game a second (twserver's default snapshot rate, the reference's 25): the
# part of the datagrams received that is not the clients' INPUTs.
SNAPSHOTS_PER_SECOND = 25


def window_cpu(r0, r1, n0, n1, s0, s1, tck, dt):
    """One server's CPU over a window of dt seconds, as results.tsv holds it:
    % of a core from its threads' schedstat run time (r0, r1 in ns), system
    % from /proc/PID/stat (s0, s1 in clock ticks, tck a second), runs a
    second and µs a run (n0, n1: schedstat's run counts)."""
    runs = max(n1 - n0, 1)
    return (f"{100 * (r1 - r0) / 1e9 / dt:.3f}", f"{100 * (s1 - s0) / tck / dt:.2f}",
            f"{(n1 - n0) / dt:.1f}", f"{(r1 - r0) / runs / 1e3:.1f}")


def main(path, title, windows, goal=0.4):
    by = {w: {} for w in range(1, windows + 1)}
    with open(path) as f:
        for r in csv.DictReader(f, delimiter="\t"):
            by.setdefault(int(r["window"]), {})[r["server"]] = r
    ratios, cpu, bad = [], {"twserver": [], "reference": []}, 0
    for _, d in sorted(by.items()):
        if set(d) != {"twserver", "reference"} or any(r["counted"] != "1" for r in d.values()):
            bad += 1
            continue
        for k in cpu:
            cpu[k].append(float(d[k]["cpu_pct"]))
        ratios.append(float(d["twserver"]["cpu_pct"]) / float(d["reference"]["cpu_pct"]))

    def m(xs):
        return f"{statistics.median(xs):.2f} ({min(xs):.2f}-{max(xs):.2f})" if xs else "-"

    print(f"{title}, {len(ratios)} windows counted, {bad} not")
    print(f"  twserver CPU % of a core:            {m(cpu['twserver'])}")
    print(f"  teeworlds-server 0.7.5 CPU %:        {m(cpu['reference'])}")
    print(f"  ratio twserver/reference per window: {m(ratios)}")
    print(f"  every window's ratio, {sum(r < goal for r in ratios)} under {goal:g}: " + ", ".join(f"{r:.3f}" for r in ratios))
    return 0 if ratios and not bad else 1


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
        sys.exit("usage: ratios.py RESULTS.TSV TITLE WINDOWS [GOAL]")
    sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), *map(float, sys.argv[4:])))
