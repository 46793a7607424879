// Value types of the rules engine: troop attributes, the terms of a trace,
// and findings. Pure data; no I/O. Thread-compatible.
#ifndef GUNBAI_RULES_TYPES_H_
#define GUNBAI_RULES_TYPES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace gunbai::rules {

enum class TroopType {
  kSamurai,
  kAshigaru,
  kRonin,
  kWarriorMonk,
  kPeasant,
  kHatamoto,
  kHeadquarters,
  // Samurai Knight Fever only.
  kLegendarySamurai,
};
enum class Mobility { kFoot, kMounted };
enum class Quality { kElite, kVeteran, kSeasoned, kRaw };
enum class Armour { kNone, kLight, kMedium, kHeavy };
enum class MissileWeapon { kNone, kBow, kArquebus };
enum class MeleeWeapon {
  kNone,
  kLongSpear,
  kPoleArm,
  kImprovised,
  kLance,
  kSword,
};
enum class Formation { kLine, kColumn, kBuilding };
enum class LeaderKind { kGeneral, kDaimyo };
enum class RangeBand { kEffective, kLong, kOutOfRange };

absl::string_view TroopTypeName(TroopType t);
absl::string_view QualityName(Quality q);
absl::string_view ArmourName(Armour a);
absl::string_view MissileWeaponName(MissileWeapon w);
absl::string_view RangeBandName(RangeBand b);

// Where a term of the arithmetic came from.
// kMeasured: a fact measured on the table of a log with positions (a fact
// the players would otherwise declare).
enum class Origin { kComputed, kDeclared, kDice, kMeasured };

// One term of the arithmetic behind a verdict: a modifier, a die, a total.
struct Term {
  int value = 0;
  std::string label;
  absl::string_view rule_id;  // Points at a string literal.
  Origin origin = Origin::kComputed;
  // A measured term's: the id of the table rule that measured its fact
  // ("daimyo.table.fire.cover"); points at a string literal.
  absl::string_view measured_by = {};
};
using Trace = std::vector<Term>;

enum class Severity { kViolation, kDispute, kWarning, kUnverifiable };

// A broken rule or a disputed outcome. A finding is data: replay reports it
// and goes on.
struct Finding {
  Severity severity = Severity::kViolation;
  absl::string_view rule_id;  // Points at a string literal.
  std::string message;
  std::string subject;  // Unit or leader id, if any.
  std::string claimed;
  std::string computed;
  Trace trace;
};

// Receives findings as the rules produce them. Implementations decide where
// they go (a report, a test vector).
class FindingSink {
 public:
  virtual ~FindingSink() = default;
  virtual void Report(Finding finding) = 0;
};

// Reports a violation (log.die.range) for every die outside 1-6 in `dice`,
// naming it "die N of <what>" and the unit or leader `subject`. Returns true
// when every die reads 1 to 6. `what` is called only when a die is out of
// range, so that a replay builds no message for dice that are fine.
bool CheckDieFaces(absl::Span<const std::uint32_t> dice,
                   absl::FunctionRef<std::string()> what,
                   absl::string_view subject, FindingSink& sink);
bool CheckDieFaces(absl::Span<const std::uint32_t> dice, absl::string_view what,
                   absl::string_view subject, FindingSink& sink);

// What a morale test leads to (the morale table's cells).
enum class MoraleResult {
  kNoEffect,
  kHalt,
  kRetire,
  kRetreat,
  kRout,
  kStandOrRetire,
  kCounterCharge,
  kCharge,
  kRally,
  kDispersed,
  kFrenzy,
};
absl::string_view MoraleResultName(MoraleResult r);

// Collects findings in order; for tests and simple callers.
class FindingVector : public FindingSink {
 public:
  void Report(Finding finding) override {
    findings.push_back(std::move(finding));
  }
  std::vector<Finding> findings;
};

}  // namespace gunbai::rules

#endif  // GUNBAI_RULES_TYPES_H_
