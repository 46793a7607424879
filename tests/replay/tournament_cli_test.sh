#!/usr/bin/env bash
# `gunbai tournament` through the real binary: a four-player Samurai Knight
# Fever tournament over copies of tests/data/skf-kawanakajima.textproto,
# whose working is in tests/data/README.md (Uesugi, the first clan, reaches
# the 5 points to win at the end of turn 2; the log as kept has two
# disputes, an unmodified 6 forgotten at seq 9 and Takeda claimed the
# winner at seq 26). Copies:
#   ok.textproto     both mended (seq 9's claim 1 hit, Uesugi claimed): it
#                    audits clean, the first side wins; its header seats
#                    the players Aki (Uesugi) and Ben (Takeda)
#   kept.textproto   as kept, the players' names taken out: disputed, and
#                    provisionally the second side wins (its claim)
#   ok-anon.textproto  ok.textproto without the players' names
#   ok2.textproto    a copy of ok.textproto (each game names its own log)
# Every score, tie-break, rank and pairing below is worked by hand in the
# comments. Usage: tournament_cli_test.sh GUNBAI DATA_DIR
set -euo pipefail
gunbai=$1
data=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
k=$data/skf-kawanakajima.textproto
sed -e 's/dice: 6 modifiers: "obstacle" claimed_hits: 0/dice: 6 modifiers: "obstacle" claimed_hits: 1/' \
  -e 's/claimed_winner: "takeda"/claimed_winner: "uesugi"/' "$k" >"$work/ok.textproto"
sed -e 's/ player: "[A-Za-z]*"//' "$k" >"$work/kept.textproto"
sed -e 's/ player: "[A-Za-z]*"//' "$work/ok.textproto" >"$work/ok-anon.textproto"
cp "$work/ok.textproto" "$work/ok2.textproto"  # each game has its own log
cmp -s "$k" "$work/ok.textproto" && fail "the mends did not apply"
grep -q 'player:' "$work/kept.textproto" && fail "the players' names were not taken out"

t=$work/spring.textproto
cat >"$t" <<'EOF'
name: "Spring Taikai"
version: "1"
players { id: "aki" name: "Aki" army: "Uesugi" }
players { id: "ben" name: "Ben" army: "Takeda" }
players { id: "cat" name: "Cat" army: "Uesugi" }
players { id: "dan" name: "Dan" army: "Takeda" }
scoring { win: 3 draw: 1 loss: 0 bye: 3 tie_breaks: TIE_BREAK_OPPONENTS_SCORE }
rounds {
  number: 1
  ruleset: "skf"
  games { table: 1 first: "aki" second: "ben" log: "ok.textproto" }
  games { table: 2 first: "cat" second: "dan" log: "kept.textproto" }
}
rounds {
  number: 2
  ruleset: "skf"
  games { table: 1 first: "aki" second: "dan" log: "ok2.textproto" }
  games { table: 2 first: "ben" second: "cat" }
}
EOF

# Round 1: aki beat ben, verified (3 to aki). cat v dan disputed (dan's 3
# provisional). Round 2: aki v dan on a log whose header seats Ben, not
# dan, second: disputed (aki's 3 provisional); ben v cat has no log:
# missing. Counted: aki 3, the rest 0; opponents' score: ben met aki (3):
# 3, cat and dan met no one counted: 0, in the file's order.
code=0
"$gunbai" tournament standings "$t" >"$work/s1.out" 2>"$work/s1.err" || code=$?
[[ $code -eq 1 ]] || fail "provisional standings: exit $code: $(cat "$work/s1.out" "$work/s1.err")"
grep -q "standings PROVISIONAL" "$work/s1.out" || fail "$(cat "$work/s1.out")"
ranks=$(sed -n 's/^ *\([0-9]\)  \([A-Za-z]*\) *\([0-9]*\)  .*/\1 \2 \3/p' "$work/s1.out" | tr '\n' ',')
[[ $ranks == "1 Aki 3,2 Ben 0,3 Cat 0,4 Dan 0," ]] || fail "ranks: $ranks: $(cat "$work/s1.out")"
grep -q "round 1 table 1: aki beat ben  \[verified\]" "$work/s1.out" || fail "$(cat "$work/s1.out")"
grep -q "round 1 table 2: dan beat cat  \[DISPUTED (provisional)\]" "$work/s1.out" || fail "$(cat "$work/s1.out")"
grep -q "the log claims takeda won; the scenario's victory points give uesugi; 0 violations and 2 disputes: skf.melee.hit at seq 9, game.victory.winner at seq 26" "$work/s1.out" ||
  fail "the reason of r1t2: $(cat "$work/s1.out")"
