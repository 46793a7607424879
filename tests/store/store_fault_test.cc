// Storage faults under SqliteGameStore: the store opens its file on the
// fault-injecting VFS of tests/store/fault_vfs.h, and each test fails the
// N-th write or the N-th sync of one call, for every N the call reaches, as
// a full disk and as an I/O error, with group commit on and off. After each
// fault it checks that
//  (a) the call failed with a status that says the storage failed and what
//      to do, or succeeded;
//  (b) nothing was acknowledged that is not durable: closed and reopened on
//      the healthy default VFS, the store holds exactly the acknowledged
//      events, in order, with an intact hash chain;
//  (c) the same store object, not reopened, takes the next append.
#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/game_service.pb.h"
#include "replay/ledger.h"
#include "service/store/game_store.h"
#include "service/store/sqlite_game_store.h"
#include "tests/store/fault_vfs.h"

namespace gunbai::service {
namespace {

namespace v1 = ::gunbai::v1;
using ::gunbai::testing::FaultVfs;
using ::testing::AnyOf;
using ::testing::HasSubstr;

using Operation = FaultVfs::Operation;
using Fault = FaultVfs::Fault;

// The chain of a test game starts from the hash of no terms.
const std::string kGenesis(64, '0');

// A fault-test run: which call fails, how, and whether appends share
// commits.
struct FaultCase {
  Operation operation;
  Fault fault;
  bool group_commit;
  // Every commit is followed by a WAL checkpoint (wal_autocheckpoint=1), so
  // the loop over N also fails the checkpoint's writes into the database
  // file and its syncs.
  bool checkpoint_each_commit = false;
};

std::string CaseName(const ::testing::TestParamInfo<FaultCase>& info) {
  return absl::StrCat(
      info.param.operation == Operation::kWrite ? "Write" : "Sync",
      info.param.fault == Fault::kDiskFull ? "DiskFull" : "IoError",
      info.param.group_commit ? "GroupCommit" : "OneCommitEach",
      info.param.checkpoint_each_commit ? "CheckpointEachCommit" : "");
}

std::string FreshDataDir(absl::string_view what) {
  static std::atomic<int> counter{0};
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) /
      absl::StrCat("store_fault_", what, "_", getpid(), "_", counter++);
  std::filesystem::remove_all(dir);
  return dir.string();
}

GameRecord MakeGame(const std::string& game_id) {
  GameRecord game;
  game.game_id = game_id;
  game.header.set_game_id(game_id);
  game.secret_hex = "5ec7e7";
  return game;
}

// A game's events as its caller tracks them: those acknowledged, chained.
class Stream {
 public:
  explicit Stream(std::string game_id) : game_id_(std::move(game_id)) {}

  // Returns the next `count` events, chained from the acknowledged head,
  // with ids "<game>-<seq>-<tag>" (a refused batch's retry gets a new tag).
  std::vector<v1::StoredEvent> NextBatch(int count, absl::string_view tag) {
    std::vector<v1::StoredEvent> batch;
    std::string head = Head();
    for (int i = 0; i < count; ++i) {
      v1::StoredEvent& stored = batch.emplace_back();
      const uint64_t seq = acknowledged_.size() + i + 1;
      v1::Event& event = *stored.mutable_event();
      event.set_seq(seq);
      event.set_turn(1 + seq / 10);
      event.set_clan("oda");
      event.mutable_move()->set_unit(absl::StrCat("unit-", seq % 7));
      stored.set_event_id(absl::StrCat(game_id_, "-", seq, "-", tag));
      head = replay::ChainHash(head, event);
      stored.set_chain_hash(head);
    }
    return batch;
  }

  void Acknowledge(const std::vector<v1::StoredEvent>& batch) {
    acknowledged_.insert(acknowledged_.end(), batch.begin(), batch.end());
  }

  std::string Head() const {
    return acknowledged_.empty() ? kGenesis : acknowledged_.back().chain_hash();
  }
  uint64_t version() const { return acknowledged_.size(); }
  const std::string& game_id() const { return game_id_; }
  const std::vector<v1::StoredEvent>& acknowledged() const {
    return acknowledged_;
  }

