#include "tests/reference/pending.h"

namespace gunbai::reference {

const std::vector<PendingReading>& PendingReadings() {
  // P1-P6 landed with the rule-gap fixes, P7 with reading 26 (e), and the
  // engine bugs this check found (E1, E3-E9; repro/) are fixed. Add a row only
  // for a reading under decision, with the rule ids it may explain.
  // T1-T7: the table situations (table_situation.cc); each is a class of
  // disagreement with the engine's table, described with its reproducer
  // in README.md, "Table geometry". A situation carries the tag when its
  // verdict is within 1 mm of the boundary in question, or hangs on the
  // reading (T4, T5). T1 (the arc ended at the long range) and T8 (an
  // enemy in woods counted within 15 cm) were engine bugs, fixed.
  static const std::vector<PendingReading> kPending = {
      {"T3",
       "a line of sight that is narrow (4 mm more gap or less woods would "
       "change it) or found only off the plain lines (front centre to "
       "centre, nearest points): the engine tries a finite set of lines",
       {"daimyo.table.fire.line_of_sight",
        "missing daimyo.table.fire.line_of_sight", "daimyo.table.fire.nearest",
        "missing daimyo.table.fire.nearest"}},
      {"T4",
       "a hill's crest across the line, within 2 cm of a unit's footprint "
       "but not of its front edge",
       {"daimyo.table.fire.line_of_sight",
        "missing daimyo.table.fire.line_of_sight", "daimyo.table.fire.nearest",
        "missing daimyo.table.fire.nearest"}},
      {"T5",
       "which line is 'the line of fire' for the woods limit and a crossed "
       "obstacle's cover",
       {"daimyo.table.fire.woods", "daimyo.table.fire.cover",
        "daimyo.table.fire.range", "daimyo.fire.hit",
        "daimyo.fire.eligibility.range",
        "missing daimyo.fire.eligibility.range"}},
      {"T6", "the arc's 45 degree line within 1 mm of the target",
       {"daimyo.table.fire.arc", "missing daimyo.table.fire.arc",
        "daimyo.table.fire.nearest", "missing daimyo.table.fire.nearest"}},
      {"T7",
       "an enemy about as near as the target, or whose range, arc or sight "
       "turns within 1 mm",
       {"daimyo.table.fire.nearest", "missing daimyo.table.fire.nearest"}},
      {"T9",
       "a mounted firer whose lines of sight all start off its front edge "
       "(RULES.md: all round for mounted firers): the engine looks from the "
       "front only",
       {"daimyo.table.fire.line_of_sight"}},
      {"T10",
       "a linear obstacle 3 cm (within 1 mm) from the target or the "
       "firers: the engine's 'within 3 cm' excludes exactly 3 cm",
       {"daimyo.table.fire.cover", "daimyo.fire.hit"}},
      {"T12",
       "a target out of arc seen only by a line back through the firers' "
       "own footprint (the rule names only other units)",
       {"daimyo.table.fire.line_of_sight"}},
  };
  return kPending;
}

std::string PendingTagFor(const std::map<std::string, std::uint64_t>& tags,
                          const std::string& rule_id, std::uint64_t seq) {
  for (const PendingReading& p : PendingReadings()) {
    auto it = tags.find(p.tag);
    if (it == tags.end() || seq < it->second) continue;
    for (const std::string& id : p.rule_ids)
      if (id == rule_id) return p.tag;
  }
  return "";
}

}  // namespace gunbai::reference
