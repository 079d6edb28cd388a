//===- piper_driver.cpp - Piper's own planner on one input ----------------===//
//
// Compiled by benchmarks/placement/piper.sh against Piper's algo.cpp
// (msr-fiddle/piper, MIT; not vendored: its path is given), whose main()
// runs the paper's experiments. This main plans one input instead, with the
// same overrides as `placer-placement-bench --parallel`, and prints layers,
// devices, time per sample, stages and CPU seconds.
//
//===----------------------------------------------------------------------===//

#define main piperExperimentsMain
#include PIPER_ALGO
#undef main

int main(int argc, char **argv) {
  if (argc != 7) {
    std::fprintf(stderr, "usage: %s PIPER.json DEVICES MEMORY_GIB "
                         "MICROBATCHES BANDWIDTH_GIB TRANSFORMERS\n", argv[0]);
    return 2;
  }
  json j;
  std::ifstream file(argv[1]);
  file >> j;
  Instance ins = j.get<Instance>();
  int transformers = std::atoi(argv[6]);
  while (static_cast<int>(ins.getTransformerIds().size()) < transformers)
    ins.insertTransformerLayer();
  ins.maxDevices = std::atoi(argv[2]);
  ins.maxMemoryPerDevice = std::atof(argv[3]) * (1 << 30);
  ins.mbsInBatch = std::atoi(argv[4]);
  ins.bandwidth = std::atof(argv[5]) * (1LL << 30);
  clock_t start = clock();
  Graph g(ins);
  Result result = g.runDP();
  double seconds = (clock() - start) * 1.0 / CLOCKS_PER_SEC;
  double tps = g.getTPSForResult(result);
  std::printf("%4zu %5d %.9g %3zu %9.3f\n", ins.nodes.size(), ins.maxDevices,
              tps, result.stages.size(), seconds);
  return 0;
}