 private:
  std::string game_id_;
  std::vector<v1::StoredEvent> acknowledged_;
};

absl::StatusOr<std::unique_ptr<SqliteGameStore>> OpenOnFaultVfs(
    const std::string& dir, bool group_commit, bool checkpoint_each_commit) {
  SqliteGameStore::Options options;
  options.vfs = FaultVfs::kName;
  options.group_commit = group_commit;
  if (checkpoint_each_commit) options.wal_autocheckpoint_pages = 1;
  return SqliteGameStore::Open(dir, options);
}

absl::StatusOr<std::unique_ptr<SqliteGameStore>> OpenOnFaultVfs(
    const std::string& dir, const FaultCase& fault_case) {
  return OpenOnFaultVfs(dir, fault_case.group_commit,
                        fault_case.checkpoint_each_commit);
}

// Appends the next batch of `stream` and acknowledges it; fails the test
// unless the append succeeds.
void AppendOk(GameStore& store, Stream& stream, int count,
              absl::string_view tag) {
  const std::vector<v1::StoredEvent> batch = stream.NextBatch(count, tag);
  absl::StatusOr<AppendResult> result =
      store.Append(stream.game_id(), stream.version(), batch, "answer");
  ASSERT_TRUE(result.ok()) << result.status();
  stream.Acknowledge(batch);
}

// (a): a failed call says the storage failed, with the code of its fault,
// and what to do.
void ExpectStorageFailure(const absl::Status& status, Fault fault) {
  EXPECT_EQ(status.code(), fault == Fault::kDiskFull
                               ? absl::StatusCode::kResourceExhausted
                               : absl::StatusCode::kInternal)
      << status;
  EXPECT_THAT(status.message(), HasSubstr("storage failed"));
  EXPECT_THAT(status.message(), HasSubstr("nothing of this call was"));
  EXPECT_THAT(status.message(), HasSubstr("retry the call unchanged"));
}

// (b): `store` holds exactly the acknowledged events of `stream`, in
// order, byte for byte, and their chain recomputes from the genesis.
void ExpectHoldsExactly(GameStore& store, const Stream& stream) {
  absl::StatusOr<std::vector<v1::StoredEvent>> events =
      store.ReadEvents(stream.game_id(), 0);
  ASSERT_TRUE(events.ok()) << events.status();
  const std::vector<v1::StoredEvent>& want = stream.acknowledged();
  ASSERT_EQ(events->size(), want.size()) << stream.game_id();
  std::string head = kGenesis;
  for (size_t i = 0; i < want.size(); ++i) {
    const v1::StoredEvent& got = (*events)[i];
    EXPECT_EQ(got.SerializeAsString(), want[i].SerializeAsString())
        << "position " << i + 1;
    // The check `gunbai verify` makes: each hash chains from the one before.
    head = replay::ChainHash(head, got.event());
    EXPECT_EQ(got.chain_hash(), head) << "position " << i + 1;
  }
  absl::StatusOr<uint64_t> version = store.Version(stream.game_id());
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(*version, want.size());
}

// Copies the database files as a crash at this instant would leave them
// (the page cache survives a process crash) into a new directory.
std::string CrashCopy(const std::string& dir) {
  const std::string copy = FreshDataDir("crash");
  std::filesystem::create_directories(copy);
  for (const char* suffix : {"", "-wal"}) {
    const std::filesystem::path from =
        std::filesystem::path(dir) /
        absl::StrCat(SqliteGameStore::kFileName, suffix);
    std::error_code ignored;
    std::filesystem::copy_file(
        from, std::filesystem::path(copy) / from.filename(), ignored);
  }
  return copy;
}

class StoreFaultTest : public ::testing::TestWithParam<FaultCase> {
 protected:
  void SetUp() override { vfs_ = &FaultVfs::Install(); }
  void TearDown() override { vfs_->Disarm(); }

