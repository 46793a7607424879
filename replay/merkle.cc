#include "replay/merkle.h"

#include <openssl/evp.h>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace gunbai::replay {

namespace {

// SHA-256 of `prefix` (one byte, or none when negative) then `a` then `b`.
MerkleHash Sha256Of(int prefix, absl::string_view a, absl::string_view b) {
  MerkleHash out;
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
  if (prefix >= 0) {
    const unsigned char p = static_cast<unsigned char>(prefix);
    EVP_DigestUpdate(ctx, &p, 1);
  }
  EVP_DigestUpdate(ctx, a.data(), a.size());
  EVP_DigestUpdate(ctx, b.data(), b.size());
  unsigned int length = 0;
  EVP_DigestFinal_ex(ctx, out.data(), &length);
  EVP_MD_CTX_free(ctx);
  return out;
}

absl::string_view View(const MerkleHash& h) {
  return absl::string_view(reinterpret_cast<const char*>(h.data()), h.size());
}

// The largest power of two below n (n > 1).
std::uint64_t SplitOf(std::uint64_t n) {
  std::uint64_t k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

bool IsPowerOfTwo(std::uint64_t n) { return n != 0 && (n & (n - 1)) == 0; }

int Log2(std::uint64_t n) {
  int k = 0;
  while ((std::uint64_t{1} << k) < n) ++k;
  return k;
}

}  // namespace

MerkleHash MerkleLeafHash(absl::string_view bytes) {
  return Sha256Of(0x00, bytes, {});
}

MerkleHash MerkleNodeHash(const MerkleHash& left, const MerkleHash& right) {
  return Sha256Of(0x01, View(left), View(right));
}

MerkleHash MerkleEmptyRoot() { return Sha256Of(-1, {}, {}); }

std::string MerkleHex(const MerkleHash& hash) {
  return absl::BytesToHexString(View(hash));
}

void MerkleTree::Append(const MerkleHash& leaf_hash) {
  if (levels_.empty()) levels_.emplace_back();
  levels_[0].push_back(leaf_hash);
  ++size_;
  // Each level whose last two subtrees now pair completes one above.
  for (std::size_t k = 0; levels_[k].size() % 2 == 0; ++k) {
    if (k + 1 == levels_.size()) levels_.emplace_back();
    const std::vector<MerkleHash>& level = levels_[k];
    levels_[k + 1].push_back(
        MerkleNodeHash(level[level.size() - 2], level[level.size() - 1]));
  }
}

MerkleHash MerkleTree::Subtree(std::uint64_t begin, std::uint64_t end) const {
  const std::uint64_t n = end - begin;
  if (IsPowerOfTwo(n) && begin % n == 0) {
    return levels_[static_cast<std::size_t>(Log2(n))]
                  [static_cast<std::size_t>(begin / n)];
  }
  const std::uint64_t k = SplitOf(n);
  return MerkleNodeHash(Subtree(begin, begin + k), Subtree(begin + k, end));
}

absl::StatusOr<MerkleHash> MerkleTree::Root(std::uint64_t tree_size) const {
  if (tree_size > size_) {
    return absl::OutOfRangeError(absl::StrCat(
        "the tree has ", size_, " leaves, not ", tree_size, " yet"));
  }
  if (tree_size == 0) return MerkleEmptyRoot();
  return Subtree(0, tree_size);
}

void MerkleTree::Path(std::uint64_t index, std::uint64_t begin,
                      std::uint64_t end, std::vector<MerkleHash>& out) const {
  if (end - begin <= 1) return;
  const std::uint64_t k = SplitOf(end - begin);
  if (index < begin + k) {
    Path(index, begin, begin + k, out);
    out.push_back(Subtree(begin + k, end));
  } else {
    Path(index, begin + k, end, out);
    out.push_back(Subtree(begin, begin + k));
  }
}

absl::StatusOr<std::vector<MerkleHash>> MerkleTree::InclusionProof(
    std::uint64_t index, std::uint64_t tree_size) const {
  if (tree_size > size_ || index >= tree_size) {
    return absl::OutOfRangeError(absl::StrCat(
        "no leaf ", index, " in a tree of ", tree_size, " (the tree has ",
        size_, " leaves; leaves count from 0)"));
  }
  std::vector<MerkleHash> out;
  Path(index, 0, tree_size, out);
  return out;
}

void MerkleTree::SubProof(std::uint64_t m, std::uint64_t begin,
                          std::uint64_t end, bool whole,
                          std::vector<MerkleHash>& out) const {
  const std::uint64_t n = end - begin;
  if (m == n) {
    if (!whole) out.push_back(Subtree(begin, end));
    return;
  }
  const std::uint64_t k = SplitOf(n);
  if (m <= k) {
    SubProof(m, begin, begin + k, whole, out);
    out.push_back(Subtree(begin + k, end));
  } else {
    SubProof(m - k, begin + k, end, false, out);
    out.push_back(Subtree(begin, begin + k));
  }
}

absl::StatusOr<std::vector<MerkleHash>> MerkleTree::ConsistencyProof(
    std::uint64_t first, std::uint64_t second) const {
  if (second > size_ || first == 0 || first > second) {
    return absl::OutOfRangeError(
        absl::StrCat("no consistency proof from ", first, " to ", second,
                     " leaves (give 0 < first <= second <= ", size_, ")"));
  }
  std::vector<MerkleHash> out;
  if (first < second) SubProof(first, 0, second, true, out);
  return out;
}

bool VerifyMerkleInclusion(std::uint64_t index, std::uint64_t tree_size,
                           const MerkleHash& leaf_hash,
                           const std::vector<MerkleHash>& proof,
                           const MerkleHash& root) {
  if (index >= tree_size) return false;
  std::uint64_t fn = index;
  std::uint64_t sn = tree_size - 1;
  MerkleHash r = leaf_hash;
  for (const MerkleHash& p : proof) {
    if (sn == 0) return false;
    if ((fn & 1) != 0 || fn == sn) {
      r = MerkleNodeHash(p, r);
      if ((fn & 1) == 0) {
        while ((fn & 1) == 0 && fn != 0) {
          fn >>= 1;
          sn >>= 1;
        }
      }
    } else {
      r = MerkleNodeHash(r, p);
    }
    fn >>= 1;
    sn >>= 1;
  }
  return sn == 0 && r == root;
}

bool VerifyMerkleConsistency(std::uint64_t first, std::uint64_t second,
                             const MerkleHash& first_root,
                             const MerkleHash& second_root,
                             const std::vector<MerkleHash>& proof) {
  if (first > second) return false;
  if (first == 0) return proof.empty() && first_root == MerkleEmptyRoot();
  if (first == second) return proof.empty() && first_root == second_root;
  std::vector<MerkleHash> path = proof;
  if (IsPowerOfTwo(first)) path.insert(path.begin(), first_root);
  if (path.empty()) return false;
  std::uint64_t fn = first - 1;
  std::uint64_t sn = second - 1;
  while ((fn & 1) != 0) {
    fn >>= 1;
    sn >>= 1;
  }
  MerkleHash fr = path[0];
  MerkleHash sr = path[0];
  for (std::size_t i = 1; i < path.size(); ++i) {
    const MerkleHash& c = path[i];
    if (sn == 0) return false;
    if ((fn & 1) != 0 || fn == sn) {
      fr = MerkleNodeHash(c, fr);
      sr = MerkleNodeHash(c, sr);
      if ((fn & 1) == 0) {
        while ((fn & 1) == 0 && fn != 0) {
          fn >>= 1;
          sn >>= 1;
        }
      }
    } else {
      sr = MerkleNodeHash(sr, c);
    }
    fn >>= 1;
    sn >>= 1;
  }
  return fr == first_root && sr == second_root && sn == 0;
}

}  // namespace gunbai::replay
