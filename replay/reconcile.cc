#include "replay/reconcile.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "replay/audit.h"
#include "replay/ledger.h"
#include "replay/server_dice.h"
#include "rules/digest.h"
#include "rules/status_macros.h"

namespace gunbai::replay {
namespace {

namespace v1 = ::gunbai::v1;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

// The events of a divergence shown side by side.
constexpr int kEventsShown = 3;
// The chain a plain log has none of starts here, as a chain-version-0
// live game's does.
constexpr char kZeroHash[] =
    "0000000000000000000000000000000000000000000000000000000000000000";

// The deterministic bytes of a message, the project's one serializer.
std::string Bytes(const Message& message) {
  return ::gunbai::base::DeterministicBytes(message);
}

// Clears every field of `message`, at any depth, whose name says it holds
// dice ("dice", "claimed_dice", ...).
void ClearDice(Message& message) {
  const google::protobuf::Reflection* r = message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  r->ListFields(message, &fields);
  for (const FieldDescriptor* f : fields) {
    if (f->name().find("dice") != std::string::npos) {
      r->ClearField(&message, f);
      continue;
    }
    if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (f->is_repeated()) {
      for (int i = 0; i < r->FieldSize(message, f); ++i) {
        ClearDice(*r->MutableRepeatedMessage(&message, f, i));
      }
    } else {
      ClearDice(*r->MutableMessage(&message, f));
    }
  }
}

// An event's bytes without its seq (where it stands in its copy): two
// copies' events match by this once one of them has an event more.
std::string WithoutSeq(const v1::Event& event) {
  v1::Event copy = event;
  copy.clear_seq();
  return Bytes(copy);
}

std::string WithoutDice(const v1::Event& event) {
  v1::Event copy = event;
  ClearDice(copy);
  return Bytes(copy);
}

std::string EventText(const v1::Event& event) {
  google::protobuf::TextFormat::Printer printer;
  printer.SetSingleLineMode(true);
  printer.SetUseShortRepeatedPrimitives(true);
  std::string text;
  printer.PrintToString(event, &text);
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

// Returns whether events[from...] of `a` and events[from + shift...] of `b`
// match to the end, seqs aside, and have the same number left.
bool AgreeFrom(const v1::BattleLog& a, int a_from, const v1::BattleLog& b,
               int b_from) {
  if (a.events_size() - a_from != b.events_size() - b_from) return false;
  for (int i = 0; a_from + i < a.events_size(); ++i) {
    if (WithoutSeq(a.events(a_from + i)) != WithoutSeq(b.events(b_from + i))) {
      return false;
    }
  }
  return true;
}

absl::Status CheckSameGame(const GameCopy& a, const GameCopy& b) {
  const v1::Header& ha = a.log.header();
  const v1::Header& hb = b.log.header();
  if (ha.game_id() != hb.game_id()) {
    return absl::InvalidArgumentError(absl::StrCat(
        a.name, " is game \"", ha.game_id(), "\" and ", b.name, " is game \"",
        hb.game_id(),
        "\": not two copies of one game. Give two copies of the same game."));
  }
  if (ha.ruleset().name() != hb.ruleset().name() ||
      ha.ruleset().version() != hb.ruleset().version()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the copies name other rulesets: ", a.name, " ", ha.ruleset().name(),
        " ", ha.ruleset().version(), ", ", b.name, " ", hb.ruleset().name(),
        " ", hb.ruleset().version(),
        ". The players must first agree which rules the game is played "
        "under."));
  }
  if (a.exported != nullptr && b.exported != nullptr &&
      a.exported->settings().ruleset_digest() !=
          b.exported->settings().ruleset_digest()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the copies were played under rulesets of other digests: ", a.name, " ",
        a.exported->settings().ruleset_digest(), ", ", b.name, " ",
        b.exported->settings().ruleset_digest(),
        ". Ask the daemon's operator which one the game was created with."));
  }
  return absl::OkStatus();
}

// Whether the copies' terms (the armies, the table and its terrain, the
// starting position) are the same.
bool SameTerms(const v1::BattleLog& a, const v1::BattleLog& b) {
  return Bytes(a.order_of_battle()) == Bytes(b.order_of_battle()) &&
         Bytes(a.table()) == Bytes(b.table()) &&
         a.terrain_size() == b.terrain_size() &&
         [&] {
           for (int i = 0; i < a.terrain_size(); ++i) {
             if (Bytes(a.terrain(i)) != Bytes(b.terrain(i))) return false;
           }
           return true;
         }() &&
         Bytes(a.starting_position()) == Bytes(b.starting_position());
}

