#!/usr/bin/env bash
# The commands of the corpus Jobs of deploy/k8s, run as their pods would run
# them (no cluster here): the container's `sh -c` script of each Job taken
# from the manifest, with /data a temporary folder, the corpus made smaller
# (--count 100000 -> 40, 4 turns), and each index 0..N-1 of an Indexed Job
# run in turn with JOB_COMPLETION_INDEX set. Then:
#  - corpus-generate-job.yaml's 8 pods wrote every game of seeds 1..40 once,
#    identical to one `gunbai generate --count 40 --turns 4`;
#  - corpus-dice-job.yaml's 8 parts, merged by corpus-dice-merge-job.yaml,
#    give the report `gunbai dice /data/corpus` prints on one host;
#  - corpus-diff-job.yaml's parts, merged by corpus-diff-merge-job.yaml,
#    give the report one `gunbai diff` prints.
#
# Usage: corpus_jobs_test.sh GUNBAI SOURCE_DIR
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
export PATH="$(dirname "${gunbai}"):${PATH}"
export LC_ALL=C
data="${work}/data"
mkdir -p "${data}"

# script FILE: the container's sh -c script of the Job in FILE, /data made
# ${data} and the corpus size 40.
script() {
  /usr/bin/python3 - "$1" "${data}" <<'PY'
import sys, yaml
job = yaml.safe_load(open(sys.argv[1]))
[container] = job["spec"]["template"]["spec"]["containers"]
assert container["command"] == ["/bin/sh", "-c"], container["command"]
[text] = container["args"]
print(text.replace("/data", sys.argv[2]).replace("--count=100000", "--count=40"))
PY
}
# run_job FILE: runs every pod of the Job in FILE; returns when all did.
run_job() {
  local file=${src}/deploy/k8s/$1
  local body
  body=$(script "${file}")
  local completions
  completions=$(/usr/bin/python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["spec"]["completions"])' "${file}")
  for ((i = 0; i < completions; i++)); do
    JOB_COMPLETION_INDEX=${i} /bin/sh -c "${body}" > "${work}/$1-${i}.out" 2> "${work}/$1-${i}.err" ||
      fail "$1 pod ${i}: exit $?: $(cat "${work}/$1-${i}.err")"
  done
}

run_job corpus-generate-job.yaml
"${gunbai}" generate --count=40 --seed=1 --turns=4 --out-dir="${work}/one-host" 2> /dev/null
diff -r "${work}/one-host" "${data}/corpus" > /dev/null ||
  fail "the 8 generate pods did not write the corpus one host writes"
ok "corpus-generate-job: 8 pods wrote the 40 games once, as one host"

run_job corpus-dice-job.yaml
[[ $(ls "${data}/dice-parts" | wc -l) -eq 8 ]] || fail "dice parts: $(ls "${data}/dice-parts")"
set +e
"${gunbai}" dice "${data}/corpus" > "${work}/dice-one-host.txt"
want_rc=$?
set -e
[[ ${want_rc} -le 1 ]] || fail "gunbai dice on one host: exit ${want_rc}"
run_job corpus-dice-merge-job.yaml
cmp -s "${work}/dice-one-host.txt" "${data}/dice.txt" ||
  fail "the dice merge differs from one host: $(diff "${work}/dice-one-host.txt" "${data}/dice.txt" | head)"
cmp -s "${work}/dice-one-host.txt" "${work}/corpus-dice-merge-job.yaml-0.out" ||
  fail "the dice merge pod's log is not the report"
ok "corpus-dice-job + merge: the report one host prints"

"${gunbai}" ruleset daimyo --format=textproto |
  sed '0,/hit_score: 8/s//hit_score: 7/' > "${data}/house.textproto"
run_job corpus-diff-job.yaml
set +e
"${gunbai}" diff --quiet --new-ruleset="${data}/house.textproto" "${data}/corpus" > "${work}/diff-one-host.txt"
set -e
run_job corpus-diff-merge-job.yaml
cmp -s "${work}/diff-one-host.txt" "${data}/report.txt" ||
  fail "the diff merge differs from one host: $(diff "${work}/diff-one-host.txt" "${data}/report.txt" | head)"
ok "corpus-diff-job + merge: the report one host prints"
echo "all passed"
