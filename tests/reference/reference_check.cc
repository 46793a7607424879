// reference_check: plays random situations with the reference model, audits
// each log with the real engine (in process through the audit API, or the
// `gunbai` binary with --gunbai=PATH), and classifies every finding on a
// log the model says is correct.
//
//   reference_check --seed-from=A --count=N [--kinds=fire,morale,melee,table]
//                   [--keep-failures=DIR] [--gunbai=PATH] [--verbose]
//
// Situation i (A <= i < A+N) is of kind kinds[i % kinds] and drawn from
// seed i. Exit 1 when any disagreement is not explained by a pending
// reading (pending.cc), 0 otherwise, 2 on bad usage.
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "gunbai/v1/report.pb.h"
#include "replay/audit.h"
#include "replay/ruleset_loader.h"
#include "tests/reference/pending.h"
#include "tests/reference/situation.h"

namespace gunbai::reference {
namespace {

struct Options {
  std::uint64_t seed_from = 1;
  std::uint64_t count = 1000;
  std::vector<std::string> kinds = SituationKinds();
  std::string keep_dir;
  std::string gunbai;
  bool verbose = false;
  bool print = false;  // print the logs instead of auditing them
};

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

bool ParseArgs(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&a](const char* flag) -> const char* {
      const std::string f = std::string(flag) + "=";
      return a.rfind(f, 0) == 0 ? a.c_str() + f.size() : nullptr;
    };
    if (const char* v = value("--seed-from"))
      o->seed_from = std::strtoull(v, nullptr, 10);
    else if (const char* v = value("--count"))
      o->count = std::strtoull(v, nullptr, 10);
    else if (const char* v = value("--kinds"))
      o->kinds = Split(v);
    else if (const char* v = value("--keep-failures"))
      o->keep_dir = v;
    else if (const char* v = value("--gunbai"))
      o->gunbai = v;
    else if (a == "--verbose")
      o->verbose = true;
    else if (a == "--print")
      o->print = true;
    else {
      std::cerr << "reference_check: unknown argument " << a << "\n";
      return false;
    }
  }
  for (const std::string& k : o->kinds) {
    bool known = false;
    for (const std::string& s : AllSituationKinds()) known |= s == k;
    if (!known) {
      std::cerr << "reference_check: unknown kind " << k << "\n";
      return false;
    }
  }
  return !o->kinds.empty();
}

// Audits through the real binary: writes the log, runs
// `gunbai audit --format=json`, parses the report.
bool AuditWithBinary(const std::string& gunbai, const Situation& s,
                     v1::AuditReport* report) {
  const std::string path =
      std::filesystem::temp_directory_path() /
      ("reference_check_" + std::to_string(::getpid()) + ".textproto");
  std::ofstream(path) << SituationText(s);
  const std::string cmd = gunbai + " audit --format=json " + path;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) return false;
  std::string json;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;)
    json.append(buf, n);
  ::pclose(pipe);
  google::protobuf::util::JsonParseOptions opts;
  opts.ignore_unknown_fields = true;
  return google::protobuf::util::JsonStringToMessage(json, report, opts).ok();
}

struct Group {
  std::uint64_t situations = 0;
  std::string pending_tag;  // "" when not explained by a pending reading
  std::size_t best_size = 0;
  std::uint64_t best_seed = 0;
  std::string best_text;
  std::string example;  // one finding's message
};

struct KindCounts {
  std::uint64_t situations = 0, agree = 0, disagree = 0;
  std::uint64_t disagree_pending_only = 0;
  std::map<std::string, Group> groups;  // by rule id (+ pending tag)
};

std::string FindingsText(const v1::AuditReport& r) {
  std::string out;
  for (const v1::Finding& f : r.findings()) {
    out += "#   seq " + std::to_string(f.seq()) + " " + f.rule_id() + " [" +
           f.subject() + "]: " + f.message();
    if (!f.claimed().empty())
      out += " (claimed " + f.claimed() + "; computed " + f.computed() + ")";
    out += "\n";
  }
  return out;
}

