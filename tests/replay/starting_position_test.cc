// Issue 13, a log that starts from a mid-game position
// (gunbai.v1.StartingPosition): the schema shares BattleStateSnapshot's
// fields, so `gunbai state --at=SEQ` output is a starting position as it
// stands; a position is checked field by field, each error naming the unit
// or leader and the field; the sample ruling (one disputed volley) audits as
// worked by hand from the rules; the streamed audit reads the position as
// the whole parse does; and the state after seq N of a game, given as the
// starting position of a log of the events after N, gives those events the
// findings and the final state digest the whole game gives them (the sample
// games and generated games of both rulesets).
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "generate/daimyo/daimyo_game.h"
#include "generate/skf/skf_game.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "gunbai/v1/state.pb.h"
#include "replay/audit.h"
#include "replay/log_bytes.h"
#include "replay/log_parser.h"
#include "replay/log_stream.h"
#include "replay/proto_mapping.h"
#include "replay/ruleset_loader.h"
#include "rules/digest.h"
#include "service/cli/cli.h"

namespace gunbai::testing {
namespace {

namespace v1 = ::gunbai::v1;
using ::testing::HasSubstr;

std::string DataPath(const std::string& name) {
  return std::string(GUNBAI_TEST_DATA_DIR) + "/" + name;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

v1::BattleLog TextLog(const std::string& name) {
  v1::BattleLog log;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
      ReadFile(DataPath(name)), &log))
      << name;
  return log;
}

replay::LoadedRuleset RulesetFor(const v1::BattleLog& log) {
  auto ruleset = replay::BuiltinRuleset(log.header().ruleset().name());
  EXPECT_TRUE(ruleset.ok()) << ruleset.status();
  return *ruleset;
}

absl::StatusOr<v1::AuditReport> Audit(const v1::BattleLog& log) {
  return replay::AuditLog(log, RulesetFor(log));
}

struct CliResult {
  int code;
  std::string out;
  std::string err;
};

CliResult Cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = service::RunCli(args, out, err);
  return {code, out.str(), err.str()};
}

// Every field of `a` is in `b` with the same number, name, type and
// cardinality (and, for a message or enum field, the same type).
void ExpectFieldsIn(const google::protobuf::Descriptor* a,
                    const google::protobuf::Descriptor* b) {
  for (int i = 0; i < a->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* fa = a->field(i);
    const google::protobuf::FieldDescriptor* fb =
        b->FindFieldByNumber(fa->number());
    ASSERT_NE(fb, nullptr) << a->name() << "." << fa->name();
    EXPECT_EQ(fa->name(), fb->name()) << a->name() << " " << fa->number();
    EXPECT_EQ(fa->type(), fb->type()) << fa->name();
    EXPECT_EQ(fa->label(), fb->label()) << fa->name();
    if (fa->message_type() != nullptr) {
      EXPECT_EQ(fa->message_type(), fb->message_type()) << fa->name();
    }
    if (fa->enum_type() != nullptr) {
      EXPECT_EQ(fa->enum_type(), fb->enum_type()) << fa->name();
    }
  }
}

// A snapshot pastes as a starting position (and back): the two messages
// have the same fields. Fails when a field is added to one only.
TEST(StartingPositionSchema, SharesTheSnapshotsFields) {
  ExpectFieldsIn(v1::BattleStateSnapshot::descriptor(),
                 v1::StartingPosition::descriptor());
  ExpectFieldsIn(v1::StartingPosition::descriptor(),
                 v1::BattleStateSnapshot::descriptor());
}

