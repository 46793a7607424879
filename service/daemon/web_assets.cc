#include "service/daemon/web_assets.h"

#include "absl/strings/match.h"

namespace gunbai::service {

const WebAsset* FindWebAsset(absl::string_view name) {
  for (std::size_t i = 0; i < kWebAssetCount; ++i) {
    if (name == kWebAssets[i].name) return &kWebAssets[i];
  }
  return nullptr;
}

absl::string_view WebContentType(absl::string_view name) {
  struct Type {
    absl::string_view extension;
    absl::string_view content_type;
  };
  static constexpr Type kTypes[] = {
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".json", "application/json"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".ico", "image/x-icon"},
      {".txt", "text/plain; charset=utf-8"},
  };
  for (const Type& type : kTypes) {
    if (absl::EndsWith(name, type.extension)) return type.content_type;
  }
  return "application/octet-stream";
}

}  // namespace gunbai::service
