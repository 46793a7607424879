#!/usr/bin/env bash
# The deployment files, checked offline:
#  - every manifest of deploy/k8s validates against the Kubernetes API's
#    types (validate_k8s.py), and the validator refuses a misspelt field, a
#    wrong type, a missing required field and an unknown kind;
#  - deploy/systemd/gunbaid.service passes `systemd-analyze verify`, which
#    does complain of a bad directive;
#  - deploy/Dockerfile's runtime stage installs every library gunbai and
#    gunbaid load (ldd), or a package that depends on it (images cannot be
#    built here: no Docker daemon);
#  - the HEALTHCHECK's command, `gunbai health`, against a real gunbaid:
#    SERVING exit 0, and after SIGTERM the daemon exits 0 within its bound
#    and health says no answer, exit 3.
#
# Usage: deploy_test.sh GUNBAI GUNBAID SOURCE_DIR
set -euo pipefail
if [[ $# -ne 3 ]]; then
  echo "usage: $0 GUNBAI GUNBAID SOURCE_DIR" >&2
  exit 2
fi
gunbai=$1
gunbaid=$2
src=$3
work=$(mktemp -d)
daemon_pid=""
cleanup() {
  [[ -n "${daemon_pid}" ]] && kill -KILL "${daemon_pid}" 2>/dev/null || true
  rm -rf "${work}"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
ok() { echo "ok   $*"; }
validate=(/usr/bin/python3 "${src}/tests/deploy/validate_k8s.py")

# ---- Kubernetes manifests ----
"${validate[@]}" "${src}"/deploy/k8s/*.yaml > "${work}/valid.out" ||
  fail "the manifests do not validate: $(cat "${work}/valid.out")"
ok "$(cat "${work}/valid.out")"
for f in gunbaid.yaml postgres.yaml corpus-diff-job.yaml corpus-diff-merge-job.yaml \
  corpus-generate-job.yaml corpus-dice-job.yaml corpus-dice-merge-job.yaml \
  corpus-pvc.yaml; do
  grep -q "^kind:" "${src}/deploy/k8s/${f}" || fail "${f} holds no object"
done

# refused NAME WANT SED: the manifests changed by SED fail with WANT.
refused() {
  local name=$1 want=$2 script=$3
  sed "${script}" "${src}/deploy/k8s/gunbaid.yaml" > "${work}/${name}.yaml"
  cmp -s "${src}/deploy/k8s/gunbaid.yaml" "${work}/${name}.yaml" &&
    fail "${name}: the change did not apply"
  set +e
  "${validate[@]}" "${work}/${name}.yaml" > "${work}/${name}.out"
  local rc=$?
  set -e
  [[ ${rc} -eq 1 ]] || fail "${name}: validator exit ${rc}, want 1"
  grep -qF -- "${want}" "${work}/${name}.out" ||
    fail "${name}: output lacks '${want}': $(cat "${work}/${name}.out")"
  ok "refused ${name}: ${want}"
}
refused misspelt "spec.replica: no such field in V1DeploymentSpec" 's/^  replicas: 3/  replica: 3/'
refused wrong-type "spec.replicas: a whole number is wanted, not 'three'" 's/^  replicas: 3/  replicas: three/'
refused port-as-text "containerPort: a whole number is wanted" 's/containerPort: 50051/containerPort: "50051"/'
refused no-container-name "must not be \`None\`" 's/^        - name: gunbaid$/        - image: gunbai:second/'
refused unknown-kind "kind 'Deploymnet' is not a kind" 's/^kind: Deployment$/kind: Deploymnet/'
refused probe-typo "no such field in V1Probe" 's/periodSeconds: 5/periodSecond: 5/'

# ---- systemd ----
if command -v systemd-analyze > /dev/null; then
  mkdir -p "${work}/unit" "${work}/badunit"
  sed "s|/usr/local/bin/gunbaid|${gunbaid}|" "${src}/deploy/systemd/gunbaid.service" \
    > "${work}/unit/gunbaid.service"
  systemd-analyze verify --man=no "${work}/unit/gunbaid.service" > "${work}/unit.out" 2>&1 ||
    fail "systemd-analyze verify failed: $(cat "${work}/unit.out")"
  [[ ! -s "${work}/unit.out" ]] || fail "systemd-analyze verify complains: $(cat "${work}/unit.out")"
  sed 's/^KillSignal=SIGTERM/KillSignal=SIGTERN/' "${work}/unit/gunbaid.service" \
    > "${work}/badunit/gunbaid.service"
  systemd-analyze verify --man=no "${work}/badunit/gunbaid.service" > "${work}/badunit.out" 2>&1 || true
  grep -q "SIGTERN" "${work}/badunit.out" || fail "systemd-analyze verify missed a bad signal"
  ok "the systemd unit verifies, and a bad directive is caught"
else
  ok "systemd-analyze is not installed: the unit is not verified here"
fi

# ---- Dockerfile: the runtime packages hold every library ----
runtime=$(awk '/^FROM debian:bookworm-slim/{r=1} r && /apt-get install/{i=1; next}
  i && /rm -rf/{exit} i {gsub(/\\/,""); for (n = 1; n <= NF; n++) print $n}' \
  "${src}/deploy/Dockerfile" | grep -v '^&&$' | sort -u)
[[ -n "${runtime}" ]] || fail "no runtime packages found in the Dockerfile"
# What those packages bring, with what debian:bookworm-slim already has.
closure=$( (echo "${runtime}"; echo libc6 libgcc-s1 libstdc++6 zlib1g | tr ' ' '\n') |
  xargs apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
    --no-breaks --no-replaces --no-enhances 2>/dev/null | grep -v '^ ' | sort -u)
missing=""
for binary in "${gunbai}" "${gunbaid}"; do
  # The sanitizer runtimes are in a test build only (CI builds with
  # ASan and UBSan); the image is built without them.
  for lib in $(ldd "${binary}" | awk '$3 ~ /^\// {print $3}' |
      grep -Ev '/lib(asan|ubsan|lsan|tsan)\.so'); do
    real=$(readlink -f "${lib}")
    pkg=$(dpkg -S "${lib}" 2>/dev/null || dpkg -S "${lib/#\/lib\//\/usr\/lib\/}" 2>/dev/null ||
      dpkg -S "${real}" 2>/dev/null || dpkg -S "${real/#\/lib\//\/usr\/lib\/}" 2>/dev/null || true)
    pkg=${pkg%%:*}
    pkg=${pkg%%,*}
    [[ -n "${pkg}" ]] || fail "no Debian package holds ${lib}"
    grep -qx "${pkg}" <<< "${closure}" || missing+=" ${pkg}(${lib##*/})"
  done
done
[[ -z "${missing}" ]] || fail "the Dockerfile's runtime stage lacks:${missing}"
ok "the Dockerfile's runtime packages hold every library of gunbai and gunbaid"
grep -q '^USER gunbai' "${src}/deploy/Dockerfile" || fail "the image does not run as a user"
grep -q 'HEALTHCHECK .*' "${src}/deploy/Dockerfile" || fail "the image has no health check"

# ---- gunbai health against a real gunbaid, and its SIGTERM ----
"${gunbaid}" --listen=127.0.0.1:0 --data-dir="${work}/data" > "${work}/daemon.out" \
  2> "${work}/daemon.err" &
daemon_pid=$!
for _ in $(seq 1 100); do
  grep -q "listening on" "${work}/daemon.out" && break
  sleep 0.1
done
addr=$(sed -n 's/^gunbaid listening on //p' "${work}/daemon.out")
[[ -n "${addr}" ]] || fail "gunbaid did not start: $(cat "${work}/daemon.err")"
out=$("${gunbai}" health --server="${addr}")
[[ "${out}" == "SERVING" ]] || fail "health said '${out}'"
ok "gunbai health: SERVING, exit 0"
start=$(date +%s%N)
kill -TERM "${daemon_pid}"
set +e
wait "${daemon_pid}"
rc=$?
set -e
daemon_pid=""
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
[[ ${rc} -eq 0 ]] || fail "gunbaid exited ${rc} after SIGTERM"
[[ ${elapsed_ms} -lt 10000 ]] || fail "gunbaid took ${elapsed_ms} ms to stop"
set +e
"${gunbai}" health --server="${addr}" --timeout-ms=1000 > /dev/null 2> "${work}/health.err"
rc=$?
set -e
[[ ${rc} -eq 3 ]] || fail "health of a stopped daemon: exit ${rc}, want 3"
ok "SIGTERM: exit 0 in ${elapsed_ms} ms; then health has no answer, exit 3"
echo "all passed"