// The sample ruling, worked by hand from the firing rules (the factor table
// of rules/daimyo/RULES.md, which states the rules' firing factors; the
// working is in tests/data/README.md): oda-teppo (arquebus, first volley
// spent, moved this turn) at tak-horse (mounted, light armour), effective
// range: +1 light armour +1 arquebus at cavalry +1 effective -1 moved = +2;
// stands 3+3+2 = 8 hit, 2+3+2 = 7, 6+1+2 = 9 hit, 1+4+2 = 7: 2 hits, the log
// claims 1 (a dispute). As played (1 hit): 2 carried + 1 = 3, one stand
// lost, none carried: tak-horse 3 to 2 stands, owing a morale test (reason
// 1) the log, stopping in the turn, does not reach.
TEST(RulingVolley, AuditsAsWorkedByHand) {
  const v1::BattleLog log = TextLog("ruling-volley.textproto");
  absl::StatusOr<v1::AuditReport> report = Audit(log);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->findings_size(), 2);
  EXPECT_EQ(report->findings(0).rule_id(), "daimyo.fire.hit");
  EXPECT_EQ(report->findings(0).severity(), v1::SEVERITY_DISPUTE);
  EXPECT_EQ(report->findings(0).seq(), 41u);
  EXPECT_THAT(report->findings(0).message(),
              HasSubstr("claims 1 hit, the dice give 2"));
  EXPECT_EQ(report->findings(1).rule_id(), "log.turn_unfinished");
  absl::StatusOr<v1::BattleStateSnapshot> state =
      replay::StateAt(log, RulesetFor(log), std::nullopt);
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(state->units(1).stands(), 2u);
  EXPECT_EQ(state->units(1).carried_hits(), 0u);
  EXPECT_EQ(state->units(0).stands(), 4u);  // As the position gives it.
  EXPECT_TRUE(state->units(0).fired_this_turn());
  EXPECT_EQ(state->units(1).owed_morale_reasons_size(), 1);
  // Through the CLI: the report read line by line against the working.
  const CliResult cli = Cli({"audit", DataPath("ruling-volley.textproto")});
  EXPECT_EQ(cli.code, 1);
  EXPECT_EQ(cli.out, ReadFile(DataPath("ruling-volley.expected.txt")));
}

// `gunbai state --at=SEQ` before the position's first event is the
// position itself.
TEST(RulingVolley, StateAtThePositionsSeqIsThePosition) {
  const CliResult cli =
      Cli({"state", "--at=40", DataPath("ruling-volley.textproto")});
  EXPECT_EQ(cli.code, 0) << cli.err;
  EXPECT_THAT(cli.out, HasSubstr("state after seq 40: turn 3, phase firing"));
  EXPECT_THAT(cli.out, HasSubstr("tak-horse        takeda          3    2"));
}

// Streams `bytes` as `gunbai audit FILE.pb` does, 64 bytes a block.
absl::StatusOr<v1::AuditReport> StreamAudit(const std::string& bytes) {
  return replay::AuditBinaryLogStream(
      [&] {
        return std::make_unique<google::protobuf::io::ArrayInputStream>(
            bytes.data(), static_cast<int>(bytes.size()), 64);
      },
      [](const v1::BattleLog& head) -> absl::StatusOr<replay::LoadedRuleset> {
        return replay::BuiltinRuleset(head.header().ruleset().name());
      },
      replay::AuditOptions(), replay::kMaxLogBytes);
}

// The streamed audit reads the starting position as the whole parse does:
// with it first, and after the events (a second pass).
TEST(RulingVolley, StreamedAuditEqualsTheWholeOne) {
  v1::BattleLog log = TextLog("ruling-volley.textproto");
  absl::StatusOr<v1::AuditReport> whole = Audit(log);
  ASSERT_TRUE(whole.ok()) << whole.status();
  absl::StatusOr<v1::AuditReport> streamed =
      StreamAudit(log.SerializeAsString());
  ASSERT_TRUE(streamed.ok()) << streamed.status();
  EXPECT_EQ(streamed->SerializeAsString(), whole->SerializeAsString());
  // The position after the events: the bytes of a log whose fields are in
  // another order (protobuf merges them the same).
  v1::BattleLog events_only = log;
  events_only.clear_starting_position();
  v1::BattleLog position_only;
  *position_only.mutable_starting_position() = log.starting_position();
  const std::string reordered =
      events_only.SerializeAsString() + position_only.SerializeAsString();
  streamed = StreamAudit(reordered);
  ASSERT_TRUE(streamed.ok()) << streamed.status();
  EXPECT_EQ(streamed->SerializeAsString(), whole->SerializeAsString());
  // And a position that makes the log unusable is refused the same way.
  log.mutable_starting_position()->mutable_units(0)->set_stands(9);
  EXPECT_FALSE(Audit(log).ok());
  EXPECT_FALSE(StreamAudit(log.SerializeAsString()).ok());
}