grep -q "the log's second clan (takeda) is played by \"Ben\", but the pairing seats dan there" "$work/s1.out" ||
  fail "the seat check: $(cat "$work/s1.out")"
grep -q "round 2 table 2: ben v cat  \[MISSING\]" "$work/s1.out" || fail "$(cat "$work/s1.out")"
# aki: 3 counted, 6 should the disputed r2t1 stand; dan: 3 should r1t2.
grep -q "Aki .* 1 disputed (score 6 should they stand)  1 missing" "$work/s1.out" && fail "aki has no missing game"
grep -q "Aki .* 1 disputed (score 6 should they stand)" "$work/s1.out" || fail "$(cat "$work/s1.out")"
grep -q "Dan .* 2 disputed (score 3 should they stand)" "$work/s1.out" || fail "$(cat "$work/s1.out")"
grep -q "auditing round 1, table 1: ok.textproto" "$work/s1.err" || fail "no progress: $(cat "$work/s1.err")"
"$gunbai" tournament standings "$t" >"$work/s1-again.out" 2>/dev/null || true
cmp -s "$work/s1.out" "$work/s1-again.out" || fail "two runs differ"
echo "ok   provisional standings: exit 1, aki 3 first, one verified, two disputed (with why), one missing; byte-identical twice"

# The umpire rules: r1t2 the first side (cat) wins, since Uesugi reached 5
# points; r2t1 the result stands (aki wins: the header's names were a
# slip). And r2t2's game comes: ok-anon, ben first (Uesugi) wins.
"$gunbai" tournament rule "$t" --round 1 --table 2 --ruling changed --result first \
  --appellant cat --appeal "game.victory.winner at seq 26" \
  --note "Uesugi reached 5 points at the end of turn 2" >"$work/r1.out" || fail "rule 1"
grep -q "^ruling 1 recorded on round 1, table 2" "$work/r1.out" || fail "$(cat "$work/r1.out")"
"$gunbai" tournament rule "$t" --round 2 --table 1 --ruling stands \
  --note "the header's names were a slip" >/dev/null || fail "rule 2"
sed -i 's/games { table: 2 first: "ben" second: "cat" }/games { table: 2 first: "ben" second: "cat" log: "ok-anon.textproto" }/' "$t"
# aki 3 + 3 = 6; ben 0 + 3 = 3; cat 3 + 0 = 3; dan 0 + 0 = 0. Opponents'
# score: aki met ben (3) and dan (0): 3; ben met aki (6) and cat (3): 9;
# cat met dan (0) and ben (3): 3; dan met cat (3) and aki (6): 9.
code=0
"$gunbai" tournament standings "$t" >"$work/s2.out" 2>/dev/null || code=$?
[[ $code -eq 0 ]] || fail "final standings: exit $code: $(cat "$work/s2.out")"
grep -q "standings final" "$work/s2.out" || fail "$(cat "$work/s2.out")"
ranks=$(sed -n 's/^ *\([0-9]\)  \([A-Za-z]*\) *\([0-9]*\)  [0-9]-[0-9]-[0-9] *\([0-9]*\).*/\1 \2 \3 \4/p' "$work/s2.out" | tr '\n' ',')
[[ $ranks == "1 Aki 6 3,2 Ben 3 9,3 Cat 3 3,4 Dan 0 9," ]] || fail "ranks: $ranks: $(cat "$work/s2.out")"
grep -q "ruling 1: the result is changed: cat (the first side) wins: Uesugi reached 5 points at the end of turn 2" "$work/s2.out" ||
  fail "$(cat "$work/s2.out")"
