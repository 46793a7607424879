#!/usr/bin/env bash
# gunbai diff --shard=I/N and --merge through the real binary: for N = 1..5
# the N parts of a corpus, merged, are byte for byte the report one run
# over the whole corpus prints (text and json), with its exit code; the
# parts split the corpus (every log in exactly one); parts that do not fit
# together are refused, exit 2, naming the file.
#
# The corpus: 30 generated games (seeds 1..30, some with planted faults),
# the sample logs of tests/data, and a file that is not a log (a failure
# the report lists). The new side is the built-in Daimyo ruleset with its
# firing hit score lowered from 8 to 7, so that logs change.
#
# Usage: shard_test.sh GUNBAI SOURCE_DIR
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/test_helpers.sh"

if [[ $# -ne 2 ]]; then
  echo "usage: $0 GUNBAI SOURCE_DIR" >&2
  exit 2
fi
gunbai=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT


mkdir -p "${work}/corpus/generated" "${work}/corpus/samples"
for seed in $(seq 1 30); do
  faults=$((seed % 3))
  "${gunbai}" generate --seed="${seed}" --turns=4 --faults="${faults}" \
    > "${work}/corpus/generated/game-${seed}.textproto" 2> /dev/null
done
cp "${src}"/tests/data/sekigahara.textproto "${src}"/tests/data/anegawa-clean.textproto \
  "${work}/corpus/samples/"
echo "not a battle log" > "${work}/corpus/samples/broken.textproto"
"${gunbai}" ruleset daimyo --format=textproto |
  sed '0,/hit_score: 8/s//hit_score: 7/' > "${work}/house.textproto"
grep -q "hit_score: 7" "${work}/house.textproto" || fail "house ruleset not made"

cd "${work}"
diff_args=(--new-ruleset=house.textproto --quiet corpus)
for format in text json; do
  set +e
  "${gunbai}" diff "${diff_args[@]}" --format="${format}" > "whole.${format}"
  whole_rc=$?
  set -e
  # The corpus changes (hit score 7) and holds a broken file: exit 2.
  [[ ${whole_rc} -eq 2 ]] || fail "unsharded ${format}: exit ${whole_rc}, want 2"
  for n in 1 2 3 4 5; do
    parts=()
    for ((i = 0; i < n; i++)); do
      set +e
      "${gunbai}" diff "${diff_args[@]}" --format=json --shard="${i}/${n}" \
        > "part-${n}-${i}.json"
      rc=$?
      set -e
      [[ ${rc} -le 2 ]] || fail "shard ${i}/${n}: exit ${rc}"
      parts+=("part-${n}-${i}.json")
    done
    same_report "whole.${format}" "${whole_rc}" "merged-${n}.${format}" \
      "${n} parts merged (${format})" "${gunbai}" diff --merge --format="${format}" "${parts[@]}"
  done
done

# The parts of N=5 split the corpus: 33 logs, each position once.
positions=$(cat part-5-*.json | grep -o '"position":[0-9]*' | sort -t: -k2 -n | uniq | wc -l)
[[ ${positions} -eq 33 ]] || fail "5 parts hold ${positions} distinct positions, want 33"
empty=0
for i in 0 1 2 3 4; do
  grep -q '"position"' "part-5-${i}.json" || empty=$((empty + 1))
done
[[ ${empty} -eq 0 ]] || fail "${empty} of 5 shards are empty: the test shows little"
ok "the 5 parts split the 33 logs, none empty"

refuse "shards 1, 3 of 5 missing" "${gunbai}" diff --merge part-5-0.json part-5-2.json part-5-4.json
refuse "are both shard 2 of 5" "${gunbai}" diff --merge part-5-0.json part-5-1.json part-5-2.json \
  part-5-2.json part-5-3.json part-5-4.json
refuse "part-4-0.json is not of the same run as part-5-0.json" "${gunbai}" diff --merge \
  part-5-0.json part-4-0.json
refuse "whole.text: not a part of a sharded diff" "${gunbai}" diff --merge whole.text
refuse "add --format=json" "${gunbai}" diff "${diff_args[@]}" --shard=0/2
refuse "wants I/N" "${gunbai}" diff "${diff_args[@]}" --format=json --shard=5/5
refuse "wants I/N" "${gunbai}" diff "${diff_args[@]}" --format=json --shard=one/two
refuse "give it only the part files" "${gunbai}" diff --merge --new-ruleset=house.textproto part-1-0.json
# A part cut short (its last log lost) is found.
head -c -200 part-2-1.json > cut.json
refuse "cut.json: not a part of a sharded diff" "${gunbai}" diff --merge part-2-0.json cut.json
echo "all passed"
