#include "replay/signed_note.h"

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <memory>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace gunbai::replay {

namespace {

constexpr std::uint8_t kEd25519 = 0x01;
constexpr absl::string_view kSignaturePrefix = "\xE2\x80\x94 ";  // "— "
constexpr int kMaxSignatures = 100;

using PkeyPtr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

bool ValidName(absl::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || c == '+') return false;
  }
  return true;
}

absl::string_view Bytes(const std::array<std::uint8_t, 32>& a) {
  return absl::string_view(reinterpret_cast<const char*>(a.data()), a.size());
}

absl::Status PublicFromSeed(NoteSigner& signer) {
  PkeyPtr key(
      EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr,
                                   signer.seed.data(), signer.seed.size()),
      &EVP_PKEY_free);
  std::size_t length = signer.public_key.size();
  if (key == nullptr ||
      EVP_PKEY_get_raw_public_key(key.get(), signer.public_key.data(),
                                  &length) != 1 ||
      length != signer.public_key.size()) {
    return absl::InternalError("OpenSSL could not make an Ed25519 key");
  }
  return absl::OkStatus();
}

// The 1-byte type then the 32 key bytes, base64; and back.
std::string TypedKey(const std::array<std::uint8_t, 32>& key) {
  return absl::Base64Escape(
      absl::StrCat(std::string(1, static_cast<char>(kEd25519)), Bytes(key)));
}

absl::Status ReadTypedKey(absl::string_view b64,
                          std::array<std::uint8_t, 32>& key) {
  std::string raw;
  if (!absl::Base64Unescape(b64, &raw) || raw.size() != 33 ||
      static_cast<std::uint8_t>(raw[0]) != kEd25519) {
    return absl::InvalidArgumentError(
        "the key is not base64 of an Ed25519 key (type 0x01 and 32 bytes)");
  }
  std::copy(raw.begin() + 1, raw.end(), key.begin());
  return absl::OkStatus();
}

std::string IdBytes(std::uint32_t id) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) {
    out[static_cast<std::size_t>(i)] =
        static_cast<char>((id >> (24 - 8 * i)) & 0xff);
  }
  return out;
}

absl::Status CheckText(absl::string_view text) {
  if (text.empty() || text.back() != '\n' || absl::StrContains(text, "\n\n")) {
    return absl::InvalidArgumentError(
        "a note's text is not empty, ends in a newline and holds no blank "
        "line");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> SignatureLine(absl::string_view text,
                                          const NoteSigner& signer) {
  PkeyPtr key(
      EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr,
                                   signer.seed.data(), signer.seed.size()),
      &EVP_PKEY_free);
  MdCtxPtr ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  std::array<std::uint8_t, 64> signature{};
  std::size_t length = signature.size();
  if (key == nullptr || ctx == nullptr ||
      EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) !=
          1 ||
      EVP_DigestSign(ctx.get(), signature.data(), &length,
                     reinterpret_cast<const unsigned char*>(text.data()),
                     text.size()) != 1) {
    return absl::InternalError("OpenSSL could not sign the note");
  }
  const std::string blob = absl::StrCat(
      IdBytes(NoteKeyId(signer.name, signer.public_key)),
      absl::string_view(reinterpret_cast<const char*>(signature.data()),
                        length));
  return absl::StrCat(kSignaturePrefix, signer.name, " ",
                      absl::Base64Escape(blob), "\n");
}

bool VerifyEd25519(const std::array<std::uint8_t, 32>& public_key,
                   absl::string_view text, absl::string_view signature) {
  PkeyPtr key(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr,
                                          public_key.data(), public_key.size()),
              &EVP_PKEY_free);
  MdCtxPtr ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  return key != nullptr && ctx != nullptr &&
         EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr,
                              key.get()) == 1 &&
         EVP_DigestVerify(
             ctx.get(),
             reinterpret_cast<const unsigned char*>(signature.data()),
             signature.size(),
             reinterpret_cast<const unsigned char*>(text.data()),
             text.size()) == 1;
}

}  // namespace

