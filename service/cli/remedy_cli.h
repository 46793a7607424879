// `gunbai remedy`: what the agreed error-resolution procedure orders for a
// log's errors (replay/remedy.h).
#ifndef GUNBAI_SERVICE_CLI_REMEDY_CLI_H_
#define GUNBAI_SERVICE_CLI_REMEDY_CLI_H_

#include "service/common/cli_app.h"

namespace gunbai::service {

void AddRemedyCommand(CLI::App& app, CliContext& context);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_CLI_REMEDY_CLI_H_
