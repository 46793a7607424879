#include "service/daemon/wire_request.h"

#include <algorithm>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "replay/parse_cost.h"

namespace gunbai::service {

WireRequestStream::WireRequestStream(grpc::ByteBuffer& buffer) {
  if (!buffer.Dump(&slices_).ok()) slices_.clear();
  buffer.Clear();
}

bool WireRequestStream::Next(const void** data, int* size) {
  while (index_ < slices_.size() && offset_ == slices_[index_].size()) {
    slices_[index_] = grpc::Slice();  // Parsed: give its memory back.
    ++index_;
    offset_ = 0;
  }
  if (index_ == slices_.size()) return false;
  const grpc::Slice& slice = slices_[index_];
  *data = slice.begin() + offset_;
  *size = static_cast<int>(slice.size() - offset_);
  offset_ = slice.size();
  byte_count_ += *size;
  return true;
}

void WireRequestStream::BackUp(int count) {
  offset_ -= static_cast<std::size_t>(count);
  byte_count_ -= count;
}

bool WireRequestStream::Skip(int count) {
  while (count > 0) {
    const void* data;
    int size;
    if (!Next(&data, &size)) return false;
    const int used = std::min(count, size);
    BackUp(size - used);
    count -= used;
  }
  return true;
}

namespace {

// The model of each request type, built on first use and kept.
const replay::ParseCostModel& ModelOf(
    const google::protobuf::Descriptor& type) {
  static absl::Mutex mu;
  static auto* const models ABSL_GUARDED_BY(mu) =
      new absl::flat_hash_map<const google::protobuf::Descriptor*,
                              std::unique_ptr<const replay::ParseCostModel>>();
  absl::MutexLock lock(&mu);
  auto& model = (*models)[&type];
  if (model == nullptr) model = std::make_unique<replay::ParseCostModel>(type);
  return *model;
}

std::string Mebibytes(std::int64_t bytes) {
  return absl::StrFormat("%.1f MiB", static_cast<double>(bytes) / (1 << 20));
}

}  // namespace

grpc::Status CheckParseCost(const grpc::ByteBuffer& buffer,
                            const google::protobuf::Descriptor& type,
                            absl::string_view method) {
  const std::int64_t wire = static_cast<std::int64_t>(buffer.Length());
  const std::int64_t allowed =
      kParseCostPerWireByte * wire + kParseCostSlackBytes;
  const replay::ParseCostModel& model = ModelOf(type);
  if (wire * model.MaxBytesPerWireByte() <= allowed) return grpc::Status::OK;
  std::vector<grpc::Slice> slices;
  if (!buffer.Dump(&slices).ok()) return grpc::Status::OK;
  std::vector<std::unique_ptr<google::protobuf::io::ArrayInputStream>> arrays;
  std::vector<google::protobuf::io::ZeroCopyInputStream*> streams;
  arrays.reserve(slices.size());
  streams.reserve(slices.size());
  for (const grpc::Slice& slice : slices) {
    arrays.push_back(std::make_unique<google::protobuf::io::ArrayInputStream>(
        slice.begin(), static_cast<int>(slice.size())));
    streams.push_back(arrays.back().get());
  }
  google::protobuf::io::ConcatenatingInputStream input(
      streams.data(), static_cast<int>(streams.size()));
  const replay::ParseCost cost = model.Estimate(input, "request");
  if (cost.bytes <= allowed) return grpc::Status::OK;
  std::string where =
      cost.longest_list_entries * 16 >= wire
          ? absl::StrFormat(
                " Most of it is %s, a list of %d entries: a list names each "
                "unit, modifier or die once, and no list can use more "
                "entries than the order of battle has units. Send it "
                "without the repeats.",
                cost.longest_list, cost.longest_list_entries)
          : std::string(
                " It is made of many small fields (empty messages or short "
                "strings, over and over); an honest log parses into about "
                "ten times its size. Check what wrote it.");
  return grpc::Status(
      grpc::StatusCode::INVALID_ARGUMENT,
      absl::StrCat(method, ": this request of ", Mebibytes(wire),
                   " would take about ", Mebibytes(cost.bytes),
                   " of memory to read, more than gunbaid reads for a "
                   "request of its size (",
                   kParseCostPerWireByte, " times it plus ",
                   Mebibytes(kParseCostSlackBytes), ").", where));
}

grpc::Status NoRequest(absl::string_view method) {
  return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                      absl::StrCat("the call to ", method,
                                   " ended before its request was sent"));
}

bool ParseWire(grpc::ByteBuffer& request, google::protobuf::Message& message) {
  WireRequestStream stream(request);
  return message.ParseFromZeroCopyStream(&stream);
}

}  // namespace gunbai::service
