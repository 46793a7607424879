// A request as gRPC received it, before parsing: its size on the wire, for
// the request budget to admit before any of it is parsed, and its bytes as
// a protobuf input stream that frees each of gRPC's slices as soon as the
// parser has moved past it, so that the wire bytes and the parsed message
// are not both held whole. Thread-compatible.
#ifndef GUNBAI_SERVICE_DAEMON_WIRE_REQUEST_H_
#define GUNBAI_SERVICE_DAEMON_WIRE_REQUEST_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/zero_copy_stream.h"
#include "google/protobuf/message.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/method_handler.h"
#include "grpcpp/support/slice.h"
#include "grpcpp/support/status.h"
#include "grpcpp/support/sync_stream.h"

namespace gunbai::service {

// The bytes of one request, read once, front to back.
class WireRequestStream final
    : public google::protobuf::io::ZeroCopyInputStream {
 public:
  // Takes the slices of `buffer`, which is left empty. A buffer whose bytes
  // cannot be read (never seen from gRPC's server) reads as empty.
  explicit WireRequestStream(grpc::ByteBuffer& buffer);
  WireRequestStream(const WireRequestStream&) = delete;
  WireRequestStream& operator=(const WireRequestStream&) = delete;

  // ZeroCopyInputStream. Next frees the slice it moves past.
  bool Next(const void** data, int* size) override;
  void BackUp(int count) override;
  bool Skip(int count) override;
  std::int64_t ByteCount() const override { return byte_count_; }

 private:
  std::vector<grpc::Slice> slices_;
  std::size_t index_ = 0;   // The slice being read.
  std::size_t offset_ = 0;  // Bytes of it handed out.
  std::int64_t byte_count_ = 0;
};

// What gunbaid lets the parse of one request take: kParseCostPerWireByte
// times its size on the wire plus kParseCostSlackBytes. An honest log
// parses into 7 to 8 times its size (estimated 9 to 11 times,
// tests/replay/parse_cost_test.cc); a list repeating an empty name, 32.
inline constexpr std::int64_t kParseCostPerWireByte = 16;
inline constexpr std::int64_t kParseCostSlackBytes = std::int64_t{16} << 20;

// Refuses with INVALID_ARGUMENT, before anything is parsed, a request of
// `type` whose parse would take more than gunbaid lets it
// (replay::ParseCostModel's estimate), naming the list that holds the most
// entries; OK for one within it, and for one too small to need the walk.
// Bytes that do not parse are left for the parse to refuse. `method` is the
// RPC's name, for the message. `buffer` is only read.
grpc::Status CheckParseCost(const grpc::ByteBuffer& buffer,
                            const google::protobuf::Descriptor& type,
                            absl::string_view method);

// The status of a call that ended before its request came.
grpc::Status NoRequest(absl::string_view method);

// Parses `request` through a stream that frees each slice once parsed.
// False when the bytes do not parse as `message`.
bool ParseWire(grpc::ByteBuffer& request, google::protobuf::Message& message);

// A unary method whose handler reads the request unparsed, for a service's
// constructor to install with MarkMethodStreamed: the generated
// WithStreamedUnaryMethod_ wrappers read it parsed, so the budget could
// count it only after parsing. To the client it is the same unary call.
template <typename Response>
grpc::internal::MethodHandler* UnaryOnWire(
    absl::string_view method,
    std::function<grpc::Status(grpc::ServerContext*, grpc::ByteBuffer&,
                               Response*)>
        serve) {
  return new grpc::internal::StreamedUnaryHandler<grpc::ByteBuffer, Response>(
      [method, serve = std::move(serve)](
          grpc::ServerContext* context,
          grpc::ServerUnaryStreamer<grpc::ByteBuffer, Response>* streamer) {
        grpc::ByteBuffer request;
        if (!streamer->Read(&request)) return NoRequest(method);
        Response response;
        grpc::Status status = serve(context, request, &response);
        // Sent with the status, as a unary handler sends it: one batch, not
        // two. A failed write is a client gone, whom the status no longer
        // reaches.
        if (status.ok()) streamer->WriteLast(response, grpc::WriteOptions());
        return status;
      });
}

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_DAEMON_WIRE_REQUEST_H_
