#!/usr/bin/env bash
# The ledger against its store's floor (BenchmarkLedgerFloor in
# bench/serverbench), in one run: the test binary is built once, then
# FLOOR_ROUNDS rounds (6) each run every sub-benchmark once for
# FLOOR_TIME (-benchtime; 1s), so the ledger and its floor alternate and see
# the same machine. The raw lines (benchstat reads them) go to
# bench/out/floor.txt; the table printed last has the medians of the process's
# CPU per request and the ratios: fresh key / two commits (and / a read and
# two commits, the floor of a store that reads before it reserves), and
# uncached replay / one indexed read. From the repository root:
#
#   bench/floor.sh
#   FLOOR_ROUNDS=3 FLOOR_TIME=2000x bench/floor.sh
#   FLOOR_CPUPROFILE=/tmp/cpu.prof FLOOR_BENCH='LedgerFloor/sqlite-NORMAL/fresh-key' bench/floor.sh
#
# The PostgreSQL rows start pgtest's throwaway cluster (skipped without the
# server binaries); their CPU is the Go process's, not the server's.
set -euo pipefail

BENCH=$(cd "$(dirname "$0")" && pwd)
ROUNDS=${FLOOR_ROUNDS:-6}
TIME=${FLOOR_TIME:-1s}
PATTERN=${FLOOR_BENCH:-LedgerFloor}
mkdir -p "$BENCH/out" "$BENCH/.bin"
OUT="$BENCH/out/floor.txt"
(cd "$BENCH" && go test -c -o .bin/serverbench.test ./serverbench/)
: > "$OUT"
PROFILE=()
if [[ -n "${FLOOR_CPUPROFILE:-}" ]]; then
  PROFILE=(-test.cpuprofile "$FLOOR_CPUPROFILE")
fi
for _ in $(seq "$ROUNDS"); do
  (cd "$BENCH/serverbench" && ../.bin/serverbench.test -test.run '^$' -test.bench "$PATTERN" \
    -test.benchtime "$TIME" -test.benchmem "${PROFILE[@]}") | tee -a "$OUT"
done

echo
echo "commit $(git -C "$BENCH" rev-parse --short HEAD), $(go version | cut -d' ' -f3), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
awk '
function med(list,    n, a, i, j, t) {
  n = split(list, a, " ")
  for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
  if (n == 0) return 0
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
$1 ~ /^BenchmarkLedgerFloor\// {
  name = $1; sub(/-[0-9]+$/, "", name); split(name, p, "/")
  if (!(p[2] in seen)) { seen[p[2]] = 1; stores[++ns] = p[2] }
  for (i = 3; i <= NF; i++) {
    if ($i == "cpu-ns/op") cpu[p[2], p[3]] = cpu[p[2], p[3]] " " $(i - 1)
    if ($i == "allocs/op") al[p[2], p[3]] = al[p[2], p[3]] " " $(i - 1)
  }
}
END {
  print "| store | two commits | one commit | fresh key | fresh key / two commits | fresh key / one commit | indexed read | replay, uncached | replay / read |"
  print "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  for (s = 1; s <= ns; s++) {
    st = stores[s]
    fl = med(cpu[st, "two-commits"]); rf = med(cpu[st, "one-commit"]); fk = med(cpu[st, "fresh-key"])
    rd = med(cpu[st, "indexed-read"]); rp = med(cpu[st, "replay-uncached"])
    printf "| %s | %.1f µs, %d allocs | %.1f µs | %.1f µs, %d allocs | %s | %s | %.1f µs, %d allocs | %.1f µs, %d allocs | %s |\n", st,
      fl / 1000, med(al[st, "two-commits"]), rf / 1000, fk / 1000, med(al[st, "fresh-key"]),
      (fl ? sprintf("%.2fx", fk / fl) : "-"), (rf ? sprintf("%.2fx", fk / rf) : "-"),
      rd / 1000, med(al[st, "indexed-read"]), rp / 1000, med(al[st, "replay-uncached"]), (rd ? sprintf("%.2fx", rp / rd) : "-")
  }
}' "$OUT"
