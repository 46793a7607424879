// `gunbai health`: asks a gunbaid's gRPC health service whether it serves,
// for container health checks and Kubernetes probes.
#ifndef GUNBAI_SERVICE_CLI_HEALTH_CLI_H_
#define GUNBAI_SERVICE_CLI_HEALTH_CLI_H_

#include "CLI/CLI.hpp"
#include "service/common/cli_app.h"

namespace gunbai::service {

// Adds `gunbai health` to `app`.
void AddHealthCommand(CLI::App& app, CliContext& context);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_CLI_HEALTH_CLI_H_
