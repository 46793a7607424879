#include "service/cli/client_channel.h"

#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"
#include "rules/status_macros.h"
#include "service/cli/cli_input.h"

namespace gunbai::service {

absl::StatusOr<std::shared_ptr<grpc::Channel>> OpenClientChannel(
    const std::string& server, const std::string& tls_ca, int max_send_bytes,
    int max_receive_bytes) {
  std::shared_ptr<grpc::ChannelCredentials> credentials =
      grpc::InsecureChannelCredentials();
  if (!tls_ca.empty()) {
    GUNBAI_ASSIGN_OR_RETURN(auto ca, ReadInputFile(tls_ca));
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = ca;
    credentials = grpc::SslCredentials(ssl);
  }
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(max_send_bytes);
  args.SetMaxReceiveMessageSize(max_receive_bytes);
  return grpc::CreateCustomChannel(server, credentials, args);
}

}  // namespace gunbai::service
