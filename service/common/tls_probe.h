// Whether a gunbaid speaks TLS, for the message a plaintext client gives
// when the daemon closes its connection. Thread-safe.
#ifndef GUNBAI_SERVICE_COMMON_TLS_PROBE_H_
#define GUNBAI_SERVICE_COMMON_TLS_PROBE_H_

#include <string>

namespace gunbai::service {

// Returns true when a TLS handshake with `target` ("HOST:PORT") completes
// within `timeout_ms` (the certificate is not checked: only whether the
// peer speaks TLS). False when it cannot be reached, does not answer in
// time or does not speak TLS, and for a target that is not HOST:PORT
// (a gRPC URI such as unix:PATH).
bool SpeaksTls(const std::string& target, int timeout_ms = 2000);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_COMMON_TLS_PROBE_H_
