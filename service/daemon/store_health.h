// Whether gunbaid's store answers: the health of the live-games service
// (grpc.health.v1.Health for "gunbai.v1.GameService", GET /readyz), apart
// from the daemon's own (the overall health, GET /livez), so that a
// Kubernetes readiness probe takes a replica whose store is lost out of
// service while its liveness probe restarts only a daemon that is stuck.
//
// The store is failing from the first call that fails as a store's
// (StoreHealth::IsStoreFailure: unreachable, out of disk, an internal
// error, a timeout) and serving again from the first that succeeds (an
// answer about a game, such as NOT_FOUND, is the store answering). Every
// store call is noted (HealthWatchedStore), and the store is asked itself,
// every second while failing (a replica no client calls, as one taken out
// of service, comes back) and every few seconds while serving (a store lost
// with no call in flight is seen). Thread-safe.
#ifndef GUNBAI_SERVICE_DAEMON_STORE_HEALTH_H_
#define GUNBAI_SERVICE_DAEMON_STORE_HEALTH_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "service/store/game_store.h"

namespace gunbai::service {

class StoreHealth {
 public:
  // Told each change of the store's health (true: serving).
  using OnChange = std::function<void(bool serving)>;
  // Asks the store something; its status is noted.
  using Probe = std::function<absl::Status()>;

  StoreHealth() = default;
  // Stops the probing (Stop).
  ~StoreHealth();
  StoreHealth(const StoreHealth&) = delete;
  StoreHealth& operator=(const StoreHealth&) = delete;

  // Starts asking `probe` every `failing_every` while the store fails and
  // every `serving_every` while it serves; `on_change` is told the health
  // now, then each change (under the health's lock, so in order). Call once.
  void Start(Probe probe, OnChange on_change,
             absl::Duration serving_every = absl::Seconds(5),
             absl::Duration failing_every = absl::Seconds(1));

  // Stops the probing and waits for it; `on_change` is told nothing more.
  void Stop();

  // Notes the result of a store call.
  void Note(const absl::Status& result);

  bool serving() const;

  // Whether `status` says the store failed (UNAVAILABLE, INTERNAL, UNKNOWN,
  // DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED), not that it answered. Narrower
  // than the store errors CountStoreError counts (service/daemon/metrics.h):
  // a DATA_LOSS is one stored row that does not parse and a CANCELLED a
  // client gone, neither a store that does not answer.
  static bool IsStoreFailure(const absl::Status& status);

 private:
  void ProbeUntilStopped();

  mutable absl::Mutex mu_;
  bool serving_ ABSL_GUARDED_BY(mu_) = true;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  OnChange on_change_ ABSL_GUARDED_BY(mu_);
  Probe probe_;
  absl::Duration serving_every_;
  absl::Duration failing_every_;
  std::thread prober_;
};

// A GameStore that passes every call on to `store` and notes its result in
// `health`. Neither is owned; both must outlive it.
class HealthWatchedStore final : public GameStore {
 public:
  HealthWatchedStore(GameStore* store, StoreHealth* health)
      : store_(store), health_(health) {}

  absl::Status CreateGame(const GameRecord& game) override;
  absl::StatusOr<GameRecord> GetGame(absl::string_view game_id) override;
  absl::StatusOr<std::vector<std::string>> ListGames() override;
  absl::StatusOr<std::optional<std::string>> FindBatch(
      absl::string_view game_id, absl::string_view first_event_id) override;
  absl::StatusOr<AppendResult> Append(
      absl::string_view game_id, uint64_t expected_version,
      const std::vector<gunbai::v1::StoredEvent>& events,
      absl::string_view answer) override;
  absl::StatusOr<std::vector<gunbai::v1::StoredEvent>> ReadEvents(
      absl::string_view game_id, uint64_t from_seq) override;
  absl::StatusOr<EventPage> ReadEventPage(absl::string_view game_id,
                                          uint64_t from_seq,
                                          size_t max_bytes) override;
  absl::StatusOr<uint64_t> Version(absl::string_view game_id) override;
  absl::StatusOr<uint64_t> NextDiceAttempt(absl::string_view game_id) override;
  absl::StatusOr<std::vector<StoredBatch>> ReadBatches(
      absl::string_view game_id) override;
  absl::StatusOr<uint64_t> DiceAttempts(absl::string_view game_id) override;
  absl::Status RaiseDiceAttempts(absl::string_view game_id,
                                 uint64_t taken) override;
  absl::Status MarkEnded(absl::string_view game_id) override;
  absl::Status WriteCheckpoint(absl::string_view game_id,
                               const StoredCheckpoint& checkpoint) override;
  absl::StatusOr<std::optional<StoredCheckpoint>> LatestCheckpoint(
      absl::string_view game_id, absl::string_view ruleset_digest,
      uint32_t format) override;
  absl::Status RegisterWitnessKey(absl::string_view game_id,
                                  absl::string_view clan,
                                  absl::string_view verifier_key) override;
  absl::Status AddCosignature(absl::string_view game_id,
                              const StoredCosignature& cosignature) override;
  absl::StatusOr<GameWitnesses> ReadWitnesses(
      absl::string_view game_id) override;
  void OnAppend(AppendListener listener) override;

 private:
  // Notes `result` (a Status or a StatusOr) and returns it.
  template <typename T>
  T Noted(T result) {
    if constexpr (std::is_same_v<T, absl::Status>) {
      health_->Note(result);
    } else {
      health_->Note(result.status());
    }
    return result;
  }

  GameStore* store_;
  StoreHealth* health_;
};

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_DAEMON_STORE_HEALTH_H_
