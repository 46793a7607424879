#!/usr/bin/env bash
# The coverage figures rules/README.md states ("Over those 300 clean
# games ...") are the tool's: runs `gunbai generate --coverage 300 --turns 8
# --units 8`, clean and with --faults 3, and requires the README to say the
# ids exercised of the ids documented, and each reading option's count of
# games, exactly as the tool prints them.
#
# Usage: readme_coverage_test.sh GUNBAI SOURCE_DIR
set -euo pipefail
gunbai=$1
readme=$2/rules/README.md
text=$(tr '\n' ' ' <"${readme}" | tr -s ' ')
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
clean=$("${gunbai}" generate --coverage 300 --turns 8 --units 8)
faulty=$("${gunbai}" generate --coverage 300 --turns 8 --units 8 --faults 3)
read -r n m < <(sed -n 's/^\([0-9]*\) of \([0-9]*\) documented rule ids exercised.*/\1 \2/p' <<<"${clean}")
read -r k m2 < <(sed -n 's/^\([0-9]*\) of \([0-9]*\) documented rule ids exercised.*/\1 \2/p' <<<"${faulty}")
[[ -n "${n}" && -n "${k}" ]] || fail "the tool printed no 'N of M documented rule ids exercised' line"
grep -qF "games (1.4 s): ${n} of the ${m} documented ids" <<<"${text}" ||
  grep -qF ": ${n} of the ${m} documented ids" <<<"${text}" ||
  fail "the tool exercises ${n} of ${m} ids; rules/README.md says otherwise"
grep -qF "(with \`--faults 3\`, ${k} of the ${m2})" <<<"${text}" ||
  fail "with --faults 3 the tool exercises ${k} of ${m2}; rules/README.md says otherwise"
echo "ok   ${n} of ${m} ids clean, ${k} of ${m2} with --faults 3, as the README says"
# The same on a table: "the same 300 games on a table exercise N of the M
# (with `--faults 3`, K of the M), T of them table rules".
table=$("${gunbai}" generate --coverage 300 --turns 8 --units 8 --positions)
table_faulty=$("${gunbai}" generate --coverage 300 --turns 8 --units 8 --positions --faults 3)
read -r p m3 < <(sed -n 's/^\([0-9]*\) of \([0-9]*\) documented rule ids exercised.*/\1 \2/p' <<<"${table}")
read -r q m4 < <(sed -n 's/^\([0-9]*\) of \([0-9]*\) documented rule ids exercised.*/\1 \2/p' <<<"${table_faulty}")
t=$(grep -cE '^ +[1-9][0-9]*  daimyo\.table\.' <<<"${table}" || true)
grep -qF "on a table exercise ${p} of the ${m3} (with \`--faults 3\`, ${q} of the ${m4}), ${t} of them table rules" <<<"${text}" ||
  fail "on a table the tool exercises ${p} of ${m3} (${q} of ${m4} with --faults 3, ${t} table rules); rules/README.md says otherwise"
echo "ok   on a table ${p} of ${m3} ids clean (${t} table rules), ${q} of ${m4} with --faults 3, as the README says"
# Each reading: "  N  option: ... instead of ..." in the tool's output; the
# README names it as "`option` N" (with " games" after the first).
while read -r games option; do
  grep -qE "\`${option}\` ${games}( games|[ ,(:])" <<<"${text}" ||
    fail "the reading ${option} changes ${games} games; rules/README.md says otherwise"
done < <(sed -n 's/^ *\([0-9][0-9]*\)  \([a-z_]*\): .* instead of .*/\1 \2/p' <<<"${clean}")
echo "ok   every reading option's count of games, as the README says"
