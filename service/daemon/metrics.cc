#include "service/daemon/metrics.h"

#include <atomic>
#include <sstream>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/descriptor.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "prometheus/text_serializer.h"
#include "service/daemon/grpc_code_name.h"

namespace gunbai::service {

namespace {

// Seconds: from a cached read (well under a millisecond) to a long
// stream (a watch holds its call open; those land in +Inf).
const prometheus::Histogram::BucketBoundaries& LatencyBuckets() {
  static const auto* const kBuckets =
      new prometheus::Histogram::BucketBoundaries{
          0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
          0.1,    0.25,  0.5,    1,     2.5,  5,     10};
  return *kBuckets;
}

// The label a method gets: itself when it is a method of a service this
// binary knows (its descriptor is linked in, or gRPC's health service),
// else "other", so that calls to made-up paths cannot grow the series.
std::string BoundedMethod(absl::string_view method) {
  if (method == "/grpc.health.v1.Health/Check" ||
      method == "/grpc.health.v1.Health/Watch") {
    return std::string(method);
  }
  if (absl::ConsumePrefix(&method, "/") && method.size() < 200) {
    const std::string full = absl::StrReplaceAll(method, {{"/", "."}});
    if (google::protobuf::DescriptorPool::generated_pool()->FindMethodByName(
            full) != nullptr) {
      return absl::StrCat("/", method);
    }
  }
  return "other";
}

absl::string_view TransportName(RpcTransport transport) {
  return transport == RpcTransport::kHttp ? "http" : "grpc";
}

constexpr StoreOperation kStoreOperations[] = {
    StoreOperation::kCreate,     StoreOperation::kAppend,
    StoreOperation::kRead,       StoreOperation::kList,
    StoreOperation::kCheckpoint, StoreOperation::kOther};

// Drops everything: ProcessMetrics before a daemon installs its own.
class NoMetrics final : public Metrics {
 public:
  void RecordRpc(RpcTransport, absl::string_view, grpc::StatusCode,
                 absl::Duration) override {}
  void RecordAppend(absl::Duration) override {}
  void AddEventsReplayed(std::int64_t) override {}
  void AddFindings(absl::string_view, std::int64_t) override {}
  void SetGamesCached(std::int64_t) override {}
  void AddStoreError(StoreOperation) override {}
  void RecordHttpRefusal(int) override {}
};

NoMetrics& Sink() {
  static auto* const kSink = new NoMetrics();
  return *kSink;
}

std::atomic<Metrics*> process_metrics{nullptr};

}  // namespace

Metrics& ProcessMetrics() {
  Metrics* metrics = process_metrics.load(std::memory_order_acquire);
  return metrics == nullptr ? Sink() : *metrics;
}

void SetProcessMetrics(Metrics* metrics) {
  process_metrics.store(metrics, std::memory_order_release);
}

const absl::Status& CountStoreError(StoreOperation operation,
                                    const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kInternal:
    case absl::StatusCode::kDataLoss:
    case absl::StatusCode::kUnknown:
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kCancelled:
      ProcessMetrics().AddStoreError(operation);
      break;
    default:
      break;
  }
  return status;
}

absl::string_view StoreOperationName(StoreOperation operation) {
  switch (operation) {
    case StoreOperation::kCreate:
      return "create";
    case StoreOperation::kAppend:
      return "append";
    case StoreOperation::kRead:
      return "read";
    case StoreOperation::kList:
      return "list";
    case StoreOperation::kCheckpoint:
      return "checkpoint";
    case StoreOperation::kOther:
      break;
  }
  return "other";
}

struct PrometheusMetrics::Families {
  std::shared_ptr<prometheus::Registry> registry =
      std::make_shared<prometheus::Registry>();
  prometheus::Family<prometheus::Counter>& rpcs =
      prometheus::BuildCounter()
          .Name("gunbai_rpc_requests_total")
          .Help(
              "RPCs finished, by transport (grpc or http), method and "
              "gRPC status code.")
          .Register(*registry);
  prometheus::Family<prometheus::Histogram>& rpc_seconds =
      prometheus::BuildHistogram()
          .Name("gunbai_rpc_duration_seconds")
          .Help(
              "Time from an RPC's start to its status, by transport and "
              "method.")
          .Register(*registry);
  prometheus::Histogram& append_seconds =
      prometheus::BuildHistogram()
          .Name("gunbai_append_duration_seconds")
          .Help(
              "Batches of events appended to the store, and the time "
              "from the append's start to durable.")
          .Register(*registry)
          .Add({}, LatencyBuckets());
  prometheus::Counter& events_replayed =
      prometheus::BuildCounter()
          .Name("gunbai_events_replayed_total")
          .Help("Events replayed through a rules engine by the live games.")
          .Register(*registry)
          .Add({});
  prometheus::Family<prometheus::Counter>& findings =
      prometheus::BuildCounter()
          .Name("gunbai_findings_total")
          .Help(
              "Findings of the live games' replays, by rule id (\"other\" "
              "for an id no ruleset documents).")
          .Register(*registry);
  prometheus::Gauge& games_cached =
      prometheus::BuildGauge()
          .Name("gunbai_games_cached")
          .Help("Live games kept replayed in memory.")
          .Register(*registry)
          .Add({});
  prometheus::Family<prometheus::Counter>& http_refusals =
      prometheus::BuildCounter()
          .Name("gunbai_http_refusals_total")
          .Help(
              "HTTP requests the gateway answered itself with an error, "
              "before any RPC (a body that is not JSON, an unknown path, "
              "a body over the limit), by HTTP status.")
          .Register(*registry);
  prometheus::Family<prometheus::Counter>& store_errors =
      prometheus::BuildCounter()
          .Name("gunbai_store_errors_total")
          .Help("Store operations that failed, by operation.")
          .Register(*registry);

