//===- CbcModel.cpp - Building and running a CBC model --------------------===//
#include "CbcModel.h"
#include "Timing.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>

using namespace placer::solver;
using namespace placer::solver::detail;

/// CBC's infinity (COIN_DBL_MAX).
static constexpr double kCbcInfinity = std::numeric_limits<double>::max();

ModelBuilder::ModelBuilder() : model(Cbc_newModel()) {
  Cbc_setLogLevel(model, 0);
}

ModelBuilder::~ModelBuilder() { Cbc_deleteModel(model); }

int ModelBuilder::column(const std::string &name, double lb, double ub,
                         double cost, bool integer) {
  columnNames.push_back(name);
  columnLower.push_back(std::max(lb, -kCbcInfinity));
  columnUpper.push_back(std::min(ub, kCbcInfinity));
  objective.push_back(cost);
  if (integer)
    integers.push_back(columns);
  return columns++;
}

void ModelBuilder::setColumnUpper(int column, double ub) {
  columnUpper[column] = std::min(ub, kCbcInfinity);
}

void ModelBuilder::row(const std::string &name, const std::vector<int> &cols,
                       const std::vector<double> &coefs, char sense,
                       double rhs) {
  rowNames.push_back(name);
  rowLower.push_back(sense == 'L' ? -kCbcInfinity : rhs);
  rowUpper.push_back(sense == 'G' ? kCbcInfinity : rhs);
  entryColumn.insert(entryColumn.end(), cols.begin(), cols.end());
  entryValue.insert(entryValue.end(), coefs.begin(), coefs.end());
  rowStart.push_back(static_cast<int>(entryColumn.size()));
  ++rows;
}

void ModelBuilder::load(bool withNames) {
  if (loaded)
    return;
  loaded = true;
  // Rows to CBC's column-major layout.
  std::vector<CoinBigIndex> start(columns + 1, 0);
  for (int c : entryColumn)
    ++start[c + 1];
  for (int c = 0; c < columns; ++c)
    start[c + 1] += start[c];
  std::vector<CoinBigIndex> next(start.begin(), start.end() - 1);
  std::vector<int> index(entryColumn.size());
  std::vector<double> value(entryColumn.size());
  for (int r = 0; r < rows; ++r)
    for (int e = rowStart[r]; e < rowStart[r + 1]; ++e) {
      CoinBigIndex at = next[entryColumn[e]]++;
      index[at] = r;
      value[at] = entryValue[e];
    }
  Cbc_loadProblem(model, columns, rows, start.data(), index.data(),
                  value.data(), columnLower.data(), columnUpper.data(),
                  objective.data(), rowLower.data(), rowUpper.data());
  for (int c : integers)
    Cbc_setInteger(model, c);
  if (withNames) {
    for (int c = 0; c < columns; ++c)
      Cbc_setColName(model, c, columnNames[c].c_str());
    for (int r = 0; r < rows; ++r)
      Cbc_setRowName(model, r, rowNames[r].c_str());
  }
}

void ModelBuilder::write(const std::string &path) {
  load(/*withNames=*/true);
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

/// Messages from the child: a tag, a length, that many bytes.
enum : char { kLine = 'L', kOutcome = 'O' };

bool writeAll(int fd, const void *data, size_t size) {
  const char *bytes = static_cast<const char *>(data);
  while (size > 0) {
    ssize_t written = ::write(fd, bytes, size);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0)
      return false;
    bytes += written;
    size -= static_cast<size_t>(written);
  }
  return true;
}

void sendMessage(int fd, char tag, const std::string &payload) {
  uint64_t size = payload.size();
  (void)(writeAll(fd, &tag, 1) && writeAll(fd, &size, sizeof size) &&
         writeAll(fd, payload.data(), payload.size()));
}

/// The child's descriptor for its progress lines (set only in the child).
int childPipe = -1;

} // namespace

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

/// One line, when `interval` has passed since the last one.
void reportProgress(Progress &progress) {
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
  if (childPipe >= 0) {
    sendMessage(childPipe, kLine, line);
    return;
  }
  if (progress.sink) {
    progress.sink(line);
    return;
  }
  std::fprintf(stderr, "%s\n", line);
  std::fflush(stderr);
}

void COINLINKAGE_CB progressCallback(void *, void *, void *data) {
  auto &progress = *static_cast<Progress *>(data);
  ++progress.nodes;
  reportProgress(progress);
}

} // namespace

