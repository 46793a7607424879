// Bad input gets a clear error that says where.
#include "replay/log_parser.h"

#include <functional>
#include <memory>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "gunbai/v1/audit_service.pb.h"
#include "gunbai/v1/game_service.pb.h"
#include "replay/ruleset_loader.h"
#include "replay/text_errors.h"
#include "rules/daimyo/engine.h"

namespace gunbai::replay {
namespace {

using ::testing::HasSubstr;

std::string Error(absl::string_view bytes, LogFormat format) {
  auto log = ParseBattleLog(bytes, format, "log");
  EXPECT_FALSE(log.ok());
  return std::string(log.status().message());
}

TEST(LogParserTest, TextErrorHasLineAndColumn) {
  EXPECT_THAT(
      Error("header {\n  game_id: \"x\"\n  clanz {}\n}\n", LogFormat::kText),
      HasSubstr("log:3:9: "));
}

TEST(LogParserTest, JsonSyntaxErrorHasLineAndColumn) {
  // The missing comma is on line 2, between the two objects at column 24.
  EXPECT_THAT(Error("{\"header\": {\"game_id\": \"x\",\n \"clans\": [{\"id\": "
                    "\"a\"} {\"id\":\"b\"}]}}",
                    LogFormat::kAuto),
              HasSubstr("log:2:24: "));
}

TEST(LogParserTest, JsonUnknownFieldPointsAtIt) {
  EXPECT_THAT(
      Error("{\"header\": {\n  \"game_idd\": \"x\"}}", LogFormat::kJson),
      HasSubstr("log:2:3: "));
}

TEST(LogParserTest, BinaryGarbage) {
  EXPECT_THAT(Error(std::string("\xff\xff\xff\x01\x02", 5), LogFormat::kAuto),
              HasSubstr("not a valid binary gunbai.v1.BattleLog"));
}

// Text format turns the escape \xff into a lone byte 0xff, which starts
// no UTF-8 character; the log is refused at the field, not passed on to a
// report that gRPC or JSON cannot carry. Line 4, column 5 is where the
// second event's `unit` field starts (counted by hand in the text below).
TEST(LogParserTest, TextThatIsNotUtf8IsRefusedAtTheField) {
  const std::string text =
      "header { game_id: \"ok\" }\n"
      "events { seq: 1 turn: 1 turn_start {} }\n"
      "events { seq: 2 turn: 1 clan: \"oda\" firing {\n"
      "    unit: \"oda-\\xff\" stands_firing: 2 } }\n";
  EXPECT_THAT(Error(text, LogFormat::kText),
              HasSubstr("log:4:5: events[1].firing.unit is not valid UTF-8"));
  // Escapes that make UTF-8 (\303\251, an e with an acute accent) are text.
  auto accented = ParseBattleLog("header { game_id: \"caf\\303\\251\" }\n",
                                 LogFormat::kText, "log");
  ASSERT_TRUE(accented.ok()) << accented.status();
  EXPECT_EQ(accented->header().game_id(), "caf\xc3\xa9");
}

// protobuf's JSON parser refuses it itself, with the place.
TEST(LogParserTest, JsonThatIsNotUtf8IsRefused) {
  const std::string error =
      Error("{\"header\": {\"game_id\": \"a\xff\"}}", LogFormat::kJson);
  EXPECT_THAT(error, HasSubstr("log:1:"));
  EXPECT_THAT(error, HasSubstr("UTF-8"));
}

TEST(LogParserTest, FormatFromExtension) {
  EXPECT_EQ(FormatFromFileName("a/b.textproto"), LogFormat::kText);
  EXPECT_EQ(FormatFromFileName("B.JSON"), LogFormat::kJson);
  EXPECT_EQ(FormatFromFileName("x.binpb"), LogFormat::kBinary);
  EXPECT_EQ(FormatFromFileName("x"), LogFormat::kAuto);
}

TEST(RulesetLoaderTest, BuiltinLoadsAndDigestIgnoresComments) {
  auto builtin = BuiltinRuleset("daimyo");
  ASSERT_TRUE(builtin.ok()) << builtin.status();
  EXPECT_EQ(builtin->data.name(), "daimyo");
  EXPECT_EQ(builtin->digest.size(), 64u);
  auto again = LoadRuleset(
      absl::StrCat("# a comment\n", rules::DaimyoRulesetText()), "copy");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->digest, builtin->digest);
}

TEST(RulesetLoaderTest, BadRulesetSaysWhere) {
  auto r = LoadRuleset("name: \"x\"\nfiring { hit_scor: 8 }\n", "r.textproto");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("r.textproto:2:"));
  // Dice per stand are bounded (1-6), so dice counts cannot overflow.
  std::string text(rules::DaimyoRulesetText());
  const std::size_t melee = text.find("melee {");
  ASSERT_NE(melee, std::string::npos);
  const std::size_t dice = text.find("dice_per_stand: 2", melee);
  ASSERT_NE(dice, std::string::npos);
  text.replace(dice, 17, "dice_per_stand: 7");
  auto many = LoadRuleset(text, "m.textproto");
  ASSERT_FALSE(many.ok());
  EXPECT_THAT(std::string(many.status().message()),
              HasSubstr("melee.dice_per_stand is at most 6"));
  auto zero = LoadRuleset("name: \"daimyo\"\n", "z.textproto");
  ASSERT_FALSE(zero.ok());
  EXPECT_THAT(std::string(zero.status().message()),
              HasSubstr("firing.dice_per_stand must be greater than 0"));
}

