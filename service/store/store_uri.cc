#include "service/store/store_uri.h"

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "service/store/game_store.h"
#include "service/store/postgres_game_store.h"
#include "service/store/sqlite_game_store.h"

namespace gunbai::service {

const char kStoreFlagHelp[] =
    "Where live games are kept: sqlite:DIR (one SQLite file in DIR, the "
    "default, as --data-dir), or postgresql://USER@HOST:PORT/DBNAME, a "
    "PostgreSQL 15 database that several gunbaid replicas can share. Never "
    "put the password in the URI (anyone can read it in `ps`): give it in "
    "PGPASSWORD, a PGPASSFILE, ~/.pgpass or --store-password-file.";

absl::StatusOr<std::unique_ptr<GameStore>> OpenGameStore(
    const std::string& spec, const std::string& password_file,
    const std::string& default_dir) {
  if (spec.empty() || absl::StartsWith(spec, "sqlite:")) {
    const std::string dir = spec.empty() ? default_dir : spec.substr(7);
    if (dir.empty()) {
      return absl::InvalidArgumentError(
          "--store=sqlite:DIR needs a directory, e.g. sqlite:gunbai-data");
    }
    auto opened = SqliteGameStore::Open(dir);
    if (!opened.ok()) return opened.status();
    return std::unique_ptr<GameStore>(*std::move(opened));
  }
  if (!PostgresGameStore::IsPostgresUri(spec)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--store: \"", spec.substr(0, 64),
                     "\" names no store; give sqlite:DIR or "
                     "postgresql://USER@HOST:PORT/DBNAME"));
  }
  PostgresGameStore::Options options;
  if (!password_file.empty()) {
    std::ifstream in(password_file);
    if (!in) {
      return absl::InvalidArgumentError(
          absl::StrCat("--store-password-file: cannot read ", password_file));
    }
    std::getline(in, options.password);
    if (!options.password.empty() && options.password.back() == '\r') {
      options.password.pop_back();
    }
    if (options.password.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--store-password-file: ", password_file,
                       " is empty; its first line is the password"));
    }
  }
  auto opened = PostgresGameStore::Open(spec, options);
  if (!opened.ok()) return opened.status();
  return std::unique_ptr<GameStore>(*std::move(opened));
}

}  // namespace gunbai::service
