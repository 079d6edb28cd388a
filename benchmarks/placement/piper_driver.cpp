//===- piper_driver.cpp - Piper's own planner on one input ----------------===//
//
// Compiled by benchmarks/placement/piper.sh against Piper's algo.cpp
// (msr-fiddle/piper, MIT; not vendored: its path is given), whose main()
// runs the paper's experiments. This main plans one input instead, with the
// same overrides as `placer-placement-bench --parallel`, and prints layers,
// devices, time per sample, stages and CPU seconds; PLAN gets its plan
// (stages with node ids, degrees and configuration ids) as JSON. With
// `--dump FILE` after TRANSFORMERS it writes the grown instance instead.
//
//===----------------------------------------------------------------------===//

#define main piperExperimentsMain
#include PIPER_ALGO
#undef main

/// The instance as Piper's input format (ids as renumbered), so that both
/// planners can read the very graph insertTransformerLayer made.
static void dumpInstance(const Instance &ins, const char *path) {
  json nodes = json::array(), edges = json::array();
  for (const Node &n : ins.nodes) {
    json tmpcs = json::object();
    for (const auto &[t, list] : n.TMPCs) {
      json configs = json::array();
      for (const TMPC &c : list) {
        json fw = json::object(), bw = json::object();
        for (const auto &[u, v] : c.syncTimeFw)
          fw[std::to_string(u)] = v;
        for (const auto &[u, v] : c.syncTimeBw)
          bw[std::to_string(u)] = v;
        configs.push_back({{"id", c.id},
                           {"timePerSample", c.timePerSample},
                           {"parameterSize", c.parameterSize},
                           {"memoryUsageA", c.memoryUsageA},
                           {"memoryUsageB", c.memoryUsageB},
                           {"syncTimeFw", fw},
                           {"syncTimeBw", bw}});
      }
      tmpcs[std::to_string(t)] = configs;
    }
    nodes.push_back({{"id", n.id}, {"name", n.name}, {"TMPCs", tmpcs}});
  }
  for (const Edge &e : ins.edges)
    edges.push_back({{"sourceId", e.sourceId},
                     {"destId", e.destId},
                     {"communicationCost", e.communicationCost}});
  json out = {{"maxMemoryPerDevice", ins.maxMemoryPerDevice},
              {"maxDevices", ins.maxDevices},
              {"bandwidth", ins.bandwidth},
              {"mbsInBatch", ins.mbsInBatch},
              {"nodes", nodes},
              {"edges", edges}};
  std::ofstream(path) << std::setprecision(17) << out.dump(1) << "\n";
}

int main(int argc, char **argv) {
  if (argc == 9 && std::string(argv[7]) == "--dump") {
    json j;
    std::ifstream file(argv[1]);
    file >> j;
    Instance ins = j.get<Instance>();
    while (static_cast<int>(ins.getTransformerIds().size()) <
           std::atoi(argv[6]))
      ins.insertTransformerLayer();
    dumpInstance(ins, argv[8]);
    return 0;
  }
  if (argc != 7 && argc != 8) {
    std::fprintf(stderr,
                 "usage: %s PIPER.json DEVICES MEMORY_GIB "
                 "MICROBATCHES BANDWIDTH_GIB TRANSFORMERS [PLAN]\n",
                 argv[0]);
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
  if (argc == 8) {
    g.renumberResultBack(result);
    std::ofstream(argv[7]) << json(result).dump(1) << "\n";
  }
  return 0;
}