TEST(RulesetLoaderTest, RulesetTextThatIsNotUtf8IsRefusedAtTheField) {
  auto r =
      LoadRuleset("name: \"daimyo\"\nversion: \"v\\377\"\n", "r.textproto");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("r.textproto:2:1: version is not valid UTF-8"));
}

TEST(RulesetLoaderTest, UnknownRulesetNameIsRefusedNamingTheKnownOnes) {
  auto r = LoadRuleset("name: \"chess\"\n", "c.textproto");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("c.textproto: name: \"chess\" is not a ruleset"));
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("\"daimyo\""));
}

TEST(RulesetCatalogTest, ChoosesByHeaderNameAndVersion) {
  auto catalog = RulesetCatalog::Builtin();
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  gunbai::v1::Header header;
  // No name: an older log, taken as Daimyo.
  auto chosen = catalog->ForLog(header);
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_EQ((*chosen)->data.name(), "daimyo");
  // A user's file of the same name and another version is chosen when the
  // log names that version, the built-in one otherwise.
  auto house = BuiltinRuleset("daimyo");
  ASSERT_TRUE(house.ok());
  house->data.set_version("house-2");
  catalog->Add(*house);
  header.mutable_ruleset()->set_name("daimyo");
  header.mutable_ruleset()->set_version("house-2");
  chosen = catalog->ForLog(header);
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ((*chosen)->data.version(), "house-2");
  auto builtin = BuiltinRuleset("daimyo");
  header.mutable_ruleset()->set_version(builtin->data.version());
  chosen = catalog->ForLog(header);
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ((*chosen)->data.version(), builtin->data.version());
  // An unknown name is an error naming the field and what gunbai has.
  header.mutable_ruleset()->set_name("warhammer");
  chosen = catalog->ForLog(header);
  ASSERT_FALSE(chosen.ok());
  EXPECT_THAT(std::string(chosen.status().message()),
              HasSubstr("header.ruleset.name: the log is for the ruleset "
                        "\"warhammer\", which gunbai does not have"));
  EXPECT_THAT(std::string(chosen.status().message()), HasSubstr("--ruleset"));
}

// Regression (issue 11): an error quoted a bad token or id in full, and
// from about 8,000 characters the error outgrew what gRPC carries.
TEST(LogParserTest, ErrorQuotesAnExcerptOfALongToken) {
  const std::string error =
      Error(absl::StrCat(std::string(100000, 'f'), ": 1\n"), LogFormat::kText);
  EXPECT_LT(error.size(), 400u);
  EXPECT_THAT(error, HasSubstr("log:1:"));
  EXPECT_THAT(error, HasSubstr("..."));
}

