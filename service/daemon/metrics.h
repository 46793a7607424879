// gunbaid's metrics: what the daemon counts, behind a small interface so
// that the services and the stores report without knowing the exporter,
// and the Prometheus registry that serves them at GET /metrics
// (PrometheusMetrics, on prometheus-cpp's core library).
//
// Label values are bounded: a method is one of the served RPCs, a code one
// of gRPC's seventeen, a rule id one of the rulesets' documented ids given
// at construction (any other is counted as "other"), a store operation one
// of StoreOperation. A game id is never a label.
//
// Thread-safe: every method may be called from any thread at once. A call
// is an atomic add (no lock) once its labelled series exists; report per
// batch, not per event.
#ifndef GUNBAI_SERVICE_DAEMON_METRICS_H_
#define GUNBAI_SERVICE_DAEMON_METRICS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "grpcpp/support/status.h"

namespace gunbai::service {

// Where an RPC came from: a gRPC client, or the HTTP front door (--http),
// whose calls reach the gRPC server over its in-process channel.
enum class RpcTransport { kGrpc, kHttp };

// The store operations whose failures are counted.
enum class StoreOperation {
  kCreate,
  kAppend,
  kRead,
  kList,
  kCheckpoint,
  kOther
};

class Metrics {
 public:
  virtual ~Metrics() = default;

  // Counts one RPC to `method` ("/gunbai.v1.GameService/AppendEvents")
  // that ended with `code` after `latency`.
  virtual void RecordRpc(RpcTransport transport, absl::string_view method,
                         grpc::StatusCode code, absl::Duration latency) = 0;
  // Counts one batch of events stored by an append, `latency` the store's
  // append from start to durable.
  virtual void RecordAppend(absl::Duration latency) = 0;
  // Counts `events` replayed through an engine (a load, a catch-up, an
  // append).
  virtual void AddEventsReplayed(std::int64_t events) = 0;
  // Counts `findings` findings of rule `rule_id`.
  virtual void AddFindings(absl::string_view rule_id,
                           std::int64_t findings) = 0;
  // Sets the number of games kept replayed in memory.
  virtual void SetGamesCached(std::int64_t games) = 0;
  // Counts one failed store operation.
  virtual void AddStoreError(StoreOperation operation) = 0;
  // Counts one HTTP request the gateway refused itself, before any RPC,
  // answered with `http_status` (400 and up).
  virtual void RecordHttpRefusal(int http_status) = 0;
};

// Returns the metrics the daemon reports into: those installed with
// SetProcessMetrics, else a sink that drops everything (so that a library
// or a test without a daemon may report freely).
Metrics& ProcessMetrics();

// Makes `metrics` (not owned, null for the sink) what ProcessMetrics
// returns. Call before serving; it must outlive every report.
void SetProcessMetrics(Metrics* metrics);

// Counts `status`, the result of a store's `operation`, in ProcessMetrics
// as a store error when it is one: Unavailable, Internal, DataLoss,
// Unknown, DeadlineExceeded, ResourceExhausted or Cancelled. An answer
// about the game (NotFound, AlreadyExists, Aborted for a stale version,
// FailedPrecondition, InvalidArgument) is not an error of the store.
// Returns `status`, so that a call may wrap it.
const absl::Status& CountStoreError(StoreOperation operation,
                                    const absl::Status& status);

// Returns the name of a store operation as its label spells it ("append").
absl::string_view StoreOperationName(StoreOperation operation);

// The metrics in a prometheus-cpp registry, written in Prometheus' text
// exposition format (version 0.0.4) by Exposition().
class PrometheusMetrics final : public Metrics {
 public:
  // Creates every series that exists from the start, at zero: the findings
  // of each of `rule_ids` and of "other", the store errors of each
  // operation, the games cached, the events replayed and the appends.
  explicit PrometheusMetrics(const std::vector<std::string>& rule_ids);
  ~PrometheusMetrics() override;
  PrometheusMetrics(const PrometheusMetrics&) = delete;
  PrometheusMetrics& operator=(const PrometheusMetrics&) = delete;

  void RecordRpc(RpcTransport transport, absl::string_view method,
                 grpc::StatusCode code, absl::Duration latency) override;
  void RecordAppend(absl::Duration latency) override;
  void AddEventsReplayed(std::int64_t events) override;
  void AddFindings(absl::string_view rule_id, std::int64_t findings) override;
  void SetGamesCached(std::int64_t games) override;
  void AddStoreError(StoreOperation operation) override;
  void RecordHttpRefusal(int http_status) override;

  // Returns every metric in the text exposition format.
  std::string Exposition() const;

 private:
  struct Families;
  std::unique_ptr<Families> families_;
};

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_DAEMON_METRICS_H_
