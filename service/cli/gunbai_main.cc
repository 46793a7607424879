// gunbai: the command line. See `gunbai --help`.
#include <iostream>
#include <string>
#include <vector>

#include "service/cli/cli.h"
#include "service/common/grpc_shutdown.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const int code = gunbai::service::RunCli(args, std::cout, std::cerr);
  std::cout.flush();
  gunbai::service::WaitForGrpcShutdown();
  return code;
}
