// The plug-in interface of a ruleset: how replay/ asks a ruleset to replay a
// log. A ruleset is its data (a gunbai.v1.Ruleset text file, shipped
// embedded) and an Engine that folds the log's events into a BattleState,
// reporting findings and, when asked, every outcome it works out, on
// rules::EngineBase (rules/engine_base.h). replay/ and service/ only see this
// interface; rules/plugins.cc lists the rulesets (rules/README.md, "Adding a
// ruleset"). Thread-compatible: one Engine per replay.
#ifndef GUNBAI_RULES_ENGINE_H_
#define GUNBAI_RULES_ENGINE_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "gunbai/v1/ruleset.pb.h"
#include "rules/battle_state.h"
#include "rules/rule_docs.h"
#include "rules/types.h"
#include "rules/victory.h"

namespace gunbai::rules {

// Where an engine writes what it finds. `outcomes` is null unless the caller
// asked for outcomes (gunbai audit --outcomes, gunbai diff); engines must
// check before building one. Both must outlive the Engine.
struct EngineOutput {
  google::protobuf::RepeatedPtrField<gunbai::v1::Finding>* findings = nullptr;
  google::protobuf::RepeatedPtrField<gunbai::v1::Outcome>* outcomes = nullptr;
  // When not null, a what-if branch written out as a log: the engine appends
  // a copy of each event it applies, its claims replaced by the computed
  // outcomes wherever it followed them (EngineOptions), so that the events
  // audit as the branch played them.
  google::protobuf::RepeatedPtrField<gunbai::v1::Event>* branch_events =
      nullptr;
};

// Changes to how an engine replays, for "what if" replays (gunbai audit
// --impact, gunbai diff). By default every event follows the log as played.
struct EngineOptions {
  // When non-zero: at the event with this seq, carry on with the outcomes
  // the engine computed instead of the ones the log claims.
  std::uint64_t follow_computed_at_seq = 0;
  // When non-zero: a branch that replays the game as it would have gone.
  // From this seq on, every event carries on with the computed outcomes
  // (hits, stands lost, leader rolls, morale results, melee results), the
  // players' declared actions and dice kept, except the events whose seqs
  // are in `keep_claims_at`: outcomes the game as played got wrong on its
  // own, which the branch keeps as played.
  std::uint64_t follow_computed_from_seq = 0;
  // Sorted, ascending.
  std::vector<std::uint64_t> keep_claims_at;

  // Returns true when the event with `seq` carries on with the computed
  // outcomes.
  bool FollowsComputedAt(std::uint64_t seq) const {
    if (seq == 0) return false;
    if (seq == follow_computed_at_seq) return true;
    return follow_computed_from_seq != 0 && seq >= follow_computed_from_seq &&
           !std::binary_search(keep_claims_at.begin(), keep_claims_at.end(),
                               seq);
  }
};

// One event a ruleset's move generator proposes as a clan's next event
// (Engine::ProposeEvents), with the domain of each of its parameters the
// state already settles. A proposal is pseudo-legal, as a chess program's
// generated moves are before the king's safety is checked: the engine's
// own checks (the audit's) decide, when the event is tried on a copy of
// the game (replay/legal_actions.h).
struct ProposedEvent {
  // Its body, and its clan for a clan's event (seq and turn are the
  // caller's).
  gunbai::v1::Event event;
  // "activation", "move", "charge", "fire", "melee", "morale",
  // "result_move", "leader_loss", "removal", "turn_end", "turn_start",
  // "game_end".
  absl::string_view kind;
  int unit = -1;    // The acting unit (index), or -1.
  int target = -1;  // Its target or opponent (index), or -1.
  int leader = -1;  // A leader-loss roll's leader (index), or -1.
  // A firing or a melee round: the stands the unit may bring, most first;
  // the event names the most, and the first count the engine takes is the
  // one offered.
  int max_stands = 0;
  // A firing: the range bands it may be declared at (on a table, the one
  // the tape measure gives, set in the event with its distance).
  absl::InlinedVector<gunbai::v1::RangeBand, 2> ranges;
  // A move or a charge on a table: it needs a destination (Move.to,
  // ChargeDeclaration.to; a charge's is filled in with the pose it makes
  // contact in), within reach_mm of the unit's front centre (0: the
  // ruleset holds it to no rate).
  bool needs_destination = false;
  int reach_mm = 0;
};

class Engine {
 public:
  virtual ~Engine() = default;
  // Checks one event, reports its findings (with the event's seq and turn),
  // and folds it into the state. Never fails: what cannot be applied is a
  // finding.
  virtual void Apply(const gunbai::v1::Event& event) = 0;
  // Reports what the log still owes after its last event. Call once.
  virtual void Finish() = 0;
  // The state after the events applied so far. Units keep their order of
  // battle order; clans their header order.
  virtual const BattleState& state() const = 0;
  // Sends the outcomes of the events applied from now on to `outcomes`
  // (null: none are recorded), which must outlive its use: a live game
  // records the outcomes of each batch without recording those of its
  // whole replay. The default records none.
  virtual void SetOutcomes(
      google::protobuf::RepeatedPtrField<gunbai::v1::Outcome>* outcomes) {}

