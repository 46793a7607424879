// gunbai.v1.RulesService: the rules docs' readings of the rule ids (as
// `gunbai explain`) and the rulesets gunbaid replays under, for clients that
// explain findings or build logs (the web app's rules and ruling pages).
// Thread-safe: it reads only what does not change once gunbaid serves.
#ifndef GUNBAI_SERVICE_DAEMON_RULES_SERVICE_H_
#define GUNBAI_SERVICE_DAEMON_RULES_SERVICE_H_

#include "gunbai/v1/rules_service.grpc.pb.h"
#include "replay/ruleset_loader.h"

namespace gunbai::service {

class RulesServiceImpl final : public gunbai::v1::RulesService::Service {
 public:
  // `rulesets` (not owned) must outlive the service.
  explicit RulesServiceImpl(const replay::RulesetCatalog* rulesets);

  grpc::Status ExplainRule(grpc::ServerContext* context,
                           const gunbai::v1::ExplainRuleRequest* request,
                           gunbai::v1::ExplainRuleResponse* response) override;
  grpc::Status DescribeRulesets(
      grpc::ServerContext* context,
      const gunbai::v1::DescribeRulesetsRequest* request,
      gunbai::v1::DescribeRulesetsResponse* response) override;

 private:
  // Built once: the catalog does not change once gunbaid serves.
  gunbai::v1::DescribeRulesetsResponse description_;
};

// The enums of the battle log's schema that a unit, a leader, a unit's
// state or an event use, sorted by full name (DescribeRulesets's `enums`).
void DescribeLogEnums(gunbai::v1::DescribeRulesetsResponse& response);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_DAEMON_RULES_SERVICE_H_
