#include "generate/game_generator.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "rules/text_escape.h"

namespace gunbai::generate {

namespace {

namespace v1 = ::gunbai::v1;
using ::gunbai::base::JsonString;

}  // namespace

std::string ManifestJsonLine(std::uint64_t seq, absl::string_view rule_id,
                             v1::Severity severity, absl::string_view kind,
                             absl::string_view subject,
                             absl::string_view description,
                             absl::string_view in_place_of) {
  std::string out = absl::StrCat(
      "{\"seq\": ", seq, ", \"rule_id\": ", JsonString(rule_id),
      ", \"severity\": ", JsonString(v1::Severity_Name(severity)),
      ", \"kind\": ", JsonString(kind), ", \"subject\": ", JsonString(subject),
      ", \"description\": ", JsonString(description));
  if (!in_place_of.empty()) {
    absl::StrAppend(&out, ", \"in_place_of\": ", JsonString(in_place_of));
  }
  absl::StrAppend(&out, "}\n");
  return out;
}

}  // namespace gunbai::generate
