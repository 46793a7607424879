#include "service/daemon/store_health.h"

#include <utility>

namespace gunbai::service {

StoreHealth::~StoreHealth() { Stop(); }

void StoreHealth::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (prober_.joinable()) prober_.join();
  absl::MutexLock lock(&mu_);
  on_change_ = nullptr;
}

void StoreHealth::Start(Probe probe, OnChange on_change,
                        absl::Duration serving_every,
                        absl::Duration failing_every) {
  probe_ = std::move(probe);
  serving_every_ = serving_every;
  failing_every_ = failing_every;
  {
    absl::MutexLock lock(&mu_);
    on_change_ = std::move(on_change);
    on_change_(serving_);
  }
  prober_ = std::thread([this] { ProbeUntilStopped(); });
}

void StoreHealth::Note(const absl::Status& result) {
  const bool serving = !IsStoreFailure(result);
  absl::MutexLock lock(&mu_);
  if (serving == serving_) return;
  serving_ = serving;
  if (on_change_) on_change_(serving_);
}

bool StoreHealth::serving() const {
  absl::MutexLock lock(&mu_);
  return serving_;
}

bool StoreHealth::IsStoreFailure(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kInternal:
    case absl::StatusCode::kUnknown:
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kResourceExhausted:
      return true;
    default:
      return false;
  }
}

void StoreHealth::ProbeUntilStopped() {
  for (;;) {
    {
      absl::MutexLock lock(&mu_);
      const absl::Duration wait = serving_ ? serving_every_ : failing_every_;
      // Woken early only to stop.
      mu_.AwaitWithTimeout(absl::Condition(&stopping_), wait);
      if (stopping_) return;
    }
    Note(probe_());
  }
}

absl::Status HealthWatchedStore::CreateGame(const GameRecord& game) {
  return Noted(store_->CreateGame(game));
}

absl::StatusOr<GameRecord> HealthWatchedStore::GetGame(
    absl::string_view game_id) {
  return Noted(store_->GetGame(game_id));
}

absl::StatusOr<std::vector<std::string>> HealthWatchedStore::ListGames() {
  return Noted(store_->ListGames());
}

absl::StatusOr<std::optional<std::string>> HealthWatchedStore::FindBatch(
    absl::string_view game_id, absl::string_view first_event_id) {
  return Noted(store_->FindBatch(game_id, first_event_id));
}

absl::StatusOr<AppendResult> HealthWatchedStore::Append(
    absl::string_view game_id, uint64_t expected_version,
    const std::vector<gunbai::v1::StoredEvent>& events,
    absl::string_view answer) {
  return Noted(store_->Append(game_id, expected_version, events, answer));
}

absl::StatusOr<std::vector<gunbai::v1::StoredEvent>>
HealthWatchedStore::ReadEvents(absl::string_view game_id, uint64_t from_seq) {
  return Noted(store_->ReadEvents(game_id, from_seq));
}

absl::StatusOr<GameStore::EventPage> HealthWatchedStore::ReadEventPage(
    absl::string_view game_id, uint64_t from_seq, size_t max_bytes) {
  return Noted(store_->ReadEventPage(game_id, from_seq, max_bytes));
}

absl::StatusOr<uint64_t> HealthWatchedStore::Version(
    absl::string_view game_id) {
  return Noted(store_->Version(game_id));
}

absl::StatusOr<uint64_t> HealthWatchedStore::NextDiceAttempt(
    absl::string_view game_id) {
  return Noted(store_->NextDiceAttempt(game_id));
}

absl::StatusOr<std::vector<GameStore::StoredBatch>>
HealthWatchedStore::ReadBatches(absl::string_view game_id) {
  return Noted(store_->ReadBatches(game_id));
}

absl::StatusOr<uint64_t> HealthWatchedStore::DiceAttempts(
    absl::string_view game_id) {
  return Noted(store_->DiceAttempts(game_id));
}

absl::Status HealthWatchedStore::RaiseDiceAttempts(absl::string_view game_id,
                                                   uint64_t taken) {
  return Noted(store_->RaiseDiceAttempts(game_id, taken));
}

absl::Status HealthWatchedStore::MarkEnded(absl::string_view game_id) {
  return Noted(store_->MarkEnded(game_id));
}

absl::Status HealthWatchedStore::WriteCheckpoint(
    absl::string_view game_id, const StoredCheckpoint& checkpoint) {
  return Noted(store_->WriteCheckpoint(game_id, checkpoint));
}

absl::StatusOr<std::optional<StoredCheckpoint>>
HealthWatchedStore::LatestCheckpoint(absl::string_view game_id,
                                     absl::string_view ruleset_digest,
                                     uint32_t format) {
  return Noted(store_->LatestCheckpoint(game_id, ruleset_digest, format));
}

absl::Status HealthWatchedStore::RegisterWitnessKey(
    absl::string_view game_id, absl::string_view clan,
    absl::string_view verifier_key) {
  return Noted(store_->RegisterWitnessKey(game_id, clan, verifier_key));
}

absl::Status HealthWatchedStore::AddCosignature(
    absl::string_view game_id, const StoredCosignature& cosignature) {
  return Noted(store_->AddCosignature(game_id, cosignature));
}

absl::StatusOr<GameWitnesses> HealthWatchedStore::ReadWitnesses(
    absl::string_view game_id) {
  return Noted(store_->ReadWitnesses(game_id));
}

void HealthWatchedStore::OnAppend(AppendListener listener) {
  store_->OnAppend(std::move(listener));
}

}  // namespace gunbai::service
