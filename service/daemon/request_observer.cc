#include "service/daemon/request_observer.h"

#include <atomic>
#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpcpp/support/interceptor.h"
#include "service/daemon/grpc_code_name.h"
#include "service/daemon/logger.h"

namespace gunbai::service {

namespace {

using grpc::experimental::InterceptionHookPoints;

constexpr std::size_t kMaxGameIdBytes = 128;
constexpr char kRequestIdKey[] = "x-request-id";

// The game ids noted for the calls in flight, by their ServerContextBase.
class GameIds {
 public:
  void Open(const void* call) {
    absl::MutexLock lock(&mu_);
    ids_.try_emplace(call);
  }
  void Note(const void* call, absl::string_view game_id) {
    absl::MutexLock lock(&mu_);
    auto it = ids_.find(call);
    if (it != ids_.end()) {
      it->second = std::string(game_id.substr(0, kMaxGameIdBytes));
    }
  }
  std::string Close(const void* call) {
    absl::MutexLock lock(&mu_);
    auto it = ids_.find(call);
    if (it == ids_.end()) return "";
    std::string id = std::move(it->second);
    ids_.erase(it);
    return id;
  }

 private:
  absl::Mutex mu_;
  absl::flat_hash_map<const void*, std::string> ids_ ABSL_GUARDED_BY(mu_);
};

GameIds& Games() {
  static auto* const kGames = new GameIds();
  return *kGames;
}

std::atomic<std::uint64_t> next_request_id{1};

// Returns whether a call whose peer is `peer` came over the in-process
// channel, which only the HTTP gateway uses: gRPC 1.51 names no address
// for it ("unknown"), where a client over a socket is "ipv4:", "ipv6:" or
// "unix:" and its address.
bool IsInProcess(absl::string_view peer) {
  return peer.empty() || peer == "unknown" || absl::StartsWith(peer, "inproc");
}

class RequestObserver final : public grpc::experimental::Interceptor {
 public:
  RequestObserver(grpc::experimental::ServerRpcInfo* info, Metrics* metrics)
      : metrics_(metrics),
        call_(info->server_context()),
        method_(info->method() == nullptr ? "" : info->method()),
        start_(absl::Now()) {
    Games().Open(call_);
  }

  ~RequestObserver() override {
    // A call cancelled before its status was sent.
    if (!done_) Finish(grpc::StatusCode::CANCELLED);
  }

  void Intercept(
      grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            InterceptionHookPoints::POST_RECV_INITIAL_METADATA)) {
      ReadRequestId(*methods->GetRecvInitialMetadata());
    }
    if (methods->QueryInterceptionHookPoint(
            InterceptionHookPoints::PRE_SEND_INITIAL_METADATA)) {
      methods->GetSendInitialMetadata()->emplace(kRequestIdKey, RequestId());
    }
    if (methods->QueryInterceptionHookPoint(
            InterceptionHookPoints::PRE_SEND_STATUS) &&
        !done_) {
      Finish(methods->GetSendStatus().error_code());
    }
    methods->Proceed();
  }

 private:
  void ReadRequestId(
      const std::multimap<grpc::string_ref, grpc::string_ref>& metadata) {
    auto it = metadata.find(kRequestIdKey);
    if (it == metadata.end()) return;
    const absl::string_view id(it->second.data(), it->second.size());
    if (IsValidRequestId(id)) request_id_ = std::string(id);
  }

  const std::string& RequestId() {
    if (request_id_.empty()) {
      request_id_ = NewRequestId();
    }
    return request_id_;
  }

  void Finish(grpc::StatusCode code) {
    done_ = true;
    const absl::Duration latency = absl::Now() - start_;
    const RpcTransport transport =
        IsInProcess(call_->peer()) ? RpcTransport::kHttp : RpcTransport::kGrpc;
    metrics_->RecordRpc(transport, method_, code, latency);
    const std::string game_id = Games().Close(call_);
    const LogLevel level = method_.rfind("/grpc.health.v1.", 0) == 0
                               ? LogLevel::kDebug
                               : LogLevel::kInfo;
    if (!LogEnabled(level)) return;
    const std::string& id = RequestId();
    const absl::string_view transport_name =
        transport == RpcTransport::kHttp ? "http" : "grpc";
    const double latency_ms = absl::ToDoubleMilliseconds(latency);
    if (game_id.empty()) {
      Log(level, "rpc",
          {{"request_id", id},
           {"transport", transport_name},
           {"method", method_},
           {"code", GrpcCodeName(code)},
           {"latency_ms", latency_ms}});
    } else {
      Log(level, "rpc",
          {{"request_id", id},
           {"transport", transport_name},
           {"method", method_},
           {"game_id", game_id},
           {"code", GrpcCodeName(code)},
           {"latency_ms", latency_ms}});
    }
  }

  Metrics* const metrics_;
  const grpc::ServerContextBase* const call_;
  const std::string method_;
  const absl::Time start_;
  std::string request_id_;
  bool done_ = false;
};

class RequestObserverFactory final
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit RequestObserverFactory(Metrics* metrics) : metrics_(metrics) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    return new RequestObserver(info, metrics_);
  }

 private:
  Metrics* const metrics_;
};

}  // namespace

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
NewRequestObserverFactory(Metrics* metrics) {
  return std::make_unique<RequestObserverFactory>(metrics);
}

void NoteRequestGameId(const grpc::ServerContextBase* context,
                       absl::string_view game_id) {
  if (context != nullptr && !game_id.empty()) Games().Note(context, game_id);
}

std::string NewRequestId() {
  return absl::StrCat("r", next_request_id.fetch_add(1));
}

bool IsValidRequestId(absl::string_view id) {
  if (id.empty() || id.size() > kMaxRequestIdBytes) return false;
  for (char c : id) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' &&
        c != '_' && c != ':' && c != '-') {
      return false;
    }
  }
  return true;
}

}  // namespace gunbai::service