  // Read-only after construction.
  absl::flat_hash_map<std::string, prometheus::Counter*> finding_series;
  prometheus::Counter* other_findings = nullptr;
  prometheus::Counter* store_error_series[std::size(kStoreOperations)] = {};

  absl::Mutex mu;
  // Keyed by transport, method and code, each ending with a '\n'.
  absl::flat_hash_map<std::string, prometheus::Counter*> rpc_series
      ABSL_GUARDED_BY(mu);
  absl::flat_hash_map<std::string, prometheus::Histogram*> rpc_histograms
      ABSL_GUARDED_BY(mu);
  // By HTTP status, 400 to 599 (anything else counts as 599).
  absl::flat_hash_map<int, prometheus::Counter*> refusal_series
      ABSL_GUARDED_BY(mu);
};

PrometheusMetrics::PrometheusMetrics(const std::vector<std::string>& rule_ids)
    : families_(std::make_unique<Families>()) {
  for (const std::string& rule_id : rule_ids) {
    families_->finding_series.emplace(
        rule_id, &families_->findings.Add({{"rule", rule_id}}));
  }
  families_->other_findings = &families_->findings.Add({{"rule", "other"}});
  for (StoreOperation operation : kStoreOperations) {
    families_->store_error_series[static_cast<int>(operation)] =
        &families_->store_errors.Add(
            {{"operation", std::string(StoreOperationName(operation))}});
  }
}

PrometheusMetrics::~PrometheusMetrics() = default;

void PrometheusMetrics::RecordRpc(RpcTransport transport,
                                  absl::string_view method,
                                  grpc::StatusCode code,
                                  absl::Duration latency) {
  const std::string bounded = BoundedMethod(method);
  const absl::string_view code_name = GrpcCodeName(code);
  const std::string series =
      absl::StrCat(TransportName(transport), "\n", bounded, "\n", code_name);
  const std::string histogram_key =
      absl::StrCat(TransportName(transport), "\n", bounded);
  prometheus::Counter* counter = nullptr;
  prometheus::Histogram* histogram = nullptr;
  {
    absl::MutexLock lock(&families_->mu);
    auto [c, new_counter] = families_->rpc_series.try_emplace(series, nullptr);
    if (new_counter) {
      c->second = &families_->rpcs.Add(
          {{"transport", std::string(TransportName(transport))},
           {"method", bounded},
           {"code", std::string(code_name)}});
    }
    counter = c->second;
    auto [h, new_histogram] =
        families_->rpc_histograms.try_emplace(histogram_key, nullptr);
    if (new_histogram) {
      h->second = &families_->rpc_seconds.Add(
          {{"transport", std::string(TransportName(transport))},
           {"method", bounded}},
          LatencyBuckets());
    }
    histogram = h->second;
  }
  counter->Increment();
  histogram->Observe(absl::ToDoubleSeconds(latency));
}

void PrometheusMetrics::RecordAppend(absl::Duration latency) {
  families_->append_seconds.Observe(absl::ToDoubleSeconds(latency));
}

void PrometheusMetrics::AddEventsReplayed(std::int64_t events) {
  if (events > 0) families_->events_replayed.Increment(events);
}

void PrometheusMetrics::AddFindings(absl::string_view rule_id,
                                    std::int64_t findings) {
  if (findings <= 0) return;
  auto it = families_->finding_series.find(rule_id);
  prometheus::Counter* counter = it == families_->finding_series.end()
                                     ? families_->other_findings
                                     : it->second;
  counter->Increment(static_cast<double>(findings));
}

void PrometheusMetrics::SetGamesCached(std::int64_t games) {
  families_->games_cached.Set(static_cast<double>(games));
}

void PrometheusMetrics::AddStoreError(StoreOperation operation) {
  families_->store_error_series[static_cast<int>(operation)]->Increment();
}

void PrometheusMetrics::RecordHttpRefusal(int http_status) {
  if (http_status < 400 || http_status > 599) http_status = 599;
  prometheus::Counter* counter = nullptr;
  {
    absl::MutexLock lock(&families_->mu);
    auto [it, added] =
        families_->refusal_series.try_emplace(http_status, nullptr);
    if (added) {
      it->second = &families_->http_refusals.Add(
          {{"status", absl::StrCat(http_status)}});
    }
    counter = it->second;
  }
  counter->Increment();
}

std::string PrometheusMetrics::Exposition() const {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, families_->registry->Collect());
  return out.str();
}

}  // namespace gunbai::service