void ModelBuilder::solve(const IPOptions &options,
                         std::chrono::steady_clock::time_point deadline,
                         const std::vector<int> &startColumns,
                         const std::vector<double> &startValues,
                         const std::string &what, double incumbent) {
  double seconds = std::chrono::duration<double>(
                       deadline - std::chrono::steady_clock::now())
                       .count();
  if (seconds <= 0)
    return;
  load(/*withNames=*/false);
  // CBC 2.10.8 crashes (SEGV in CglPreProcess::postProcess or
  // preProcessNonDefault) when its clock runs out inside preprocessing,
  // which a short limit on a large model does (604-node latency model,
  // limits of 1 to 6 s); without it the same runs end cleanly, with the
  // same answers on the shared workloads (docs/IntegerPrograms.md).
  Cbc_setParameter(model, "preprocess", "off");
  // The limit is wall time, as the user's (CBC counts CPU time otherwise).
  Cbc_setParameter(model, "timeMode", "elapsed");
  if (!startColumns.empty())
    Cbc_setMIPStartI(model, static_cast<int>(startColumns.size()),
                     startColumns.data(), startValues.data());
  Cbc_setMaximumSeconds(model, seconds);
  if (options.maxNodes > 0)
    Cbc_setMaximumNodes(
        model, static_cast<int>(std::min<int64_t>(options.maxNodes, 1 << 30)));
  Cbc_setAllowableFractionGap(model, options.relativeGap);
  if (options.threads > 1)
    Cbc_setParameter(model, "threads", std::to_string(options.threads).c_str());
  Progress progress{what, incumbent, seconds,
                    options.progressSeconds, {}, {}};
  progress.start = progress.last = std::chrono::steady_clock::now();
  progress.sink = options.onProgress;
  if (options.progressSeconds > 0)
    Cbc_addCutCallback(model, progressCallback, "placer-progress", &progress);
  boundHolds = !options.memoryTightened;
  // CBC looks at its clock between branch-and-bound nodes only, and a
  // node of a large model can take seconds: it runs in a child process
  // that is ended if it outlasts the limit by 5% + 1.5 s, so that the
  // whole solve ends within the limit + 5% + 2 s (docs/IntegerPrograms.md).
  auto hardDeadline =
      deadline +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(
              0.05 * std::min(options.timeLimitSeconds, 1e9) + 1.5));
  // The child's progress lines come back through the pipe.
  auto onLine = [&](const std::string &line) {
    if (progress.sink) {
      progress.sink(line);
      return;
    }
    std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
  };
  if (!solveInChild(hardDeadline, onLine)) {
    Cbc_solve(model);
    outcome = readOutcome();
  }
  // A root LP can outlast the interval (CBC calls back between nodes
  // only): a long solve still ends with a line.
  if (options.progressSeconds > 0)
    reportProgress(progress);
}

ModelBuilder::Outcome ModelBuilder::readOutcome() const {
  Outcome result{"feasible", Cbc_getBestPossibleObjValue(model), {}};
  const double *values = Cbc_getColSolution(model);
  if (values && Cbc_numberSavedSolutions(model) > 0)
    result.values.assign(values, values + columns);
  if (Cbc_isProvenInfeasible(model))
    result.status = "infeasible";
  else if (result.values.empty())
    result.status = "no solution";
  else if (Cbc_isProvenOptimal(model))
    result.status = "optimal";
  return result;
}

bool ModelBuilder::solveInChild(
    std::chrono::steady_clock::time_point hardDeadline,
    const std::function<void(const std::string &)> &onLine) {
  int fds[2];
  if (::pipe(fds) != 0)
    return false;
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return false;
  }
  if (child == 0) {
    ::close(fds[0]);
    childPipe = fds[1];
    Cbc_solve(model);
    Outcome result = readOutcome();
    std::string payload = result.status;
    payload.push_back('\0');
    payload.append(reinterpret_cast<const char *>(&result.bestBound),
                   sizeof result.bestBound);
    if (!result.values.empty())
      payload.append(reinterpret_cast<const char *>(result.values.data()),
                     result.values.size() * sizeof(double));
    sendMessage(childPipe, kOutcome, payload);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string buffer;
  bool done = false;
  while (!done) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    hardDeadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0)
      break;
    pollfd waiting{fds[0], POLLIN, 0};
    int ready = ::poll(&waiting, 1,
                       static_cast<int>(std::min<int64_t>(
                           left, std::numeric_limits<int>::max())));
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready <= 0)
      break;
    char chunk[1 << 16];
    ssize_t got = ::read(fds[0], chunk, sizeof chunk);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break; // the child ended without an outcome (it crashed)
    buffer.append(chunk, static_cast<size_t>(got));
    // Every complete message in the buffer.
    size_t at = 0;
    while (!done && buffer.size() - at >= 1 + sizeof(uint64_t)) {
      uint64_t size;
      std::memcpy(&size, buffer.data() + at + 1, sizeof size);
      if (buffer.size() - at - 1 - sizeof size < size)
        break;
      std::string payload = buffer.substr(at + 1 + sizeof size, size);
      char tag = buffer[at];
      at += 1 + sizeof size + size;
      if (tag == kLine) {
        onLine(payload);
        continue;
      }
      size_t end = payload.find('\0');
      if (tag != kOutcome || end == std::string::npos ||
          payload.size() < end + 1 + sizeof(double))
        continue;
      Outcome result{payload.substr(0, end), 0, {}};
      std::memcpy(&result.bestBound, payload.data() + end + 1, sizeof(double));
      size_t values =
          (payload.size() - end - 1 - sizeof(double)) / sizeof(double);
      result.values.resize(values);
      if (values > 0) // (an empty vector's data may be null)
        std::memcpy(result.values.data(),
                    payload.data() + end + 1 + sizeof(double),
                    values * sizeof(double));
      outcome = std::move(result);
      done = true;
    }
    buffer.erase(0, at);
  }
  ::close(fds[0]);
  if (!done)
    ::kill(child, SIGKILL);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return true;
}

std::string ModelBuilder::status() const {
  return outcome ? outcome->status : "time limit";
}

const double *ModelBuilder::solution() const {
  return outcome && !outcome->values.empty() ? outcome->values.data() : nullptr;
}

double ModelBuilder::bestBound() const {
  return outcome ? outcome->bestBound : -kInfinity;
}

void ModelBuilder::finish(IPResult &result, double objective,
                          std::chrono::steady_clock::time_point start) const {
  Solution &solution = result.solution;
  if (boundHolds)
    solution.lowerBound = std::max(solution.lowerBound, bestBound());
  result.bestBound = solution.lowerBound;
  if (objective < kInfinity && objective > 0)
    result.gap =
        std::max(0.0, (objective - solution.lowerBound) / objective);
  solution.optimal = boundHolds && result.status == "optimal";
  solution.note = "CBC: " + result.status +
                  (boundHolds ? "" : " for the model's additive memory bound");
  solution.seconds = secondsSince(start);
}
