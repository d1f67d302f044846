#!/usr/bin/env bash
# Runs idemgen's benchmarks against its peers and prints every table as
# Markdown (also written to bench/out/results.md). From the repository root:
#
#   bench/run.sh                 # everything (about 10-15 minutes on 2 cores)
#   bench/run.sh gen             # only the generation table
#   bench/run.sh overhead amp    # only the request-overhead and amplification tables
#   bench/run.sh large           # only the large-response decode table
#   bench/run.sh hedge           # hedged against unhedged calls on a heavy-tailed server, and under an outage
#   bench/run.sh overload        # a shedding server under 1,000 clients at 10x its capacity
#   bench/run.sh servers         # the generated servers: idemgen's, ogen's, oapi-codegen's
#   OLD_REV=54771f5 bench/run.sh gencompare   # idemgen now, at OLD_REV and at GOGC=100, and the floors
#   bench/run.sh diff            # idemgen diff against oasdiff on real pairs (DIFF_PAIRS; all: minutes, ~4 GB)
#
# Knobs (environment): GEN_RUNS (generation runs per cell, median kept; 3),
# GEN_SPECS (space-separated spec paths; the real-world specs by default),
# GEN_BUILD (1: time `go build` of each generated package), BENCH_COUNT
# (go test -count for the overhead benchmarks; 10), BENCH_TIME (-benchtime; 1s),
# LARGE_COUNT (runs of the large-response benchmarks; 6), LARGE_TIME (their
# -benchtime; 100x), SERVER_COUNT (interleaved runs of the server
# benchmarks; 8), OVERLOAD_ARGS (flags of bench/cmd/overload; -split when
# unset, with its defaults: a 5 ms handler, 8 slots, 1,000 clients at 10x
# for 10 s, 3 runs).
#
# Needs only Go and the Go module proxy: the peers are installed at pinned
# versions into bench/.bin, and peak RSS is read from the kernel by a Go
# driver, so no time(1) is needed. With valgrind installed, the overhead
# table also counts instructions per call (steady where times are not).
set -euo pipefail

BENCH=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$BENCH/.." && pwd)
SPECS_DIR=${SPECS_DIR:-$ROOT/../shared/specs}
BIN=$BENCH/.bin
OUT=$BENCH/out
OAPI_CODEGEN=github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2
OGEN=github.com/ogen-go/ogen/cmd/ogen@v1.24.0
OASDIFF=github.com/oasdiff/oasdiff@v1.39.0
BENCHSTAT=golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da

GEN_RUNS=${GEN_RUNS:-3}
GEN_BUILD=${GEN_BUILD:-1}
BENCH_COUNT=${BENCH_COUNT:-10}
BENCH_TIME=${BENCH_TIME:-1s}
LARGE_COUNT=${LARGE_COUNT:-6}
LARGE_TIME=${LARGE_TIME:-100x}
SERVER_COUNT=${SERVER_COUNT:-8}
if [ -z "${GEN_SPECS:-}" ]; then
  GEN_SPECS=""
  for s in petstore-expanded.yaml twilio-api-v2010.yaml discord.json openai.yaml \
           stripe-spec3-2023-09.yaml github-api.json; do
    GEN_SPECS+=" $SPECS_DIR/$s"
  done
fi

