"""Prints the Autobahn report's results as docs/autobahn.md gives them:
counts per case group and every case whose result is not OK.

Usage: python3 summary.py OUTDIR/index.json
"""
import collections
import json
import sys

KINDS = ["OK", "NON-STRICT", "INFORMATIONAL", "UNIMPLEMENTED", "FAILED"]


def key(case_id):
    return tuple(int(p) for p in case_id.split("."))


def main(path):
    with open(path) as f:
        report = json.load(f)
    for agent, cases in report.items():
        groups = collections.defaultdict(collections.Counter)
        for case_id, r in cases.items():
            # A case's result is its worse half (messages, then closing).
            worst = max(r["behavior"], r["behaviorClose"], key=lambda b: KINDS.index(b) if b in KINDS else len(KINDS))
            groups[case_id.split(".")[0]][worst] += 1
        print(f"agent {agent}: {len(cases)} cases")
        print("| group | " + " | ".join(KINDS) + " |")
        print("|---|" + "---|" * len(KINDS))
        total = collections.Counter()
        for g in sorted(groups, key=int):
            total.update(groups[g])
            print(f"| {g}.* | " + " | ".join(str(groups[g][k]) for k in KINDS) + " |")
        print("| all | " + " | ".join(str(total[k]) for k in KINDS) + " |")
        print()
        for case_id in sorted(cases, key=key):
            r = cases[case_id]
            if r["behavior"] != "OK" or r["behaviorClose"] != "OK":
                print(f"- {case_id}: {r['behavior']} / close {r['behaviorClose']}"
                      f" (server's close code {r['remoteCloseCode']})")
    failed = any(
        "FAILED" in (r["behavior"], r["behaviorClose"])
        for cases in report.values()
        for r in cases.values()
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
