// Naming a live-game store on a command line: gunbaid --store and gunbai
// store migrate.
#ifndef GUNBAI_SERVICE_STORE_STORE_URI_H_
#define GUNBAI_SERVICE_STORE_STORE_URI_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "service/store/game_store.h"

namespace gunbai::service {

// The --store flag's help, for every command that takes one.
extern const char kStoreFlagHelp[];

// Opens the store `spec` names:
//  - "sqlite:DIR": SqliteGameStore in DIR (made if missing);
//  - "postgresql://USER@HOST:PORT/DBNAME" (or postgres://, any libpq URI
//    without a password): PostgresGameStore. The password comes from
//    `password_file` when not empty (its first line), else from libpq's own
//    PGPASSWORD, PGPASSFILE or ~/.pgpass;
//  - "": SqliteGameStore in `default_dir`.
// Returns INVALID_ARGUMENT for another spec or an unreadable password file,
// and the stores' own errors.
absl::StatusOr<std::unique_ptr<GameStore>> OpenGameStore(
    const std::string& spec, const std::string& password_file,
    const std::string& default_dir);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_STORE_STORE_URI_H_
