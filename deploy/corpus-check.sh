#!/usr/bin/env bash
# Shows that a change (a restructure, a faster replay) changes nothing a
# user sees, on a corpus of a few thousand generated games of both
# rulesets, for a person to run before and after the change.
#
#   deploy/corpus-check.sh save DIR [DAIMYO] [SKF] [TABLE]
#       Writes DIR/logs: DAIMYO Daimyo games (default 1,000), SKF Samurai
#       Knight Fever games (default 500) and TABLE Daimyo games on a table
#       (`--positions`, 10 turns; default 500), each once clean and once
#       with 3 planted faults, from `gunbai generate` (seeds 1..N; the
#       Daimyo unit count varies with the seed: 4-12 a clan, 4-16 on a
#       table), with the manifests of the planted faults, and DIR/reports:
#       each log's `gunbai audit --outcomes --format=json`, with its exit
#       code.
#   deploy/corpus-check.sh check DIR
#       With the gunbai built now: audits every saved log again and requires
#       (1) `gunbai diff --baseline=DIR/reports DIR/logs` to report no
#       change in any log (findings, outcomes, the end of the game), (2) each
#       report and exit code byte-identical to the saved one, and (3) the
#       generator to write the same bytes for every saved log. Exits 1 and
#       lists the first differences otherwise.
#
# Environment: GUNBAI=path/to/gunbai (default build-dev/service/gunbai,
# built if missing). A 3,000-game corpus takes about 4 minutes each way on
# this machine (Debug build).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  echo "usage: deploy/corpus-check.sh save DIR [DAIMYO] [SKF] [TABLE]" >&2
  echo "       deploy/corpus-check.sh check DIR" >&2
  exit 2
}
[[ $# -ge 2 ]] || usage
mode=$1
dir=$2
daimyo=${3:-1000}
skf=${4:-500}
table=${5:-500}
for n in "${daimyo}" "${skf}" "${table}"; do
  [[ ${n} =~ ^[0-9]+$ ]] || usage
done

gunbai=${GUNBAI:-build-dev/service/gunbai}
if [[ ! -x ${gunbai} ]]; then
  cmake -S . -B build-dev -DCMAKE_BUILD_TYPE=Debug >/dev/null
  cmake --build build-dev -j2 --target gunbai >/dev/null
fi

# The generate arguments of one corpus log, by its file name.
generate_args() {
  local name=$1 seed
  seed=${name##*-}
  seed=$((10#${seed%.textproto}))
  case ${name} in
    daimyo-clean-*) echo "--seed ${seed} --units $((4 + seed % 9))" ;;
    daimyo-faults-*) echo "--seed ${seed} --units $((4 + seed % 9)) --faults 3 --manifest MANIFEST" ;;
    table-clean-*) echo "--seed ${seed} --units $((4 + seed % 13)) --positions --turns 10" ;;
    table-faults-*) echo "--seed ${seed} --units $((4 + seed % 13)) --positions --turns 10 --faults 3 --manifest MANIFEST" ;;
    skf-clean-*) echo "--ruleset skf --seed ${seed}" ;;
    skf-faults-*) echo "--ruleset skf --seed ${seed} --faults 3 --manifest MANIFEST" ;;
  esac
}

names() {
  local s
  for ((s = 1; s <= daimyo; s++)); do
    printf 'daimyo-clean-%05d.textproto\ndaimyo-faults-%05d.textproto\n' "$s" "$s"
  done
  for ((s = 1; s <= skf; s++)); do
    printf 'skf-clean-%05d.textproto\nskf-faults-%05d.textproto\n' "$s" "$s"
  done
  for ((s = 1; s <= table; s++)); do
    printf 'table-clean-%05d.textproto\ntable-faults-%05d.textproto\n' "$s" "$s"
  done
}

# Audits one log into OUT (the report, then a line with the exit code).
audit_one() {
  local log=$1 out=$2 rc=0
  "${gunbai}" audit --outcomes --format=json "${log}" >"${out}" || rc=$?
  echo "${rc}" >"${out%.json}.rc"
}

case ${mode} in
  save)
    mkdir -p "${dir}/logs" "${dir}/reports"
    count=0
    while read -r name; do
      args=$(generate_args "${name}")
      # shellcheck disable=SC2086  # the arguments are words on purpose
      "${gunbai}" generate ${args//MANIFEST/${dir}/logs/${name%.textproto}.manifest} \
        -o "${dir}/logs/${name}"
      audit_one "${dir}/logs/${name}" "${dir}/reports/${name%.textproto}.json"
      count=$((count + 1))
      if ((count % 500 == 0)); then echo "saved ${count} games" >&2; fi
    done < <(names)
    echo "saved ${count} games in ${dir} ($("${gunbai}" --version 2>/dev/null | head -1 || true))"
    ;;
  check)
    [[ -d ${dir}/logs && -d ${dir}/reports ]] || {
      echo "corpus-check: ${dir} has no logs/ and reports/; run save first" >&2
      exit 2
    }
    work=$(mktemp -d)
    trap 'rm -rf "${work}"' EXIT
    failed=0
    count=0
    for log in "${dir}"/logs/*.textproto; do
      name=$(basename "${log}")
      args=$(generate_args "${name}")
      rm -f "${work}/manifest"
      # shellcheck disable=SC2086
      "${gunbai}" generate ${args//MANIFEST/${work}/manifest} -o "${work}/log"
      if ! cmp -s "${work}/log" "${log}"; then
        echo "generator changed: ${name}"
        failed=1
      fi
      saved_manifest=${log%.textproto}.manifest
      if [[ -f ${saved_manifest} ]] && ! cmp -s "${work}/manifest" "${saved_manifest}"; then
        echo "manifest changed: ${name}"
        failed=1
      fi
      audit_one "${log}" "${work}/report.json"
      for ext in json rc; do
        if ! cmp -s "${work}/report.${ext}" "${dir}/reports/${name%.textproto}.${ext}"; then
          echo "report changed: ${name} (.${ext})"
          diff <(head -c 2000 "${dir}/reports/${name%.textproto}.${ext}") \
            <(head -c 2000 "${work}/report.${ext}") | head -8 || true
          failed=1
        fi
      done
      count=$((count + 1))
      if ((count % 500 == 0)); then echo "checked ${count} games" >&2; fi
    done
    # One diff a kind of game: a baseline is found by its game's id, and the
    # Daimyo games on and off a table share ids (generated-N).
    for kind in daimyo skf table; do
      mkdir -p "${work}/${kind}/logs" "${work}/${kind}/reports"
      ln -s "$(realpath "${dir}")"/logs/"${kind}"-*.textproto "${work}/${kind}/logs/"
      ln -s "$(realpath "${dir}")"/reports/"${kind}"-*.json "${work}/${kind}/reports/"
      rc=0
      "${gunbai}" diff --quiet --format=json --baseline="${work}/${kind}/reports" \
        "${work}/${kind}/logs" >"${work}/diff.json" || rc=$?
      summary=$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["summary"], sort_keys=True))' "${work}/diff.json" 2>/dev/null || echo "(no summary)")
      echo "gunbai diff --baseline, ${kind} (exit ${rc}): ${summary}"
      if [[ ${rc} -ne 0 ]]; then failed=1; fi
    done
    if [[ ${failed} -ne 0 ]]; then
      echo "corpus-check: ${count} games compared, CHANGES FOUND" >&2
      exit 1
    fi
    echo "corpus-check: ${count} games compared, no change"
    ;;
  *) usage ;;
esac
