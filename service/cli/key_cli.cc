#include "service/cli/key_cli.h"

#include <sys/stat.h>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "replay/signed_note.h"
#include "service/cli/cli_input.h"
#include "service/common/exit_codes.h"

namespace gunbai::service {
namespace {

constexpr char kKeyFooter[] =
    R"(Keys and signed notes in the formats transparency logs and their
witnesses use (c2sp.org/signed-note, c2sp.org/tlog-checkpoint), with
Ed25519. A key has a name (no spaces, no '+'); its private key file reads
PRIVATE+KEY+NAME+ID+KEY and stays with its owner; the verifier key, the
line a signer shares, reads NAME+ID+KEY. A note is text ending in a
newline, a blank line, then one signature line a signer, each beginning
with an em dash. gunbaid's checkpoints of a game (issue 34, not yet
issued) will be such notes, signed by gunbaid and cosigned by the players.

Examples:
  gunbai key --new=oda.player -o oda.key          # prints the verifier key
  gunbai key --sign=checkpoint.txt --key=oda.key  # prints the signed note
  gunbai key --cosign=note.txt --key=oda.key      # adds a signature line
  gunbai key --open=note.txt --verifier=VKEY      # prints the text if signed

Exit codes: 0 done (for --open: every verifier's signature holds), 1 a
signature is missing or does not hold, 2 bad input.)";

struct KeyOptions {
  std::string new_name;
  std::string output;
  std::string sign;
  std::string cosign;
  std::string open;
  std::string key;
  std::vector<std::string> verifiers;
};

int Run(const KeyOptions& o, std::ostream& out, std::ostream& err) {
  auto fail = [&err](const absl::Status& s, int code = kExitBadInput) {
    err << "gunbai key: " << s.message() << "\n";
    return code;
  };
  const int modes = !o.new_name.empty() + !o.sign.empty() + !o.cosign.empty() +
                    !o.open.empty();
  if (modes != 1) {
    return fail(absl::InvalidArgumentError(
        "give one of --new, --sign, --cosign or --open (gunbai key --help)"));
  }
  if (!o.new_name.empty()) {
    if (o.output.empty()) {
      return fail(absl::InvalidArgumentError(
          "--new writes the private key to -o FILE (it is not printed)"));
    }
    auto signer = replay::NewNoteSigner(o.new_name);
    if (!signer.ok()) return fail(signer.status());
    // Readable by its owner only, as written.
    const mode_t old = umask(077);
    absl::Status written =
        WriteOutputFile(o.output, replay::SignerKeyText(*signer) + "\n");
    umask(old);
    if (!written.ok()) return fail(written);
    out << replay::VerifierKeyText(*signer) << "\n";
    return kExitClean;
  }
  if (!o.open.empty()) {
    auto note = ReadInputFile(o.open);
    if (!note.ok()) return fail(note.status());
    std::vector<replay::NoteVerifier> required;
    for (const std::string& v : o.verifiers) {
      auto verifier = replay::ParseVerifierKey(v);
      if (!verifier.ok()) return fail(verifier.status());
      required.push_back(*std::move(verifier));
    }
    if (required.empty()) {
      return fail(absl::InvalidArgumentError(
          "--open needs --verifier=NAME+ID+KEY (repeat for each signer)"));
    }
    auto text = replay::OpenNote(*note, required);
    if (!text.ok()) {
      return fail(text.status(),
                  text.status().code() == absl::StatusCode::kPermissionDenied
                      ? kExitFindings
                      : kExitBadInput);
    }
    out << *text;
    return kExitClean;
  }
  auto key_text = ReadInputFile(o.key);
  if (!key_text.ok()) return fail(key_text.status());
  auto signer = replay::ParseSignerKey(*key_text);
  if (!signer.ok()) return fail(signer.status());
  auto input = ReadInputFile(o.sign.empty() ? o.cosign : o.sign);
  if (!input.ok()) return fail(input.status());
  auto note = o.sign.empty() ? replay::AddNoteSignature(*input, *signer)
                             : replay::SignNote(*input, *signer);
  if (!note.ok()) return fail(note.status());
  out << *note;
  return kExitClean;
}

}  // namespace

void AddKeyCommand(CLI::App& app, CliContext& context) {
  auto o = std::make_shared<KeyOptions>();
  CLI::App* key = app.add_subcommand(
      "key",
      "Ed25519 keys and C2SP signed notes: make a key, sign, cosign, "
      "open");
  key->footer(kKeyFooter);
  key->add_option("--new", o->new_name,
                  "make a key named NAME: write its private key to -o FILE "
                  "and print its verifier key")
      ->type_name("NAME");
  key->add_option("-o,--output", o->output, "with --new: the private key file")
      ->type_name("FILE");
  key->add_option("--sign", o->sign, "sign the text of FILE with --key")
      ->type_name("FILE");
  key->add_option("--cosign", o->cosign,
                  "add --key's signature to the signed note in FILE")
      ->type_name("FILE");
  key->add_option("--open", o->open,
                  "check the signed note in FILE and print its text")
      ->type_name("FILE");
  key->add_option("--key", o->key, "the private key file to sign with")
      ->type_name("FILE");
  key->add_option("--verifier", o->verifiers,
                  "with --open: a signer's verifier key, NAME+ID+KEY "
                  "(repeat: each must have signed)")
      ->type_name("VKEY");
  key->callback(
      [o, &context] { context.code = Run(*o, context.out, context.err); });
}

}  // namespace gunbai::service
