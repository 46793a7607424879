// The pieces of the HTTP front door that need no daemon: the gRPC code to
// HTTP status table, the JSON error body (hostile messages stay text), and
// the embedded files with their content types. Each expectation is worked
// by hand from google.api's HTTP mapping, RFC 8259 and service/daemon/web/.
#include <string>

#include "absl/strings/match.h"
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

// Media types as RFC 9110 reads them (issue 31: types were matched by
// prefix, so application/jsonp, application/json-evil and
// "application/json\0x" were taken as JSON, and charset=utf-16 read as
// UTF-8). Each case worked by hand from the grammar: type "/" subtype, then
// "; name=value" with a token or quoted-string value.
TEST(CheckJsonContentType, TakesJsonInUtf8Only) {
  for (const char* ok :
       {"application/json", "Application/JSON", "application/json;",
        "application/json; charset=utf-8", "application/json;charset=UTF-8",
        "application/json ; charset=\"utf-8\"",
        "application/json; version=2; charset=utf-8", " application/json"}) {
    EXPECT_TRUE(CheckJsonContentType(ok).ok()) << ok;
  }
  const struct {
    std::string type;
    const char* says;
  } kRefused[] = {
      {"", "no Content-Type"},
      {"application/jsonp", "is not application/json"},
      {"application/json-evil", "is not application/json"},
      {std::string("application/json\0x", 18), "a malformed parameter"},
      {"application/json x", "a malformed parameter"},
      {"application/json; charset", "a malformed parameter"},
      {"application/json; charset=\"utf-8", "a malformed parameter"},
      {"application/json; charset=utf-16", "charset utf-16: the body must be"},
      {"application/json; charset=\"latin1\"", "charset latin1"},
      {"text/json", "is not application/json"},
      {"application/x-www-form-urlencoded", "is not application/json"},
      {"json", "is not application/json"},
  };
  for (const auto& row : kRefused) {
    const absl::Status status = CheckJsonContentType(row.type);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << row.type;
    EXPECT_TRUE(absl::StrContains(status.message(), row.says))
        << row.type << ": " << status.message();
  }
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

namespace gunbai::service {
namespace {

// ReadHttpRequest is the server's own parser with its limits; each case's
// answer follows from the limits set here (a 100-byte body, a 256-byte
// header, 5 header lines).
class ReadHttpRequestTest : public ::testing::Test {
 protected:
  ReadHttpRequestTest() {
    limits_.max_body_bytes = 100;
    limits_.max_header_bytes = 256;
    limits_.max_header_fields = 5;
  }
  int Read(const std::string& bytes) {
    request_ = HttpRequest();
    reason_.clear();
    return ReadHttpRequest(bytes, limits_, request_, reason_);
  }
  HttpServerOptions limits_;
  HttpRequest request_;
  std::string reason_;
};

TEST_F(ReadHttpRequestTest, ReadsAWholeRequest) {
  ASSERT_EQ(Read("POST /v1/audit%3Alog?x=1 HTTP/1.1\r\nHost: g\r\n"
                 "Content-Type: application/json\r\nContent-Length: 2\r\n"
                 "\r\n{}"),
            0)
      << reason_;
  EXPECT_EQ(request_.method, "POST");
  EXPECT_EQ(request_.target, "/v1/audit%3Alog?x=1");
  EXPECT_EQ(request_.path, "/v1/audit%3Alog");
  EXPECT_EQ(request_.body, "{}");
  EXPECT_EQ(request_.Header("content-type"), "application/json");
  EXPECT_EQ(request_.HeaderCount("HOST"), 1);
  // Chunked: 1 + 1 bytes.
  ASSERT_EQ(Read("POST / HTTP/1.1\r\nHost: g\r\nTransfer-Encoding: chunked"
                 "\r\n\r\n1\r\n{\r\n1\r\n}\r\n0\r\n\r\n"),
            0)
      << reason_;
  EXPECT_EQ(request_.body, "{}");
}

TEST_F(ReadHttpRequestTest, AnUnfinishedRequestIsNotYetAnything) {
  EXPECT_EQ(Read(""), -1);
  EXPECT_EQ(Read("GET / HTTP/1.1\r\nHost: g\r\n"), -1);
  EXPECT_EQ(Read("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\n{}"), -1);
}

TEST_F(ReadHttpRequestTest, RefusesWhatTheServerRefuses) {
  // 6 header lines, over 5: 431.
  EXPECT_EQ(Read("GET / HTTP/1.1\r\nA: 1\r\nB: 1\r\nC: 1\r\nD: 1\r\nE: 1\r\n"
                 "F: 1\r\n\r\n"),
            431);
  EXPECT_TRUE(absl::StrContains(reason_, "over 5 header lines")) << reason_;
  // A header of 300 bytes, over 256: 431.
  EXPECT_EQ(Read("GET / HTTP/1.1\r\nX: " + std::string(300, 'x') + "\r\n\r\n"),
            431);
  EXPECT_TRUE(absl::StrContains(reason_, "over 256 bytes")) << reason_;
  // A declared 101 bytes, over 100: 413 with no body sent.
  EXPECT_EQ(Read("POST / HTTP/1.1\r\nContent-Length: 101\r\n\r\n"), 413);
  EXPECT_TRUE(absl::StrContains(reason_, "over 100 bytes")) << reason_;
  // Chunks of 0x40 + 0x40 = 128 bytes: 413 at the second chunk's size line.
  EXPECT_EQ(Read("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n" +
                 std::string(64, 'a') + "\r\n40\r\n"),
            413);
  // Not a number: 400.
  EXPECT_EQ(Read("POST / HTTP/1.1\r\nContent-Length: -5\r\n\r\n"), 400);
  EXPECT_EQ(Read("POST / HTTP/1.1\r\nContent-Length: 1e23\r\n\r\n"), 400);
  EXPECT_EQ(Read("NOT HTTP\r\n\r\n"), 400);
}

}  // namespace
}  // namespace gunbai::service