// The daemon's Diff reads a log's head from its bytes (replay/log_bytes.h):
// the position is part of the head, not a field it gives up on.
TEST(RulingVolley, LogBytesReadThePositionInTheHead) {
  const v1::BattleLog log = TextLog("ruling-volley.textproto");
  absl::StatusOr<replay::LogBytesHead> head =
      replay::ReadLogBytesHead(log.SerializeAsString(), 98);
  ASSERT_TRUE(head.ok()) << head.status();
  EXPECT_EQ(head->head.starting_position().SerializeAsString(),
            log.starting_position().SerializeAsString());
  EXPECT_EQ(head->events, 1u);
}

struct BadPosition {
  std::string what;
  std::string position_text;  // Replaces the sample's starting_position.
  std::string error;          // A substring of the error.
};

void PrintTo(const BadPosition& b, std::ostream* os) { *os << b.what; }

class BadPositionTest : public ::testing::TestWithParam<BadPosition> {};

// Each unusable position is refused with its field and the unit or leader.
TEST_P(BadPositionTest, IsRefusedNamingTheField) {
  v1::BattleLog log = TextLog("ruling-volley.textproto");
  v1::Leader* leader = log.mutable_order_of_battle()->add_leaders();
  leader->set_id("nobunaga");
  leader->set_clan("oda");
  leader->set_kind(v1::LEADER_KIND_DAIMYO);
  leader->set_command_rating(3);
  leader->set_attached_unit("oda-teppo");
  log.clear_starting_position();
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      GetParam().position_text, log.mutable_starting_position()));
  absl::StatusOr<v1::AuditReport> report = Audit(log);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(report.status().message()),
              HasSubstr(GetParam().error));
}

