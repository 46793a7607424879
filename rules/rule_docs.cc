#include "rules/rule_docs.h"

#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace gunbai::rules {

namespace {

bool IsTableRow(absl::string_view line) {
  return absl::StartsWith(absl::StripLeadingAsciiWhitespace(line), "|");
}

// The cells of a table row, trimmed, without the empty ones outside the
// outer bars.
std::vector<std::string> Cells(absl::string_view row) {
  row = absl::StripAsciiWhitespace(row);
  absl::ConsumePrefix(&row, "|");
  absl::ConsumeSuffix(&row, "|");
  std::vector<std::string> cells;
  for (absl::string_view cell : absl::StrSplit(row, '|')) {
    cells.emplace_back(absl::StripAsciiWhitespace(cell));
  }
  return cells;
}

bool IsSeparator(absl::string_view row) {
  for (const std::string& cell : Cells(row)) {
    if (cell.empty() || cell.find_first_not_of("-: ") != std::string::npos) {
      return false;
    }
  }
  return true;
}

// The ids in backquotes in `cell`.
std::vector<std::string> QuotedIds(absl::string_view cell) {
  std::vector<std::string> ids;
  std::size_t at = 0;
  while ((at = cell.find('`', at)) != absl::string_view::npos) {
    const std::size_t end = cell.find('`', at + 1);
    if (end == absl::string_view::npos) break;
    ids.emplace_back(cell.substr(at + 1, end - at - 1));
    at = end + 1;
  }
  return ids;
}

// Returns the heading text of `line` when it is a Markdown heading.
bool Heading(absl::string_view line, std::string& section) {
  if (!absl::StartsWith(line, "#")) return false;
  while (absl::ConsumePrefix(&line, "#")) {
  }
  section = std::string(absl::StripAsciiWhitespace(line));
  return true;
}

// Splits `text` into lines, leaving out the lines of fenced code blocks
// (```), whose '#' and '|' are not Markdown.
std::vector<absl::string_view> ProseLines(absl::string_view text) {
  std::vector<absl::string_view> lines;
  bool fenced = false;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(absl::StripLeadingAsciiWhitespace(line), "```")) {
      fenced = !fenced;
      lines.push_back("");  // A fence ends a passage.
      continue;
    }
    lines.push_back(fenced ? absl::string_view() : line);
  }
  return lines;
}

}  // namespace

std::vector<DocumentedRule> DocumentedRules(const RulesDoc& doc) {
  std::vector<DocumentedRule> rules;
  std::string section;
  // Per table: whether it states rules, and its severity column.
  bool in_table = false;
  bool rule_table = false;
  int severity_column = -1;
  std::vector<std::string> header;
  for (absl::string_view line : ProseLines(doc.text)) {
    if (Heading(line, section)) {
      in_table = false;
      continue;
    }
    if (!IsTableRow(line)) {
      in_table = false;
      continue;
    }
    if (!in_table) {  // The header row.
      in_table = true;
      header = Cells(line);
      const std::string first =
          header.empty() ? "" : absl::AsciiStrToLower(header[0]);
      rule_table = first == "id" || first == "rule id";
      severity_column = -1;
      for (std::size_t i = 0; i < header.size(); ++i) {
        if (absl::AsciiStrToLower(header[i]) == "severity") {
          severity_column = static_cast<int>(i);
        }
      }
      continue;
    }
    if (!rule_table || IsSeparator(line)) continue;
    const std::vector<std::string> cells = Cells(line);
    if (cells.size() < 2) continue;
    for (std::string& id : QuotedIds(cells[0])) {
      DocumentedRule rule;
      rule.id = std::move(id);
      if (severity_column > 0 &&
          severity_column < static_cast<int>(cells.size())) {
        rule.severity = cells[severity_column];
      }
      // The rule is the other columns: the one, or each as "name: value".
      std::vector<std::string> parts;
      for (std::size_t i = 1; i < cells.size(); ++i) {
        if (static_cast<int>(i) == severity_column) continue;
        parts.push_back(cells[i]);
        if (header.size() > 3 || (header.size() == 3 && severity_column < 0)) {
          parts.back() =
              absl::StrCat(i < header.size() ? header[i] : "", ": ", cells[i]);
        }
      }
      rule.text = absl::StrJoin(parts, "; ");
      rule.section = section;
      rule.path = doc.path;
      rule.ruleset = doc.ruleset;
      rules.push_back(std::move(rule));
    }
  }
  return rules;
}

std::vector<Mention> Mentions(const RulesDoc& doc, absl::string_view id) {
  const std::string quoted = absl::StrCat("`", id, "`");
  std::vector<Mention> mentions;
  std::string section;
  std::string section_of_passage;
  std::vector<absl::string_view> passage;
  auto flush = [&] {
    if (passage.empty()) return;
    std::vector<std::string> parts;
    for (absl::string_view line : passage) {
      parts.emplace_back(absl::StripAsciiWhitespace(line));
    }
    std::string text = absl::StrJoin(parts, " ");
    if (absl::StrContains(text, quoted)) {
      mentions.push_back({section_of_passage, std::move(text), doc.path});
    }
    passage.clear();
  };
  for (absl::string_view line : ProseLines(doc.text)) {
    std::string heading;
    if (Heading(line, heading)) {
      flush();
      section = heading;
      continue;
    }
    const absl::string_view trimmed = absl::StripAsciiWhitespace(line);
    // A blank line ends a passage; a table row and a list item are passages
    // of their own.
    if (trimmed.empty() || IsTableRow(line) ||
        absl::StartsWith(trimmed, "- ") ||
        (absl::ascii_isdigit(trimmed.front()) &&
         absl::StrContains(trimmed.substr(0, 4), ". "))) {
      flush();
    }
    if (trimmed.empty()) continue;
    if (passage.empty()) section_of_passage = section;
    passage.push_back(line);
    if (IsTableRow(line)) flush();
  }
  flush();
  return mentions;
}

}  // namespace gunbai::rules
