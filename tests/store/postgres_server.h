// A real PostgreSQL server for tests: Debian's initdb into a fresh
// temporary directory, postgres on a free port of 127.0.0.1 with password
// (SCRAM) authentication, stopped and removed on destruction. No root
// service is used; when the tests run as root the server runs as the
// `postgres` user (initdb refuses root), through runuser.
//
// The binaries are found in $GUNBAI_PG_BINDIR, else in the newest
// /usr/lib/postgresql/*/bin (Debian's `postgresql` package).
//
// Thread-compatible.
#ifndef GUNBAI_TESTS_STORE_POSTGRES_SERVER_H_
#define GUNBAI_TESTS_STORE_POSTGRES_SERVER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace gunbai::testing {

class PostgresServer {
 public:
  // Starts a server. Returns FAILED_PRECONDITION when PostgreSQL is not
  // installed, INTERNAL (with the server's log) when it does not start.
  static absl::StatusOr<std::unique_ptr<PostgresServer>> Start();

  // Stops the server (fast shutdown) and removes its directory.
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  // Creates a new, empty database and returns its URI (without the
  // password): postgresql://gunbai@127.0.0.1:PORT/NAME.
  absl::StatusOr<std::string> CreateDatabase(const std::string& name);

  // Returns the URI of database `name`, without the password.
  std::string Uri(const std::string& name) const;
  // The password of the role `gunbai`, and a file holding it alone.
  const std::string& password() const { return password_; }
  const std::string& password_file() const { return password_file_; }
  int port() const { return port_; }

  // Stops the server (fast shutdown), keeping its data; Resume starts it
  // again on the same port (a database server lost and back).
  absl::Status Stop();
  absl::Status Resume();

 private:
  PostgresServer() = default;
  absl::Status Run(const std::vector<std::string>& argv,
                   const std::string& what);
  absl::Status StartServer();

  std::string bindir_;
  std::string dir_;
  std::string data_;
  std::string log_;
  std::string password_;
  std::string password_file_;
  int port_ = 0;
  bool as_postgres_ = false;
};

}  // namespace gunbai::testing

#endif  // GUNBAI_TESTS_STORE_POSTGRES_SERVER_H_