  // Checkpoints: the replay's state after the events applied so far, as
  // bytes that RestoreCheckpoint takes back, so that a long game need not be
  // replayed from its first event (gunbaid's cold start). The format version
  // of this engine's checkpoints; 0 when it has none (the default).
  virtual std::uint32_t CheckpointVersion() const { return 0; }
  // Returns the checkpoint of the state after the events applied so far:
  // deterministic (an equal replay gives equal bytes), and holding neither
  // the findings reported so far (the caller's, EngineOutput::findings) nor
  // the outcomes. Unimplemented when CheckpointVersion() is 0.
  virtual absl::StatusOr<std::string> SaveCheckpoint() const;
  // Takes the state of `checkpoint` into this engine, which must be freshly
  // created (no event applied) from the same header and order of battle,
  // ruleset data and options as the one that saved it; before applying the
  // events after it, the caller puts back into EngineOutput::findings the
  // findings reported up to the checkpoint (the engine bounds the findings
  // it lists by their number). Returns InvalidArgument, and leaves the
  // engine as created, for bytes that are not a checkpoint of this engine's
  // format and order of battle (corrupt, truncated, another version),
  // FailedPrecondition when an event was applied already; Unimplemented
  // when CheckpointVersion() is 0.
  virtual absl::Status RestoreCheckpoint(absl::string_view checkpoint);

  // The move generator: appends to `out` the events clan `clan` (an index
  // into state().clans) may append next, as the state shows them: the
  // clan's activation when it may begin one, what each of its units may do
  // and owes (tests, result moves, removals), its leaders' owed rolls, its
  // turn's end; for the umpire (`umpire`), also the turn's start between
  // turns and the game's end. Each is pseudo-legal (ProposedEvent). Returns
  // false when the ruleset has no generator (the default): the caller
  // builds its own candidates.
  virtual bool ProposeEvents(int clan, bool umpire,
                             std::vector<ProposedEvent>& out) const {
    return false;
  }
  // A copy of this engine after the events applied so far, writing to
  // `output`, for trying an event without changing this one. Null when the
  // ruleset cannot copy its engine (the default): the caller copies it
  // through a checkpoint.
  virtual std::unique_ptr<Engine> Clone(EngineOutput output) const {
    return nullptr;
  }
};

// What gunbaid rolls for one event of a live game whose dice are the
// server's (replay/server_dice.h).
struct ServerDicePlan {
  // This many dice, in the event's canonical dice order.
  int dice = 0;
  // For a melee round: how many of them each side rolls, side by side (the
  // sum is `dice`).
  std::vector<int> side_dice;
  // Open-ended dice, a roll-off, when `group` > 0, instead of `dice`:
  // groups of `group` dice are rolled, one die for each of the parties in
  // turn, until a group's dice plus the parties' `offsets` are not all
  // equal, or `max_groups` groups have been rolled. (Daimyo's duel: two
  // leaders, the challenger's die first, each plus his command rating.)
  struct RollOff {
    int group = 0;
    std::vector<int> offsets;  // One a party, `group` of them.
    int max_groups = 0;
    // What the roll is called in messages, e.g. "the duel" (a literal).
    absl::string_view what = "the roll-off";
  } roll_off;

