#include "service/cli/store_cli.h"

#include <memory>
#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "service/common/cli_app.h"
#include "service/common/exit_codes.h"
#include "service/store/store_migrate.h"
#include "service/store/store_uri.h"

namespace gunbai::service {
namespace {

struct MigrateOptions {
  std::string from;
  std::string to;
  std::string from_password_file;
  std::string to_password_file;
  std::string format = "text";
  bool quiet = false;
};

constexpr char kMigrateFooter[] = R"(
Copies every live game of one store into another: each game's record (its
terms, credentials and dice commitment), its events byte for byte with their
chain hashes, the answers of its batches (so that a batch retried across the
move is still answered, not stored twice) and its dice attempt counter. Each
game is verified once copied: the same record, the same events and answers,
and a chain that holds from the game's genesis. Checkpoints are not copied;
gunbaid writes new ones.

Stop every gunbaid of the source first: games appended to during the copy
may be copied without their last events. A migration that stopped part way
can be run again: what the target already holds is checked and kept, and
only what it lacks is copied.

Stores are named as gunbaid's --store names them: sqlite:DIR, or
postgresql://USER@HOST:PORT/DBNAME with the password in PGPASSWORD, a
PGPASSFILE, ~/.pgpass or a --from/--to-password-file.

Example, from the default SQLite directory to a PostgreSQL database:
  PGPASSWORD=... gunbai store migrate --from=sqlite:gunbai-data \
      --to=postgresql://gunbai@db.example.org:5432/gunbai

Exit codes: 0 every game copied and verified; 2 bad flags, or a game the
target holds differently (nothing of that game is changed); 3 a store could
not be reached or failed, or a copy did not verify.)";

int FailMigration(std::ostream& err, const absl::Status& status) {
  err << "gunbai: " << status.message() << "\n";
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kAlreadyExists:
      return kExitBadInput;
    default:
      return kExitServer;
  }
}

int Migrate(const MigrateOptions& o, std::ostream& out, std::ostream& err) {
  auto from = OpenGameStore(o.from, o.from_password_file, "");
  if (!from.ok()) {
    return FailMigration(
        err, absl::Status(from.status().code(),
                          absl::StrCat("--from: ", from.status().message())));
  }
  auto to = OpenGameStore(o.to, o.to_password_file, "");
  if (!to.ok()) {
    return FailMigration(
        err, absl::Status(to.status().code(),
                          absl::StrCat("--to: ", to.status().message())));
  }
  auto totals = MigrateGames(
      **from, **to, [&](const std::string& game_id, int done, int total) {
        if (!o.quiet) {
          err << "gunbai: copied and verified game " << game_id << " (" << done
              << " of " << total << ")\n";
        }
      });
  if (!totals.ok()) return FailMigration(err, totals.status());
  if (o.format == "json") {
    out << "{\"games\":" << totals->games
        << ",\"already_there\":" << totals->already_there
        << ",\"events\":" << totals->events
        << ",\"batches\":" << totals->batches << ",\"verified\":true}\n";
  } else {
    out << "migrated " << totals->games << " games (" << totals->already_there
        << " already whole in the target): " << totals->events << " events in "
        << totals->batches << " batches copied; every game verified\n";
  }
  return kExitClean;
}

}  // namespace

void AddStoreCommands(CLI::App& app, CliContext& context) {
  CLI::App* store = app.add_subcommand(
      "store", "work on gunbaid's store of live games directly");
  store->require_subcommand(1);
  auto o = std::make_shared<MigrateOptions>();
  CLI::App* migrate = store->add_subcommand(
      "migrate", "copy every live game from one store to another, verified");
  migrate->footer(kMigrateFooter);
  migrate->add_option("--from", o->from, "the store to copy from")
      ->type_name("STORE")
      ->required();
  migrate->add_option("--to", o->to, "the store to copy into")
      ->type_name("STORE")
      ->required();
  migrate
      ->add_option("--from-password-file", o->from_password_file,
                   "the PostgreSQL password of --from, the file's first line")
      ->type_name("F");
  migrate
      ->add_option("--to-password-file", o->to_password_file,
                   "the PostgreSQL password of --to, the file's first line")
      ->type_name("F");
  AddChoiceOption(*migrate, "--format", o->format, {"text", "json"},
                  "the summary: text for people, json for scripts");
  migrate->add_flag("--quiet", o->quiet, "no line per game on stderr");
  migrate->callback(
      [o, &context] { context.code = Migrate(*o, context.out, context.err); });
}

}  // namespace gunbai::service
