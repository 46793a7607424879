#include "tests/store/postgres_server.h"

#include <fcntl.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gunbai::testing {
namespace {

// Returns the directory of initdb, pg_ctl and postgres, or "".
std::string FindBindir() {
  if (const char* dir = getenv("GUNBAI_PG_BINDIR"); dir != nullptr && *dir) {
    return dir;
  }
  std::vector<std::string> found;
  std::error_code ignored;
  for (const auto& entry :
       std::filesystem::directory_iterator("/usr/lib/postgresql", ignored)) {
    if (std::filesystem::exists(entry.path() / "bin" / "initdb")) {
      found.push_back((entry.path() / "bin").string());
    }
  }
  if (found.empty()) return "";
  // The newest version: Debian names the folders by major version.
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  return found.back();
}

// Returns a port of 127.0.0.1 nobody was listening on a moment ago.
int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t size = sizeof(address);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0) {
    port = ntohs(address.sin_port);
  }
  close(fd);
  return port;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

absl::Status PostgresServer::Run(const std::vector<std::string>& argv,
                                 const std::string& what) {
  std::vector<std::string> full;
  if (as_postgres_) full = {"runuser", "-u", "postgres", "--"};
  full.insert(full.end(), argv.begin(), argv.end());
  std::vector<char*> args;
  for (std::string& a : full) args.push_back(a.data());
  args.push_back(nullptr);
  const std::string output = dir_ + "/command.out";
  const pid_t pid = fork();
  if (pid < 0) return absl::InternalError("fork failed");
  if (pid == 0) {
    const int fd = open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::InternalError(
        absl::StrCat(what, " failed (", absl::StrJoin(full, " "), "):\n",
                     ReadFile(output), "\nserver log:\n", ReadFile(log_)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<PostgresServer>> PostgresServer::Start() {
  std::unique_ptr<PostgresServer> server(new PostgresServer());
  server->bindir_ = FindBindir();
  if (server->bindir_.empty()) {
    return absl::FailedPreconditionError(
        "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): "
        "run deploy/setup.sh, or set GUNBAI_PG_BINDIR");
  }
  char dir[] = "/tmp/gunbai-pg-XXXXXX";
  if (mkdtemp(dir) == nullptr) {
    return absl::InternalError("cannot make a temporary directory");
  }
  server->dir_ = dir;
  server->data_ = server->dir_ + "/data";
  server->log_ = server->dir_ + "/server.log";
  server->password_ = absl::StrCat("test-password-", getpid());
  server->password_file_ = server->dir_ + "/password";
  std::ofstream(server->password_file_) << server->password_ << "\n";
  server->as_postgres_ = geteuid() == 0;
  if (server->as_postgres_) {
    const passwd* user = getpwnam("postgres");
    if (user == nullptr) {
      return absl::FailedPreconditionError(
          "running as root, and there is no `postgres` user to run the "
          "server as (Debian's postgresql package makes it)");
    }
    for (const std::string& path : {server->dir_, server->password_file_}) {
      if (chown(path.c_str(), user->pw_uid, user->pw_gid) != 0) {
        return absl::InternalError(absl::StrCat("cannot chown ", path));
      }
    }
  }
  if (absl::Status s = server->Run(
          {server->bindir_ + "/initdb", "-D", server->data_, "-U", "gunbai",
           "--pwfile=" + server->password_file_, "--auth=scram-sha-256",
           "--encoding=UTF8", "--locale=C", "--no-sync"},
          "initdb");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = server->StartServer(); !s.ok()) return s;
  return server;
}

absl::Status PostgresServer::StartServer() {
  // A port taken between FreePort and the server's bind: try another.
  absl::Status started;
  for (int attempt = 0; attempt < 5; ++attempt) {
    port_ = FreePort();
    started = Run(
        {bindir_ + "/pg_ctl", "-D", data_, "-l", log_, "-w", "-t", "60", "-o",
         absl::StrCat("-p ", port_, " -k ", dir_,
                      " -c listen_addresses=127.0.0.1"),
         "start"},
        "pg_ctl start");
    if (started.ok()) return started;
  }
  return started;
}

absl::Status PostgresServer::Stop() {
  return Run({bindir_ + "/pg_ctl", "-D", data_, "-m", "fast", "-w", "stop"},
             "pg_ctl stop");
}

absl::Status PostgresServer::Resume() {
  return Run(
      {bindir_ + "/pg_ctl", "-D", data_, "-l", log_, "-w", "-t", "60", "-o",
       absl::StrCat("-p ", port_, " -k ", dir_,
                    " -c listen_addresses=127.0.0.1"),
       "start"},
      "pg_ctl start");
}

PostgresServer::~PostgresServer() {
  if (!data_.empty() && std::filesystem::exists(data_ + "/postmaster.pid")) {
    (void)Run({bindir_ + "/pg_ctl", "-D", data_, "-m", "fast", "-w", "stop"},
              "pg_ctl stop");
  }
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
}

std::string PostgresServer::Uri(const std::string& name) const {
  return absl::StrCat("postgresql://gunbai@127.0.0.1:", port_, "/", name);
}

absl::StatusOr<std::string> PostgresServer::CreateDatabase(
    const std::string& name) {
  const std::string admin = Uri("postgres");
  const char* keys[] = {"dbname", "password", nullptr};
  const char* values[] = {admin.c_str(), password_.c_str(), nullptr};
  PGconn* conn = PQconnectdbParams(keys, values, 1);
  absl::Status status;
  if (PQstatus(conn) != CONNECTION_OK) {
    status = absl::InternalError(absl::StrCat(
        "cannot connect to the test server: ", PQerrorMessage(conn),
        ReadFile(log_)));
  } else {
    const std::string sql = absl::StrCat("CREATE DATABASE \"", name, "\"");
    PGresult* result = PQexec(conn, sql.c_str());
    if (PQresultStatus(result) != PGRES_COMMAND_OK) {
      status = absl::InternalError(absl::StrCat("CREATE DATABASE ", name, ": ",
                                                PQresultErrorMessage(result)));
    }
    PQclear(result);
  }
  PQfinish(conn);
  if (!status.ok()) return status;
  return Uri(name);
}

}  // namespace gunbai::testing