TEST(ExcerptTest, KeepsShortTextAndCutsLongTextBetweenCharacters) {
  EXPECT_EQ(Excerpt("oda-teppo"), "oda-teppo");
  EXPECT_EQ(Excerpt(std::string(80, 'x')), std::string(80, 'x'));
  EXPECT_EQ(Excerpt(std::string(81, 'x')),
            absl::StrCat(std::string(80, 'x'), "... (81 bytes)"));
  // 79 ASCII bytes, then a two-byte character across the cut.
  const std::string text = absl::StrCat(std::string(79, 'x'), "\xc3\xa9tail");
  EXPECT_EQ(Excerpt(text),
            absl::StrCat(std::string(79, 'x'), "... (85 bytes)"));
}

// Regression (issue 11): a number no enum value has (policy: 99) was kept
// and acted on as whatever the code fell back to.
TEST(LogParserTest, EnumNumberTheSchemaLacksIsRefusedNamingTheField) {
  gunbai::v1::BattleLog log;
  log.mutable_header()->set_game_id("g");
  auto* unit = log.mutable_order_of_battle()->add_units();
  unit->set_id("u");
  unit->set_quality(static_cast<gunbai::v1::Quality>(9));
  for (LogFormat format : {LogFormat::kBinary, LogFormat::kAuto}) {
    EXPECT_THAT(Error(log.SerializeAsString(), format),
                HasSubstr("log: order_of_battle.units[0].quality: 9 is not a "
                          "value of gunbai.v1.Quality (QUALITY_UNSPECIFIED, "));
  }
  EXPECT_THAT(
      Error("order_of_battle { units { quality: 9 } }", LogFormat::kText),
      HasSubstr("order_of_battle.units[0].quality: 9"));
  unit->set_quality(gunbai::v1::QUALITY_RAW);
  EXPECT_TRUE(CheckKnownEnums(log).ok());
}

// KnownEnums, the check CheckKnownEnums asks first, says no exactly where
// the walk finds a number with no name: deep in a oneof (an event's firing),
// in a repeated enum, below zero and beyond its table of numbers (0 to
// 1024). Each case is one number set by hand in an otherwise clean log, and
// the walk's message, the one users see, still names the field.
TEST(LogParserTest, KnownEnumsAgreesWithTheWalkOnEveryUnknownNumber) {
  const KnownEnums& plan = KnownEnums::For(gunbai::v1::BattleLog::descriptor());
  gunbai::v1::BattleLog log;
  log.mutable_header()->set_game_id("g");
  auto* victory = log.mutable_header()->mutable_scenario()->mutable_victory();
  victory->add_camp_sack_troop_types(gunbai::v1::TroopType_MIN);
  log.add_events()->set_seq(1);
  auto* firing = log.add_events()->mutable_firing();
  firing->mutable_facts()->set_range(gunbai::v1::RangeBand_MIN);
  EXPECT_TRUE(plan.AllKnown(log));
  EXPECT_TRUE(CheckKnownEnums(log).ok());

  firing->mutable_facts()->set_range(static_cast<gunbai::v1::RangeBand>(77));
  EXPECT_FALSE(plan.AllKnown(log));
  EXPECT_THAT(std::string(CheckKnownEnums(log).message()),
              HasSubstr("events[1].firing.facts.range: 77 is not a value of "
                        "gunbai.v1.RangeBand ("));
  firing->mutable_facts()->set_range(gunbai::v1::RangeBand_MIN);

  victory->add_camp_sack_troop_types(static_cast<gunbai::v1::TroopType>(-3));
  EXPECT_FALSE(plan.AllKnown(log));
  EXPECT_THAT(std::string(CheckKnownEnums(log).message()),
              HasSubstr("header.scenario.victory.camp_sack_troop_types[1]: -3 "
                        "is not a value of gunbai.v1.TroopType ("));
  victory->set_camp_sack_troop_types(1,
                                     static_cast<gunbai::v1::TroopType>(5000));
  EXPECT_FALSE(plan.AllKnown(log));
  EXPECT_THAT(std::string(CheckKnownEnums(log).message()),
              HasSubstr("camp_sack_troop_types[1]: 5000 is not a value"));
  victory->set_camp_sack_troop_types(1, gunbai::v1::TroopType_MAX);
  EXPECT_TRUE(plan.AllKnown(log));
  EXPECT_TRUE(CheckKnownEnums(log).ok());
}