// Fills the dice verdict of `out` for `copy`. A server-dice copy whose
// export does not reveal the secret is opened with `other`'s reveal when
// that secret hashes to this copy's own commitment (a player's copy saved
// before the game ended, set against the ended game's export).
void CheckDice(const GameCopy& copy, const GameCopy& other,
               const LoadedRuleset& ruleset, v1::ReconcileCopy& out) {
  const v1::ExportedGame* game = copy.exported;
  if (game == nullptr || game->settings().dice_mode() != v1::DICE_MODE_SERVER) {
    out.set_dice(v1::RECONCILE_DICE_RECORDED);
    return;
  }
  v1::ExportedGame opened;
  if (game->dice().revealed_secret().empty()) {
    const v1::ExportedGame* lender = other.exported;
    const std::optional<std::string> secret =
        lender == nullptr ? std::nullopt
                          : HexToBytes(lender->dice().revealed_secret());
    if (!secret.has_value() || secret->empty() ||
        base::Sha256Hex(*secret) != game->dice().secret_sha256()) {
      out.set_dice(v1::RECONCILE_DICE_NOT_REVEALED);
      return;
    }
    opened = *game;
    opened.mutable_dice()->set_revealed_secret(
        lender->dice().revealed_secret());
    game = &opened;
  }
  const std::optional<ChainBreak> broken = VerifyServerDice(*game, ruleset);
  if (!broken.has_value()) {
    out.set_dice(v1::RECONCILE_DICE_SERVERS);
    return;
  }
  out.set_dice(v1::RECONCILE_DICE_NOT_SERVERS);
  out.set_dice_break_seq(broken->index < 0 ? 0 : broken->seq);
  out.set_dice_break(broken->reason);
}

// Fills copy `out` of `r` from `copy`: its events, its findings at or after
// `from_seq`, its chain, and its events from index `from` on.
absl::Status DescribeCopy(const GameCopy& copy, const LoadedRuleset& ruleset,
                          std::uint64_t from_seq, int from,
                          v1::ReconcileCopy& out) {
  out.set_name(copy.name);
  out.set_events(static_cast<std::uint32_t>(copy.log.events_size()));
  GUNBAI_ASSIGN_OR_RETURN(v1::AuditReport report, AuditLog(copy.log, ruleset));
  for (const v1::Finding& f : report.findings()) {
    const bool counts = f.severity() == v1::SEVERITY_VIOLATION ||
                        f.severity() == v1::SEVERITY_DISPUTE;
    if (!counts || f.seq() < from_seq) continue;
    if (out.findings_from_divergence() == 0) *out.mutable_first_finding() = f;
    out.set_findings_from_divergence(out.findings_from_divergence() + 1);
  }
  if (copy.exported != nullptr) {
    out.set_has_chain(true);
    const std::optional<ChainBreak> broken = VerifyChain(*copy.exported);
    out.set_chain_holds(!broken.has_value());
    if (broken.has_value()) {
      out.set_chain_break(
          absl::StrCat("at seq ", broken->seq, ": ", broken->reason));
    }
  }
  for (int i = from; i < copy.log.events_size() && i < from + kEventsShown;
       ++i) {
    out.add_events_at_divergence(EventText(copy.log.events(i)));
  }
  return absl::OkStatus();
}

// Sets the shape of a divergence at index `k`, where both copies have an
// event that differs.
void ClassifyDivergence(const v1::BattleLog& a, const v1::BattleLog& b, int k,
                        v1::Reconciliation& r) {
  const int na = a.events_size();
  const int nb = b.events_size();
  if (k + 1 < na && WithoutSeq(a.events(k + 1)) == WithoutSeq(b.events(k)) &&
      AgreeFrom(a, k + 1, b, k)) {
    r.set_shape(v1::RECONCILE_SHAPE_INSERTED);
    r.set_longer_copy("A");
    r.set_rejoins(true);
    return;
  }
  if (k + 1 < nb && WithoutSeq(b.events(k + 1)) == WithoutSeq(a.events(k)) &&
      AgreeFrom(a, k, b, k + 1)) {
    r.set_shape(v1::RECONCILE_SHAPE_INSERTED);
    r.set_longer_copy("B");
    r.set_rejoins(true);
    return;
  }
  if (k + 1 < na && k + 1 < nb &&
      WithoutSeq(a.events(k)) == WithoutSeq(b.events(k + 1)) &&
      WithoutSeq(a.events(k + 1)) == WithoutSeq(b.events(k))) {
    r.set_shape(v1::RECONCILE_SHAPE_REORDERED);
    r.set_rejoins(AgreeFrom(a, k + 2, b, k + 2));
    return;
  }
  r.set_shape(WithoutDice(a.events(k)) == WithoutDice(b.events(k))
                  ? v1::RECONCILE_SHAPE_OTHER_DICE
                  : v1::RECONCILE_SHAPE_CHANGED);
  r.set_rejoins(AgreeFrom(a, k + 1, b, k + 1));
}

