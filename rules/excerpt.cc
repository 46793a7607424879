#include "rules/excerpt.h"

#include "absl/strings/str_cat.h"

namespace gunbai::rules {

std::string Excerpt(absl::string_view input, std::size_t max_bytes) {
  if (input.size() <= max_bytes) return std::string(input);
  std::size_t cut = max_bytes;
  // Back off continuation bytes (10xxxxxx) so that no character is split.
  while (cut > 0 && (static_cast<unsigned char>(input[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  return absl::StrCat(input.substr(0, cut), "... (", input.size(), " bytes)");
}

}  // namespace gunbai::rules
