#include "cli/commands.hpp"

int main(int argc, char** argv) {
  return hetlu::cli::run(argc, argv);
}