std::uint32_t NoteKeyId(absl::string_view name,
                        const std::array<std::uint8_t, 32>& public_key) {
  const std::string input =
      absl::StrCat(name, "\n", std::string(1, static_cast<char>(kEd25519)),
                   Bytes(public_key));
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
  SHA256(reinterpret_cast<const unsigned char*>(input.data()), input.size(),
         digest.data());
  return (std::uint32_t{digest[0]} << 24) | (std::uint32_t{digest[1]} << 16) |
         (std::uint32_t{digest[2]} << 8) | std::uint32_t{digest[3]};
}

absl::StatusOr<NoteSigner> NewNoteSigner(absl::string_view name) {
  if (!ValidName(name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("a key name is not empty and holds no space or '+' (e.g. "
                     "gunbaid.example.org), not \"",
                     name, "\""));
  }
  NoteSigner signer;
  signer.name = std::string(name);
  if (RAND_bytes(signer.seed.data(), static_cast<int>(signer.seed.size())) !=
      1) {
    return absl::InternalError("OpenSSL's random generator failed");
  }
  if (absl::Status s = PublicFromSeed(signer); !s.ok()) return s;
  return signer;
}

std::string SignerKeyText(const NoteSigner& signer) {
  return absl::StrFormat("PRIVATE+KEY+%s+%08x+%s", signer.name,
                         NoteKeyId(signer.name, signer.public_key),
                         TypedKey(signer.seed));
}

absl::StatusOr<NoteSigner> ParseSignerKey(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  // The key's base64 may hold '+' too: five parts at most.
  const std::vector<absl::string_view> parts =
      absl::StrSplit(text, absl::MaxSplits('+', 4));
  if (parts.size() != 5 || parts[0] != "PRIVATE" || parts[1] != "KEY" ||
      !ValidName(parts[2])) {
    return absl::InvalidArgumentError(
        "a private key reads PRIVATE+KEY+NAME+ID+KEY (gunbai key writes one)");
  }
  NoteSigner signer;
  signer.name = std::string(parts[2]);
  if (absl::Status s = ReadTypedKey(parts[4], signer.seed); !s.ok()) return s;
  if (absl::Status s = PublicFromSeed(signer); !s.ok()) return s;
  if (absl::StrFormat("%08x", NoteKeyId(signer.name, signer.public_key)) !=
      parts[3]) {
    return absl::InvalidArgumentError(
        "the private key's id does not match its key: the file is damaged");
  }
  return signer;
}

std::string VerifierKeyText(const NoteSigner& signer) {
  return absl::StrFormat("%s+%08x+%s", signer.name,
                         NoteKeyId(signer.name, signer.public_key),
                         TypedKey(signer.public_key));
}

absl::StatusOr<NoteVerifier> ParseVerifierKey(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  const std::vector<absl::string_view> parts =
      absl::StrSplit(text, absl::MaxSplits('+', 2));
  std::uint32_t id = 0;
  if (parts.size() != 3 || !ValidName(parts[0]) || parts[1].size() != 8 ||
      !absl::SimpleHexAtoi(parts[1], &id)) {
    return absl::InvalidArgumentError(
        "a verifier key reads NAME+ID+KEY (8 hex digits of id, the key in "
        "base64)");
  }
  NoteVerifier v;
  v.name = std::string(parts[0]);
  v.key_id = id;
  if (absl::Status s = ReadTypedKey(parts[2], v.public_key); !s.ok()) return s;
  if (NoteKeyId(v.name, v.public_key) != id) {
    return absl::InvalidArgumentError(
        "the verifier key's id does not match its name and key");
  }
  return v;
}

absl::StatusOr<std::string> SignNote(absl::string_view text,
                                     const NoteSigner& signer) {
  if (absl::Status s = CheckText(text); !s.ok()) return s;
  absl::StatusOr<std::string> line = SignatureLine(text, signer);
  if (!line.ok()) return line.status();
  return absl::StrCat(text, "\n", *line);
}

