// gunbaid's metrics and log without a daemon: PrometheusMetrics' exposition
// of each metric (series at zero from the start, bounded labels, batches
// counted), and the logger's lines and levels.
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "gunbai/v1/audit_service.pb.h"
#include "service/daemon/logger.h"
#include "service/daemon/metrics.h"
#include "service/daemon/request_observer.h"

namespace gunbai::service {
namespace {

// Returns the value of the sample line starting with `series ` in `text`,
// or -1 when there is none.
double Value(const std::string& text, absl::string_view series) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::ConsumePrefix(&line, series) && absl::ConsumePrefix(&line, " ")) {
      return std::stod(std::string(line));
    }
  }
  return -1;
}

TEST(PrometheusMetrics, SeriesExistAtZeroFromTheStart) {
  PrometheusMetrics metrics({"daimyo.fire.hit", "daimyo.morale.halted"});
  const std::string text = metrics.Exposition();
  EXPECT_EQ(Value(text, "gunbai_findings_total{rule=\"daimyo.fire.hit\"}"), 0);
  EXPECT_EQ(Value(text, "gunbai_findings_total{rule=\"other\"}"), 0);
  EXPECT_EQ(Value(text, "gunbai_store_errors_total{operation=\"append\"}"), 0);
  EXPECT_EQ(Value(text, "gunbai_events_replayed_total"), 0);
  EXPECT_EQ(Value(text, "gunbai_games_cached"), 0);
  EXPECT_EQ(Value(text, "gunbai_append_duration_seconds_count"), 0);
}

TEST(PrometheusMetrics, CountsWhatIsReported) {
  PrometheusMetrics metrics({"daimyo.fire.hit"});
  metrics.AddFindings("daimyo.fire.hit", 3);
  metrics.AddFindings("daimyo.fire.hit", 2);
  metrics.AddFindings("made.up.rule", 4);  // Counted as "other".
  metrics.AddEventsReplayed(41);
  metrics.AddEventsReplayed(0);
  metrics.SetGamesCached(7);
  metrics.SetGamesCached(5);
  metrics.AddStoreError(StoreOperation::kRead);
  metrics.RecordAppend(absl::Milliseconds(3));
  metrics.RecordAppend(absl::Seconds(20));
  const std::string text = metrics.Exposition();
  EXPECT_EQ(Value(text, "gunbai_findings_total{rule=\"daimyo.fire.hit\"}"), 5);
  EXPECT_EQ(Value(text, "gunbai_findings_total{rule=\"other\"}"), 4);
  EXPECT_FALSE(absl::StrContains(text, "made.up.rule"));
  EXPECT_EQ(Value(text, "gunbai_events_replayed_total"), 41);
  EXPECT_EQ(Value(text, "gunbai_games_cached"), 5);
  EXPECT_EQ(Value(text, "gunbai_store_errors_total{operation=\"read\"}"), 1);
  EXPECT_EQ(Value(text, "gunbai_store_errors_total{operation=\"append\"}"), 0);
  EXPECT_EQ(Value(text, "gunbai_append_duration_seconds_count"), 2);
  EXPECT_EQ(Value(text, "gunbai_append_duration_seconds_bucket{le=\"0.005\"}"),
            1);
  EXPECT_EQ(Value(text, "gunbai_append_duration_seconds_bucket{le=\"10\"}"), 1);
  EXPECT_EQ(Value(text, "gunbai_append_duration_seconds_bucket{le=\"+Inf\"}"),
            2);
}

TEST(PrometheusMetrics, RpcMethodsOutsideTheServicesAreOther) {
  // A method is known by its descriptor, linked in with its messages.
  ASSERT_NE(v1::AuditLogRequest::descriptor(), nullptr);
  PrometheusMetrics metrics({});
  metrics.RecordRpc(RpcTransport::kGrpc, "/gunbai.v1.AuditService/AuditLog",
                    grpc::StatusCode::OK, absl::Milliseconds(2));
  metrics.RecordRpc(RpcTransport::kHttp, "/gunbai.v1.AuditService/AuditLog",
                    grpc::StatusCode::UNAUTHENTICATED, absl::Milliseconds(2));
  for (int i = 0; i < 3; ++i) {
    metrics.RecordRpc(RpcTransport::kGrpc, absl::StrCat("/made.Up/M", i),
                      grpc::StatusCode::UNIMPLEMENTED, absl::Milliseconds(1));
  }
  const std::string text = metrics.Exposition();
  EXPECT_EQ(Value(text,
                  "gunbai_rpc_requests_total{code=\"OK\",method=\"/"
                  "gunbai.v1.AuditService/AuditLog\",transport=\"grpc\"}"),
            1);
  EXPECT_EQ(Value(text,
                  "gunbai_rpc_requests_total{code=\"UNAUTHENTICATED\",method="
                  "\"/gunbai.v1.AuditService/AuditLog\",transport=\"http\"}"),
            1);
  EXPECT_EQ(Value(text,
                  "gunbai_rpc_requests_total{code=\"UNIMPLEMENTED\",method="
                  "\"other\",transport=\"grpc\"}"),
            3);
  EXPECT_FALSE(absl::StrContains(text, "made.Up"));
}

