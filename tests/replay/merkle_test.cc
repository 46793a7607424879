// The Merkle tree of a live game's events (replay/merkle.h), checked
// against what is not itself: the published RFC 6962/9162 test vectors of
// the Certificate Transparency project (the eight leaves below, each tree
// size's root, audit paths and consistency proofs; the same values a short
// Python hashlib computation of the RFC's definitions gives), and, for
// every tree up to 70 leaves, a naive recursive MTH written here from the
// RFC's definition, every inclusion and consistency proof verified and
// every one-bit change refused.
#include "replay/merkle.h"

#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "gtest/gtest.h"

namespace gunbai::replay {
namespace {

std::vector<std::string> TestLeaves() {
  return {std::string(""),
          std::string("\x00", 1),
          std::string("\x10"),
          std::string("\x20\x21"),
          std::string("\x30\x31"),
          std::string("\x40\x41\x42\x43"),
          std::string("\x50\x51\x52\x53\x54\x55\x56\x57"),
          std::string("\x60\x61\x62\x63\x64\x65\x66\x67\x68\x69\x6a\x6b\x6c"
                      "\x6d\x6e\x6f")};
}

MerkleTree TreeOf(const std::vector<std::string>& leaves) {
  MerkleTree tree;
  for (const std::string& leaf : leaves) tree.Append(MerkleLeafHash(leaf));
  return tree;
}

std::vector<std::string> Hex(const std::vector<MerkleHash>& hashes) {
  std::vector<std::string> out;
  for (const MerkleHash& h : hashes) out.push_back(MerkleHex(h));
  return out;
}

MerkleHash FromHex(const std::string& hex) {
  const std::string bytes = absl::HexStringToBytes(hex);
  MerkleHash h{};
  std::copy(bytes.begin(), bytes.end(), h.begin());
  return h;
}

TEST(MerkleTest, PublishedRootsOfEachTreeSize) {
  const char* const kRoots[] = {
      "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
      "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
      "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
      "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
      "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
      "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
      "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
      "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"};
  const MerkleTree tree = TreeOf(TestLeaves());
  EXPECT_EQ(MerkleHex(*tree.Root(0)),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  for (int n = 1; n <= 8; ++n) {
    EXPECT_EQ(MerkleHex(*tree.Root(n)), kRoots[n - 1]) << n << " leaves";
  }
  EXPECT_FALSE(tree.Root(9).ok());
}

TEST(MerkleTest, PublishedAuditPathsAndConsistencyProofs) {
  const MerkleTree tree = TreeOf(TestLeaves());
  EXPECT_EQ(
      Hex(*tree.InclusionProof(0, 8)),
      (std::vector<std::string>{
          "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
          "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
          "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"}));
  EXPECT_EQ(
      Hex(*tree.InclusionProof(5, 8)),
      (std::vector<std::string>{
          "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
          "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
          "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"}));
  EXPECT_EQ(
      Hex(*tree.ConsistencyProof(3, 7)),
      (std::vector<std::string>{
          "0298d122906dcfc10892cb53a73992fc5b9f493ea4c9badb27b791b4127a7fe7",
          "07506a85fd9dd2f120eb694f86011e5bb4662e5c415a62917033d4a9624487e7",
          "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
          "837dbb152e9b079010717e84e865da4ebc0fa198a806d59d31bf15accef22d0e"}));
  EXPECT_EQ(Hex(*tree.ConsistencyProof(4, 8)),
            (std::vector<std::string>{"6b47aaf29ee3c2af9af889bc1fb9254dabd311"
                                      "77f16232dd6aab035ca39bf6e4"}));
  EXPECT_TRUE(tree.ConsistencyProof(8, 8)->empty());
  EXPECT_FALSE(tree.ConsistencyProof(0, 8).ok());
  EXPECT_FALSE(tree.ConsistencyProof(5, 4).ok());
  EXPECT_FALSE(tree.InclusionProof(8, 8).ok());
}

// The RFC's MTH, written out: the oracle for the stored-subtree tree.
MerkleHash NaiveRoot(const std::vector<MerkleHash>& leaves, std::size_t begin,
                     std::size_t end) {
  if (end == begin) return MerkleEmptyRoot();
  if (end - begin == 1) return leaves[begin];
  std::size_t k = 1;
  while (k * 2 < end - begin) k *= 2;
  return MerkleNodeHash(NaiveRoot(leaves, begin, begin + k),
                        NaiveRoot(leaves, begin + k, end));
}

MerkleHash Flipped(MerkleHash h) {
  h[7] ^= 0x10;
  return h;
}

TEST(MerkleTest, EveryTreeUpTo70LeavesProvesItsLeavesAndItsPast) {
  std::vector<MerkleHash> leaves;
  MerkleTree tree;
  for (int i = 0; i < 70; ++i) {
    leaves.push_back(
        MerkleLeafHash(std::string(static_cast<std::size_t>(i), 'e')));
    tree.Append(leaves.back());
  }
  for (std::uint64_t n = 1; n <= 70; ++n) {
    const MerkleHash root = *tree.Root(n);
    ASSERT_EQ(root, NaiveRoot(leaves, 0, n)) << n;
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::vector<MerkleHash> proof = *tree.InclusionProof(i, n);
      // At most ceil(log2 n) hashes.
      EXPECT_LE(proof.size(), 7u);
      EXPECT_TRUE(VerifyMerkleInclusion(i, n, leaves[i], proof, root))
          << i << " in " << n;
      EXPECT_FALSE(
          VerifyMerkleInclusion(i, n, Flipped(leaves[i]), proof, root));
      EXPECT_FALSE(
          VerifyMerkleInclusion(i, n, leaves[i], proof, Flipped(root)));
      if (!proof.empty()) {
        std::vector<MerkleHash> bad = proof;
        bad.back() = Flipped(bad.back());
        EXPECT_FALSE(VerifyMerkleInclusion(i, n, leaves[i], bad, root));
      }
      if (n > 1) {
        EXPECT_FALSE(
            VerifyMerkleInclusion((i + 1) % n, n, leaves[i], proof, root));
      }
    }
    for (std::uint64_t m = 1; m <= n; ++m) {
      const MerkleHash first = *tree.Root(m);
      const std::vector<MerkleHash> proof = *tree.ConsistencyProof(m, n);
      EXPECT_LE(proof.size(), 14u);
      EXPECT_TRUE(VerifyMerkleConsistency(m, n, first, root, proof))
          << m << " to " << n;
      if (m < n) {
        EXPECT_FALSE(
            VerifyMerkleConsistency(m, n, Flipped(first), root, proof));
        EXPECT_FALSE(
            VerifyMerkleConsistency(m, n, first, Flipped(root), proof));
        std::vector<MerkleHash> bad = proof;
        bad.front() = Flipped(bad.front());
        EXPECT_FALSE(VerifyMerkleConsistency(m, n, first, root, bad));
      }
    }
    EXPECT_TRUE(VerifyMerkleConsistency(0, n, MerkleEmptyRoot(), root, {}));
  }
}

// A published root read back from hex verifies its own proof: the proof
// and the check are those a player's client makes with a head in hand.
TEST(MerkleTest, AProofVerifiesAgainstAPublishedHead) {
  const MerkleTree tree = TreeOf(TestLeaves());
  const MerkleHash head = FromHex(
      "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328");
  EXPECT_TRUE(VerifyMerkleInclusion(5, 8, MerkleLeafHash(TestLeaves()[5]),
                                    *tree.InclusionProof(5, 8), head));
}

}  // namespace
}  // namespace gunbai::replay
