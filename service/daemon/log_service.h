// gunbai.v1.LogService: a log file read in any of its formats, and the
// state of every unit after each event of a log, for clients that show
// logs (the web app's audit page). Each request is admitted by its size on
// the wire into the daemon's request budget and refused, before it is
// parsed, when its parse would cost too much (service/daemon/wire_request.h),
// as AuditService's are. Thread-safe.
#ifndef GUNBAI_SERVICE_DAEMON_LOG_SERVICE_H_
#define GUNBAI_SERVICE_DAEMON_LOG_SERVICE_H_

#include <cstddef>
#include <cstdint>

#include "grpcpp/support/byte_buffer.h"
#include "gunbai/v1/log_service.grpc.pb.h"
#include "replay/ruleset_loader.h"
#include "service/daemon/overload.h"

namespace gunbai::service {

// The largest file ParseLog reads: a log of some 40,000 events, more than a
// page in a browser shows; a bigger one is for `gunbai audit`.
inline constexpr std::size_t kMaxParseLogBytes = std::size_t{4} << 20;
// The most states one LogStates answer holds.
inline constexpr std::uint32_t kMaxStatesPerRequest = 100;

class LogServiceImpl final : public gunbai::v1::LogService::Service {
 public:
  // `rulesets` (not owned) must outlive the service; `budget` (not owned)
  // may be null (then every request is admitted).
  LogServiceImpl(const replay::RulesetCatalog* rulesets, RequestBudget* budget);

  // The methods on a request's wire bytes (what gRPC calls).
  grpc::Status ParseLogEncoded(grpc::ByteBuffer& request,
                               gunbai::v1::ParseLogResponse* response);
  grpc::Status LogStatesEncoded(grpc::ByteBuffer& request,
                                gunbai::v1::LogStatesResponse* response);
  grpc::Status DrawMapEncoded(grpc::ByteBuffer& request,
                              gunbai::v1::DrawMapResponse* response);

  // The methods on a parsed request.
  grpc::Status ParseLogParsed(const gunbai::v1::ParseLogRequest& request,
                              gunbai::v1::ParseLogResponse* response);
  grpc::Status LogStatesParsed(const gunbai::v1::LogStatesRequest& request,
                               gunbai::v1::LogStatesResponse* response);
  grpc::Status DrawMapParsed(const gunbai::v1::DrawMapRequest& request,
                             gunbai::v1::DrawMapResponse* response);

 private:
  const replay::RulesetCatalog* rulesets_;
  RequestBudget* budget_;
};

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_DAEMON_LOG_SERVICE_H_
