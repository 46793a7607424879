#!/usr/bin/env bash
# gunbai generate --count C --out-dir DIR [--shard=I/N] through the real
# binary: every game of the corpus is byte for byte what `gunbai generate
# --seed SEED` with the same options writes (and its manifest what
# --manifest writes); for N = 2 and 3 the shards' directories hold every
# game of the unsharded corpus exactly once and nothing else; bad
# combinations are refused, exit 2, with what to do.
#
# Usage: corpus_test.sh GUNBAI
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/test_helpers.sh"

if [[ $# -ne 1 ]]; then
  echo "usage: $0 GUNBAI" >&2
  exit 2
fi
gunbai=$1
work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT
cd "${work}"


opts=(--turns=3 --faults=1 --units=4)
"${gunbai}" generate --count=12 --seed=40 --out-dir=whole "${opts[@]}" 2> whole.err ||
  fail "corpus: exit $?: $(cat whole.err)"
grep -qF "wrote 12 of 12 games to whole (seeds 40 to 51)" whole.err ||
  fail "no summary: $(cat whole.err)"
[[ $(ls whole | wc -l) -eq 24 ]] || fail "whole holds $(ls whole | wc -l) files, want 12 games + 12 manifests"
for seed in $(seq 40 51); do
  "${gunbai}" generate --seed="${seed}" "${opts[@]}" --manifest="one.manifest" > one.textproto
  cmp -s one.textproto "whole/game-${seed}.textproto" || fail "game-${seed} differs from --seed ${seed}"
  cmp -s one.manifest "whole/game-${seed}.manifest.jsonl" || fail "manifest of ${seed} differs"
done
ok "each of the 12 games and manifests is byte for byte the one --seed writes"
"${gunbai}" audit whole/game-45.textproto > /dev/null && fail "a game with a planted fault audits clean"
ok "a corpus game has its planted fault"

for n in 2 3; do
  for ((i = 0; i < n; i++)); do
    "${gunbai}" generate --count=12 --seed=40 --out-dir="shards-${n}/${i}" --shard="${i}/${n}" \
      "${opts[@]}" 2> shard.err || fail "shard ${i}/${n}: exit $?"
    grep -qF "(shard ${i} of ${n})" shard.err || fail "shard ${i}/${n} summary: $(cat shard.err)"
    [[ $(ls "shards-${n}/${i}" | wc -l) -gt 0 ]] || fail "shard ${i}/${n} is empty: the test shows little"
  done
  mkdir "union-${n}"
  for ((i = 0; i < n; i++)); do
    for f in "shards-${n}/${i}"/*; do
      [[ -e "union-${n}/$(basename "$f")" ]] && fail "$(basename "$f") is in two shards of ${n}"
      cp "$f" "union-${n}/"
    done
  done
  diff -r whole "union-${n}" > /dev/null || fail "the ${n} shards are not the corpus: $(diff -rq whole "union-${n}" | head)"
  ok "the ${n} shards hold the 12 games once each, identical to the unsharded corpus"
done

# A binary corpus: .binpb files, each the bytes of --format=binary.
"${gunbai}" generate --count=2 --seed=7 --format=binary --out-dir=bin 2> /dev/null
"${gunbai}" generate --seed=8 --format=binary > one.binpb
cmp -s one.binpb bin/game-8.binpb || fail "binary game-8 differs"
[[ ! -e bin/game-7.manifest.jsonl ]] || fail "a manifest written for a game without faults"
ls bin | grep -q partial && fail "a temporary file was left"
ok "binary corpus: game-SEED.binpb as --format=binary, no manifest without faults"

refuse "add --out-dir DIR" "${gunbai}" generate --count=3
refuse "--out-dir needs --count" "${gunbai}" generate --out-dir=x
refuse "add --count C --out-dir DIR" "${gunbai}" generate --shard=0/2
refuse "drop --coverage, -o and --manifest" "${gunbai}" generate --count=3 --out-dir=x --manifest=m
refuse "drop --coverage, -o and --manifest" "${gunbai}" generate --count=3 --out-dir=x --coverage=2
refuse "runs past the largest seed" "${gunbai}" generate --count=3 --out-dir=x --seed=18446744073709551615
refuse "wants I/N" "${gunbai}" generate --count=3 --out-dir=x --shard=2/2
echo "a file" > afile
refuse "cannot make the directory" "${gunbai}" generate --count=3 --out-dir=afile/sub
echo "all passed"