int Run(const Options& o) {
  auto ruleset = replay::BuiltinRuleset("daimyo");
  if (!ruleset.ok()) {
    std::cerr << "reference_check: " << ruleset.status() << "\n";
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  std::map<std::string, KindCounts> counts;
  for (std::uint64_t i = o.seed_from; i < o.seed_from + o.count; ++i) {
    const std::string& kind = o.kinds[i % o.kinds.size()];
    const Situation s = MakeSituation(kind, i);
    if (o.print) {
      std::cout << SituationText(s);
      continue;
    }
    v1::AuditReport report;
    if (!o.gunbai.empty()) {
      if (!AuditWithBinary(o.gunbai, s, &report)) {
        std::cerr << "reference_check: gunbai failed on seed " << i << "\n";
        return 2;
      }
    } else {
      auto r = replay::AuditLog(s.log, *ruleset);
      if (!r.ok()) {
        std::cerr << "reference_check: seed " << i << ": " << r.status() << "\n"
                  << SituationText(s);
        return 2;
      }
      report = *r;
    }
    KindCounts& k = counts[kind];
    ++k.situations;
    // The findings the model expects (a table volley it finds illegal) are
    // agreement; any other, or one of them missing, is not.
    std::vector<const v1::Finding*> unexpected;
    std::set<std::string> matched;
    for (const v1::Finding& f : report.findings()) {
      if (s.optional_findings.count(f.rule_id())) continue;
      auto it = s.expected_findings.find(f.rule_id());
      if (it != s.expected_findings.end() && it->second == f.seq()) {
        matched.insert(f.rule_id());
        continue;
      }
      unexpected.push_back(&f);
    }
    std::vector<std::pair<std::string, std::uint64_t>> missing;
    for (const auto& [id, seq] : s.expected_findings)
      if (!matched.count(id)) missing.emplace_back(id, seq);
    if (unexpected.empty() && missing.empty()) {
      ++k.agree;
      continue;
    }
    ++k.disagree;
    bool all_pending = true;
    std::set<std::string> seen;
    const std::string text =
        SituationText(s) + "# engine findings:\n" + FindingsText(report);
    auto count = [&](const std::string& key, const std::string& tag,
                     const std::string& example) {
      if (!seen.insert(key).second) return;
      Group& g = k.groups[key];
      ++g.situations;
      g.pending_tag = tag;
      if (g.best_text.empty() || text.size() < g.best_size) {
        g.best_size = text.size();
        g.best_seed = i;
        g.best_text = text;
        g.example = example;
      }
    };
    for (const v1::Finding* f : unexpected) {
      const std::string tag =
          PendingTagFor(s.pending_tags, f->rule_id(), f->seq());
      if (tag.empty()) all_pending = false;
      count(f->rule_id() + (tag.empty() ? "" : " (pending " + tag + ")"), tag,
            "seq " + std::to_string(f->seq()) + ": " + f->message());
    }
    for (const auto& [id, seq] : missing) {
      const std::string tag = PendingTagFor(s.pending_tags, "missing " + id, seq);
      if (tag.empty()) all_pending = false;
      count("missing " + id + (tag.empty() ? "" : " (pending " + tag + ")"),
            tag,
            "seq " + std::to_string(seq) + ": the model expects " + id +
                "; the engine does not report it");
    }
    if (all_pending) ++k.disagree_pending_only;
    if (o.verbose) std::cerr << text;
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  bool failed = false;
  if (!o.keep_dir.empty()) std::filesystem::create_directories(o.keep_dir);
  for (const auto& [kind, k] : counts) {
    std::printf(
        "%-7s situations %llu  agree %llu  disagree %llu (pending only %llu)\n",
        kind.c_str(), static_cast<unsigned long long>(k.situations),
        static_cast<unsigned long long>(k.agree),
        static_cast<unsigned long long>(k.disagree),
        static_cast<unsigned long long>(k.disagree_pending_only));
    for (const auto& [key, g] : k.groups) {
      if (g.pending_tag.empty()) failed = true;
      std::string where;
      if (!o.keep_dir.empty()) {
        std::string name = kind + "-" + key;
        for (char& c : name)
          if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' &&
              c != '.')
            c = '_';
        where = o.keep_dir + "/" + name + ".textproto";
        std::ofstream(where) << g.best_text;
      }
      std::printf("    %-60s %6llu  seed %llu %s\n        %s\n", key.c_str(),
                  static_cast<unsigned long long>(g.situations),
                  static_cast<unsigned long long>(g.best_seed), where.c_str(),
                  g.example.substr(0, 200).c_str());
    }
  }
  std::printf("%llu situations in %.1f s; %s\n",
              static_cast<unsigned long long>(o.count), secs,
              failed ? "DISAGREEMENTS outside the pending list"
                     : "no disagreement outside the pending list");
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace gunbai::reference

int main(int argc, char** argv) {
  gunbai::reference::Options o;
  if (!gunbai::reference::ParseArgs(argc, argv, &o)) return 2;
  return gunbai::reference::Run(o);
}
