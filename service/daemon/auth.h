// Credentials for gunbaid's live games: bearer tokens in the call metadata
// ("authorization: Bearer <token>"), checked on every call, with or without
// TLS. gunbaid keeps only SHA-256 hashes of tokens. Thread-safe.
#ifndef GUNBAI_SERVICE_DAEMON_AUTH_H_
#define GUNBAI_SERVICE_DAEMON_AUTH_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "grpcpp/server_context.h"

namespace gunbai::service {

// Returns the lowercase hex SHA-256 of a token.
std::string TokenHash(absl::string_view token);

// Returns `n` bytes from the system's CSPRNG, or Internal if it fails.
absl::StatusOr<std::string> RandomBytes(int n);

// Returns a new random token: 32 bytes from the system's CSPRNG, as hex.
// Returns Internal if the generator fails.
absl::StatusOr<std::string> NewToken();

// Returns the bearer token of a call, or Unauthenticated when the call has
// none.
absl::StatusOr<std::string> BearerToken(const grpc::ServerContext& context);

// Compares two hex hashes in constant time.
bool SameHash(absl::string_view a, absl::string_view b);

// Reads the umpire token from `path`, or from the environment variable
// GUNBAI_UMPIRE_TOKEN when `path` is empty (trailing whitespace trimmed).
// Returns InvalidArgument when neither gives a token of 16 or more
// characters.
absl::StatusOr<std::string> LoadUmpireToken(const std::string& path);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_DAEMON_AUTH_H_