grep -q "round 2 table 1: aki beat dan  \[ruled\]" "$work/s2.out" || fail "$(cat "$work/s2.out")"
# The count of rulings and the last one's hash, published with the
# standings: a ruling dropped from the end would show against them.
last=$(sed -n 's/^  hash: "\([0-9a-f]*\)"$/\1/p' "$t" | tail -1)
grep -q "^rulings: 2, the last sha256:$last$" "$work/s2.out" || fail "the rulings line: $(cat "$work/s2.out")"
echo "ok   the rulings recorded and chained; final standings: exit 0, aki 6, ben 3 (9), cat 3 (3), dan 0"

code=0
"$gunbai" tournament standings --format=json "$t" >"$work/s2.json" 2>/dev/null || code=$?
python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
assert s["final"] is True, s
assert [p["player"] for p in s["standings"]] == ["aki", "ben", "cat", "dan"], s["standings"]
assert [p.get("score", 0) for p in s["standings"]] == [6, 3, 3, 0], s["standings"]
assert len(s["digest"]) == 64 and all(len(g.get("log_sha256", "")) == 64 for g in s["games"])
' "$work/s2.json" || fail "the JSON: $(head -c 400 "$work/s2.json")"
echo "ok   the JSON parses: final, the ranks, the digest and every log's sha256"

# CSV for a spreadsheet: the header, then the four players as ranked above.
"$gunbai" tournament standings --format=csv "$t" >"$work/s2.csv" 2>/dev/null || fail "csv"
python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert rows[0] == ["rank", "player", "name", "army", "score", "wins", "draws", "losses",
                   "TIE_BREAK_OPPONENTS_SCORE", "disputed", "provisional_score", "missing"], rows[0]
assert [r[1] for r in rows[1:]] == ["aki", "ben", "cat", "dan"], rows
assert [r[4] for r in rows[1:]] == ["6", "3", "3", "0"], rows
assert [r[8] for r in rows[1:]] == ["3", "9", "3", "9"], rows
' "$work/s2.csv" || fail "the CSV: $(cat "$work/s2.csv")"
echo "ok   the CSV: a header row and the players in rank order with scores and tie-breaks"

# Round 3, Swiss on aki 6, ben 3, cat 3, dan 0. aki met ben and dan: aki v
# cat; ben v dan (not met). Sides: aki has played first twice, cat once
# of two: cat takes the first side; dan has never played first: dan.
"$gunbai" tournament pair "$t" >"$work/p.out" 2>/dev/null || fail "pair"
python3 - "$work/p.out" <<'PY' || fail "the pairing: $(cat "$work/p.out")"
import re, sys
text = open(sys.argv[1]).read()
games = re.findall(r'table: (\d+)\s+first: "(\w+)"\s+second: "(\w+)"', text)
assert "number: 3" in text and 'ruleset: "skf"' in text, text
assert games == [("1", "cat", "aki"), ("2", "dan", "ben")], games
PY
"$gunbai" tournament pair --append "$t" >/dev/null 2>&1 || fail "pair --append"
"$gunbai" tournament standings "$t" >/dev/null 2>&1 && fail "round 3 has no logs: the standings cannot be final"
echo "ok   round 3 paired: cat v aki, dan v ben; appended, its games missing"

# The organizer swaps round 3's second sides at tables 1 and 2 before it
# starts: cat v ben, dan v aki, recorded with the reason; round 1 has been
# played: refused.
"$gunbai" tournament swap "$t" --round 3 --table 1 --with 2 --reason "aki arrives late" >"$work/swap.out" || fail "swap"
grep -q "^round 3: was table 1: cat v aki, table 2: dan v ben; now table 1: cat v ben, table 2: dan v aki$" "$work/swap.out" ||
  fail "$(cat "$work/swap.out")"