TEST(PrometheusMetrics, HttpRefusalsByStatus) {
  PrometheusMetrics metrics({});
  metrics.RecordHttpRefusal(404);
  metrics.RecordHttpRefusal(404);
  metrics.RecordHttpRefusal(413);
  metrics.RecordHttpRefusal(200);  // Not a refusal: bounded as 599.
  const std::string text = metrics.Exposition();
  EXPECT_EQ(Value(text, "gunbai_http_refusals_total{status=\"404\"}"), 2);
  EXPECT_EQ(Value(text, "gunbai_http_refusals_total{status=\"413\"}"), 1);
  EXPECT_EQ(Value(text, "gunbai_http_refusals_total{status=\"599\"}"), 1);
}

TEST(PrometheusMetrics, ConcurrentReportsAllCount) {
  ASSERT_NE(v1::AuditLogRequest::descriptor(), nullptr);
  PrometheusMetrics metrics({"daimyo.fire.hit"});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&metrics] {
      for (int i = 0; i < 1000; ++i) {
        metrics.RecordRpc(RpcTransport::kGrpc,
                          "/gunbai.v1.AuditService/AuditLog",
                          grpc::StatusCode::OK, absl::Microseconds(10));
        metrics.AddFindings("daimyo.fire.hit", 1);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  const std::string text = metrics.Exposition();
  EXPECT_EQ(Value(text,
                  "gunbai_rpc_requests_total{code=\"OK\",method=\"/"
                  "gunbai.v1.AuditService/AuditLog\",transport=\"grpc\"}"),
            4000);
  EXPECT_EQ(Value(text, "gunbai_findings_total{rule=\"daimyo.fire.hit\"}"),
            4000);
}

TEST(ProcessMetrics, IsASinkUntilInstalled) {
  ProcessMetrics().AddEventsReplayed(5);  // Dropped, no crash.
  PrometheusMetrics metrics({});
  SetProcessMetrics(&metrics);
  ProcessMetrics().AddEventsReplayed(5);
  SetProcessMetrics(nullptr);
  ProcessMetrics().AddEventsReplayed(5);
  EXPECT_EQ(Value(metrics.Exposition(), "gunbai_events_replayed_total"), 5);
}

TEST(ProcessMetrics, StoreErrorsAreFailuresOfTheStoreOnly) {
  PrometheusMetrics metrics({});
  SetProcessMetrics(&metrics);
  const absl::Status lost = absl::UnavailableError("connection lost");
  EXPECT_EQ(&CountStoreError(StoreOperation::kAppend, lost), &lost);
  CountStoreError(StoreOperation::kAppend, absl::InternalError("disk"));
  CountStoreError(StoreOperation::kAppend, absl::AbortedError("stale"));
  CountStoreError(StoreOperation::kRead, absl::NotFoundError("no game"));
  CountStoreError(StoreOperation::kRead, absl::OkStatus());
  SetProcessMetrics(nullptr);
  const std::string text = metrics.Exposition();
  EXPECT_EQ(Value(text, "gunbai_store_errors_total{operation=\"append\"}"), 2);
  EXPECT_EQ(Value(text, "gunbai_store_errors_total{operation=\"read\"}"), 0);
}

TEST(Logger, LinesAreJsonWithEscapedFields) {
  const std::string line =
      LogLine(LogLevel::kWarn, "a \"quoted\"\nmessage",
              {{"game_id", "g<1>"}, {"count", 3}, {"latency_ms", 1.23456}});
  EXPECT_TRUE(absl::StartsWith(line, "{\"time\":\"")) << line;
  EXPECT_TRUE(absl::StrContains(
      line,
      "\"level\":\"warn\",\"msg\":\"a \\\"quoted\\\"\\u000amessage\","
      "\"game_id\":\"g\\u003c1\\u003e\",\"count\":3,\"latency_ms\":1.235}"))
      << line;
}

TEST(Logger, LevelDropsLessSevereLines) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  SetLogOutput(out);
  SetLogLevel(LogLevel::kWarn);
  Log(LogLevel::kInfo, "dropped");
  Log(LogLevel::kDebug, "dropped");
  Log(LogLevel::kWarn, "kept warn");
  Log(LogLevel::kError, "kept error");
  SetLogLevel(LogLevel::kInfo);
  SetLogOutput(nullptr);
  std::rewind(out);
  std::string text;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, out) != nullptr) text += buffer;
  std::fclose(out);
  EXPECT_FALSE(absl::StrContains(text, "dropped")) << text;
  EXPECT_TRUE(absl::StrContains(text, "\"msg\":\"kept warn\"")) << text;
  EXPECT_TRUE(absl::StrContains(text, "\"msg\":\"kept error\"")) << text;
  EXPECT_EQ(std::vector<std::string>(absl::StrSplit(text, '\n')).size(), 3u);
}

TEST(Logger, ParsesTheFlagsLevels) {
  LogLevel level = LogLevel::kInfo;
  EXPECT_TRUE(ParseLogLevel("debug", level));
  EXPECT_EQ(level, LogLevel::kDebug);
  EXPECT_TRUE(ParseLogLevel("error", level));
  EXPECT_EQ(level, LogLevel::kError);
  EXPECT_FALSE(ParseLogLevel("verbose", level));
}

TEST(RequestId, OnlyShortPlainIdsAreTaken) {
  EXPECT_TRUE(IsValidRequestId("4bf92f35-77b3.4a:e_1"));
  EXPECT_FALSE(IsValidRequestId(""));
  EXPECT_FALSE(IsValidRequestId("with space"));
  EXPECT_FALSE(IsValidRequestId("quote\""));
  EXPECT_FALSE(IsValidRequestId(std::string(kMaxRequestIdBytes + 1, 'a')));
  EXPECT_TRUE(IsValidRequestId(std::string(kMaxRequestIdBytes, 'a')));
}

}  // namespace
}  // namespace gunbai::service
