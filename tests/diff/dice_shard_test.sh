#!/usr/bin/env bash
# gunbai dice --shard=I/N and --merge through the real binary: for N = 1..5
# the N parts of a corpus, merged, are byte for byte the report one run
# over the whole corpus prints (text and json), with its exit code; the
# parts split the corpus (every log in exactly one); parts that do not fit
# together, or that were cut or edited, are refused, exit 2, naming what is
# wrong.
#
# The corpus: 24 generated games (seeds 1..24; their players "player 1" and
# "player 2" play in every game, so each player's group gathers dice from
# every shard), a copy of game 1 with every die 1-5 turned into a 6 (its
# groups are flagged, so the report exits 1: the merge must too), a copy of
# game 2 with one die made a 7 (an invalid die, which breaks a run
# stretch: the stretches must cross the part intact), and the Sekigahara
# and Kawanakajima (Samurai Knight Fever: dice not summed in pairs) samples.
#
# Usage: dice_shard_test.sh GUNBAI SOURCE_DIR
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


mkdir -p "${work}/corpus"
cd "${work}"
for seed in $(seq 1 24); do
  "${gunbai}" generate --seed="${seed}" --turns=4 > "corpus/game-${seed}.textproto" 2> /dev/null
done
sed 's/\(dice: \)[1-5]\b/\16/g' corpus/game-1.textproto |
  sed 's/game_id: "generated-1"/game_id: "loaded-1"/' > corpus/loaded.textproto
sed '0,/\(dice: \)[1-6]\b/s//\17/' corpus/game-2.textproto |
  sed 's/game_id: "generated-2"/game_id: "invalid-die-2"/' > corpus/invalid-die.textproto
grep -q "dice: 7" corpus/invalid-die.textproto || fail "invalid die not planted"
cp "${src}"/tests/data/sekigahara.textproto "${src}"/tests/data/skf-kawanakajima.textproto corpus/
export LC_ALL=C  # the glob in byte order, as a folder is read
logs=(corpus/*.textproto)
[[ ${#logs[@]} -eq 28 ]] || fail "corpus holds ${#logs[@]} logs, want 28"

for format in text json; do
  set +e
  "${gunbai}" dice --format="${format}" "${logs[@]}" > "whole.${format}"
  whole_rc=$?
  set -e
  # The loaded copy is flagged: exit 1.
  [[ ${whole_rc} -eq 1 ]] || fail "unsharded ${format}: exit ${whole_rc}, want 1"
  for n in 1 2 3 4 5; do
    parts=()
    for ((i = 0; i < n; i++)); do
      "${gunbai}" dice --format=json --shard="${i}/${n}" "${logs[@]}" > "part-${n}-${i}.json" ||
        fail "shard ${i}/${n}: exit $?"
      parts+=("part-${n}-${i}.json")
    done
    same_report "whole.${format}" "${whole_rc}" "merged-${n}.${format}" \
      "${n} parts merged (${format})" "${gunbai}" dice --merge --format="${format}" "${parts[@]}"
  done
done
grep -q "FLAGGED" whole.text || fail "the loaded game is not flagged: the test shows little"
grep -q "player 1" whole.text || fail "no player group in the report"

# The parts of N=5 split the corpus: 28 logs, each position once, and no
# shard empty.
positions=$(cat part-5-*.json | grep -o '"position":"[0-9]*"' | sort | uniq | wc -l)
all=$(cat part-5-*.json | grep -o '"position":"[0-9]*"' | wc -l)
[[ ${positions} -eq 28 && ${all} -eq 28 ]] ||
  fail "5 parts hold ${all} logs at ${positions} distinct positions, want 28 and 28"
for i in 0 1 2 3 4; do
  grep -q '"position"' "part-5-${i}.json" || fail "shard ${i} of 5 is empty: the test shows little"
done
ok "the 5 parts split the 28 logs, none empty"

# A folder is every log under it by path: the same report as the files in
# byte order (the glob above, in the C locale), and its shards merge to it.
set +e
"${gunbai}" dice corpus > folder.text
rc=$?
set -e
[[ ${rc} -eq 1 ]] || fail "dice over the folder: exit ${rc}, want 1"
cmp -s whole.text folder.text || fail "the folder's report differs from the files'"
for i in 0 1 2; do
  "${gunbai}" dice --format=json --shard="${i}/3" corpus > "folder-part-${i}.json"
done
set +e
"${gunbai}" dice --merge folder-part-*.json > folder-merged.text
set -e
cmp -s whole.text folder-merged.text || fail "the folder's 3 parts merged differ"
ok "a folder: the report of its logs in path order, and its parts merge to it"

refuse "shards 1, 3 of 5 missing" "${gunbai}" dice --merge part-5-0.json part-5-2.json part-5-4.json
refuse "are both shard 2 of 5" "${gunbai}" dice --merge part-5-0.json part-5-1.json part-5-2.json \
  part-5-2.json part-5-3.json part-5-4.json
refuse "part-4-0.json is not of the same run as part-5-0.json" "${gunbai}" dice --merge \
  part-5-0.json part-4-0.json
refuse "whole.text: not a part of a sharded dice run" "${gunbai}" dice --merge whole.text
refuse "add --format=json" "${gunbai}" dice --shard=0/2 "${logs[@]}"
refuse "drop --server" "${gunbai}" dice --format=json --shard=0/2 --server=127.0.0.1:1 "${logs[@]}"
refuse "give it only the part files" "${gunbai}" dice --merge --shard=0/2 part-2-0.json part-2-1.json
refuse "wants I/N" "${gunbai}" dice --format=json --shard=5/5 "${logs[@]}"
# A part cut short (its end lost) is not JSON any more.
head -c -200 part-2-1.json > cut.json
refuse "cut.json: not a part of a sharded dice run" "${gunbai}" dice --merge part-2-0.json cut.json
# A part with one log taken out, its JSON whole: the logs no longer add up.
/usr/bin/python3 - part-2-1.json short.json <<'PY'
import json, sys
part = json.load(open(sys.argv[1]))
part["logs"].pop()
json.dump(part, open(sys.argv[2], "w"))
PY
refuse "cut short or edited" "${gunbai}" dice --merge part-2-0.json short.json
# A face count edited by hand: the faces no longer add up to the dice.
/usr/bin/python3 - part-1-0.json edited.json <<'PY'
import json, sys
part = json.load(open(sys.argv[1]))
clan = part["logs"][0]["clans"][0]
clan["face_counts"][5] = str(int(clan["face_counts"][5]) + 40)
json.dump(part, open(sys.argv[2], "w"))
PY
refuse "the counts do not add up" "${gunbai}" dice --merge edited.json
echo "all passed"
