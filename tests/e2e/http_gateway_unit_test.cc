// The pieces of the HTTP front door that need no daemon: the gRPC code to
// HTTP status table, the JSON error body (hostile messages stay text), and
// the embedded files with their content types. Each expectation is worked
// by hand from google.api's HTTP mapping, RFC 8259 and service/daemon/web/.
#include <string>

#include "gtest/gtest.h"
#include "service/daemon/http_gateway.h"
#include "service/daemon/web_assets.h"

namespace gunbai::service {
namespace {

TEST(HttpStatusOf, FollowsGoogleApisMapping) {
  using grpc::StatusCode;
  const struct {
    StatusCode code;
    int http;
  } kTable[] = {
      {StatusCode::OK, 200},
      {StatusCode::CANCELLED, 499},
      {StatusCode::UNKNOWN, 500},
      {StatusCode::INVALID_ARGUMENT, 400},
      {StatusCode::DEADLINE_EXCEEDED, 504},
      {StatusCode::NOT_FOUND, 404},
      {StatusCode::ALREADY_EXISTS, 409},
      {StatusCode::PERMISSION_DENIED, 403},
      {StatusCode::RESOURCE_EXHAUSTED, 429},
      {StatusCode::FAILED_PRECONDITION, 400},
      {StatusCode::ABORTED, 409},
      {StatusCode::OUT_OF_RANGE, 400},
      {StatusCode::UNIMPLEMENTED, 501},
      {StatusCode::INTERNAL, 500},
      {StatusCode::UNAVAILABLE, 503},
      {StatusCode::DATA_LOSS, 500},
      {StatusCode::UNAUTHENTICATED, 401},
  };
  for (const auto& row : kTable) {
    EXPECT_EQ(HttpStatusOf(row.code), row.http) << GrpcCodeName(row.code);
  }
  EXPECT_EQ(GrpcCodeName(grpc::StatusCode::UNAUTHENTICATED), "UNAUTHENTICATED");
  // 17, the first number past the codes (16, UNAUTHENTICATED), and still a
  // value grpc::StatusCode can hold (its values run -1 to 16, so -32 to
  // 31): 99 would be undefined behaviour, which clang's UBSan stops on.
  EXPECT_EQ(GrpcCodeName(static_cast<grpc::StatusCode>(17)), "UNKNOWN");
}

TEST(ErrorJson, EscapesEveryHostileCharacter) {
  // Worked by hand: quote and backslash escaped, <, >, & and control
  // characters as \u00XX, so that no page takes the message for markup.
  EXPECT_EQ(ErrorJson(grpc::StatusCode::NOT_FOUND,
                      "no unit \"<script>alert('x')</script>\" & \\ \n"),
            "{\"code\":5,\"status\":\"NOT_FOUND\",\"message\":\"no unit "
            "\\\"\\u003cscript\\u003ealert('x')\\u003c/script\\u003e\\\" "
            "\\u0026 \\\\ \\u000a\"}");
  // UTF-8 passes; a byte that is not UTF-8 becomes U+FFFD (EF BF BD).
  EXPECT_EQ(
      ErrorJson(grpc::StatusCode::INVALID_ARGUMENT, "Oda \xe7\xb9\x94 \xff"),
      "{\"code\":3,\"status\":\"INVALID_ARGUMENT\",\"message\":\"Oda "
      "\xe7\xb9\x94 \xef\xbf\xbd\"}");
  // An overlong encoding of '<' (C0 BC) is not let through as '<'.
  EXPECT_EQ(ErrorJson(grpc::StatusCode::INTERNAL, "\xc0\xbc"),
            "{\"code\":13,\"status\":\"INTERNAL\",\"message\":"
            "\"\xef\xbf\xbd\xef\xbf\xbd\"}");
}

TEST(WebAssets, EmbedsTheWebFolderWithContentTypes) {
  const WebAsset* index = FindWebAsset("index.html");
  ASSERT_NE(index, nullptr);
  EXPECT_NE(index->bytes().find("<title>gunbai</title>"), std::string::npos);
  EXPECT_NE(FindWebAsset("app.js"), nullptr);
  EXPECT_NE(FindWebAsset("app.css"), nullptr);
  EXPECT_EQ(FindWebAsset("../index.html"), nullptr);
  EXPECT_EQ(FindWebAsset(""), nullptr);
  EXPECT_EQ(WebContentType("index.html"), "text/html; charset=utf-8");
  EXPECT_EQ(WebContentType("app.js"), "text/javascript; charset=utf-8");
  EXPECT_EQ(WebContentType("app.css"), "text/css; charset=utf-8");
  EXPECT_EQ(WebContentType("map.svg"), "image/svg+xml");
  EXPECT_EQ(WebContentType("README"), "application/octet-stream");
}

}  // namespace
}  // namespace gunbai::service