INSTANTIATE_TEST_SUITE_P(
    Fields, BadPositionTest,
    ::testing::Values(
        BadPosition{"more stands than the order of battle's",
                    "turn: 3 units { id: 'tak-horse' stands: 5 }",
                    "starting_position.units[0] (id \"tak-horse\"): stands is "
                    "5, more than the 4"},
        // Daimyo: 3 hits remove a stand, so a unit carries 0 to 2.
        BadPosition{"carried hits of a stand",
                    "turn: 3 units { id: 'tak-horse' stands: 3 carried_hits: "
                    "3 }",
                    "(id \"tak-horse\"): carried_hits is 3; a unit carries 0 "
                    "to 2"},
        BadPosition{"no stands, on the table",
                    "turn: 3 units { id: 'tak-horse' }",
                    "(id \"tak-horse\"): stands is 0 but removed is false"},
        BadPosition{"a unit not in the order of battle",
                    "turn: 3 units { id: 'ghost' stands: 1 }",
                    "units[0] (id \"ghost\"): the unit is not in the order"},
        BadPosition{"a unit twice",
                    "turn: 3 units { id: 'tak-horse' stands: 3 } units { id: "
                    "'tak-horse' stands: 2 }",
                    "units[1] (id \"tak-horse\"): the unit is listed twice"},
        BadPosition{"more units than the order of battle",
                    "turn: 3 units { id: 'a' } units { id: 'b' } units { id: "
                    "'c' }",
                    "starting_position.units: 3 entries, more than the 2 "
                    "units"},
        BadPosition{"another clan than the order of battle's",
                    "turn: 3 units { id: 'tak-horse' clan: 'oda' stands: 3 }",
                    "clan is \"oda\", but the order of battle puts the unit "
                    "in clan \"takeda\""},
        BadPosition{"charged by an unknown unit",
                    "turn: 3 phase: 'movement' active_clan: 'takeda' units { "
                    "id: 'oda-teppo' stands: 6 charged_by: 'ghost' }",
                    "units[0] (id \"oda-teppo\"): charged_by[0] \"ghost\" is "
                    "not a unit"},
        BadPosition{"charged by its own side",
                    "turn: 3 units { id: 'oda-teppo' stands: 6 charged_by: "
                    "'oda-teppo' }",
                    "charged_by[0] \"oda-teppo\" is of the unit's own clan"},
        BadPosition{"charging with no target",
                    "turn: 3 units { id: 'tak-horse' stands: 4 charging: "
                    "true }",
                    "(id \"tak-horse\"): charging is true, but no unit lists "
                    "it"},
        BadPosition{"a melee of one unit's side",
                    "turn: 3 units { id: 'oda-teppo' stands: 6 in_melee: "
                    "true } melees { unit_a: 'oda-teppo' unit_b: "
                    "'oda-teppo' }",
                    "melees[0]: the two units are of one clan"},
        BadPosition{"a melee contact without in_melee",
                    "turn: 3 melees { unit_a: 'oda-teppo' unit_b: "
                    "'tak-horse' }",
                    "melees[0]: unit \"oda-teppo\" is not in_melee"},
        BadPosition{"a leader attached to an enemy unit",
                    "turn: 3 leaders { id: 'nobunaga' attached_unit: "
                    "'tak-horse' }",
                    "leaders[0] (id \"nobunaga\"): attached_unit is another "
                    "clan's unit"},
        BadPosition{"a leader's rating out of range",
                    "turn: 3 leaders { id: 'nobunaga' command_rating: 5 }",
                    "leaders[0] (id \"nobunaga\"): command_rating is 5"},
        BadPosition{"a unit's leader list that disagrees",
                    "turn: 3 units { id: 'tak-horse' stands: 4 leaders: "
                    "'nobunaga' }",
                    "(id \"tak-horse\"): leaders[0] \"nobunaga\" is not a live "
                    "leader attached to this unit"},
        BadPosition{"an unknown phase", "turn: 3 phase: 'lunch'",
                    "starting_position.phase: \"lunch\" is not a phase"},
        BadPosition{"a phase at turn 0", "phase: 'firing'",
                    "does not go with turn 0"},
        BadPosition{"an active clan between turns",
                    "turn: 3 phase: 'turn ended' active_clan: 'oda'",
                    "starting_position.active_clan: a clan is active only"},
        BadPosition{"an unknown initiative clan",
                    "turn: 3 initiative_clan: 'hojo'",
                    "starting_position.initiative_clan: clan \"hojo\""},
        BadPosition{"after the end of the game", "turn: 3 game_over: true",
                    "starting_position.game_over: the position is after the "
                    "end of the game"},
        BadPosition{"owed morale reason out of range",
                    "turn: 3 units { id: 'tak-horse' stands: 4 "
                    "owed_morale_reasons: 9 }",
                    "owed_morale_reasons[0] is 9; reasons are 1 to 8"},
        BadPosition{"more owed reasons than there are",
                    "turn: 3 units { id: 'tak-horse' stands: 4 "
                    "owed_morale_reasons: [1, 1, 1, 1, 1, 1, 1, 1, 1] }",
                    "units[0].owed_morale_reasons: 9 entries, more than the "
                    "8 morale test reasons"},
        BadPosition{"a halt more than a turn ahead",
                    "turn: 3 units { id: 'tak-horse' stands: 4 halted: true "
                    "halted_until_turn: 5 }",
                    "halted_until_turn is 5, more than a turn after turn 3"}));

// Under Samurai Knight Fever carried_hits is the disorder factor (hits less
// bases lost), bounded by the engine's 1000, not by a stand's hits.
TEST(StartingPositionSkf, CarriedHitsAreTheDisorderFactor) {
  v1::BattleLog log = TextLog("skf-kawanakajima.textproto");
  log.clear_events();
  v1::UnitState* unit = log.mutable_starting_position()->add_units();
  unit->set_id(log.order_of_battle().units(0).id());
  unit->set_stands(log.order_of_battle().units(0).stands());
  unit->set_carried_hits(7);
  log.mutable_starting_position()->set_turn(2);
  absl::StatusOr<v1::BattleStateSnapshot> state =
      replay::StateAt(log, RulesetFor(log), std::nullopt);
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(state->units(0).carried_hits(), 7u);
  unit->set_carried_hits(1001);
  absl::StatusOr<v1::AuditReport> report = Audit(log);
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(std::string(report.status().message()),
              HasSubstr("carried_hits is 1001; a unit carries 0 to 1000"));
}

