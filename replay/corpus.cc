#include "replay/corpus.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "replay/ruleset_loader.h"
#include "rules/status_macros.h"

namespace gunbai::replay {

namespace v1 = ::gunbai::v1;

int WorkerCount(int jobs) {
  if (jobs > 0) return jobs;
  return std::max(1u, std::thread::hardware_concurrency());
}

void ParallelFor(std::size_t n, int jobs,
                 const std::function<bool(std::size_t)>& work) {
  const std::size_t workers =
      std::min<std::size_t>(n, static_cast<std::size_t>(WorkerCount(jobs)));
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  auto run = [&] {
    while (!stop.load()) {
      const std::size_t i = next.fetch_add(1);
      if (i >= n) return;
      if (!work(i)) stop = true;
    }
  };
  if (workers <= 1) {
    run();
    return;
  }
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (std::size_t w = 0; w < workers; ++w) threads.emplace_back(run);
  for (std::thread& t : threads) t.join();
}

v1::LogDiff DiffOfInput(const v1::DiffLogInput& input,
                        bool compare_to_baselines, const DiffRulesets& sides) {
  return compare_to_baselines
             ? DiffAgainstBaseline(
                   input.name(), input.log(),
                   input.has_baseline() ? &input.baseline() : nullptr, sides)
             : DiffUnderRulesets(input.name(), input.log(), sides);
}

absl::Status DiffLogs(
    const v1::DiffRequest& settings, std::size_t logs, int jobs,
    const std::function<v1::LogDiff(std::size_t, const DiffRulesets&)>&
        diff_log,
    const std::function<bool(std::size_t, v1::LogDiff)>& on_diff) {
  if (settings.compare_to_baselines() &&
      !settings.old_ruleset_textproto().empty()) {
    return absl::InvalidArgumentError(
        "compare_to_baselines takes the old side from the baselines; leave "
        "old_ruleset_textproto empty");
  }
  GUNBAI_ASSIGN_OR_RETURN(auto builtin, RulesetCatalog::Builtin());
  std::optional<LoadedRuleset> old_ruleset, new_ruleset;
  for (auto [text, source, slot] :
       {std::tuple(&settings.old_ruleset_textproto(),
                   "request.old_ruleset_textproto", &old_ruleset),
        std::tuple(&settings.new_ruleset_textproto(),
                   "request.new_ruleset_textproto", &new_ruleset)}) {
    if (text->empty()) continue;
    GUNBAI_ASSIGN_OR_RETURN(auto loaded, LoadRuleset(*text, source));
    *slot = std::move(loaded);
  }
  const DiffRulesets sides{old_ruleset ? &*old_ruleset : nullptr,
                           new_ruleset ? &*new_ruleset : nullptr, &builtin};
  absl::Mutex mu;
  bool stopped = false;
  ParallelFor(logs, jobs, [&](std::size_t i) {
    v1::LogDiff diff = diff_log(i, sides);
    absl::MutexLock lock(&mu);
    if (stopped) return false;
    stopped = !on_diff(i, std::move(diff));
    return !stopped;
  });
  return absl::OkStatus();
}

absl::Status DiffRequestLogs(
    const v1::DiffRequest& request, int jobs,
    const std::function<bool(std::size_t, v1::LogDiff)>& on_diff) {
  return DiffLogs(
      request, static_cast<std::size_t>(request.logs_size()), jobs,
      [&request](std::size_t i, const DiffRulesets& sides) {
        return DiffOfInput(request.logs(static_cast<int>(i)),
                           request.compare_to_baselines(), sides);
      },
      on_diff);
}

}  // namespace gunbai::replay
