#include "service/daemon/overload.h"

#include <utility>

#include "absl/strings/str_format.h"
#include "rules/status_macros.h"

namespace gunbai::service {

RequestBudget::Admission::Admission(Admission&& other) noexcept
    : budget_(std::exchange(other.budget_, nullptr)), bytes_(other.bytes_) {}

RequestBudget::Admission& RequestBudget::Admission::operator=(
    Admission&& other) noexcept {
  if (this != &other) {
    if (budget_ != nullptr) budget_->Release(bytes_);
    budget_ = std::exchange(other.budget_, nullptr);
    bytes_ = other.bytes_;
  }
  return *this;
}

RequestBudget::Admission::~Admission() {
  if (budget_ != nullptr) budget_->Release(bytes_);
}

RequestBudget::RequestBudget(std::int64_t max_bytes, std::string flag)
    : max_bytes_(max_bytes), flag_(std::move(flag)) {}

absl::StatusOr<RequestBudget::Admission> RequestBudget::Admit(
    std::int64_t bytes, absl::string_view what) {
  absl::MutexLock lock(&mu_);
  if (requests_ > 0 && in_work_ + bytes > max_bytes_) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "gunbaid is busy: it is working on %d requests of %d bytes in all, "
        "and this %s request of %d bytes would take it over its limit of %d "
        "(gunbaid %s); retry in a moment, or send smaller requests",
        requests_, in_work_, what, bytes, max_bytes_, flag_));
  }
  in_work_ += bytes;
  ++requests_;
  return Admission(this, bytes);
}

std::int64_t RequestBudget::InWork() const {
  absl::MutexLock lock(&mu_);
  return in_work_;
}

void RequestBudget::Release(std::int64_t bytes) {
  absl::MutexLock lock(&mu_);
  in_work_ -= bytes;
  --requests_;
}

WatcherSlots::Slot::Slot(Slot&& other) noexcept
    : slots_(std::exchange(other.slots_, nullptr)),
      game_id_(std::move(other.game_id_)) {}

WatcherSlots::Slot& WatcherSlots::Slot::operator=(Slot&& other) noexcept {
  if (this != &other) {
    if (slots_ != nullptr) slots_->Free(game_id_);
    slots_ = std::exchange(other.slots_, nullptr);
    game_id_ = std::move(other.game_id_);
  }
  return *this;
}

WatcherSlots::Slot::~Slot() {
  if (slots_ != nullptr) slots_->Free(game_id_);
}

WatcherSlots::WatcherSlots(int max_total, int max_per_game)
    : max_total_(max_total), max_per_game_(max_per_game) {}

absl::StatusOr<WatcherSlots::Slot> WatcherSlots::Take(
    const std::string& game_id) {
  absl::MutexLock lock(&mu_);
  if (total_ >= max_total_) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "gunbaid already serves %d watches, its limit (gunbaid "
        "--max-watchers=%d); end a watch you do not need, or retry later",
        total_, max_total_));
  }
  int& of_game = per_game_[game_id];
  if (of_game >= max_per_game_) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "game %s already has %d watches, the most one game may have (gunbaid "
        "--max-watchers-per-game=%d); end a watch of this game you do not "
        "need, or retry later",
        game_id, of_game, max_per_game_));
  }
  ++of_game;
  ++total_;
  return Slot(this, game_id);
}

int WatcherSlots::Watching(const std::string& game_id) const {
  absl::MutexLock lock(&mu_);
  if (game_id.empty()) return total_;
  auto it = per_game_.find(game_id);
  return it == per_game_.end() ? 0 : it->second;
}

void WatcherSlots::Free(const std::string& game_id) {
  absl::MutexLock lock(&mu_);
  --total_;
  auto it = per_game_.find(game_id);
  if (--it->second == 0) per_game_.erase(it);
}

absl::Status AdmitRequest(RequestBudget* budget,
                          const google::protobuf::Message& request,
                          absl::string_view what,
                          RequestBudget::Admission& admission) {
  if (budget == nullptr) return absl::OkStatus();
  return AdmitBytes(budget, static_cast<std::int64_t>(request.ByteSizeLong()),
                    what, admission);
}

absl::Status AdmitBytes(RequestBudget* budget, std::int64_t bytes,
                        absl::string_view what,
                        RequestBudget::Admission& admission) {
  if (budget == nullptr) return absl::OkStatus();
  GUNBAI_ASSIGN_OR_RETURN(auto admitted, budget->Admit(bytes, what));
  admission = std::move(admitted);
  return absl::OkStatus();
}

}  // namespace gunbai::service
