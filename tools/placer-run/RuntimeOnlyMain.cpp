//===- RuntimeOnlyMain.cpp - placer-run without the compiler --------------===//
//
//   placer-run DIR [--input NAME=FILE.npy]... [--seed N] --output-dir OUT
//              [--microbatches M] [--repeat N] [--report FILE.json]
//   mpirun -n K placer-run DIR ...
//
// The placer-run of `cmake -DPLACER_RUNTIME_ONLY=ON`: it runs artifact
// folders written by the full build's `placer-run MODEL.mlir --compile-only
// DIR`, with the same flags and files as the full placer-run, and links no
// LLVM or MLIR (so no llvm::cl: the few flags are parsed here). Running is
// the runtime library's (Launch.h), shared with the full placer-run.
//
//===----------------------------------------------------------------------===//

#include "placer/Runtime/Launch.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

using namespace placer::runtime;

namespace {

constexpr const char *kUsage =
    "usage: placer-run DIR [options]   (DIR: an artifact folder written by "
    "placer-run MODEL.mlir --compile-only DIR)\n"
    "\n"
    "This placer-run is the runtime-only build: it runs compiled artifacts "
    "and\n"
    "compiles nothing. Under mpirun, a split artifact runs one stage per "
    "rank.\n"
    "\n"
    "  --input NAME=FILE.npy     the value of graph input NAME (repeatable)\n"
    "  --seed N                  seed of the inputs not given (default 0)\n"
    "  --output-dir DIR          where outputs are written, DIR/<name>.npy\n"
    "  --profile FILE.json       time every node (a profiled artifact)\n"
    "  --profile-kind KIND       the device kind of the profile (default "
    "cpu)\n"
    "  --repeat N                timed runs after the first (default 0)\n"
    "  --microbatches M          microbatches per run, stacked on the first "
    "axis\n"
    "  --threads N               threads of the code's parallel loops "
    "(default 1)\n"
    "  --transfer-timeout S      under mpirun: seconds a transfer may wait "
    "(default 60)\n"
    "  --report FILE.json        write a JSON report here\n"
    "  --train-steps S           a training step's artifact: S optimizer "
    "steps,\n"
    "                            DIR/loss.npy under --output-dir\n"
    "  --save-weights DIR        with --train-steps: every weight and "
    "optimizer state\n"
    "                            after the last step, DIR/<name>.npy\n";

/// The flags of the full placer-run that need the compiler.
bool needsCompiler(const std::string &flag) {
  return flag == "--compile-only" || flag == "--cache-dir" ||
         flag == "--transfers";
}

bool parseUnsigned(const std::string &text, uint64_t &value) {
  if (text.empty() || text[0] == '-')
    return false;
  char *end = nullptr;
  value = std::strtoull(text.c_str(), &end, 10);
  return *end == '\0';
}

/// --flag VALUE or --flag=VALUE, as llvm::cl accepts them in the full
/// placer-run.
bool parseArguments(int argc, char **argv, LaunchOptions &options,
                    std::vector<std::string> &inputs, bool &help,
                    std::string &error) {
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    if (argument == "--help" || argument == "-h") {
      help = true;
      return true;
    }
    if (argument.rfind("-", 0) != 0) {
      if (!options.model.empty()) {
        error = "one artifact folder, got '" + options.model + "' and '" +
                argument + "'";
        return false;
      }
      options.model = argument;
      continue;
    }
    std::string flag = argument, value;
    bool hasValue = false;
    if (size_t equals = argument.find('='); equals != std::string::npos) {
      flag = argument.substr(0, equals);
      value = argument.substr(equals + 1);
      hasValue = true;
    }
    if (needsCompiler(flag)) {
      error = flag + " needs the compiler: this placer-run is the "
                     "runtime-only build (use the full build's placer-run)";
      return false;
    }
    static const char *const kFlags[] = {
        "--input",        "--seed",    "--output-dir",   "--profile",
        "--profile-kind", "--repeat",  "--microbatches", "--transfer-timeout",
        "--report",       "--threads", "--train-steps",  "--save-weights"};
    bool known = false;
    for (const char *name : kFlags)
      known |= flag == name;
    if (!known) {
      error = "unknown option '" + flag + "' (see --help)";
      return false;
    }
    if (!hasValue) {
      if (i + 1 == argc) {
        error = flag + " needs a value";
        return false;
      }
      value = argv[++i];
    }
    uint64_t number = 0;
    bool isNumber = parseUnsigned(value, number);
    auto badNumber = [&] {
      error = flag + " expects a number, got '" + value + "'";
      return false;
    };
    if (flag == "--input") {
      inputs.push_back(value);
    } else if (flag == "--output-dir") {
      options.outputDir = value;
    } else if (flag == "--profile") {
      options.profile = value;
    } else if (flag == "--profile-kind") {
      options.profileKind = value;
    } else if (flag == "--report") {
      options.report = value;
    } else if (flag == "--save-weights") {
      options.saveWeights = value;
    } else if (flag == "--train-steps") {
      // Negative values get the launch's own message.
      char *end = nullptr;
      options.trainSteps = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0')
        return badNumber();
    } else if (flag == "--seed") {
      if (!isNumber)
        return badNumber();
      options.seed = number;
    } else if (flag == "--repeat") {
      if (!isNumber || number > 1000000000)
        return badNumber();
      options.repeat = unsigned(number);
    } else if (flag == "--microbatches") {
      // 0 and negative values get the launch's own message.
      char *end = nullptr;
      options.microbatches = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0')
        return badNumber();
    } else if (flag == "--threads") {
      // Values out of range get the program's own message.
      char *end = nullptr;
      options.threads = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0')
        return badNumber();
    } else if (flag == "--transfer-timeout") {
      char *end = nullptr;
      options.transferTimeout = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0')
        return badNumber();
    }
  }
  if (options.model.empty()) {
    error = "give an artifact folder (see --help)";
    return false;
  }
  return true;
}

/// Everything after MPI is up; false with `error` set on failure.
bool runTool(const LaunchOptions &given, const std::vector<std::string> &inputs,
             MpiJob *job, int argc, char **argv, std::string &error) {
  LaunchOptions options = given;
  if (!parseLaunchOptions(inputs, options, error))
    return false;
  std::error_code ec;
  if (!std::filesystem::is_directory(options.model, ec)) {
    error = options.model +
            " is not an artifact folder: this placer-run is the runtime-only "
            "build and compiles nothing (compile it with the full build's "
            "placer-run MODEL.mlir --compile-only DIR)";
    return false;
  }
  Launch launch;
  std::unique_ptr<Program> program =
      openArtifact(options, job, getLaunchIdentity(options.model, argc, argv),
                   launch, error);
  return program && runLaunch(launch, options, job, error);
}

} // namespace

int main(int argc, char **argv) {
  LaunchOptions options;
  std::vector<std::string> inputs;
  bool help = false;
  std::string error;
  if (!parseArguments(argc, argv, options, inputs, help, error))
    return failLaunch(error, nullptr);
  if (help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  std::unique_ptr<MpiJob> job;
  if (MpiJob::launchedByMpi()) {
    job = MpiJob::start(&argc, &argv, options.transferTimeout, error);
    if (!job)
      return failLaunch(error, nullptr);
  }
  if (!runTool(options, inputs, job.get(), argc, argv, error))
    return failLaunch(error, job.get());
  return 0;
}
