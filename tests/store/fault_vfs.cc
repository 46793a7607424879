#include "tests/store/fault_vfs.h"

#include <sqlite3.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace gunbai::testing {
namespace {

// The plan, shared by every file opened on the VFS.
struct Plan {
  std::atomic<bool> armed{false};
  std::atomic<int> operation{0};
  std::atomic<int64_t> n{0};
  std::atomic<int> result_code{SQLITE_OK};
  std::atomic<bool> sticky{false};
  std::atomic<bool> fired{false};
  std::atomic<int64_t> calls[2] = {0, 0};
};

Plan& ThePlan() {
  static Plan* plan = new Plan();
  return *plan;
}

sqlite3_vfs* real_vfs = nullptr;

// Counts a call of `operation` and returns the result code it must fail
// with, or SQLITE_OK to let it through.
int Intercept(FaultVfs::Operation operation) {
  Plan& plan = ThePlan();
  const int index = static_cast<int>(operation);
  const int64_t call = ++plan.calls[index];
  if (!plan.armed.load() || plan.operation.load() != index) return SQLITE_OK;
  const int64_t n = plan.n.load();
  if (call == n || (plan.sticky.load() && call > n)) {
    plan.fired = true;
    return plan.result_code.load();
  }
  return SQLITE_OK;
}

// A file opened through the VFS: our methods, then the default VFS's file,
// which lives right after this struct in the memory SQLite allocates.
struct FaultFile {
  sqlite3_file base;
  sqlite3_file* real;
};

sqlite3_file* Real(sqlite3_file* file) {
  return reinterpret_cast<FaultFile*>(file)->real;
}

int Close(sqlite3_file* f) { return Real(f)->pMethods->xClose(Real(f)); }
int Read(sqlite3_file* f, void* buffer, int amount, sqlite3_int64 offset) {
  return Real(f)->pMethods->xRead(Real(f), buffer, amount, offset);
}
int Write(sqlite3_file* f, const void* buffer, int amount,
          sqlite3_int64 offset) {
  const int rc = Intercept(FaultVfs::Operation::kWrite);
  if (rc != SQLITE_OK) return rc;
  return Real(f)->pMethods->xWrite(Real(f), buffer, amount, offset);
}
int Truncate(sqlite3_file* f, sqlite3_int64 size) {
  return Real(f)->pMethods->xTruncate(Real(f), size);
}
int Sync(sqlite3_file* f, int flags) {
  const int rc = Intercept(FaultVfs::Operation::kSync);
  if (rc != SQLITE_OK) return rc;
  return Real(f)->pMethods->xSync(Real(f), flags);
}
int FileSize(sqlite3_file* f, sqlite3_int64* size) {
  return Real(f)->pMethods->xFileSize(Real(f), size);
}
int Lock(sqlite3_file* f, int lock) {
  return Real(f)->pMethods->xLock(Real(f), lock);
}
int Unlock(sqlite3_file* f, int lock) {
  return Real(f)->pMethods->xUnlock(Real(f), lock);
}
int CheckReservedLock(sqlite3_file* f, int* out) {
  return Real(f)->pMethods->xCheckReservedLock(Real(f), out);
}
int FileControl(sqlite3_file* f, int op, void* arg) {
  return Real(f)->pMethods->xFileControl(Real(f), op, arg);
}
int SectorSize(sqlite3_file* f) {
  return Real(f)->pMethods->xSectorSize(Real(f));
}
int DeviceCharacteristics(sqlite3_file* f) {
  return Real(f)->pMethods->xDeviceCharacteristics(Real(f));
}
int ShmMap(sqlite3_file* f, int page, int size, int extend,
           void volatile** out) {
  return Real(f)->pMethods->xShmMap(Real(f), page, size, extend, out);
}
int ShmLock(sqlite3_file* f, int offset, int n, int flags) {
  return Real(f)->pMethods->xShmLock(Real(f), offset, n, flags);
}
void ShmBarrier(sqlite3_file* f) { Real(f)->pMethods->xShmBarrier(Real(f)); }
int ShmUnmap(sqlite3_file* f, int delete_flag) {
  return Real(f)->pMethods->xShmUnmap(Real(f), delete_flag);
}
int Fetch(sqlite3_file* f, sqlite3_int64 offset, int amount, void** out) {
  return Real(f)->pMethods->xFetch(Real(f), offset, amount, out);
}
int Unfetch(sqlite3_file* f, sqlite3_int64 offset, void* page) {
  return Real(f)->pMethods->xUnfetch(Real(f), offset, page);
}

const sqlite3_io_methods kMethods = {
    3,
    Close,
    Read,
    Write,
    Truncate,
    Sync,
    FileSize,
    Lock,
    Unlock,
    CheckReservedLock,
    FileControl,
    SectorSize,
    DeviceCharacteristics,
    ShmMap,
    ShmLock,
    ShmBarrier,
    ShmUnmap,
    Fetch,
    Unfetch,
};

int Open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags,
         int* out_flags) {
  FaultFile* fault = reinterpret_cast<FaultFile*>(file);
  fault->real = reinterpret_cast<sqlite3_file*>(fault + 1);
  fault->base.pMethods = nullptr;
  const int rc = real_vfs->xOpen(real_vfs, name, fault->real, flags, out_flags);
  // SQLite closes a file only when pMethods is set: set it when the real
  // file is open, whatever the result code.
  if (fault->real->pMethods != nullptr) {
    // The default (unix) VFS's files are all of version 3.
    if (fault->real->pMethods->iVersion < 3) std::abort();
    fault->base.pMethods = &kMethods;
  }
  return rc;
}

}  // namespace

FaultVfs& FaultVfs::Install() {
  static FaultVfs* vfs = [] {
    real_vfs = sqlite3_vfs_find(nullptr);
    static sqlite3_vfs wrapper;
    // Every VFS-level call but xOpen goes straight to the default VFS's
    // functions, which read nothing from the VFS struct but what is copied.
    std::memcpy(&wrapper, real_vfs, sizeof(wrapper));
    wrapper.pNext = nullptr;
    wrapper.zName = kName;
    wrapper.szOsFile = static_cast<int>(sizeof(FaultFile)) + real_vfs->szOsFile;
    wrapper.xOpen = Open;
    if (sqlite3_vfs_register(&wrapper, /*makeDflt=*/0) != SQLITE_OK) {
      std::abort();
    }
    return new FaultVfs();
  }();
  return *vfs;
}

void FaultVfs::Arm(Operation operation, int64_t n, Fault fault, bool sticky) {
  Plan& plan = ThePlan();
  plan.armed = false;
  plan.operation = static_cast<int>(operation);
  plan.n = n;
  plan.result_code = ResultCode(operation, fault);
  plan.sticky = sticky;
  plan.fired = false;
  plan.calls[0] = 0;
  plan.calls[1] = 0;
  plan.armed = true;
}

void FaultVfs::Disarm() { ThePlan().armed = false; }

bool FaultVfs::Fired() const { return ThePlan().fired.load(); }

int64_t FaultVfs::Calls(Operation operation) const {
  return ThePlan().calls[static_cast<int>(operation)].load();
}

int FaultVfs::ResultCode(Operation operation, Fault fault) {
  if (fault == Fault::kDiskFull) return SQLITE_FULL;
  return operation == Operation::kWrite ? SQLITE_IOERR_WRITE
                                        : SQLITE_IOERR_FSYNC;
}

}  // namespace gunbai::testing