  bool open_ended() const { return roll_off.group > 0; }
};

// One ruleset gunbai knows.
struct RulesetPlugin {
  // The header.ruleset.name logs use, e.g. "daimyo".
  absl::string_view name;
  // One line for `gunbai ruleset --list` and error messages.
  absl::string_view title;
  // The shipped data file's text (the built-in ruleset of this name).
  absl::string_view builtin_text;
  // Checks the data of a ruleset file of this name (its own sections; the
  // name and version are checked by the loader). `source` names the file in
  // the error, which should name the field and what to do.
  absl::Status (*validate)(const gunbai::v1::Ruleset& data,
                           absl::string_view source);
  // Builds the starting state from the log's header and order of battle.
  // Returns InvalidArgument naming the unit or leader when the order of
  // battle is unusable. `data` has passed `validate` and outlives the Engine.
  absl::StatusOr<std::unique_ptr<Engine>> (*create)(
      const gunbai::v1::BattleLog& log, const gunbai::v1::Ruleset& data,
      const EngineOptions& options, EngineOutput output);
  // The dice gunbaid rolls for `event`, declared without dice, in a live
  // game with server dice, given the ruleset's data and `state`, the state
  // before the event (its clans, and what an open-ended roll's offsets come
  // from). Returns InvalidArgument, naming the field and what to do, when
  // the event cannot be rolled for (a count out of bounds, a leader not in
  // the order of battle), and FailedPrecondition when the data gives no
  // dice for the event's kind. Null: this ruleset's live games cannot have
  // server dice.
  absl::StatusOr<ServerDicePlan> (*server_dice)(
      const gunbai::v1::Event& event, const gunbai::v1::Ruleset& data,
      const BattleState& state) = nullptr;
  // Its rules doc, embedded (`gunbai explain`): the path in the repository
  // and the text. Every rule id the engine reports is stated there.
  absl::string_view docs_path = {};
  absl::string_view docs = {};
  // The victory by points a log is scored with (rules/SCENARIO.md), when the
  // ruleset's data fixes the points: returns the settings, or nullopt when
  // the game has no victory condition by points; reports into `findings`,
  // as findings of the header (seq 0), where the log's scenario disagrees
  // with the data. Returns InvalidArgument naming the header field when the
  // scenario is malformed. `data` has passed `validate`. Null: the header's
  // scenario is scored as the log gives it.
  absl::StatusOr<std::optional<VictorySettings>> (*victory)(
      const gunbai::v1::BattleLog& log, const gunbai::v1::Ruleset& data,
      google::protobuf::RepeatedPtrField<gunbai::v1::Finding>* findings) =
      nullptr;
  // How the dice statistics (`gunbai dice`, replay/dice_stats.h) read one
  // roll: a clan's `dice` dice of one event whose body is `roll` (a firing,
  // a melee side, a morale test, a turn's initiative, a leader's roll...).
  // True when the rules sum them in pairs as 2d6 (dice 1-2, 3-4, ...; each
  // pair's sum is tested against the 2d6 distribution); false when each die
  // counts alone (its face and runs only). Null: every die alone.
  bool (*dice_in_pairs)(gunbai::v1::Event::BodyCase roll, int dice) = nullptr;
};

// Helpers every engine uses to write its output (rules/engine.cc).
gunbai::v1::Severity SeverityToProto(Severity s);
gunbai::v1::TermOrigin OriginToProto(Origin o);

// Appends `finding` to `out` as the finding of event `seq` of turn `turn`.
void AppendFinding(
    Finding finding, std::uint64_t seq, std::uint32_t turn,
    google::protobuf::RepeatedPtrField<gunbai::v1::Finding>& out);

// Appends an outcome worked out at event `seq` to `out` when it is not null
// (outcomes were asked for); `trace` may be null.
void AppendOutcome(
    std::uint64_t seq, absl::string_view subject, absl::string_view kind,
    std::string value, Trace* trace,
    google::protobuf::RepeatedPtrField<gunbai::v1::Outcome>* out);

// The checks of an event every engine makes the same way, before its own.
// Reports "log.seq.order" when the seq does not increase (and records it in
// `state`) and "log.event.empty" when the event has no body. Returns false
// when the event must be skipped (no body).
bool CheckEventStart(const gunbai::v1::Event& event, BattleState& state,
                     FindingSink& sink);

// Reports "log.turn.mismatch" when the event is not dated in the current
// turn, and "log.clan.unknown" when its acting clan is not in the header.
void CheckEventTurnAndClan(const gunbai::v1::Event& event,
                           const BattleState& state, FindingSink& sink);

// Every ruleset gunbai knows, Daimyo first (rules/plugins.cc).
absl::Span<const RulesetPlugin> RulesetPlugins();

// The rules docs: the scenario rules of every ruleset (rules/SCENARIO.md),
// then each plug-in's, in RulesetPlugins() order (rules/plugins.cc).
std::vector<RulesDoc> RulesDocs();

// Returns the plug-in named `name`, or null.
const RulesetPlugin* FindRulesetPlugin(absl::string_view name);

}  // namespace gunbai::rules

#endif  // GUNBAI_RULES_ENGINE_H_
