#!/usr/bin/python3
"""Check iprof's --format openmetrics output with the Prometheus client's
OpenMetrics parser (python3-prometheus-client, Debian).

om_check.py parse FILE
    FILE holds one or more exposition documents, each ending with "# EOF"
    (a --interval stream).  Every document must parse; every counter sample
    (counters, histogram buckets, _count and _sum) must never be below its
    value in the previous document.  Prints "documents=N samples=M
    decreases=K" and then, for the last document, one line
    "NAME{LABELS} VALUE" per sample (labels sorted, values repr'd), so the
    test can grep exact values.
"""
import sys

from prometheus_client.openmetrics.parser import text_string_to_metric_families


def docs(text):
    out, cur = [], []
    for line in text.splitlines(keepends=True):
        cur.append(line)
        if line == "# EOF\n" or line == "# EOF":
            out.append("".join(cur))
            cur = []
    if "".join(cur).strip():
        raise SystemExit("trailing text after the last # EOF")
    return out


def samples(doc):
    res = {}
    for fam in text_string_to_metric_families(doc):
        for s in fam.samples:
            key = (s.name, tuple(sorted(s.labels.items())))
            if key in res:
                raise SystemExit(f"duplicate sample {key}")
            res[key] = (fam.type, s.value)
    return res


def main():
    if len(sys.argv) != 3 or sys.argv[1] != "parse":
        raise SystemExit(__doc__)
    with open(sys.argv[2], encoding="utf-8") as f:
        ds = docs(f.read())
    if not ds:
        raise SystemExit("no document")
    prev, dec, last = {}, 0, {}
    for d in ds:
        last = samples(d)
        for k, (t, v) in last.items():
            mono = t in ("counter", "histogram")
            if mono and k in prev and v < prev[k]:
                dec += 1
                print(f"decrease: {k}: {prev[k]} -> {v}", file=sys.stderr)
        prev = {k: v for k, (t, v) in last.items()}
    print(f"documents={len(ds)} samples={len(last)} decreases={dec}")
    for (name, labels), (t, v) in sorted(last.items()):
        lab = ",".join(f'{k}={val!r}' for k, val in labels)
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        print(f"{name}{{{lab}}} {v!r}")


main()