// What a position may give but likely should not is a finding (seq 0),
// not an error: a live leader left with a unit off the table (a game as
// played leaves him there), a digest that is not the state's.
TEST(StartingPositionFindings, LeaderOnARemovedUnitAndAWrongDigest) {
  v1::BattleLog log = TextLog("ruling-volley.textproto");
  v1::Leader* leader = log.mutable_order_of_battle()->add_leaders();
  leader->set_id("shingen");
  leader->set_clan("takeda");
  leader->set_kind(v1::LEADER_KIND_DAIMYO);
  leader->set_command_rating(4);
  leader->set_attached_unit("tak-horse");
  v1::UnitState* horse = log.mutable_starting_position()->mutable_units(1);
  horse->set_stands(0);
  horse->set_carried_hits(0);
  horse->set_removed(true);
  log.mutable_starting_position()->set_digest("0123");
  log.clear_events();
  absl::StatusOr<v1::AuditReport> report = Audit(log);
  ASSERT_TRUE(report.ok()) << report.status();
  std::vector<std::string> rules;
  for (const v1::Finding& f : report->findings()) {
    EXPECT_EQ(f.seq(), 0u) << f.rule_id();
    EXPECT_EQ(f.severity(), v1::SEVERITY_WARNING) << f.rule_id();
    rules.push_back(f.rule_id());
  }
  EXPECT_THAT(
      rules, ::testing::UnorderedElementsAre("log.start.leader_on_removed_unit",
                                             "log.start.digest"));
}

// Digest version 2 (issue 29) covers formation, front width and position;
// a position written before carries a version 1 digest, which is still
// checked. The version 1 digest is worked out here from state.proto's own
// words, not by the engine's function: the snapshot with the carry-over
// fields cleared (melees, activated_clans, the digest and its version, and
// every UnitState and LeaderState field numbered 20 and up), serialized
// deterministically and hashed with SHA-256.
TEST(StartingPositionFindings, AVersion1DigestIsStillChecked) {
  v1::BattleLog log = TextLog("ruling-volley.textproto");
  log.clear_events();
  log.mutable_starting_position()->clear_digest();
  absl::StatusOr<v1::BattleStateSnapshot> state =
      replay::StateAt(log, RulesetFor(log), std::nullopt);
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(state->digest_version(), 2u);
  v1::BattleStateSnapshot old = *state;
  old.clear_digest();
  old.clear_digest_version();
  old.clear_melees();
  old.clear_activated_clans();
  const auto clear_from_20 = [](google::protobuf::Message& m) {
    const google::protobuf::Reflection* r = m.GetReflection();
    const google::protobuf::Descriptor* d = m.GetDescriptor();
    for (int i = 0; i < d->field_count(); ++i) {
      if (d->field(i)->number() >= 20) r->ClearField(&m, d->field(i));
    }
  };
  for (v1::UnitState& u : *old.mutable_units()) clear_from_20(u);
  for (v1::LeaderState& l : *old.mutable_leaders()) clear_from_20(l);
  const std::string v1_digest = base::Sha256Hex(base::DeterministicBytes(old));
  ASSERT_NE(v1_digest, state->digest());
  const auto digest_warnings = [&log](const std::string& digest) {
    log.mutable_starting_position()->set_digest(digest);
    absl::StatusOr<v1::AuditReport> report = Audit(log);
    EXPECT_TRUE(report.ok()) << report.status();
    int warnings = 0;
    for (const v1::Finding& f : report->findings()) {
      if (f.rule_id() == "log.start.digest") ++warnings;
    }
    return warnings;
  };
  EXPECT_EQ(digest_warnings(state->digest()), 0);
  EXPECT_EQ(digest_warnings(v1_digest), 0);
  std::string wrong = v1_digest;
  wrong[0] = wrong[0] == '0' ? '1' : '0';
  EXPECT_EQ(digest_warnings(wrong), 1);
}

