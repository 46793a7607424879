// `gunbai store migrate`: copying live games between stores.
#ifndef GUNBAI_SERVICE_CLI_STORE_CLI_H_
#define GUNBAI_SERVICE_CLI_STORE_CLI_H_

#include "CLI/CLI.hpp"
#include "service/common/cli_app.h"

namespace gunbai::service {

// Adds `gunbai store` and its `migrate` command to `app`.
void AddStoreCommands(CLI::App& app, CliContext& context);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_CLI_STORE_CLI_H_