// Returns the copy ("A", "B" or "") the rules alone support, from the
// findings each has from the divergence on.
std::string RulesSupport(const v1::Reconciliation& r) {
  const std::uint32_t fa = r.a().findings_from_divergence();
  const std::uint32_t fb = r.b().findings_from_divergence();
  if (fa == 0 && fb > 0) return "A";
  if (fb == 0 && fa > 0) return "B";
  return "";
}

// Returns the copy ("A", "B" or "") whose dice are all the server's when
// the other's are not.
std::string DiceSupport(const v1::Reconciliation& r) {
  const v1::ReconcileDice a = r.a().dice();
  const v1::ReconcileDice b = r.b().dice();
  if (a == v1::RECONCILE_DICE_SERVERS && b == v1::RECONCILE_DICE_NOT_SERVERS) {
    return "A";
  }
  if (b == v1::RECONCILE_DICE_SERVERS && a == v1::RECONCILE_DICE_NOT_SERVERS) {
    return "B";
  }
  return "";
}

// The dice sentence of a verdict: which copy the server's dice support,
// or why they cannot say.
std::string DiceWords(const v1::Reconciliation& r) {
  const v1::ReconcileDice a = r.a().dice();
  const v1::ReconcileDice b = r.b().dice();
  const auto where = [](const v1::ReconcileCopy& c) {
    return c.dice_break_seq() > 0 ? absl::StrCat("at seq ", c.dice_break_seq(),
                                                 ": ", c.dice_break())
                                  : c.dice_break();
  };
  if (!r.dice_support().empty()) {
    const bool a_holds = r.dice_support() == "A";
    return absl::StrCat(" The server's dice support copy ", r.dice_support(),
                        ": every die of it is the one the server rolled, and "
                        "copy ",
                        a_holds ? "B" : "A", "'s are not (",
                        where(a_holds ? r.b() : r.a()), ").");
  }
  if (a == v1::RECONCILE_DICE_NOT_SERVERS &&
      b == v1::RECONCILE_DICE_NOT_SERVERS) {
    return absl::StrCat(" Neither copy's dice are all the server's (A ",
                        where(r.a()), "; B ", where(r.b()), ").");
  }
  if (a == v1::RECONCILE_DICE_SERVERS && b == v1::RECONCILE_DICE_SERVERS) {
    return " Every die of both copies is the one the server rolled.";
  }
  if (a == v1::RECONCILE_DICE_NOT_REVEALED ||
      b == v1::RECONCILE_DICE_NOT_REVEALED) {
    return absl::StrCat(
        " The server's dice cannot be checked yet: the game's secret is "
        "revealed when it ends (reconcile again with the ended game's "
        "export); ",
        a == v1::RECONCILE_DICE_NOT_SERVERS ||
                b == v1::RECONCILE_DICE_NOT_SERVERS
            ? absl::StrCat(
                  "but copy ", a == v1::RECONCILE_DICE_NOT_SERVERS ? "A" : "B",
                  "'s dice are already not the server's (",
                  where(a == v1::RECONCILE_DICE_NOT_SERVERS ? r.a() : r.b()),
                  ").")
            : "until then only the rules and the chains can choose.");
  }
  if (a == v1::RECONCILE_DICE_NOT_SERVERS ||
      b == v1::RECONCILE_DICE_NOT_SERVERS) {
    const bool in_a = a == v1::RECONCILE_DICE_NOT_SERVERS;
    return absl::StrCat(" Copy ", in_a ? "A" : "B",
                        "'s dice are not the server's (",
                        where(in_a ? r.a() : r.b()), ").");
  }
  return "";
}