// The log of `log`'s events after `seq`, starting from the state after it.
v1::BattleLog TailFrom(const v1::BattleLog& log, std::uint64_t seq) {
  absl::StatusOr<v1::BattleStateSnapshot> state =
      replay::StateAt(log, RulesetFor(log), seq);
  EXPECT_TRUE(state.ok()) << state.status();
  v1::BattleLog tail = log;
  tail.clear_events();
  for (const v1::Event& event : log.events()) {
    if (event.seq() > seq) *tail.add_events() = event;
  }
  *tail.mutable_starting_position() =
      replay::StartingPositionFromSnapshot(*state);
  return tail;
}

// Notes a ruleset gives once a log, at the first event they concern: a tail
// gives them again at its own first such event. Left out of the
// comparison.
bool OncePerLog(const v1::Finding& f) {
  return absl::StartsWith(f.rule_id(), "skf.uncovered.") ||
         absl::EndsWith(f.rule_id(), ".unchecked");
}

std::vector<std::string> FindingsAfter(const v1::AuditReport& report,
                                       std::uint64_t seq) {
  std::vector<std::string> out;
  for (const v1::Finding& f : report.findings()) {
    if (f.seq() > seq && !OncePerLog(f)) out.push_back(f.SerializeAsString());
  }
  return out;
}

// Cuts `log` after `seq` and expects the tail to audit as the whole game
// does after it: the same findings for its events, the same final digest,
// and the same final state, carry-over fields too.
void ExpectTailAuditsTheSame(const v1::BattleLog& log,
                             const v1::AuditReport& whole, std::uint64_t seq,
                             const std::string& what) {
  SCOPED_TRACE(absl::StrCat(what, ", cut after seq ", seq));
  const v1::BattleLog tail = TailFrom(log, seq);
  absl::StatusOr<v1::AuditReport> report = Audit(tail);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(FindingsAfter(*report, seq), FindingsAfter(whole, seq));
  // Findings of the header (seq 0) are the whole game's; the position adds
  // none.
  const auto of_header = [](const v1::AuditReport& r) {
    std::vector<std::string> out;
    for (const v1::Finding& f : r.findings()) {
      if (f.seq() == 0) out.push_back(f.SerializeAsString());
    }
    return out;
  };
  EXPECT_EQ(of_header(*report), of_header(whole));
  EXPECT_EQ(report->final_state_digest(), whole.final_state_digest());
  auto end_whole = replay::StateAt(log, RulesetFor(log), std::nullopt);
  auto end_tail = replay::StateAt(tail, RulesetFor(tail), std::nullopt);
  ASSERT_TRUE(end_whole.ok() && end_tail.ok());
  EXPECT_EQ(end_tail->SerializeAsString(), end_whole->SerializeAsString());
}

// The seqs of the turn_starts and turn_ends: the cuts a starting position
// carries whole, where the bookkeeping of a turn that a state does not show
// (tests taken, result moves owed, a melee not yet settled) is empty
// (rules/README.md, "Starting positions"). A cut inside a turn keeps every
// unit's state but starts that bookkeeping afresh, so its findings may differ:
// such positions are for rulings, not for continuing a game.
std::vector<std::uint64_t> TurnBoundaries(const v1::BattleLog& log) {
  std::vector<std::uint64_t> out;
  for (const v1::Event& event : log.events()) {
    if (event.has_turn_end() || event.has_turn_start()) {
      out.push_back(event.seq());
    }
  }
  return out;
}

