// `gunbai reconcile A B`: two copies of one game side by side, for a
// play-by-email arbiter (replay/reconcile.h has the reading).
#ifndef GUNBAI_SERVICE_CLI_RECONCILE_CLI_H_
#define GUNBAI_SERVICE_CLI_RECONCILE_CLI_H_

#include "service/common/cli_app.h"

namespace gunbai::service {

void AddReconcileCommand(CLI::App& app, CliContext& context);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_CLI_RECONCILE_CLI_H_
