#include "rules/types.h"

#include <string>
#include <utility>

#include "absl/strings/str_format.h"

namespace gunbai::rules {

absl::string_view TroopTypeName(TroopType t) {
  switch (t) {
    case TroopType::kSamurai:
      return "Samurai";
    case TroopType::kAshigaru:
      return "Ashigaru";
    case TroopType::kRonin:
      return "Ronin";
    case TroopType::kWarriorMonk:
      return "Warrior Monk";
    case TroopType::kPeasant:
      return "Peasant";
    case TroopType::kHatamoto:
      return "Hatamoto";
    case TroopType::kHeadquarters:
      return "Headquarters";
    case TroopType::kLegendarySamurai:
      return "Legendary Samurai";
  }
  return "?";
}

absl::string_view QualityName(Quality q) {
  switch (q) {
    case Quality::kElite:
      return "Elite";
    case Quality::kVeteran:
      return "Veteran";
    case Quality::kSeasoned:
      return "Seasoned";
    case Quality::kRaw:
      return "Raw";
  }
  return "?";
}

absl::string_view ArmourName(Armour a) {
  switch (a) {
    case Armour::kNone:
      return "no";
    case Armour::kLight:
      return "light";
    case Armour::kMedium:
      return "medium";
    case Armour::kHeavy:
      return "heavy";
  }
  return "?";
}

absl::string_view MissileWeaponName(MissileWeapon w) {
  switch (w) {
    case MissileWeapon::kNone:
      return "no missile weapon";
    case MissileWeapon::kBow:
      return "bow";
    case MissileWeapon::kArquebus:
      return "arquebus";
  }
  return "?";
}

absl::string_view RangeBandName(RangeBand b) {
  switch (b) {
    case RangeBand::kEffective:
      return "effective range";
    case RangeBand::kLong:
      return "long range";
    case RangeBand::kOutOfRange:
      return "out of range";
  }
  return "?";
}

bool CheckDieFaces(absl::Span<const std::uint32_t> dice,
                   absl::FunctionRef<std::string()> what,
                   absl::string_view subject, FindingSink& sink) {
  bool ok = true;
  for (std::size_t i = 0; i < dice.size(); ++i) {
    if (dice[i] >= 1 && dice[i] <= 6) continue;
    Finding f;
    f.severity = Severity::kViolation;
    f.rule_id = "log.die.range";
    f.subject = std::string(subject);
    f.message = absl::StrFormat("Die %d of %s reads %d; a die reads 1 to 6.",
                                i + 1, what(), dice[i]);
    sink.Report(std::move(f));
    ok = false;
  }
  return ok;
}

bool CheckDieFaces(absl::Span<const std::uint32_t> dice, absl::string_view what,
                   absl::string_view subject, FindingSink& sink) {
  return CheckDieFaces(
      dice, [what] { return std::string(what); }, subject, sink);
}

absl::string_view MoraleResultName(MoraleResult r) {
  switch (r) {
    case MoraleResult::kNoEffect:
      return "no effect";
    case MoraleResult::kHalt:
      return "halt";
    case MoraleResult::kRetire:
      return "retire";
    case MoraleResult::kRetreat:
      return "retreat";
    case MoraleResult::kRout:
      return "rout";
    case MoraleResult::kStandOrRetire:
      return "stand or retire";
    case MoraleResult::kCounterCharge:
      return "counter-charge";
    case MoraleResult::kCharge:
      return "charge";
    case MoraleResult::kRally:
      return "rally";
    case MoraleResult::kDispersed:
      return "dispersed";
    case MoraleResult::kFrenzy:
      return "frenzy";
  }
  return "?";
}

}  // namespace gunbai::rules
