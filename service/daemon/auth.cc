#include "service/daemon/auth.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "replay/ruleset_loader.h"
#include "rules/digest.h"
#include "rules/status_macros.h"

namespace gunbai::service {

std::string TokenHash(absl::string_view token) {
  return base::Sha256Hex(token);
}

absl::StatusOr<std::string> RandomBytes(int n) {
  std::string raw(static_cast<std::size_t>(n), '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), n) != 1) {
    return absl::InternalError("the system's random generator failed");
  }
  return raw;
}

absl::StatusOr<std::string> NewToken() {
  GUNBAI_ASSIGN_OR_RETURN(auto bytes, RandomBytes(32));
  return absl::BytesToHexString(bytes);
}

absl::StatusOr<std::string> BearerToken(const grpc::ServerContext& context) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find("authorization");
  if (it == metadata.end()) {
    return absl::UnauthenticatedError(
        "this call needs a credential: send \"authorization: Bearer TOKEN\" "
        "(gunbai reads it from --token-file or GUNBAI_TOKEN)");
  }
  const absl::string_view value(it->second.data(), it->second.size());
  if (!absl::StartsWithIgnoreCase(value, "bearer ")) {
    return absl::UnauthenticatedError(
        "the authorization header must read \"Bearer TOKEN\"");
  }
  return std::string(absl::StripAsciiWhitespace(value.substr(7)));
}

bool SameHash(absl::string_view a, absl::string_view b) {
  return a.size() == b.size() &&
         CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

absl::StatusOr<std::string> LoadUmpireToken(const std::string& path) {
  std::string token;
  if (!path.empty()) {
    std::ifstream in(path);
    if (!in) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot read the umpire token file ", path));
    }
    token.assign(std::istreambuf_iterator<char>(in),
                 std::istreambuf_iterator<char>());
  } else if (const char* env = std::getenv("GUNBAI_UMPIRE_TOKEN")) {
    token = env;
  }
  token = std::string(absl::StripAsciiWhitespace(token));
  if (token.size() < 16) {
    return absl::InvalidArgumentError(
        "gunbaid needs an umpire token of 16 or more characters, from "
        "--umpire-token-file FILE or the environment variable "
        "GUNBAI_UMPIRE_TOKEN (never on the command line)");
  }
  return token;
}

}  // namespace gunbai::service
