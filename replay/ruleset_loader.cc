#include "replay/ruleset_loader.h"

#include <openssl/sha.h>

#include <array>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"
#include "replay/text_errors.h"
#include "rules/builtin_rulesets.h"

namespace gunbai::replay {

namespace {

using rules::FiringFactor;

absl::Status Positive(absl::string_view source, absl::string_view field,
                      int value) {
  if (value > 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(source, ": ", field, " must be greater than 0 (it is ",
                   value, "); set it in the ruleset file."));
}

absl::Status Validate(const rules::Ruleset& r, absl::string_view source) {
  const struct {
    absl::string_view field;
    int value;
  } required[] = {
      {"firing.dice_per_stand", r.firing.dice_per_stand},
      {"firing.hit_score", r.firing.hit_score},
      {"firing.effective_range_mm", r.firing.effective_range_mm},
      {"firing.long_range_mm", r.firing.long_range_mm},
      {"firing.ranks_good_order", r.firing.ranks_good_order},
      {"firing.ranks_disordered", r.firing.ranks_disordered},
      {"firing.max_stands_from_building", r.firing.max_stands_from_building},
      {"stand_loss.hits_per_stand", r.hits_per_stand},
  };
  for (const auto& f : required) {
    absl::Status s = Positive(source, f.field, f.value);
    if (!s.ok()) return s;
  }
  if (r.firing.dice_per_stand > 6) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": firing.dice_per_stand is at most 6."));
  }
  if (r.name.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": the ruleset needs a name."));
  }
  return absl::OkStatus();
}

rules::Ruleset ToDomain(const gunbai::v1::Ruleset& d) {
  rules::Ruleset r;
  r.name = d.name();
  r.version = d.version();
  const auto& f = d.firing();
  r.firing.dice_per_stand = static_cast<int>(f.dice_per_stand());
  r.firing.hit_score = static_cast<int>(f.hit_score());
  r.firing.effective_range_mm = static_cast<int>(f.effective_range_mm());
  r.firing.long_range_mm = static_cast<int>(f.long_range_mm());
  r.firing.woods_range_mm = static_cast<int>(f.woods_range_mm());
  r.firing.max_stands_from_building =
      static_cast<int>(f.max_stands_from_building());
  r.firing.ranks_good_order = static_cast<int>(f.ranks_good_order());
  r.firing.ranks_disordered = static_cast<int>(f.ranks_disordered());
  const auto& x = f.factors();
  auto set = [&r](FiringFactor factor, int value) {
    r.firing.factors[static_cast<std::size_t>(factor)] = value;
  };
  set(FiringFactor::kFirstVolley, x.first_volley());
  set(FiringFactor::kTargetLightArmour, x.target_light_armour());
  set(FiringFactor::kArquebusVsCavalry, x.arquebus_vs_cavalry());
  set(FiringFactor::kEffectiveRange, x.effective_range());
  set(FiringFactor::kTargetColumnOrFlanked, x.target_column_or_flanked());
  set(FiringFactor::kTargetInBuilding, x.target_in_building());
  set(FiringFactor::kBowVsHeavyArmour, x.bow_vs_heavy_armour());
  set(FiringFactor::kFirerDisordered, x.firer_disordered());
  set(FiringFactor::kFirerRaw, x.firer_raw());
  set(FiringFactor::kFirerBeingCharged, x.firer_being_charged());
  set(FiringFactor::kFirerMoved, x.firer_moved());
  set(FiringFactor::kTargetInCover, x.target_in_cover());
  r.hits_per_stand = static_cast<int>(d.stand_loss().hits_per_stand());
  r.leader_killed_at_or_below =
      static_cast<int>(d.leader_loss().killed_at_or_below());
  r.headquarters_counts_as_stands =
      static_cast<int>(d.leader_loss().headquarters_counts_as());
  r.options.first_volley_spent_when_disordered =
      d.options().first_volley_spent_when_disordered();
  r.options.stands_lost_count_whole_game =
      d.options().stands_lost_count_whole_game();
  return r;
}

}  // namespace

std::string Sha256Hex(absl::string_view bytes) {
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest;
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(),
         digest.data());
  return absl::BytesToHexString(absl::string_view(
      reinterpret_cast<const char*>(digest.data()), digest.size()));
}

std::string DeterministicBytes(const google::protobuf::Message& message) {
  std::string out;
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  message.SerializeToCodedStream(&coded);
  coded.Trim();
  return out;
}

absl::StatusOr<LoadedRuleset> LoadRuleset(absl::string_view textproto,
                                          absl::string_view source_name) {
  LoadedRuleset loaded;
  google::protobuf::TextFormat::Parser parser;
  FirstTextError errors;
  parser.RecordErrorsTo(&errors);
  google::protobuf::io::ArrayInputStream input(
      textproto.data(), static_cast<int>(textproto.size()));
  if (!parser.Parse(&input, &loaded.data)) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_name, ":", errors.line(), ":", errors.column(),
                     ": ", errors.message()));
  }
  loaded.rules = ToDomain(loaded.data);
  absl::Status valid = Validate(loaded.rules, source_name);
  if (!valid.ok()) return valid;
  loaded.digest = Sha256Hex(DeterministicBytes(loaded.data));
  return loaded;
}

absl::StatusOr<LoadedRuleset> BuiltinDaimyoRuleset() {
  return LoadRuleset(rules::DaimyoRulesetText(), "builtin:daimyo");
}

}  // namespace gunbai::replay
