// `gunbai key`: Ed25519 keys and signed notes in the C2SP formats
// (replay/signed_note.h): make a key, sign a note, open one.
#ifndef GUNBAI_SERVICE_CLI_KEY_CLI_H_
#define GUNBAI_SERVICE_CLI_KEY_CLI_H_

#include "service/common/cli_app.h"

namespace gunbai::service {

void AddKeyCommand(CLI::App& app, CliContext& context);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_CLI_KEY_CLI_H_