std::string ShapeWords(const v1::Reconciliation& r) {
  switch (r.shape()) {
    case v1::RECONCILE_SHAPE_PREFIX:
      return absl::StrCat("copy ", r.longer_copy(),
                          " goes on where the other stops");
    case v1::RECONCILE_SHAPE_OTHER_DICE:
      return "the same event with other dice";
    case v1::RECONCILE_SHAPE_INSERTED:
      return absl::StrCat("copy ", r.longer_copy(),
                          " has an event the other lacks");
    case v1::RECONCILE_SHAPE_REORDERED:
      return "two events in the other order";
    case v1::RECONCILE_SHAPE_CHANGED:
      return "an event changed";
    default:
      return "";
  }
}

std::string Verdict(const v1::Reconciliation& r) {
  if (r.shape() == v1::RECONCILE_SHAPE_SAME) {
    return absl::StrCat("The copies agree: ", r.shared_events(),
                        " events, the last at seq ", r.last_shared_seq(),
                        ", chain hash ", r.last_shared_chain_hash(), ".");
  }
  std::string out =
      r.shape() == v1::RECONCILE_SHAPE_TERMS
          ? std::string(
                "The copies part before the first event: their "
                "armies, table or starting positions differ.")
          : absl::StrCat("The copies part at seq ", r.first_divergence_seq(),
                         ": ", ShapeWords(r),
                         r.rejoins() ? ", and agree again after it" : "", ".");
  const std::string support = RulesSupport(r);
  if (!support.empty()) {
    const v1::ReconcileCopy& other = support == "A" ? r.b() : r.a();
    absl::StrAppend(
        &out, " The rules support copy ", support, ": copy ",
        support == "A" ? "B" : "A", " has ", other.findings_from_divergence(),
        " violation(s) or dispute(s) from there on, the first ",
        other.first_finding().rule_id(), " at seq ",
        other.first_finding().seq(), "; copy ", support, " has none.");
  } else if (r.a().findings_from_divergence() == 0) {
    absl::StrAppend(&out,
                    " Both copies are legal from there on: the rules cannot "
                    "choose",
                    r.dice_support().empty()
                        ? "; the dice record or the players must."
                        : ".");
  } else {
    absl::StrAppend(&out, " Neither copy is clean from there on (A ",
                    r.a().findings_from_divergence(), ", B ",
                    r.b().findings_from_divergence(),
                    " violations or disputes).");
  }
  absl::StrAppend(&out, DiceWords(r));
  for (const v1::ReconcileCopy* c : {&r.a(), &r.b()}) {
    if (c->has_chain() && !c->chain_holds()) {
      absl::StrAppend(&out, " The chain of ", c == &r.a() ? "A" : "B",
                      " is broken (", c->chain_break(),
                      "): that copy was edited after the daemon stored it.");
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<v1::Reconciliation> Reconcile(const GameCopy& a,
                                             const GameCopy& b,
                                             const LoadedRuleset& ruleset) {
  GUNBAI_RETURN_IF_ERROR(CheckSameGame(a, b));
  v1::Reconciliation r;
  const int na = a.log.events_size();
  const int nb = b.log.events_size();
  int shared = 0;
  std::string hash = kZeroHash;
  if (!SameTerms(a.log, b.log)) {
    r.set_shape(v1::RECONCILE_SHAPE_TERMS);
  } else {
    while (shared < na && shared < nb &&
           Bytes(a.log.events(shared)) == Bytes(b.log.events(shared))) {
      hash = ChainHash(hash, a.log.events(shared));
      ++shared;
    }
    if (shared == na && shared == nb) {
      r.set_shape(v1::RECONCILE_SHAPE_SAME);
    } else if (shared == na || shared == nb) {
      r.set_shape(v1::RECONCILE_SHAPE_PREFIX);
      r.set_longer_copy(shared == na ? "B" : "A");
    } else {
      ClassifyDivergence(a.log, b.log, shared, r);
    }
  }
  r.set_shared_events(static_cast<std::uint32_t>(shared));
  if (shared > 0) {
    r.set_last_shared_seq(a.log.events(shared - 1).seq());
    // An export's own chain (from its game's genesis) when it holds that
    // far; else the chain from 64 zeros.
    const v1::ExportedGame* exported =
        a.exported != nullptr ? a.exported : b.exported;
    r.set_last_shared_chain_hash(
        exported != nullptr && exported->chain_hashes_size() >= shared &&
                !VerifyChain(*exported).has_value()
            ? exported->chain_hashes(shared - 1)
            : hash);
  }
  std::uint64_t from_seq = 0;
  if (r.shape() != v1::RECONCILE_SHAPE_SAME &&
      r.shape() != v1::RECONCILE_SHAPE_TERMS) {
    const v1::BattleLog& on = shared < na ? a.log : b.log;
    from_seq = on.events(shared).seq();
    r.set_first_divergence_seq(from_seq);
  }
  const bool whole = r.shape() == v1::RECONCILE_SHAPE_SAME;
  GUNBAI_RETURN_IF_ERROR(DescribeCopy(a, ruleset, whole ? ~0ull : from_seq,
                                      whole ? na : shared, *r.mutable_a()));
  GUNBAI_RETURN_IF_ERROR(DescribeCopy(b, ruleset, whole ? ~0ull : from_seq,
                                      whole ? nb : shared, *r.mutable_b()));
  CheckDice(a, b, ruleset, *r.mutable_a());
  CheckDice(b, a, ruleset, *r.mutable_b());
  r.set_rules_support(RulesSupport(r));
  r.set_dice_support(DiceSupport(r));
  r.set_verdict(Verdict(r));
  return r;
}

namespace {

std::string DiceLine(const v1::ReconcileCopy& c) {
  switch (c.dice()) {
    case v1::RECONCILE_DICE_NOT_REVEALED:
      return "server dice, secret not revealed yet (the game has not ended)";
    case v1::RECONCILE_DICE_SERVERS:
      return "every die is the server's";
    case v1::RECONCILE_DICE_NOT_SERVERS:
      return c.dice_break_seq() > 0
                 ? absl::StrCat("NOT the server's at seq ", c.dice_break_seq(),
                                ": ", c.dice_break())
                 : absl::StrCat("NOT the server's: ", c.dice_break());
    default:
      return "recorded by the players";
  }
}

}  // namespace

std::string FormatReconciliation(const v1::Reconciliation& r) {
  std::string out = absl::StrCat(
      "gunbai reconcile\n  A: ", r.a().name(), " (", r.a().events(),
      " events)\n  B: ", r.b().name(), " (", r.b().events(), " events)\n\n");
  if (r.shared_events() > 0) {
    absl::StrAppend(&out, "Shared: the first ", r.shared_events(),
                    " events, the last at seq ", r.last_shared_seq(),
                    " (chain hash ", r.last_shared_chain_hash(), ")\n");
  } else {
    absl::StrAppend(&out, "Shared: no event\n");
  }
  if (r.shape() != v1::RECONCILE_SHAPE_SAME) {
    for (const v1::ReconcileCopy* c : {&r.a(), &r.b()}) {
      absl::StrAppend(&out, "\n", c == &r.a() ? "A" : "B",
                      " from the divergence:\n");
      if (c->events_at_divergence().empty()) {
        absl::StrAppend(&out, "  (no more events)\n");
      }
      for (const std::string& e : c->events_at_divergence()) {
        absl::StrAppend(&out, "  ", e, "\n");
      }
      absl::StrAppend(&out, "  violations and disputes from there on: ",
                      c->findings_from_divergence(), "\n");
      if (c->findings_from_divergence() > 0) {
        absl::StrAppend(&out, "  first: seq ", c->first_finding().seq(), " ",
                        c->first_finding().rule_id(), ": ",
                        c->first_finding().message(), "\n");
      }
    }
  }
  for (const v1::ReconcileCopy* c : {&r.a(), &r.b()}) {
    if (!c->has_chain()) continue;
    absl::StrAppend(&out, "Chain of ", c == &r.a() ? "A" : "B", ": ",
                    c->chain_holds() ? "holds" : "BROKEN " + c->chain_break(),
                    "\n");
  }
  for (const v1::ReconcileCopy* c : {&r.a(), &r.b()}) {
    if (c->dice() == v1::RECONCILE_DICE_RECORDED) continue;
    absl::StrAppend(&out, "Dice of ", c == &r.a() ? "A" : "B", ": ",
                    DiceLine(*c), "\n");
  }
  absl::StrAppend(&out, "\n", r.verdict(), "\n");
  return out;
}

}  // namespace gunbai::replay
