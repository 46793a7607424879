// The generic part of the game generator, shared by every ruleset's player
// (generate/<name>/): the options, the shape of a fault catalogue and of a
// planted fault, and the manifest of planted faults. Each ruleset's
// generator (generate/daimyo/daimyo_game.h, generate/skf/skf_game.h) plays
// seeded random games that audit clean and, on request, plants known faults
// in them, each giving exactly one finding; the plug-in list
// (generate/plugins.h) lets `gunbai generate` choose one by ruleset name.
//
// The same options always give the same log, byte for byte: the only
// sources of randomness are std::mt19937_64 generators seeded from the
// options, and nothing reaching the log is iterated in hash order.
// Thread-safe: functions only.
#ifndef GUNBAI_GENERATE_GAME_GENERATOR_H_
#define GUNBAI_GENERATE_GAME_GENERATOR_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"

namespace gunbai::generate {

struct GeneratorOptions {
  std::uint64_t seed = 1;
  // Whole turns to play. When 0 a generator that sizes its games by events
  // plays `target_events`; one that does not says what it plays.
  int turns = 0;
  // When `turns` is 0: the number of events the log holds, game_end
  // included. The benchmarks size their games this way.
  int target_events = 2000;
  // Units per clan; each ruleset's generator says how many it takes and
  // which kinds they are.
  int units_per_clan = 8;
  // Faults to plant; 0 for a clean game.
  int faults = 0;
  // Daimyo only: write a 180 x 120 cm table, a little terrain and every
  // unit's position, give every move and charge where it ends, and let the
  // table settle the measured facts (range, arc, sight, nearest target,
  // cover, contact, flank, morale's 15 cm, ...): none is declared unless
  // exactly as measured. Off by default, so that every seed's game stays
  // the same bytes. Sized by turns only (`turns` > 0).
  bool positions = false;
};

// One entry of a ruleset's fault catalogue: a kind of fault its generator
// can plant (`Kind` is the ruleset's enum of them), the name the manifest
// gives it, and the rule and severity of the one finding it gives. Each
// ruleset's catalogue is a constant array of these, in catalogue order.
template <typename Kind>
struct FaultKindSpec {
  Kind kind;
  absl::string_view name;  // e.g. "fire_hits_wrong"
  absl::string_view rule_id;
  gunbai::v1::Severity severity;
};

// One fault planted in a generated log: where the audit reports it and why.
template <typename Kind>
struct PlantedFaultOf {
  Kind kind{};
  // The seq of the event the finding carries: the faulty event itself, the
  // event by which something skipped was owed (a turn_end, the event that
  // closes a window), or 0 for the header.
  std::uint64_t seq = 0;
  std::string rule_id;
  gunbai::v1::Severity severity = gunbai::v1::SEVERITY_UNSPECIFIED;
  // The unit, leader, clan, troop type or "camp" the finding names.
  std::string subject;
  // What was planted, for people.
  std::string description;
  // The name of the kind the plan drew, when this fault was planted in its
  // place because that kind found no chance in the game; empty when planted
  // as drawn.
  std::string in_place_of;
};

template <typename Kind>
struct GeneratedGameOf {
  gunbai::v1::BattleLog log;
  // The planted faults in log order (by seq); empty for a clean game.
  std::vector<PlantedFaultOf<Kind>> faults;
};

// Returns the entry of `kind` in `catalogue`. Aborts the process when it is
// missing (a broken build: every kind has its entry).
template <typename Kind>
const FaultKindSpec<Kind>& CatalogueEntry(
    absl::Span<const FaultKindSpec<Kind>> catalogue, Kind kind) {
  for (const FaultKindSpec<Kind>& spec : catalogue) {
    if (spec.kind == kind) return spec;
  }
  std::fprintf(stderr,
               "game_generator: a fault kind missing from the catalogue\n");
  std::abort();
}

// Returns every kind of `catalogue`, in catalogue order.
template <typename Kind>
std::vector<Kind> CatalogueKinds(
    absl::Span<const FaultKindSpec<Kind>> catalogue) {
  std::vector<Kind> kinds;
  for (const FaultKindSpec<Kind>& spec : catalogue) kinds.push_back(spec.kind);
  return kinds;
}

// Returns a planted fault of `kind` at `seq`, its rule id and severity from
// `catalogue`; the caller fills in the subject and description.
template <typename Kind>
PlantedFaultOf<Kind> NewFault(absl::Span<const FaultKindSpec<Kind>> catalogue,
                              Kind kind, std::uint64_t seq) {
  const FaultKindSpec<Kind>& spec = CatalogueEntry(catalogue, kind);
  PlantedFaultOf<Kind> f;
  f.kind = kind;
  f.seq = seq;
  f.rule_id = std::string(spec.rule_id);
  f.severity = spec.severity;
  return f;
}

// Returns one line of a manifest: {"seq", "rule_id", "severity", "kind",
// "subject", "description"}, and "in_place_of" when it is not empty.
std::string ManifestJsonLine(std::uint64_t seq, absl::string_view rule_id,
                             gunbai::v1::Severity severity,
                             absl::string_view kind, absl::string_view subject,
                             absl::string_view description,
                             absl::string_view in_place_of);

// Returns the manifest of `faults` as JSON lines, one fault a line
// (ManifestJsonLine), each kind named as `catalogue` names it.
template <typename Kind>
std::string ManifestJsonLines(absl::Span<const FaultKindSpec<Kind>> catalogue,
                              const std::vector<PlantedFaultOf<Kind>>& faults) {
  std::string out;
  for (const PlantedFaultOf<Kind>& f : faults) {
    out += ManifestJsonLine(f.seq, f.rule_id, f.severity,
                            CatalogueEntry(catalogue, f.kind).name, f.subject,
                            f.description, f.in_place_of);
  }
  return out;
}

}  // namespace gunbai::generate

#endif  // GUNBAI_GENERATE_GAME_GENERATOR_H_
