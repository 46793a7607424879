// A live game's events as the leaves of a Merkle tree, as Certificate
// Transparency keeps its log (RFC 9162, section 2.1): a leaf hash is
// SHA-256(0x00 || leaf bytes), a node SHA-256(0x01 || left || right), the
// tree of n leaves split at the largest power of two below n. An inclusion
// proof shows an event is in the tree of a given size; a consistency proof
// shows the tree of size n extends the tree of size m, so that a head both
// players signed at turn 5 binds every later head to the same first events.
// MerkleTree keeps the hash of every complete subtree, filled as leaves are
// appended (O(log n) a leaf, no rebuild), and answers any earlier size's
// root and proofs from them. Thread-compatible; the Verify functions are
// thread-safe.
#ifndef GUNBAI_REPLAY_MERKLE_H_
#define GUNBAI_REPLAY_MERKLE_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gunbai::replay {

using MerkleHash = std::array<std::uint8_t, 32>;

// SHA-256(0x00 || bytes): the hash of a leaf.
MerkleHash MerkleLeafHash(absl::string_view bytes);
// SHA-256(0x01 || left || right): the hash of an inner node.
MerkleHash MerkleNodeHash(const MerkleHash& left, const MerkleHash& right);
// The root of the empty tree: SHA-256 of no bytes.
MerkleHash MerkleEmptyRoot();
// Lowercase hex of a hash.
std::string MerkleHex(const MerkleHash& hash);

class MerkleTree {
 public:
  // Appends a leaf by its hash (MerkleLeafHash of the leaf's bytes).
  void Append(const MerkleHash& leaf_hash);
  std::uint64_t size() const { return size_; }
  // The hash of leaf `index` (< size()), as appended.
  const MerkleHash& LeafHash(std::uint64_t index) const {
    return levels_[0][static_cast<std::size_t>(index)];
  }

  // The root of the tree of the first `tree_size` leaves (0 < tree_size
  // <= size(), or 0: the empty tree's). OUT_OF_RANGE past size().
  absl::StatusOr<MerkleHash> Root(std::uint64_t tree_size) const;
  // The audit path of leaf `index` in the tree of `tree_size` leaves
  // (RFC 9162 PATH), from the leaf's sibling up: index < tree_size <=
  // size().
  absl::StatusOr<std::vector<MerkleHash>> InclusionProof(
      std::uint64_t index, std::uint64_t tree_size) const;
  // The proof that the tree of `second` leaves extends the tree of `first`
  // (RFC 9162 PROOF): 0 < first <= second <= size(); empty when equal.
  absl::StatusOr<std::vector<MerkleHash>> ConsistencyProof(
      std::uint64_t first, std::uint64_t second) const;

 private:
  // The hash of leaves [begin, end), end > begin, from the complete
  // subtrees stored.
  MerkleHash Subtree(std::uint64_t begin, std::uint64_t end) const;
  void Path(std::uint64_t index, std::uint64_t begin, std::uint64_t end,
            std::vector<MerkleHash>& out) const;
  void SubProof(std::uint64_t m, std::uint64_t begin, std::uint64_t end,
                bool whole, std::vector<MerkleHash>& out) const;

  std::uint64_t size_ = 0;
  // levels_[k][i]: the hash of the complete subtree of leaves
  // [i * 2^k, (i + 1) * 2^k); levels_[0] the leaf hashes.
  std::vector<std::vector<MerkleHash>> levels_;
};

// RFC 9162 2.1.3.2: true when `proof` shows the leaf of hash `leaf_hash` at
// `index` in the tree of `tree_size` leaves whose root is `root`.
bool VerifyMerkleInclusion(std::uint64_t index, std::uint64_t tree_size,
                           const MerkleHash& leaf_hash,
                           const std::vector<MerkleHash>& proof,
                           const MerkleHash& root);

// RFC 9162 2.1.4.2: true when `proof` shows the tree of `second` leaves
// (root `second_root`) extends the tree of `first` (root `first_root`).
// The empty tree (first 0) is extended by every tree, with an empty proof.
bool VerifyMerkleConsistency(std::uint64_t first, std::uint64_t second,
                             const MerkleHash& first_root,
                             const MerkleHash& second_root,
                             const std::vector<MerkleHash>& proof);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_MERKLE_H_
