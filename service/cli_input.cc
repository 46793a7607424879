#include "service/cli_input.h"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "replay/log_parser.h"

namespace gunbai::service {

absl::StatusOr<std::string> ReadInputFile(const std::string& path) {
  std::string data;
  if (path == "-") {
    data.assign(std::istreambuf_iterator<char>(std::cin),
                std::istreambuf_iterator<char>());
    return data;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat(path, ": cannot open the file; check the path"));
  }
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size > static_cast<std::streamoff>(replay::kMaxLogBytes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": ", size, " bytes is more than the largest accepted input (",
        replay::kMaxLogBytes, " bytes)"));
  }
  in.seekg(0);
  data.assign(std::istreambuf_iterator<char>(in),
              std::istreambuf_iterator<char>());
  return data;
}

absl::StatusOr<std::string> ClientToken(const std::string& token_file,
                                        absl::string_view what_for) {
  std::string token;
  if (!token_file.empty()) {
    auto text = ReadInputFile(token_file);
    if (!text.ok()) return text.status();
    token = *std::move(text);
  } else if (const char* env = std::getenv("GUNBAI_TOKEN")) {
    token = env;
  }
  token = std::string(absl::StripAsciiWhitespace(token));
  if (token.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what_for,
                     " needs a credential: --token-file=FILE or "
                     "GUNBAI_TOKEN"));
  }
  return token;
}

}  // namespace gunbai::service
