#include "service/wire_request.h"

#include <algorithm>

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

}  // namespace gunbai::service