grep -q 'reason: "aki arrives late"' "$t" || fail "the swap is not recorded in the file"
"$gunbai" tournament pair "$t" >/dev/null 2>&1 || fail "the file with its swap does not read"
code=0
"$gunbai" tournament swap "$t" --round 1 --table 1 --with 2 --reason "x" >/dev/null 2>"$work/swap.err" || code=$?
[[ $code -eq 2 ]] || fail "a swap in a played round: exit $code"
grep -q "round 1 has started at table 1" "$work/swap.err" || fail "$(cat "$work/swap.err")"
echo "ok   a pairing swapped before its round, recorded with why; a played round's refused"

# A ruling edited afterwards (ruling 1's note) breaks the chain: exit 2,
# naming it.
sed -i 's/note: "Uesugi reached 5 points/note: "Takeda reached 5 points/' "$t"
grep -q 'note: "Takeda reached 5 points' "$t" || fail "the edit of ruling 1 did not apply"
code=0
"$gunbai" tournament standings "$t" >/dev/null 2>"$work/bad.err" || code=$?
[[ $code -eq 2 ]] || fail "an edited ruling: exit $code"
grep -q "ruling 1 does not chain" "$work/bad.err" || fail "$(cat "$work/bad.err")"
echo "ok   a ruling edited afterwards: exit 2, ruling 1 does not chain"

# A round's reading options. tests/data/anegawa-clean.textproto audits
# clean under the ruleset's readings (README: "A tour", step 4), but a
# morale total at seq 17 is disputed where only the turn's lost stands
# count (stands_lost_count_whole_game: false). Round 1 plays it under the
# ruleset's readings: verified, a draw (Daimyo sets no victory condition);
# round 2, the same log, under the other reading: disputed at seq 17.
cp "$data/anegawa-clean.textproto" "$work/anegawa.textproto"
cp "$data/anegawa-clean.textproto" "$work/anegawa2.textproto"
cat >"$work/readings.textproto" <<'EOF'
name: "Readings" version: "1"
players { id: "chika" name: "Chika" } players { id: "dai" name: "Dai" }
scoring { win: 2 draw: 1 loss: 0 }
rounds { number: 1 ruleset: "daimyo"
  games { table: 1 first: "chika" second: "dai" log: "anegawa.textproto" } }
rounds { number: 2 ruleset: "daimyo"
  options {
    first_volley_spent_when_disordered: true
    stands_lost_count_whole_game: false
    leader_roll_stands: LEADER_ROLL_STANDS_AFTER_THE_LOSS
    being_charged_lasts: BEING_CHARGED_LASTS_REST_OF_TURN
    pursuit_disorder: PURSUIT_DISORDER_FRESH_ENEMY
    router_retire_owes: ROUTER_RETIRE_OWES_NOTHING_MORE
    missile_ashigaru_spear: MISSILE_ASHIGARU_SPEAR_IMPROVISED
  }
  games { table: 1 first: "chika" second: "dai" log: "anegawa2.textproto" } }
EOF
code=0
"$gunbai" tournament standings "$work/readings.textproto" >"$work/readings.out" 2>/dev/null || code=$?
[[ $code -eq 1 ]] || fail "readings: exit $code: $(cat "$work/readings.out")"
grep -q "round 1 table 1: chika drew with dai  \[verified\]" "$work/readings.out" || fail "$(cat "$work/readings.out")"
grep -q "round 2 table 1: chika drew with dai  \[DISPUTED (provisional)\]" "$work/readings.out" || fail "$(cat "$work/readings.out")"
grep -q "at seq 17" "$work/readings.out" || fail "$(cat "$work/readings.out")"
sed -i 's/ruleset: "daimyo"/ruleset: "skf"/' "$work/readings.textproto"
code=0
"$gunbai" tournament standings "$work/readings.textproto" >/dev/null 2>"$work/readings.err" || code=$?
[[ $code -eq 2 ]] || fail "options on skf: exit $code"
grep -q "round 2 sets reading options, but ruleset skf has none to set" "$work/readings.err" || fail "$(cat "$work/readings.err")"
echo "ok   a round's reading options: the same log verified in round 1, disputed at seq 17 in round 2; refused on skf"