namespace {

struct SplitNote {
  absl::string_view text;  // With its final newline.
  std::vector<absl::string_view> lines;
};

absl::StatusOr<SplitNote> Split(absl::string_view note) {
  const std::size_t blank = note.rfind("\n\n");
  if (blank == absl::string_view::npos || note.empty() || note.back() != '\n') {
    return absl::InvalidArgumentError(
        "not a signed note: the text, a blank line, then signature lines "
        "each ending in a newline");
  }
  SplitNote out;
  out.text = note.substr(0, blank + 1);
  absl::string_view rest = note.substr(blank + 2);
  rest.remove_suffix(1);
  out.lines = absl::StrSplit(rest, '\n');
  if (out.lines.size() > kMaxSignatures) {
    return absl::InvalidArgumentError("a note has at most 100 signatures");
  }
  return out;
}

// One signature line, read: its key's name and id, and the signature.
struct ReadLine {
  absl::string_view name;
  std::uint32_t key_id = 0;
  std::string signature;
};

absl::StatusOr<ReadLine> ReadSignatureLine(absl::string_view line) {
  if (!absl::ConsumePrefix(&line, kSignaturePrefix)) {
    return absl::InvalidArgumentError(
        "a signature line begins with an em dash and a space");
  }
  const std::size_t space = line.rfind(' ');
  std::string blob;
  if (space == absl::string_view::npos ||
      !absl::Base64Unescape(line.substr(space + 1), &blob) || blob.size() < 5) {
    return absl::InvalidArgumentError(
        "a signature line reads: em dash, space, key name, space, base64");
  }
  ReadLine out;
  out.name = line.substr(0, space);
  out.key_id = (std::uint32_t{static_cast<std::uint8_t>(blob[0])} << 24) |
               (std::uint32_t{static_cast<std::uint8_t>(blob[1])} << 16) |
               (std::uint32_t{static_cast<std::uint8_t>(blob[2])} << 8) |
               std::uint32_t{static_cast<std::uint8_t>(blob[3])};
  out.signature = blob.substr(4);
  return out;
}

}  // namespace

absl::StatusOr<std::string> AddNoteSignature(absl::string_view note,
                                             const NoteSigner& signer) {
  absl::StatusOr<SplitNote> split = Split(note);
  if (!split.ok()) return split.status();
  absl::StatusOr<std::string> line = SignatureLine(split->text, signer);
  if (!line.ok()) return line.status();
  return absl::StrCat(note, *line);
}

absl::StatusOr<std::string> OpenNote(
    absl::string_view note, const std::vector<NoteVerifier>& required) {
  absl::StatusOr<SplitNote> split = Split(note);
  if (!split.ok()) return split.status();
  std::vector<bool> verified(required.size(), false);
  for (absl::string_view line : split->lines) {
    absl::StatusOr<ReadLine> read = ReadSignatureLine(line);
    if (!read.ok()) return read.status();
    for (std::size_t k = 0; k < required.size(); ++k) {
      if (required[k].name != read->name || required[k].key_id != read->key_id)
        continue;
      if (!VerifyEd25519(required[k].public_key, split->text,
                         read->signature)) {
        return absl::PermissionDeniedError(
            absl::StrCat("the signature of ", read->name,
                         " does not verify: the note was "
                         "changed, or signed by another key"));
      }
      verified[k] = true;
    }
  }
  for (std::size_t k = 0; k < required.size(); ++k) {
    if (!verified[k]) {
      return absl::PermissionDeniedError(
          absl::StrCat("the note carries no signature of ", required[k].name));
    }
  }
  return std::string(split->text);
}

absl::StatusOr<std::string> SignatureLineOf(absl::string_view note,
                                            const NoteVerifier& signer) {
  absl::StatusOr<std::string> opened = OpenNote(note, {signer});
  if (!opened.ok()) return opened.status();
  absl::StatusOr<SplitNote> split = Split(note);
  if (!split.ok()) return split.status();
  for (absl::string_view line : split->lines) {
    absl::StatusOr<ReadLine> read = ReadSignatureLine(line);
    if (read.ok() && read->name == signer.name &&
        read->key_id == signer.key_id) {
      return absl::StrCat(line, "\n");
    }
  }
  return absl::PermissionDeniedError(
      absl::StrCat("the note carries no signature of ", signer.name));
}

std::string CheckpointText(absl::string_view origin, std::uint64_t tree_size,
                           const MerkleHash& root) {
  return absl::StrCat(
      origin, "\n", tree_size, "\n",
      absl::Base64Escape(absl::string_view(
          reinterpret_cast<const char*>(root.data()), root.size())),
      "\n");
}

}  // namespace gunbai::replay
