// The web app's files (service/daemon/web/), embedded in gunbaid at build time
// by service/daemon/embed_web.cmake: nothing is read from disk or fetched at
// run time. Thread-safe: constant data and pure functions.
#ifndef GUNBAI_SERVICE_DAEMON_WEB_ASSETS_H_
#define GUNBAI_SERVICE_DAEMON_WEB_ASSETS_H_

#include <cstddef>

#include "absl/strings/string_view.h"

namespace gunbai::service {

// One embedded file: its path under service/daemon/web/ and its bytes.
struct WebAsset {
  const char* name;
  const unsigned char* data;
  std::size_t size;

  absl::string_view bytes() const {
    return absl::string_view(reinterpret_cast<const char*>(data), size);
  }
};

// The embedded files, in the order CMake lists them (generated).
extern const WebAsset kWebAssets[];
extern const std::size_t kWebAssetCount;

// Returns the embedded file named `name` (a path under service/daemon/web/,
// e.g. "app.js"), or nullptr when there is none.
const WebAsset* FindWebAsset(absl::string_view name);

// Returns the Content-Type for a file named `name`, from its extension:
// HTML, JavaScript, CSS, JSON, SVG, PNG, ICO or plain text (text types with
// charset=utf-8); application/octet-stream for any other.
absl::string_view WebContentType(absl::string_view name);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_DAEMON_WEB_ASSETS_H_
