#!/usr/bin/env bash
# The load curve (docs/benchmarks.md, "Load curve"): keyed creates (a fresh
# Idempotency-Key and business reference each) through HAProxy, driven by
# vegeta's attacker as a library at 1, 4, 16 and 64 concurrent clients, on
# SQLite (one server process) and on the replicated PostgreSQL 15 pair
# (primary + synchronous standby, three servers), each with the ledger and
# without it (--bypass-ledger). Per cell: a closed-loop probe of the most it
# sustains, then an open loop at 80% of that rate; one Markdown table, then
# where each curve bends.
#
#   bench/loadcurve.sh                           about four minutes
#   bench/loadcurve.sh -clients 1,4 -stores sqlite -probe 1s -measure 2s
#
# Flags go to `nemesis load` (-clients, -stores, -probe, -measure, -hdr DIR,
# -keep). The generator and the topology live in the nemesis module
# (nemesis/load), whose dependencies stay out of bench/'s. Not in .ci/run (too
# slow for CI; nemesis/load's unit tests are). The table is also written to
# bench/out/loadcurve.md. It installs nothing: it needs haproxy on PATH and the PostgreSQL 15 server
# binaries ($IDEMGEN_PG_BIN, default /usr/lib/postgresql/15/bin).
set -euo pipefail
BENCH=$(cd "$(dirname "$0")" && pwd)
cd "$BENCH/../nemesis"
if ! command -v haproxy >/dev/null; then
  echo "bench/loadcurve.sh: haproxy not found (apt-get install haproxy)" >&2
  exit 2
fi
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/nemesis" ./cmd/nemesis
mkdir -p "$BENCH/out"
"$bin/nemesis" load "$@" | tee "$BENCH/out/loadcurve.md"
