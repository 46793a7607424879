// The HTML report (service/render/report_html): the stands and dice it draws,
// against the hand working of tests/data/README.md; that the same log gives the
// same bytes; that a page holds no markup from a name; and the bound on the
// event list.
#include "service/render/report_html.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "replay/audit.h"
#include "replay/log_parser.h"
#include "replay/ruleset_loader.h"
#include "service/cli/cli.h"

namespace gunbai::service {
namespace {

namespace v1 = ::gunbai::v1;
using ::testing::HasSubstr;
using ::testing::Not;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

v1::BattleLog ReadLog(const std::string& path) {
  auto log =
      replay::ParseBattleLog(ReadFile(path), replay::LogFormat::kText, path);
  EXPECT_TRUE(log.ok()) << log.status();
  return log.ok() ? *log : v1::BattleLog();
}

std::string DataPath(const std::string& name) {
  return std::string(GUNBAI_TEST_DATA_DIR) + "/" + name;
}

std::string HostilePath() {
  return std::string(GUNBAI_SOURCE_DIR) +
         "/tests/browser/hostile-names.textproto";
}

// The page for `log` as `gunbai audit --format=html --impact` writes it.
std::string Page(const v1::BattleLog& log) {
  auto ruleset = replay::BuiltinRuleset("daimyo");
  EXPECT_TRUE(ruleset.ok()) << ruleset.status();
  replay::AuditOptions options;
  options.record_outcomes = true;
  auto report = replay::AuditLog(log, *ruleset, options);
  EXPECT_TRUE(report.ok()) << report.status();
  if (!report.ok()) return "";
  auto data = GatherHtmlReportData(*report, log, *ruleset);
  EXPECT_TRUE(data.ok()) << data.status();
  return data.ok() ? FormatReportHtml(*data) : "";
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

TEST(StandsOverGame, FollowsTheHandWorking) {
  // tests/data/README.md, anegawa-clean: asai-cav 3 to 2 at seq 3 and 2 to 1
  // at seq 14; oda-teppo 6 to 5 at seq 11; asai-yumi loses none. Seq n is
  // event index n - 1 in that log.
  const v1::BattleLog log = ReadLog(DataPath("anegawa-clean.textproto"));
  auto ruleset = replay::BuiltinRuleset("daimyo");
  ASSERT_TRUE(ruleset.ok());
  auto series = StandsOverGame(log, *ruleset);
  ASSERT_TRUE(series.ok()) << series.status();
  ASSERT_EQ(series->size(), 3u);
  const auto changes = [](const UnitStandsSeries& s) {
    std::vector<std::pair<int, int>> out;
    for (const auto& c : s.changes) out.emplace_back(c.event_index, c.stands);
    return out;
  };
  EXPECT_EQ((*series)[0].unit_id, "oda-teppo");
  EXPECT_EQ((*series)[0].clan, 0);
  EXPECT_EQ((*series)[0].starting_stands, 6);
  EXPECT_EQ(changes((*series)[0]), (std::vector<std::pair<int, int>>{{10, 5}}));
  EXPECT_EQ((*series)[1].unit_id, "asai-yumi");
  EXPECT_EQ((*series)[1].clan, 1);
  EXPECT_TRUE((*series)[1].changes.empty());
  EXPECT_EQ((*series)[2].unit_id, "asai-cav");
  EXPECT_EQ(changes((*series)[2]),
            (std::vector<std::pair<int, int>>{{2, 2}, {13, 1}}));
  for (const auto& s : *series) EXPECT_EQ(s.removed_after_event, -1);
}

TEST(FormatReportHtml, DrawsTheDiceAsCountedByHand) {
  // anegawa-clean, Oda's dice, counted by hand from the log: seq 3
  // [1,2,2,2,3,1,1,1,6,1,1,2], seq 14 [4,3,1,1,2,5,6,6,2,1], seq 16 [4,4]:
  // faces 1-6 are 9, 6, 2, 3, 1, 3 of 24 (fair dice expect 4.0 each); the
  // 12 pairs sum to 3,4,4,2,7,3 / 7,2,7,12,3 / 8: 7 three times, and fair
  // dice expect 12 * 6/36 = 2.0 sevens.
  const std::string page = Page(ReadLog(DataPath("anegawa-clean.textproto")));
  const std::size_t begin =
      page.find("<figure class=\"dice\" data-clan=\"oda\"");
  ASSERT_NE(begin, std::string::npos);
  const std::string oda =
      page.substr(begin, page.find("</figure>", begin) - begin);
  const int faces[] = {9, 6, 2, 3, 1, 3};
  for (int f = 1; f <= 6; ++f) {
    EXPECT_THAT(oda, HasSubstr(absl::StrCat(
                         "<tr><th scope=\"row\">", f, "</th><td class=\"num\">",
                         faces[f - 1], "</td><td class=\"num\">4.0</td></tr>")))
        << "face " << f;
  }
  EXPECT_THAT(oda, HasSubstr("Faces (24 dice)"));
  EXPECT_THAT(oda, HasSubstr("2d6 totals (12 pairs)"));
  EXPECT_THAT(oda, HasSubstr("<tr><th scope=\"row\">7</th><td class=\"num\">3"
                             "</td><td class=\"num\">2.0</td></tr>"));
}

TEST(FormatReportHtml, SaysTheVerdictInWords) {
  // anegawa-clean audits clean, sekigahara has 5 violations and 2 disputes
  // (tests/data/README.md).
  EXPECT_THAT(Page(ReadLog(DataPath("anegawa-clean.textproto"))),
              HasSubstr("data-verdict=\"clean\""));
  const std::string page = Page(ReadLog(DataPath("sekigahara.textproto")));
  EXPECT_THAT(page, HasSubstr("Not clean: 5 violations, 2 disputes, 0 "
                              "warnings"));
  EXPECT_EQ(Count(page, "<article class=\"finding"), 7);
  // Each cited rule has its section with the text `gunbai explain` gives.
  EXPECT_THAT(page, HasSubstr("<section class=\"rule\" "
                              "id=\"rule-daimyo.leader_loss.roll\">"));
}

TEST(FormatReportHtml, HostileNamesAreText) {
  const std::string page = Page(ReadLog(HostilePath()));
  // No markup from the log: the page has no script, img or b element at
  // all, nothing that loads, and each name appears escaped.
  EXPECT_EQ(Count(page, "<script"), 0);
  EXPECT_EQ(Count(page, "<img"), 0);
  EXPECT_EQ(Count(page, "<b>"), 0);
  EXPECT_THAT(page, Not(HasSubstr("url(")));
  EXPECT_THAT(page, Not(HasSubstr("http:")));
  EXPECT_THAT(page, Not(HasSubstr("https:")));
  EXPECT_THAT(page, HasSubstr("&lt;script&gt;alert(1)&lt;/script&gt;"));
  EXPECT_THAT(page, HasSubstr("Western &amp; &lt;b&gt;Army&lt;/b&gt;"));
  EXPECT_THAT(page, HasSubstr("&lt;img src=x onerror=alert(2)&gt; "
                              "&quot;Yumi&quot; &amp; &#39;Co&#39;"));
  // In an attribute too: the clan id ishida"&' quoted.
  EXPECT_THAT(page, HasSubstr("data-clan=\"ishida&quot;&amp;&#39;\""));
  // The page refuses any script even if one got in.
  EXPECT_THAT(page, HasSubstr("content=\"default-src 'none'; style-src "
                              "'sha256-"));
}

TEST(FormatReportHtml, SameLogSameBytes) {
  const std::string first = Page(ReadLog(HostilePath()));
  const std::string second = Page(ReadLog(HostilePath()));
  EXPECT_EQ(first, second);
  // And through the command line, with --impact.
  std::vector<std::string> args = {"audit", "--format=html", "--impact",
                                   DataPath("sekigahara.textproto")};
  std::ostringstream out1, out2, err;
  EXPECT_EQ(RunCli(args, out1, err), 1) << err.str();
  EXPECT_EQ(RunCli(args, out2, err), 1) << err.str();
  EXPECT_EQ(out1.str(), out2.str());
  EXPECT_THAT(out1.str(), HasSubstr("What if seq 7 had gone as computed"));
}

TEST(FormatReportHtml, ListsAtMostTheBoundOfEventsThenTheFindings) {
  // anegawa-clean's armies, then 2,600 empty turns (5,200 events, which
  // audit clean), then a firing by a unit the order of battle lacks: a
  // finding at seq 5,201. The page lists the first 5,000 events and that
  // one.
  v1::BattleLog log = ReadLog(DataPath("anegawa-clean.textproto"));
  log.clear_events();
  std::uint64_t seq = 0;
  for (std::uint32_t turn = 1; turn <= 2600; ++turn) {
    v1::Event* start = log.add_events();
    start->set_seq(++seq);
    start->set_turn(turn);
    start->mutable_turn_start()->set_initiative_clan("oda");
    v1::Event* end = log.add_events();
    end->set_seq(++seq);
    end->set_turn(turn);
    end->mutable_turn_end();
  }
  v1::Event* firing = log.add_events();
  firing->set_seq(++seq);
  firing->set_turn(2600);
  firing->set_clan("oda");
  firing->mutable_firing()->set_unit("nobody");
  firing->mutable_firing()->set_target("asai-cav");
  firing->mutable_firing()->add_dice(1);
  const std::string page = Page(log);
  EXPECT_EQ(Count(page, "<tr id=\"ev-"), kMaxHtmlEventRows + 1);
  EXPECT_THAT(page, HasSubstr("<tr id=\"ev-5201\" class=\"has-finding\">"));
  EXPECT_THAT(page, Not(HasSubstr("<tr id=\"ev-5001\"")));
  EXPECT_THAT(page, HasSubstr("The log has 5201 events: the first 5000"));
  // The unknown unit's dice belong to no clan: the page says so, and still
  // shows the rest.
  EXPECT_THAT(
      page, HasSubstr("The dice cannot be counted by clan: game anegawa-clean: "
                      "event 5201: unit &quot;nobody&quot; is not in "
                      "the order of battle"));
}

TEST(AuditHtmlCli, WritesTheFileWithTheAuditsExitCode) {
  const std::string path =
      ::testing::TempDir() + "/report_html_test_sekigahara.html";
  std::ostringstream out, err;
  EXPECT_EQ(RunCli({"audit", "--format=html", "-o", path,
                    DataPath("sekigahara.textproto")},
                   out, err),
            1)
      << err.str();
  EXPECT_EQ(out.str(), "");
  EXPECT_THAT(ReadFile(path), HasSubstr("<!DOCTYPE html>"));
  std::ostringstream out2, err2;
  EXPECT_EQ(RunCli({"audit", "--format=html", "-o",
                    ::testing::TempDir() + "/no/such/folder/x.html",
                    DataPath("sekigahara.textproto")},
                   out2, err2),
            2);
  EXPECT_THAT(err2.str(), HasSubstr("-o: cannot write"));
  // An empty FILE is a usage error, not standard output.
  std::ostringstream out3, err3;
  EXPECT_EQ(RunCli({"audit", "--format=html", "-o", "",
                    DataPath("sekigahara.textproto")},
                   out3, err3),
            2);
  EXPECT_EQ(out3.str(), "");
  EXPECT_THAT(err3.str(), HasSubstr("--output: give a file name"));
}

}  // namespace
}  // namespace gunbai::service