tables=("$@")
[ ${#tables[@]} -eq 0 ] && tables=(gen overhead large amp)

log() { echo "== $*" >&2; }

install_tools() {
  mkdir -p "$BIN" "$OUT"
  log "installing peers (pinned) into $BIN"
  # One module per go install: the two peers live in different modules.
  GOBIN=$BIN go install "$OAPI_CODEGEN"
  GOBIN=$BIN go install "$OGEN"
  log "building idemgen from $ROOT"
  if ! (cd "$ROOT" && go build -o "$BIN/idemgen" ./cmd/idemgen); then
    log "idemgen does not build; its cells will say so"
    rm -f "$BIN/idemgen"
  fi
  gen_clients
  gen_servers
  log "building the bench drivers"
  (cd "$BENCH" && go build -o "$BIN/" ./cmd/...)
}

# gen_clients regenerates the three clients of spec/api.yaml that the
# overhead and amplification tables call, so they measure today's
# generators (git diff shows when idemgen's output moved).
gen_clients() {
  local spec=$BENCH/spec/api.yaml
  log "regenerating bench/clients from $spec"
  if [ -x "$BIN/idemgen" ]; then
    "$BIN/idemgen" generate "$spec" --package idemgen --out "$BENCH/clients/idemgen"
  fi
  "$BIN/oapi-codegen" -generate types,client -package oapicodegen \
    -o "$BENCH/clients/oapicodegen/client.gen.go" "$spec"
  "$BIN/ogen" -config "$BENCH/ogen.yml" -package ogen -target "$BENCH/clients/ogen" -clean "$spec" \
    2> "$OUT/ogen-clients.log"
  gen_large_clients
}

# gen_large_clients regenerates the clients of the large-response table from
# the excerpts in spec/ (made by cmd/excerpt, see docs/benchmarks.md). ogen
# refuses the Stripe excerpt and oapi-codegen's client of it does not
# compile, so Stripe has idemgen's client only.
gen_large_clients() {
  local large=$BENCH/clients/large
  for s in github:github-repos stripe:stripe-charges; do
    if [ -x "$BIN/idemgen" ]; then
      "$BIN/idemgen" generate "$BENCH/spec/${s#*:}.json" --package "idemgen${s%%:*}" --out "$large/idemgen${s%%:*}"
    fi
  done
  "$BIN/oapi-codegen" -generate types,client -package oapicodegengithub \
    -o "$large/oapicodegengithub/client.gen.go" "$BENCH/spec/github-repos.json"
  "$BIN/ogen" -config "$BENCH/ogen.yml" -package ogengithub -target "$large/ogengithub" -clean \
    "$BENCH/spec/github-repos.json" 2>> "$OUT/ogen-clients.log"
}

# gen_servers regenerates the three servers of spec/api.yaml that the
# server table serves: idemgen's (--server, in the package of its client),
# ogen's (ogen-server.yml) and oapi-codegen's strict server for net/http.
gen_servers() {
  local spec=$BENCH/spec/api.yaml srv=$BENCH/servers
  log "regenerating bench/servers from $spec"
  if [ -x "$BIN/idemgen" ]; then
    "$BIN/idemgen" generate "$spec" --package idemgen --out "$srv/idemgen" --server
  fi
  "$BIN/ogen" -config "$BENCH/ogen-server.yml" -package ogen -target "$srv/ogen" -clean "$spec" \
    2> "$OUT/ogen-servers.log"
  "$BIN/oapi-codegen" -generate types,std-http-server,strict-server -package oapicodegen \
    -o "$srv/oapicodegen/server.gen.go" "$spec"
}

machine() {
  echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') at idemgen commit $(git -C "$ROOT" rev-parse --short HEAD)" \
    "on $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), $(go version | cut -d' ' -f3-)."
  echo "Peers: oapi-codegen ${OAPI_CODEGEN##*@}, ogen ${OGEN##*@}, go-retryablehttp $(cd "$BENCH" && go list -m -f '{{.Version}}' github.com/hashicorp/go-retryablehttp)."
}

table_gen() {
  log "generation table (GEN_RUNS=$GEN_RUNS, GEN_BUILD=$GEN_BUILD)"
  local build=true specs=()
  [ "$GEN_BUILD" = 1 ] || build=false
  # Absolute paths: gentable runs inside the bench module, GEN_SPECS may be
  # relative to wherever the script was started.
  for s in $GEN_SPECS; do specs+=("$(realpath "$s")"); done
  (cd "$BENCH" && "$BIN/gentable" -bin "$BIN" -module "$BENCH" -ogen-config "$BENCH/ogen.yml" \
    -runs "$GEN_RUNS" -build="$build" "${specs[@]}") > "$OUT/generation.md"
}

# interleave PKG COUNT BENCHTIME DROP KEEP: builds PKG's benchmarks twice,
# as shipped and with -tags idemgen_stdjson (the runtime without its JSON
# fast path: encoding/json alone, as before the fast path), and runs the two
# binaries alternately COUNT times, so both see the same machine. From the
# shipped build it leaves out the sub-benchmarks matching DROP; from the
# encoding/json build it keeps those matching KEEP, idemgen's renamed
# idemgen-stdjson.
interleave() {
  local pkg=$1 count=$2 benchtime=$3 drop=$4 keep=$5 name
  name=$(basename "$pkg")
  (cd "$BENCH" && go test -c -o "$BIN/$name.test" "./$pkg/" &&
    go test -c -tags idemgen_stdjson -o "$BIN/$name-std.test" "./$pkg/")
  for _ in $(seq "$count"); do
    (cd "$BENCH/$pkg" && "$BIN/$name.test" -test.run '^$' -test.bench . -test.benchmem -test.count 1 \
      -test.benchtime "$benchtime") | grep -Ev "/($drop)-[0-9]+[[:space:]]" || true
    (cd "$BENCH/$pkg" && "$BIN/$name-std.test" -test.run '^$' -test.bench . -test.benchmem -test.count 1 \
      -test.benchtime "$benchtime") | grep -E "/($keep)-[0-9]+[[:space:]]" |
      sed -E 's#/idemgen-([0-9]+[[:space:]])#/idemgen-stdjson-\1#' || true
  done
}

table_overhead() {
  log "request overhead (go test -bench, count=$BENCH_COUNT, benchtime=$BENCH_TIME)"
  # The floor has its own types: only idemgen's row is taken from both builds.
  interleave overhead "$BENCH_COUNT" "$BENCH_TIME" '^$' idemgen > "$OUT/overhead.txt"
  "$BIN/benchratio" -floor floor < "$OUT/overhead.txt" > "$OUT/overhead.md"
  if command -v valgrind > /dev/null; then
    log "request overhead: instructions per call (callgrind)"
    "$BIN/instrcount" -test "$BIN/overhead.test" >> "$OUT/overhead.md"
  else
    printf '\n(valgrind not installed: no instruction counts)\n' >> "$OUT/overhead.md"
  fi
}

# table_large decodes 100 GitHub repositories and 100 Stripe charges through
# each generated client (bench/large). The encoding/json row decodes into
# idemgen's types, and those types' Nullable and union methods call the
# runtime's codec, so it is taken from the encoding/json build only.
table_large() {
  log "large responses (count=$LARGE_COUNT, benchtime=$LARGE_TIME)"
  interleave large "$LARGE_COUNT" "$LARGE_TIME" encoding/json 'encoding/json|idemgen' > "$OUT/large.txt"
  "$BIN/benchratio" -floor encoding/json < "$OUT/large.txt" > "$OUT/large.md"
}

# table_gencompare measures the current idemgen against the floors, against
# itself at the collector's default (GOGC=100), and, with OLD_REV set (a
# commit), against idemgen built at that commit, interleaved run by run.
table_gencompare() {
  log "generation, interleaved (GEN_RUNS=$GEN_RUNS, OLD_REV=${OLD_REV:-none})"
  local specs=() old=()
  for s in $GEN_SPECS; do specs+=("$(realpath "$s")"); done
  if [ -n "${OLD_REV:-}" ]; then
    local tree
    tree=$(mktemp -d)
    git -C "$ROOT" worktree add -q --detach "$tree" "$OLD_REV"
    (cd "$tree" && go build -o "$BIN/idemgen-old" ./cmd/idemgen)
    git -C "$ROOT" worktree remove --force "$tree"
    old=(-old "$BIN/idemgen-old")
  fi
  (cd "$BENCH" && "$BIN/gentable" -compare "${old[@]}" -bin "$BIN" -runs "$GEN_RUNS" "${specs[@]}") > "$OUT/gencompare.md"
}

# table_overload runs the fleet of bench/cmd/overload against golden/orders
# behind WithMaxInFlight (docs/server.md, "Overload, measured").
table_overload() {
  log "overload (${OVERLOAD_ARGS:--split})"
  # shellcheck disable=SC2086 # OVERLOAD_ARGS is a list of flags
  "$BIN/overload" ${OVERLOAD_ARGS:--split} > "$OUT/overload.md"
}

# table_servers runs bench/serverbench SERVER_COUNT times with -count 1,
# so that the servers alternate on the same machine, noting the load
# before each run; the table is relative to ogen. benchstat (pinned) adds
# each figure's confidence interval.
table_servers() {
  log "servers (interleaved runs: $SERVER_COUNT)"
  (cd "$BENCH" && go test -c -o "$BIN/serverbench.test" ./serverbench/)
  (cd "$BENCH/serverbench" && "$BIN/serverbench.test" -test.run 'TestServersAgree|TestLedger' > /dev/null)
  : > "$OUT/servers.txt"
  : > "$OUT/servers-load.txt"
  for _ in $(seq "$SERVER_COUNT"); do
    uptime >> "$OUT/servers-load.txt"
    (cd "$BENCH/serverbench" && "$BIN/serverbench.test" -test.run '^$' -test.bench . -test.benchmem \
      -test.count 1) | grep '^Benchmark' >> "$OUT/servers.txt"
  done
  {
    "$BIN/benchratio" -floor ogen < "$OUT/servers.txt" | sed 's/^| client |/| server |/'
    echo
    echo "Load average (1 min) before each run: $(sed -E 's/.*load average: ([0-9.]+),.*/\1/' "$OUT/servers-load.txt" | paste -sd' ')."
    echo
    echo '```'
    (cd "$BENCH" && go run "$BENCHSTAT" "$OUT/servers.txt") || echo "(benchstat did not run)"
    echo '```'
  } > "$OUT/servers.md"
}

# table_diff compares idemgen diff with oasdiff, installed pinned into
# bench/.bin outside the workspace, on the real pairs of bench/cmd/diffpeer.
table_diff() {
  log "diff against oasdiff (pairs: ${DIFF_PAIRS:-all})"
  [ -x "$BIN/oasdiff" ] || GOWORK=off GOBIN=$BIN go install "$OASDIFF"
  (cd "$BENCH" && go run ./cmd/diffpeer -oasdiff "$BIN/oasdiff" -shared "$SPECS_DIR" -pairs "${DIFF_PAIRS:-all}") > "$OUT/diff.md"
}

table_amp() {
  log "amplification"
  "$BIN/amplify" > "$OUT/amplification.md"
}

table_hedge() {
  log "hedging (about 70 s)"
  "$BIN/hedge" > "$OUT/hedge.md"
}

install_tools
{
  echo "## Results"
  echo
  machine
  for t in "${tables[@]}"; do
    case $t in
      gen) table_gen; echo; cat "$OUT/generation.md" ;;
      overhead) table_overhead; echo; cat "$OUT/overhead.md" ;;
      large) table_large; echo; cat "$OUT/large.md" ;;
      amp) table_amp; echo; cat "$OUT/amplification.md" ;;
      hedge) table_hedge; echo; cat "$OUT/hedge.md" ;;
      overload) table_overload; echo; cat "$OUT/overload.md" ;;
      servers) table_servers; echo; cat "$OUT/servers.md" ;;
      gencompare) table_gencompare; echo; cat "$OUT/gencompare.md" ;;
      diff) table_diff; echo; cat "$OUT/diff.md" ;;
      *) echo "unknown table $t (want gen, gencompare, overhead, large, amp, hedge, overload, servers or diff)" >&2; exit 2 ;;
    esac
  done
} > "$OUT/results.md"
cat "$OUT/results.md"
