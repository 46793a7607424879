#include "service/daemon/rules_service.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "google/protobuf/descriptor.h"
#include "gunbai/v1/battle_log.pb.h"
#include "replay/explain.h"

namespace gunbai::service {

namespace {

constexpr std::size_t kMaxQueryBytes = 200;

// Adds every enum `type`'s fields use, and those of its message fields,
// to `enums` (each message walked once).
void CollectEnums(
    const google::protobuf::Descriptor& type,
    std::set<const google::protobuf::Descriptor*>& seen,
    std::map<std::string, const google::protobuf::EnumDescriptor*>& enums) {
  if (!seen.insert(&type).second) return;
  for (int i = 0; i < type.field_count(); ++i) {
    const google::protobuf::FieldDescriptor& field = *type.field(i);
    if (field.enum_type() != nullptr) {
      enums.emplace(field.enum_type()->full_name(), field.enum_type());
    } else if (field.message_type() != nullptr) {
      CollectEnums(*field.message_type(), seen, enums);
    }
  }
}

}  // namespace

void DescribeLogEnums(v1::DescribeRulesetsResponse& response) {
  std::set<const google::protobuf::Descriptor*> seen;
  std::map<std::string, const google::protobuf::EnumDescriptor*> enums;
  for (const google::protobuf::Descriptor* type :
       {v1::Unit::descriptor(), v1::Leader::descriptor(),
        v1::UnitState::descriptor(), v1::Event::descriptor()}) {
    CollectEnums(*type, seen, enums);
  }
  for (const auto& [name, type] : enums) {
    v1::EnumDescription& out = *response.add_enums();
    out.set_name(name);
    for (int i = 0; i < type->value_count(); ++i) {
      if (type->value(i)->number() == 0) continue;
      out.add_values(type->value(i)->name());
    }
  }
}

RulesServiceImpl::RulesServiceImpl(const replay::RulesetCatalog* rulesets) {
  std::vector<const replay::LoadedRuleset*> all = rulesets->all();
  std::stable_sort(
      all.begin(), all.end(),
      [](const replay::LoadedRuleset* a, const replay::LoadedRuleset* b) {
        return a->plugin->name < b->plugin->name;
      });
  for (const replay::LoadedRuleset* ruleset : all) {
    v1::RulesetDescription& out = *description_.add_rulesets();
    out.set_name(std::string(ruleset->plugin->name));
    out.set_title(std::string(ruleset->plugin->title));
    out.set_digest(ruleset->digest);
    *out.mutable_data() = ruleset->data;
  }
  DescribeLogEnums(description_);
}

grpc::Status RulesServiceImpl::ExplainRule(
    grpc::ServerContext*, const v1::ExplainRuleRequest* request,
    v1::ExplainRuleResponse* response) {
  if (request->query().size() > kMaxQueryBytes) {
    return grpc::Status(
        grpc::StatusCode::INVALID_ARGUMENT,
        "the query is longer than any rule id (" +
            std::to_string(kMaxQueryBytes) +
            " bytes at most): give a rule id as a finding names it, e.g. "
            "daimyo.fire.hit");
  }
  replay::RuleLookup lookup =
      replay::ExplainRule(request->query(), request->list());
  *response->mutable_explanation() = std::move(lookup.answer);
  response->set_exact(lookup.exact);
  return grpc::Status::OK;
}

grpc::Status RulesServiceImpl::DescribeRulesets(
    grpc::ServerContext*, const v1::DescribeRulesetsRequest*,
    v1::DescribeRulesetsResponse* response) {
  *response = description_;
  return grpc::Status::OK;
}

}  // namespace gunbai::service
