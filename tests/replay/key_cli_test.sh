#!/usr/bin/env bash
# `gunbai key` against an independent implementation: python3-cryptography
# (installed by deploy/setup.sh) checks a checkpoint gunbai signed, and
# gunbai opens a cosignature Python made, both in the C2SP formats written
# out here from c2sp.org/signed-note (key id: the first 4 bytes of
# SHA-256(name || 0x0A || 0x01 || public key); a signature line: em dash,
# space, name, space, base64(key id || Ed25519 signature over the text)).
#
# Usage: key_cli_test.sh GUNBAI
set -euo pipefail
gunbai=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

vkey=$("$gunbai" key --new=gunbaid.test/game-1 -o "$work/daemon.key")
[[ "$vkey" =~ ^gunbaid\.test/game-1\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}$ ]] || fail "verifier key: $vkey"
[[ "$(stat -c %a "$work/daemon.key")" == 600 ]] || fail "the private key file is readable by others"
printf 'gunbaid.test/game-1\n19\nqwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n' >"$work/checkpoint.txt"
"$gunbai" key --sign="$work/checkpoint.txt" --key="$work/daemon.key" >"$work/note.txt"
echo "ok   gunbai made a key and signed a checkpoint"

# Python checks gunbai's signature, then cosigns with a key of its own and
# prints that key's verifier key.
pvkey=$(python3 - "$vkey" "$work/note.txt" "$work/cosigned.txt" <<'PY'
import base64, hashlib, sys
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey, Ed25519PublicKey)
from cryptography.hazmat.primitives import serialization
vkey, note_path, out_path = sys.argv[1:]
name, kid, key = vkey.split("+", 2)
raw = base64.b64decode(key)
assert raw[0] == 1 and len(raw) == 33
pub = raw[1:]
assert hashlib.sha256(name.encode() + b"\n\x01" + pub).hexdigest()[:8] == kid
note = open(note_path, "rb").read()
text, sigs = note[: note.rindex(b"\n\n") + 1], note[note.rindex(b"\n\n") + 2 :]
line = sigs.decode().splitlines()[0]
assert line.startswith("\u2014 " + name + " "), line
blob = base64.b64decode(line.rsplit(" ", 1)[1])
assert blob[:4].hex() == kid
Ed25519PublicKey.from_public_bytes(pub).verify(blob[4:], text)  # Raises if bad.
mine = Ed25519PrivateKey.generate()
mpub = mine.public_key().public_bytes(serialization.Encoding.Raw,
                                      serialization.PublicFormat.Raw)
mname = "takeda.player"
mid = hashlib.sha256(mname.encode() + b"\n\x01" + mpub).digest()[:4]
sig = mine.sign(text)
cosigned = note + ("\u2014 " + mname + " " +
                   base64.b64encode(mid + sig).decode() + "\n").encode()
open(out_path, "wb").write(cosigned)
print(mname + "+" + mid.hex() + "+" + base64.b64encode(b"\x01" + mpub).decode())
PY
) || fail "python3-cryptography does not accept gunbai's signed checkpoint"
echo "ok   python3-cryptography verifies gunbai's signature by the C2SP rules"

"$gunbai" key --open="$work/cosigned.txt" --verifier="$vkey" --verifier="$pvkey" >"$work/opened.txt" ||
  fail "gunbai does not open the note Python cosigned"
cmp -s "$work/opened.txt" "$work/checkpoint.txt" || fail "the opened text differs"
echo "ok   gunbai opens Python's cosignature, both signatures required"

sed 's/^19$/20/' "$work/cosigned.txt" >"$work/changed.txt"
code=0
"$gunbai" key --open="$work/changed.txt" --verifier="$vkey" 2>"$work/changed.err" || code=$?
[[ $code -eq 1 ]] || fail "a changed tree size: exit $code"
grep -q "does not verify" "$work/changed.err" || fail "$(cat "$work/changed.err")"
code=0
"$gunbai" key --open="$work/note.txt" --verifier="$vkey" --verifier="$pvkey" 2>"$work/missing.err" || code=$?
[[ $code -eq 1 ]] || fail "a missing cosignature: exit $code"
grep -q "no signature of takeda.player" "$work/missing.err" || fail "$(cat "$work/missing.err")"
echo "ok   a changed checkpoint and a missing cosignature are refused (exit 1)"
