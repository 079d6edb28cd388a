//===- CbcModel.cpp - Building and running a CBC model --------------------===//
#include "CbcModel.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>

using namespace placer::solver;
using namespace placer::solver::detail;

ModelBuilder::ModelBuilder() : model(Cbc_newModel()) {
  Cbc_setLogLevel(model, 0);
}

ModelBuilder::~ModelBuilder() { Cbc_deleteModel(model); }

int ModelBuilder::column(const std::string &name, double lb, double ub,
                         double objective, bool integer) {
  Cbc_addCol(model, name.c_str(), lb, ub, objective, integer ? 1 : 0, 0,
             nullptr, nullptr);
  return columns++;
}

void ModelBuilder::row(const std::string &name, const std::vector<int> &cols,
                       const std::vector<double> &coefs, char sense,
                       double rhs) {
  Cbc_addRow(model, name.c_str(), static_cast<int>(cols.size()), cols.data(),
             coefs.data(), sense, rhs);
  ++rows;
}

void ModelBuilder::write(const std::string &path) {
  // CBC's writers add the extension themselves.
  auto endsWith = [&](const char *suffix) {
    size_t len = std::char_traits<char>::length(suffix);
    return path.size() > len &&
           path.compare(path.size() - len, len, suffix) == 0;
  };
  if (!endsWith(".mps")) {
    Cbc_writeLp(model, (endsWith(".lp") ? path.substr(0, path.size() - 3) : path)
                           .c_str());
    return;
  }
  Cbc_writeMps(model, path.substr(0, path.size() - 4).c_str());
  // CBC compresses MPS output when it has zlib: hand back plain text.
  std::string gz = path + ".gz";
  if (gzFile in = gzopen(gz.c_str(), "rb")) {
    if (FILE *out = std::fopen(path.c_str(), "wb")) {
      char chunk[1 << 16];
      int read;
      while ((read = gzread(in, chunk, sizeof(chunk))) > 0)
        std::fwrite(chunk, 1, read, out);
      std::fclose(out);
    }
    gzclose(in);
    std::remove(gz.c_str());
  }
}

bool ModelBuilder::exportInstead(const IPOptions &options, IPResult &result) {
  result.variables = columns;
  result.constraints = rows;
  if (options.exportPath.empty())
    return false;
  write(options.exportPath);
  result.status = "exported";
  return true;
}

namespace {

/// CBC's log goes to stdout, where placer-opt writes its output, so the
/// progress lines come from a do-nothing cut generator that CBC calls at
/// every node: it counts nodes and reports a line now and then.
struct Progress {
  std::string what;
  double incumbent;
  double limit;
  double interval;
  std::chrono::steady_clock::time_point start, last;
  long long nodes = 0;
  std::function<void(const std::string &)> sink;
};

void COINLINKAGE_CB progressCallback(void *, void *, void *data) {
  auto &progress = *static_cast<Progress *>(data);
  ++progress.nodes;
  auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(now - progress.last).count() <
      progress.interval)
    return;
  progress.last = now;
  double elapsed =
      std::chrono::duration<double>(now - progress.start).count();
  char line[256];
  int length = std::snprintf(line, sizeof(line),
                             "placer: CBC on the %s: %.0f s of %.0f s, %lld nodes",
                             progress.what.c_str(), elapsed, progress.limit,
                             progress.nodes);
  if (progress.incumbent < kInfinity && length > 0 &&
      length < static_cast<int>(sizeof(line)))
    std::snprintf(line + length, sizeof(line) - length, ", started from %.9g",
                  progress.incumbent);
  if (progress.sink) {
    progress.sink(line);
    return;
  }
  std::fprintf(stderr, "%s\n", line);
  std::fflush(stderr);
}

} // namespace

void ModelBuilder::solve(const IPOptions &options,
                         const std::vector<int> &startColumns,
                         const std::vector<double> &startValues,
                         const std::string &what, double incumbent) {
  if (!startColumns.empty())
    Cbc_setMIPStartI(model, static_cast<int>(startColumns.size()),
                     startColumns.data(), startValues.data());
  Cbc_setMaximumSeconds(model, options.timeLimitSeconds);
  Cbc_setAllowableFractionGap(model, options.relativeGap);
  if (options.threads > 1)
    Cbc_setParameter(model, "threads", std::to_string(options.threads).c_str());
  Progress progress{what, incumbent, options.timeLimitSeconds,
                    options.progressSeconds, {}, {}};
  progress.start = progress.last = std::chrono::steady_clock::now();
  progress.sink = options.onProgress;
  if (options.progressSeconds > 0)
    Cbc_addCutCallback(model, progressCallback, "placer-progress", &progress);
  Cbc_solve(model);
}

std::string ModelBuilder::status() const {
  if (Cbc_isProvenInfeasible(model))
    return "infeasible";
  if (!solution())
    return "no solution";
  return Cbc_isProvenOptimal(model) ? "optimal" : "feasible";
}

const double *ModelBuilder::solution() const {
  const double *values = Cbc_getColSolution(model);
  return values && Cbc_numberSavedSolutions(model) > 0 ? values : nullptr;
}

double ModelBuilder::bestBound() const {
  return Cbc_getBestPossibleObjValue(model);
}

void ModelBuilder::finish(IPResult &result, double objective,
                          std::chrono::steady_clock::time_point start) const {
  Solution &solution = result.solution;
  result.bestBound = bestBound();
  solution.lowerBound = std::max(solution.lowerBound, result.bestBound);
  if (objective < kInfinity && objective > 0)
    result.gap =
        std::max(0.0, (objective - solution.lowerBound) / objective);
  solution.optimal = result.status == "optimal";
  solution.note = "CBC: " + result.status;
  solution.seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
}
