// A SQLite VFS for tests that injects storage faults: it wraps the default
// VFS under its own name (kName) and, once armed, fails the N-th xWrite or
// the N-th xSync of any file opened through it, as a full disk (SQLITE_FULL)
// or an I/O error (SQLITE_IOERR_WRITE, SQLITE_IOERR_FSYNC). A failed write
// writes nothing; a failed sync syncs nothing. Every other call goes to the
// default VFS unchanged, so a database opened on it with no fault armed
// behaves exactly as on the default VFS.
//
// Thread safety: thread-safe; the counters are atomic. There is one fault
// plan per process, shared by every connection opened on the VFS.
#ifndef GUNBAI_TESTS_STORE_FAULT_VFS_H_
#define GUNBAI_TESTS_STORE_FAULT_VFS_H_

#include <cstdint>

namespace gunbai::testing {

class FaultVfs {
 public:
  // The name to open a database with (sqlite3_open_v2's zVfs).
  static constexpr char kName[] = "gunbai-fault";

  enum class Operation { kWrite, kSync };
  enum class Fault { kDiskFull, kIoError };

  // Registers the VFS (once; later calls do nothing) and returns it.
  static FaultVfs& Install();

  // Fails the `n`-th call (1-based) of `operation` counted from now, with
  // `fault`. With `sticky`, every later call of `operation` fails too, as a
  // disk that stays full; otherwise only the `n`-th does. Replaces any plan.
  void Arm(Operation operation, int64_t n, Fault fault, bool sticky = false);
  // Lets every call through again.
  void Disarm();
  // Returns whether the armed fault has failed a call since Arm.
  bool Fired() const;
  // Returns the calls of `operation` seen since Arm (or since Install).
  int64_t Calls(Operation operation) const;

  // The SQLite result code `fault` gives for `operation`.
  static int ResultCode(Operation operation, Fault fault);

 private:
  FaultVfs() = default;
};

}  // namespace gunbai::testing

#endif  // GUNBAI_TESTS_STORE_FAULT_VFS_H_