  FaultVfs* vfs_ = nullptr;
};

// One N of the append loop; returns whether the armed fault fired, false
// once the append completes before reaching its N-th call.
// `acknowledged_despite_fault` counts the Ns whose fault fired and whose
// append still succeeded.
bool RunAppendFault(FaultVfs& vfs, const FaultCase& fault_case, int64_t n,
                    int& acknowledged_despite_fault) {
  SCOPED_TRACE(absl::StrCat("fault at call ", n));
  const std::string dir = FreshDataDir("append");
  Stream stream("anegawa");
  bool fired = false;
  {
    absl::StatusOr<std::unique_ptr<SqliteGameStore>> store =
        OpenOnFaultVfs(dir, fault_case);
    EXPECT_TRUE(store.ok()) << store.status();
    if (!store.ok()) return false;
    EXPECT_TRUE((*store)->CreateGame(MakeGame(stream.game_id())).ok());
    AppendOk(**store, stream, 3, "a");
    AppendOk(**store, stream, 3, "a");

    vfs.Arm(fault_case.operation, n, fault_case.fault);
    const std::vector<v1::StoredEvent> batch = stream.NextBatch(4, "a");
    absl::StatusOr<AppendResult> result =
        (*store)->Append(stream.game_id(), stream.version(), batch, "answer");
    fired = vfs.Fired();
    vfs.Disarm();
    if (result.ok() && fired) ++acknowledged_despite_fault;
    if (result.ok()) {
      // (a) An append that returns OK is acknowledged: its commit reached
      // the disk. (A fault after the commit, in a checkpoint, is SQLite's
      // to retry and may not fail the append.)
      stream.Acknowledge(batch);
    } else {
      // (a) Only the fault may fail it, and the status says so.
      EXPECT_TRUE(fired) << result.status();
      ExpectStorageFailure(result.status(), fault_case.fault);
      // A crash now: a failed write never leaves a commit behind, so the
      // batch is gone; after a failed sync the outcome is unknown (the
      // bytes may have reached the disk), so the batch is either wholly
      // there or wholly gone, and its unchanged retry is answered from the
      // store: never part of it, never anything else.
      const std::string crashed = CrashCopy(dir);
      absl::StatusOr<std::unique_ptr<SqliteGameStore>> after =
          SqliteGameStore::Open(crashed);
      EXPECT_TRUE(after.ok()) << after.status();
      if (after.ok()) {
        absl::StatusOr<uint64_t> version = (*after)->Version(stream.game_id());
        EXPECT_TRUE(version.ok()) << version.status();
        const uint64_t with_batch = stream.version() + batch.size();
        if (fault_case.operation == Operation::kWrite) {
          EXPECT_EQ(version.value_or(0), stream.version());
        } else {
          EXPECT_THAT(version.value_or(0), AnyOf(stream.version(), with_batch));
        }
        if (version.value_or(0) == with_batch) {
          EXPECT_EQ(
              *(*after)->FindBatch(stream.game_id(), batch.front().event_id()),
              "answer");
        } else {
          ExpectHoldsExactly(**after, stream);
        }
      }
      std::filesystem::remove_all(crashed);
      // (c) The same store object, not reopened, has not stored the
      // failed batch and takes the next append at the acknowledged version
      // (a new batch: the game service replays a refused one afresh).
      ExpectHoldsExactly(**store, stream);
    }
    AppendOk(**store, stream, 2, "b");
    ExpectHoldsExactly(**store, stream);
  }
  // (b) Closed and reopened on the healthy default VFS, the file holds
  // exactly the acknowledged events, chained.
  absl::StatusOr<std::unique_ptr<SqliteGameStore>> reopened =
      SqliteGameStore::Open(dir);
  EXPECT_TRUE(reopened.ok()) << reopened.status();
  if (reopened.ok()) {
    ExpectHoldsExactly(**reopened, stream);
    AppendOk(**reopened, stream, 1, "c");
  }
  std::filesystem::remove_all(dir);
  return fired;
}

TEST_P(StoreFaultTest, AppendFailsCleanlyAtEveryCall) {
  int64_t n = 1;
  // Until the append completes without reaching its n-th call; the bound
  // only stops a runaway loop.
  int acknowledged_despite_fault = 0;
  while (RunAppendFault(*vfs_, GetParam(), n, acknowledged_despite_fault) &&
         n < 1000) {
    ++n;
  }
  EXPECT_GT(n, 1) << "the fault never fired";
  // A fault in the checkpoint that follows a commit comes after the commit
  // is durable in the WAL: SQLite leaves the checkpoint for later and the
  // append is acknowledged. So with a checkpoint after each commit some
  // faulted appends succeed (those whose N falls in the checkpoint's calls);
  // without one, every fault fails its append.
  if (GetParam().checkpoint_each_commit) {
    EXPECT_GT(acknowledged_despite_fault, 0);
  } else {
    EXPECT_EQ(acknowledged_despite_fault, 0);
  }
  ::testing::Test::RecordProperty("fault_cases", static_cast<int>(n));
  std::printf(
      "%s: %lld calls faulted (%d of them after the commit, acknowledged), "
      "the append reached no call %lld\n",
      CaseName(::testing::TestParamInfo<FaultCase>(GetParam(), 0)).c_str(),
      static_cast<long long>(n - 1), acknowledged_despite_fault,
      static_cast<long long>(n));
}

// One N of the dice-attempt loop: attempts handed out never repeat, on the
// same store after the fault or after reopening.
bool RunDiceAttemptFault(FaultVfs& vfs, const FaultCase& fault_case,
                         int64_t n) {
  SCOPED_TRACE(absl::StrCat("fault at call ", n));
  const std::string dir = FreshDataDir("dice");
  bool fired = false;
  uint64_t last = 0;
  {
    absl::StatusOr<std::unique_ptr<SqliteGameStore>> store =
        OpenOnFaultVfs(dir, fault_case);
    EXPECT_TRUE(store.ok()) << store.status();
    if (!store.ok()) return false;
    EXPECT_TRUE((*store)->CreateGame(MakeGame("anegawa")).ok());
    last = (*store)->NextDiceAttempt("anegawa").value_or(0);
    EXPECT_EQ(last, 1u);
    vfs.Arm(fault_case.operation, n, fault_case.fault);
    absl::StatusOr<uint64_t> attempt = (*store)->NextDiceAttempt("anegawa");
    fired = vfs.Fired();
    vfs.Disarm();
    if (attempt.ok()) {
      EXPECT_EQ(*attempt, last + 1);
      last = *attempt;
    } else {
      ExpectStorageFailure(attempt.status(), fault_case.fault);
    }
    // (c) The same store hands out a later attempt. A failed one may have
    // been counted (a failed sync) or not; it was never handed out, so
    // skipping it is harmless; handing out `last` again is not.
    absl::StatusOr<uint64_t> next = (*store)->NextDiceAttempt("anegawa");
    EXPECT_TRUE(next.ok()) << next.status();
    EXPECT_GT(next.value_or(0), last);
    last = next.value_or(last);
  }
  // (b) After reopening, the counter is past every attempt handed out.
  absl::StatusOr<std::unique_ptr<SqliteGameStore>> reopened =
      SqliteGameStore::Open(dir);
  EXPECT_TRUE(reopened.ok()) << reopened.status();
  if (reopened.ok()) {
    EXPECT_GT((*reopened)->NextDiceAttempt("anegawa").value_or(0), last);
  }
  std::filesystem::remove_all(dir);
  return fired;
}

TEST_P(StoreFaultTest, DiceAttemptIsNeverHandedOutTwice) {
  int64_t n = 1;
  while (RunDiceAttemptFault(*vfs_, GetParam(), n) && n < 1000) ++n;
  EXPECT_GT(n, 1) << "the fault never fired";
}

// Eight games appended to at once while the fault is armed: a commit that
// fails fails every append of its group, and none of them is stored; the
// others are stored once, in order, and every thread goes on appending.
TEST_P(StoreFaultTest, ConcurrentAppendsUnderAFaultKeepOnlyWhatWasAcked) {
  constexpr int kGames = 8;
  constexpr int kRounds = 6;
  for (int64_t n = 1; n <= 4; ++n) {
    SCOPED_TRACE(absl::StrCat("fault at call ", n));
    const std::string dir = FreshDataDir("concurrent");
    std::vector<Stream> streams;
    for (int g = 0; g < kGames; ++g) streams.emplace_back(absl::StrCat("g", g));
    std::atomic<int> failures{0};
    {
      absl::StatusOr<std::unique_ptr<SqliteGameStore>> store =
          OpenOnFaultVfs(dir, GetParam());
      ASSERT_TRUE(store.ok()) << store.status();
      for (const Stream& stream : streams) {
        ASSERT_TRUE((*store)->CreateGame(MakeGame(stream.game_id())).ok());
      }
      // Sticky: every call from the n-th on fails until disarmed, so
      // several groups fail while the threads race.
      vfs_->Arm(GetParam().operation, n, GetParam().fault, /*sticky=*/true);
      std::vector<std::thread> threads;
      for (int g = 0; g < kGames; ++g) {
        threads.emplace_back([&, g] {
          Stream& stream = streams[g];
          for (int round = 0; round < kRounds; ++round) {
            const std::vector<v1::StoredEvent> batch =
                stream.NextBatch(2, absl::StrCat("r", round));
            absl::StatusOr<AppendResult> result = (*store)->Append(
                stream.game_id(), stream.version(), batch, "answer");
            if (result.ok()) {
              stream.Acknowledge(batch);
            } else {
              ExpectStorageFailure(result.status(), GetParam().fault);
              ++failures;
            }
            if (round == kRounds / 2 && g == 0) vfs_->Disarm();
          }
        });
      }
      for (std::thread& thread : threads) thread.join();
      vfs_->Disarm();
      EXPECT_GT(failures.load(), 0);
      // (c) Every game takes another append on the same store.
      for (Stream& stream : streams) {
        AppendOk(**store, stream, 1, "after");
        ExpectHoldsExactly(**store, stream);
      }
    }
    // (b) Reopened healthy: exactly what was acknowledged, game by game.
    absl::StatusOr<std::unique_ptr<SqliteGameStore>> reopened =
        SqliteGameStore::Open(dir);
    ASSERT_TRUE(reopened.ok()) << reopened.status();
    for (const Stream& stream : streams) ExpectHoldsExactly(**reopened, stream);
    std::filesystem::remove_all(dir);
  }
}

// The checkpoint cases reach the checkpoint's calls: with a checkpoint after
// each commit, an append writes the database file as well as the WAL, so it
// makes more writes and more syncs than the same append without one (the
// WAL frames of its commit, then the same pages copied into the database
// file and both files synced). Without this the checkpoint instantiation
// below could fault only what the others already do.
TEST(StoreCheckpointTest, CheckpointEachCommitAddsWritesAndSyncs) {
  FaultVfs& vfs = FaultVfs::Install();
  int64_t calls[2][2] = {};  // [checkpoint][operation]
  for (int checkpoint = 0; checkpoint < 2; ++checkpoint) {
    const std::string dir = FreshDataDir("checkpoint_calls");
    auto store = OpenOnFaultVfs(dir, /*group_commit=*/true, checkpoint == 1);
    ASSERT_TRUE(store.ok()) << store.status();
    Stream stream("sekigahara");
    ASSERT_TRUE((*store)->CreateGame(MakeGame(stream.game_id())).ok());
    AppendOk(**store, stream, 3, "a");
    // Arming only resets the counters: no call is ever the billionth.
    vfs.Arm(Operation::kWrite, int64_t{1} << 40, Fault::kIoError);
    AppendOk(**store, stream, 4, "a");
    calls[checkpoint][0] = vfs.Calls(Operation::kWrite);
    vfs.Arm(Operation::kSync, int64_t{1} << 40, Fault::kIoError);
    AppendOk(**store, stream, 4, "b");
    calls[checkpoint][1] = vfs.Calls(Operation::kSync);
    vfs.Disarm();
    store->reset();
    std::filesystem::remove_all(dir);
  }
  EXPECT_GT(calls[1][0], calls[0][0]) << "writes of one append";
  EXPECT_GT(calls[1][1], calls[0][1]) << "syncs of one append";
  std::printf(
      "one append: %lld writes and %lld syncs, with a checkpoint "
      "after its commit %lld and %lld\n",
      static_cast<long long>(calls[0][0]), static_cast<long long>(calls[0][1]),
      static_cast<long long>(calls[1][0]), static_cast<long long>(calls[1][1]));
}

INSTANTIATE_TEST_SUITE_P(
    Checkpoints, StoreFaultTest,
    ::testing::Values(
        FaultCase{Operation::kWrite, Fault::kDiskFull, true, true},
        FaultCase{Operation::kWrite, Fault::kIoError, true, true},
        FaultCase{Operation::kSync, Fault::kDiskFull, true, true},
        FaultCase{Operation::kSync, Fault::kIoError, false, true}),
    CaseName);

INSTANTIATE_TEST_SUITE_P(
    Faults, StoreFaultTest,
    ::testing::Values(FaultCase{Operation::kWrite, Fault::kDiskFull, true},
                      FaultCase{Operation::kWrite, Fault::kIoError, true},
                      FaultCase{Operation::kSync, Fault::kDiskFull, true},
                      FaultCase{Operation::kSync, Fault::kIoError, true},
                      FaultCase{Operation::kWrite, Fault::kDiskFull, false},
                      FaultCase{Operation::kWrite, Fault::kIoError, false},
                      FaultCase{Operation::kSync, Fault::kDiskFull, false},
                      FaultCase{Operation::kSync, Fault::kIoError, false}),
    CaseName);

}  // namespace
}  // namespace gunbai::service
