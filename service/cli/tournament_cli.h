// `gunbai tournament`: the tournament desk (replay/tournament.h): standings
// from the games' own audited logs, the next round paired
// (replay/pairing.h), the umpire's rulings recorded.
#ifndef GUNBAI_SERVICE_CLI_TOURNAMENT_CLI_H_
#define GUNBAI_SERVICE_CLI_TOURNAMENT_CLI_H_

#include "service/common/cli_app.h"

namespace gunbai::service {

void AddTournamentCommand(CLI::App& app, CliContext& context);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_CLI_TOURNAMENT_CLI_H_
