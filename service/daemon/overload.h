// gunbaid's own overload limits, beside gRPC's resource quota: how many
// bytes of requests the services work on at once (RequestBudget), and how
// many live-game watches run at once, in all and per game (WatcherSlots).
// Beyond a limit a call is refused at once with RESOURCE_EXHAUSTED naming
// the limit and its flag, instead of queueing or growing memory.
// Thread-safe: every method may be called from many threads at once.
#ifndef GUNBAI_SERVICE_DAEMON_OVERLOAD_H_
#define GUNBAI_SERVICE_DAEMON_OVERLOAD_H_

#include <cstdint>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/message.h"

namespace gunbai::service {

// The defaults of gunbaid's overload flags (gunbaid --help).
inline constexpr std::int64_t kDefaultMaxInflightRequestBytes = 128 << 20;
inline constexpr int kDefaultMaxWatchers = 32;
inline constexpr int kDefaultMaxWatchersPerGame = 8;

// The bytes of the requests being worked on. A request is admitted while
// the sum stays within the budget, and always when nothing else is in
// work, so one request of any size the message limit lets through is
// served alone.
class RequestBudget {
 public:
  // A request in work; gives its bytes back when destroyed. Movable.
  class Admission {
   public:
    Admission() = default;
    Admission(Admission&& other) noexcept;
    Admission& operator=(Admission&& other) noexcept;
    ~Admission();

   private:
    friend class RequestBudget;
    Admission(RequestBudget* budget, std::int64_t bytes)
        : budget_(budget), bytes_(bytes) {}
    RequestBudget* budget_ = nullptr;
    std::int64_t bytes_ = 0;
  };

  // `max_bytes` is the budget; `flag` names the flag that sets it, for the
  // messages.
  RequestBudget(std::int64_t max_bytes, std::string flag);
  RequestBudget(const RequestBudget&) = delete;
  RequestBudget& operator=(const RequestBudget&) = delete;

  // Admits a request of `bytes` (its encoded size), `what` naming it in
  // the message ("AuditLog"). Returns ResourceExhausted when the requests
  // in work and this one would exceed the budget; the caller must not
  // start the work then.
  absl::StatusOr<Admission> Admit(std::int64_t bytes, absl::string_view what);

  // Returns the bytes of the requests in work now.
  std::int64_t InWork() const;

 private:
  void Release(std::int64_t bytes);

  const std::int64_t max_bytes_;
  const std::string flag_;
  mutable absl::Mutex mu_;
  std::int64_t in_work_ ABSL_GUARDED_BY(mu_) = 0;
  int requests_ ABSL_GUARDED_BY(mu_) = 0;
};

// Admits `request` (its encoded size) into `budget` as `what`; a null budget
// admits everything. On success `admission` holds the request's bytes.
absl::Status AdmitRequest(RequestBudget* budget,
                          const google::protobuf::Message& request,
                          absl::string_view what,
                          RequestBudget::Admission& admission);

// Admits a request of `bytes` (its size on the wire, taken before it is
// parsed) into `budget` as `what`; a null budget admits everything. On
// success `admission` holds the bytes.
absl::Status AdmitBytes(RequestBudget* budget, std::int64_t bytes,
                        absl::string_view what,
                        RequestBudget::Admission& admission);

// The watches of live games running now, in all and per game.
class WatcherSlots {
 public:
  // A watch holding its slot; frees it when destroyed. Movable.
  class Slot {
   public:
    Slot() = default;
    Slot(Slot&& other) noexcept;
    Slot& operator=(Slot&& other) noexcept;
    ~Slot();

   private:
    friend class WatcherSlots;
    Slot(WatcherSlots* slots, std::string game_id)
        : slots_(slots), game_id_(std::move(game_id)) {}
    WatcherSlots* slots_ = nullptr;
    std::string game_id_;
  };

  // At most `max_total` watches at once, and `max_per_game` of one game.
  WatcherSlots(int max_total, int max_per_game);
  WatcherSlots(const WatcherSlots&) = delete;
  WatcherSlots& operator=(const WatcherSlots&) = delete;

  // Takes a slot for a watch of `game_id`. Returns ResourceExhausted,
  // naming the limit that is full and its flag, when either is.
  absl::StatusOr<Slot> Take(const std::string& game_id);

  // Returns the watches running now, of `game_id` or (empty) in all.
  int Watching(const std::string& game_id = {}) const;

 private:
  void Free(const std::string& game_id);

  const int max_total_;
  const int max_per_game_;
  mutable absl::Mutex mu_;
  int total_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<std::string, int> per_game_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_DAEMON_OVERLOAD_H_