// The sample games of both rulesets, cut at every turn boundary. A camp
// sacked before the position is not in a state (rules/victory.h,
// StartFrom): the SKF sample's cuts after its camp sack (seq 18) would
// score without it, so they are not made.
TEST(StartingPositionRoundTrip, SampleGames) {
  for (const char* name :
       {"sekigahara.textproto", "anegawa-clean.textproto",
        "nagashino-melee.textproto", "skf-kawanakajima.textproto"}) {
    const v1::BattleLog log = TextLog(name);
    absl::StatusOr<v1::AuditReport> whole = Audit(log);
    ASSERT_TRUE(whole.ok()) << whole.status();
    std::uint64_t first_camp_sack = UINT64_MAX;
    for (const v1::Event& event : log.events()) {
      if (event.has_move() && !event.move().touches_enemy_camp().empty()) {
        first_camp_sack = std::min(first_camp_sack, event.seq());
      }
    }
    int cuts = 0;
    for (std::uint64_t seq : TurnBoundaries(log)) {
      if (seq >= first_camp_sack) continue;
      ExpectTailAuditsTheSame(log, *whole, seq, name);
      ++cuts;
    }
    EXPECT_GE(cuts, 2) << name;
  }
}

// The property: generated games of both rulesets, clean and with planted
// faults, cut at every turn boundary.
TEST(StartingPositionRoundTrip, GeneratedGames) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    generate::GeneratorOptions options;
    options.seed = seed;
    options.turns = 4;
    options.target_events = 120;
    options.units_per_clan = 2 + static_cast<int>(seed % 4);
    options.faults = static_cast<int>(seed % 3) * 2;
    const v1::BattleLog log = generate::GenerateGame(options).log;
    absl::StatusOr<v1::AuditReport> whole = Audit(log);
    ASSERT_TRUE(whole.ok()) << whole.status();
    const std::string what = absl::StrCat("daimyo seed ", seed);
    for (std::uint64_t seq : TurnBoundaries(log)) {
      ExpectTailAuditsTheSame(log, *whole, seq, what);
    }
  }
  auto skf = replay::BuiltinRuleset("skf");
  ASSERT_TRUE(skf.ok()) << skf.status();
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    generate::GeneratorOptions options;
    options.seed = seed;
    options.turns = 4;
    options.units_per_clan = 2 + static_cast<int>(seed % 3);
    options.faults = static_cast<int>(seed % 2) * 2;
    absl::StatusOr<v1::BattleLog> log =
        generate::GenerateSkfGame(options, *skf);
    ASSERT_TRUE(log.ok()) << log.status();
    absl::StatusOr<v1::AuditReport> whole = Audit(*log);
    ASSERT_TRUE(whole.ok()) << whole.status();
    for (std::uint64_t seq : TurnBoundaries(*log)) {
      ExpectTailAuditsTheSame(*log, *whole, seq,
                              absl::StrCat("skf seed ", seed));
    }
  }
}

// Through the CLI, as a user does it: `gunbai state --at=SEQ
// --format=start` pasted after the order of battle of the log of the
// events after SEQ.
TEST(StartingPositionRoundTrip, StateFormatStartPastes) {
  const std::string path = DataPath("sekigahara.textproto");
  const CliResult start = Cli({"state", "--at=20", "--format=start", path});
  ASSERT_EQ(start.code, 0) << start.err;
  ASSERT_TRUE(absl::StartsWith(start.out, "starting_position {\n"));
  v1::BattleLog log = TextLog("sekigahara.textproto");
  v1::BattleLog tail = log;
  tail.clear_events();
  for (const v1::Event& event : log.events()) {
    if (event.seq() > 20) *tail.add_events() = event;
  }
  std::string text;
  google::protobuf::TextFormat::PrintToString(tail, &text);
  text += start.out;
  const std::string tail_path = ::testing::TempDir() + "/sekigahara-tail.txt";
  {
    std::ofstream out(tail_path);
    out << text;
  }
  const CliResult whole = Cli({"audit", path});
  const CliResult cut = Cli({"audit", tail_path});
  EXPECT_EQ(cut.code, whole.code) << cut.err;
  // The final state digest line is the whole game's.
  const auto digest_line = [](const std::string& report) {
    const std::size_t at = report.find("final state digest");
    return at == std::string::npos
               ? std::string()
               : report.substr(at, report.find('\n', at) - at);
  };
  EXPECT_FALSE(digest_line(whole.out).empty());
  EXPECT_EQ(digest_line(cut.out), digest_line(whole.out));
}

}  // namespace
}  // namespace gunbai::testing
