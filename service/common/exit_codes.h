// The exit codes of gunbai and gunbaid's command line, which scripts rely
// on (service/README.md, "The CLI"). Every subcommand returns one of these.
#ifndef GUNBAI_SERVICE_COMMON_EXIT_CODES_H_
#define GUNBAI_SERVICE_COMMON_EXIT_CODES_H_

namespace gunbai::service {

// Done, and nothing to report (an audit with no violation or dispute, a
// diff with no change).
inline constexpr int kExitClean = 0;
// Done, and something to report: findings, changes, a failed check.
inline constexpr int kExitFindings = 1;
// Bad usage or input: a command line, file or log that could not be read.
inline constexpr int kExitBadInput = 2;
// The daemon could not be reached, or failed.
inline constexpr int kExitServer = 3;

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_COMMON_EXIT_CODES_H_
