#include "service/cli/cli_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "replay/log_parser.h"
#include "rules/status_macros.h"

namespace gunbai::service {

namespace {

// Drops a UTF-8 byte-order mark (EF BB BF), which some Windows editors
// write at the start of a text file. No binary log starts so: 0xEF would be
// a field with the invalid wire type 7.
void DropByteOrderMark(std::string& data) {
  if (data.size() >= 3 && data.compare(0, 3, "\xEF\xBB\xBF") == 0) {
    data.erase(0, 3);
  }
}

}  // namespace

absl::StatusOr<std::string> ReadInputFile(const std::string& path) {
  std::string data;
  if (path == "-") {
    data.assign(std::istreambuf_iterator<char>(std::cin),
                std::istreambuf_iterator<char>());
    if (data.empty()) {
      return absl::InvalidArgumentError(
          "<stdin>: standard input is empty; give the file's content on it");
    }
    DropByteOrderMark(data);
    return data;
  }
  struct stat info;
  if (::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": is a folder, not a file; give a file in it"));
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
  if (data.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": the file is empty"));
  }
  DropByteOrderMark(data);
  return data;
}

bool IsBinaryLogFile(const std::string& path, replay::LogFormat format) {
  if (path == "-") return false;
  struct stat info;
  if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode) ||
      info.st_size > static_cast<off_t>(replay::kMaxLogBytes)) {
    return false;
  }
  if (format == replay::LogFormat::kBinary) return true;
  if (format != replay::LogFormat::kAuto) return false;
  std::ifstream in(path, std::ios::binary);
  std::string prefix(replay::kFormatSniffBytes, '\0');
  in.read(prefix.data(), static_cast<std::streamsize>(prefix.size()));
  prefix.resize(static_cast<std::size_t>(in.gcount()));
  const bool whole = static_cast<off_t>(prefix.size()) >= info.st_size;
  return replay::SniffLogFormat(prefix, whole) == replay::LogFormat::kBinary;
}

std::unique_ptr<google::protobuf::io::ZeroCopyInputStream> OpenFileStream(
    const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  // 64 KiB blocks: few reads, and little memory.
  auto stream =
      std::make_unique<google::protobuf::io::FileInputStream>(fd, 64 << 10);
  stream->SetCloseOnDelete(true);
  return stream;
}

absl::StatusOr<std::string> ClientToken(const std::string& token_file,
                                        absl::string_view what_for) {
  std::string token;
  if (!token_file.empty()) {
    GUNBAI_ASSIGN_OR_RETURN(auto text, ReadInputFile(token_file));
    token = std::move(text);
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

std::vector<std::string> ExpandFolders(
    const std::vector<std::string>& paths,
    std::initializer_list<const char*> extensions) {
  namespace fs = std::filesystem;
  auto wanted = [&extensions](const fs::path& path) {
    const std::string ext = absl::AsciiStrToLower(path.extension().string());
    return std::any_of(extensions.begin(), extensions.end(),
                       [&ext](const char* e) { return ext == e; });
  };
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) {
      files.push_back(path);
      continue;
    }
    std::vector<std::string> found;
    fs::recursive_directory_iterator it(
        path, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec) && wanted(it->path())) {
        found.push_back(it->path().string());
      }
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

// Writes `text` to `path` whole or not at all: into PATH.tmp, then renamed.
absl::Status WriteOutputFile(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream file(tmp, std::ios::binary | std::ios::trunc);
    file << text;
    file.close();
    if (!file) {
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      return absl::InvalidArgumentError(absl::StrCat(
          "-o: cannot write ", path, " (is its folder there and writable?)"));
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return absl::InvalidArgumentError(
        absl::StrCat("-o: cannot write ", path, ": ", ec.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<replay::LoadedRuleset> RulesetFileOrBuiltin(
    const std::string& ruleset_path, const gunbai::v1::BattleLog& log) {
  if (!ruleset_path.empty()) {
    GUNBAI_ASSIGN_OR_RETURN(std::string text, ReadInputFile(ruleset_path));
    return replay::LoadRuleset(text, ruleset_path);
  }
  GUNBAI_ASSIGN_OR_RETURN(auto catalog, replay::RulesetCatalog::Builtin());
  GUNBAI_ASSIGN_OR_RETURN(auto chosen, catalog.ForLog(log.header()));
  return *chosen;
}

}  // namespace gunbai::service
