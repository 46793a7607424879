// The channel every client command of `gunbai` opens to a gunbaid:
// plaintext, or TLS trusting a certificate file (--tls-ca). Thread-safe.
#ifndef GUNBAI_SERVICE_CLI_CLIENT_CHANNEL_H_
#define GUNBAI_SERVICE_CLI_CLIENT_CHANNEL_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/channel.h"

namespace gunbai::service {

// Opens a channel to the gunbaid at `server` ("HOST:PORT"): TLS trusting
// the PEM certificates in the file `tls_ca` when it is not empty, plaintext
// otherwise, carrying messages of up to `max_send_bytes` out and
// `max_receive_bytes` in. Returns ReadInputFile's error when `tls_ca`
// cannot be read. The channel connects on its first call.
absl::StatusOr<std::shared_ptr<grpc::Channel>> OpenClientChannel(
    const std::string& server, const std::string& tls_ca, int max_send_bytes,
    int max_receive_bytes);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_CLI_CLIENT_CHANNEL_H_
