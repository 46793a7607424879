// gunbai: the command line. See `gunbai --help`.
#include <iostream>
#include <string>
#include <vector>

#include "service/cli.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return gunbai::service::RunCli(args, std::cout, std::cerr);
}