// Calls `visit` with the path of message fields down to every enum field
// under `type`, each message type at most once on a path (a recursive type
// is followed one level).
void ForEachEnumField(
    const google::protobuf::Descriptor* type,
    std::vector<const google::protobuf::FieldDescriptor*>& path,
    std::set<const google::protobuf::Descriptor*>& on_path,
    const std::function<void(
        const std::vector<const google::protobuf::FieldDescriptor*>&)>& visit) {
  using google::protobuf::FieldDescriptor;
  on_path.insert(type);
  for (int i = 0; i < type->field_count(); ++i) {
    const FieldDescriptor* field = type->field(i);
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_ENUM) {
      path.push_back(field);
      visit(path);
      path.pop_back();
    } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE &&
               on_path.count(field->message_type()) == 0) {
      path.push_back(field);
      ForEachEnumField(field->message_type(), path, on_path, visit);
      path.pop_back();
    }
  }
  on_path.erase(type);
}

// The generated check (replay/known_enums_generated.cc) covers the whole
// schema: for every enum field each request and log type can hold, however
// deep, a message with only that field set, to 12345 (no enum of gunbai.v1
// names it), is refused by KnownEnums and named by CheckKnownEnums, and the
// same message with the field at 0 (every proto3 enum names 0) is accepted.
// An enum field added to a .proto without running replay/gen_known_enums.py
// fails here.
TEST(LogParserTest, GeneratedEnumCheckCoversEveryEnumFieldOfTheRequests) {
  using google::protobuf::FieldDescriptor;
  using google::protobuf::Message;
  const Message* roots[] = {
      &gunbai::v1::AuditLogRequest::default_instance(),
      &gunbai::v1::DiffRequest::default_instance(),
      &gunbai::v1::DiceStatsRequest::default_instance(),
      &gunbai::v1::CreateGameRequest::default_instance(),
      &gunbai::v1::AppendEventsRequest::default_instance(),
      &gunbai::v1::BattleLog::default_instance(),
      &gunbai::v1::Event::default_instance(),
      &gunbai::v1::TerrainFeature::default_instance(),
  };
  int checked = 0;
  for (const Message* root : roots) {
    const KnownEnums& plan = KnownEnums::For(root->GetDescriptor());
    std::vector<const FieldDescriptor*> path;
    std::set<const google::protobuf::Descriptor*> on_path;
    ForEachEnumField(
        root->GetDescriptor(), path, on_path,
        [&](const std::vector<const FieldDescriptor*>& fields) {
          for (int number : {12345, 0}) {
            std::unique_ptr<Message> message(root->New());
            Message* at = message.get();
            std::string where;
            for (std::size_t i = 0; i + 1 < fields.size(); ++i) {
              const auto* reflection = at->GetReflection();
              absl::StrAppend(&where, where.empty() ? "" : ".",
                              fields[i]->name(),
                              fields[i]->is_repeated() ? "[0]" : "");
              at = fields[i]->is_repeated()
                       ? reflection->AddMessage(at, fields[i])
                       : reflection->MutableMessage(at, fields[i]);
            }
            const FieldDescriptor* last = fields.back();
            absl::StrAppend(&where, where.empty() ? "" : ".", last->name(),
                            last->is_repeated() ? "[0]" : "");
            if (last->is_repeated()) {
              at->GetReflection()->AddEnumValue(at, last, number);
            } else {
              at->GetReflection()->SetEnumValue(at, last, number);
            }
            SCOPED_TRACE(
                absl::StrCat(root->GetTypeName(), " ", where, " = ", number));
            if (number == 0) {
              EXPECT_TRUE(plan.AllKnown(*message));
              EXPECT_TRUE(CheckKnownEnums(*message).ok());
              continue;
            }
            EXPECT_FALSE(plan.AllKnown(*message));
            EXPECT_THAT(std::string(CheckKnownEnums(*message).message()),
                        HasSubstr(absl::StrCat(where,
                                               ": 12345 is not a value "
                                               "of ")));
            ++checked;
          }
        });
  }
  // At least the fields of the log itself, reached from each root.
  EXPECT_GT(checked, 100);
}

}  // namespace
}  // namespace gunbai::replay
