//===- PlacerModule.cpp - placer._placer, the Python extension ------------===//
//
// The low-level half of the Python package: Python objects over the C API
// (include/placer-c), the same library the tools and C programs use. The
// high-level names (import_onnx, Module.partition, compile, ...) are Python,
// in placer/__init__.py. Long calls (import, pass pipelines, compilation,
// runs) release the GIL; failures raise placer.Error with the diagnostics.
//
//===----------------------------------------------------------------------===//

#include "placer-c/Placer.h"
#include "placer-c/Runtime.h"

#include "mlir-c/IR.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace {

struct PlacerError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Raises placer.Error for a failed status.
void check(PlacerStatus status) {
  if (placerStatusIsOk(status))
    return;
  MlirStringRef message = placerStatusGetMessage(status);
  std::string text(message.data, message.length);
  placerStatusDestroy(status);
  throw PlacerError(text);
}

MlirStringRef toRef(const std::string &s) {
  return mlirStringRefCreate(s.data(), s.size());
}

void appendTo(MlirStringRef text, void *userData) {
  static_cast<std::string *>(userData)->append(text.data, text.length);
}

/// An MLIR context with every Placer and upstream dialect; each imported
/// model gets its own.
class Context {
public:
  Context() : context(placerContextCreate()) {}
  ~Context() { mlirContextDestroy(context); }
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;
  MlirContext get() const { return context; }

private:
  MlirContext context;
};

class Module {
public:
  Module(std::shared_ptr<Context> context, MlirModule module)
      : context(std::move(context)), module(module) {}
  ~Module() { mlirModuleDestroy(module); }
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  MlirModule get() const { return module; }

  std::string str() const {
    std::string text;
    mlirOperationPrint(mlirModuleGetOperation(module), appendTo, &text);
    return text;
  }

  std::unique_ptr<Module> clone() const {
    MlirOperation copy = mlirOperationClone(mlirModuleGetOperation(module));
    return std::make_unique<Module>(context, mlirModuleFromOperation(copy));
  }

  /// Runs `pipeline` in place; returns (pass, report JSON) pairs.
  std::vector<std::pair<std::string, std::string>>
  runPipeline(const std::string &pipeline) {
    std::vector<std::pair<std::string, std::string>> reports;
    PlacerStatus status;
    {
      py::gil_scoped_release release;
      status = placerRunPassPipeline(
          module, toRef(pipeline),
          [](MlirStringRef pass, MlirStringRef json, void *userData) {
            static_cast<decltype(reports) *>(userData)->emplace_back(
                std::string(pass.data, pass.length),
                std::string(json.data, json.length));
          },
          &reports);
    }
    check(status);
    return reports;
  }

  py::bytes exportOnnx() const {
    std::string bytes;
    check(placerExportOnnx(module, appendTo, &bytes));
    return py::bytes(bytes);
  }

  std::vector<std::pair<std::string, py::bytes>>
  exportStages(bool embedWeights) const {
    std::vector<std::pair<std::string, std::string>> files;
    PlacerStatus status;
    {
      py::gil_scoped_release release;
      status = placerExportOnnxStages(
          module, embedWeights,
          [](MlirStringRef name, MlirStringRef bytes, void *userData) {
            static_cast<decltype(files) *>(userData)->emplace_back(
                std::string(name.data, name.length),
                std::string(bytes.data, bytes.length));
          },
          &files);
    }
    check(status);
    std::vector<std::pair<std::string, py::bytes>> out;
    for (auto &[name, bytes] : files)
      out.emplace_back(name, py::bytes(bytes));
    return out;
  }

  std::string simulate(int64_t microbatches) const {
    std::string json;
    PlacerStatus status;
    {
      py::gil_scoped_release release;
      status = placerSimulate(module, microbatches, appendTo, &json);
    }
    check(status);
    return json;
  }

private:
  std::shared_ptr<Context> context;
  MlirModule module;
};

PlacerImportOptions importOptions(const std::string &dims, bool shapesOnly) {
  PlacerImportOptions options = placerImportOptionsGetDefault();
  options.shapesOnly = shapesOnly;
  options.dims = toRef(dims);
  return options;
}

std::unique_ptr<Module> importFile(const std::string &path,
                                   const std::string &dims, bool shapesOnly) {
  auto context = std::make_shared<Context>();
  MlirModule module;
  PlacerStatus status;
  {
    py::gil_scoped_release release;
    status = placerImportOnnxFile(context->get(), toRef(path),
                                  importOptions(dims, shapesOnly), &module);
  }
  check(status);
  return std::make_unique<Module>(context, module);
}

std::unique_ptr<Module> importWorkload(const std::string &path) {
  auto context = std::make_shared<Context>();
  MlirModule module;
  PlacerStatus status;
  {
    py::gil_scoped_release release;
    status = placerImportWorkloadFile(context->get(), toRef(path), &module);
  }
  check(status);
  return std::make_unique<Module>(context, module);
}

std::unique_ptr<Module> importBytes(const py::bytes &bytes,
                                    const std::string &modelDir,
                                    const std::string &dims, bool shapesOnly) {
  auto context = std::make_shared<Context>();
  std::string data = bytes;
  MlirModule module;
  PlacerStatus status;
  {
    py::gil_scoped_release release;
    status = placerImportOnnxBytes(context->get(), toRef(data), toRef(modelDir),
                                   importOptions(dims, shapesOnly), &module);
  }
  check(status);
  return std::make_unique<Module>(context, module);
}

/// MLIR element types and the NumPy dtypes that hold them. NumPy has no
/// bfloat16: its values travel as their uint16 bits, as in placer-run's
/// .npy files and ONNX's numpy_helper (docs/Python.md).
py::dtype dtypeOf(const std::string &elementType) {
  static const std::pair<const char *, const char *> table[] = {
      {"f16", "float16"}, {"bf16", "uint16"}, {"f32", "float32"},
      {"f64", "float64"}, {"i1", "bool"},     {"i8", "int8"},
      {"i16", "int16"},   {"i32", "int32"},   {"i64", "int64"},
      {"ui8", "uint8"},   {"ui16", "uint16"}, {"ui32", "uint32"},
      {"ui64", "uint64"}};
  for (auto [mlir, numpy] : table)
    if (elementType == mlir)
      return py::dtype(numpy);
  throw PlacerError("element type " + elementType +
                    " has no NumPy dtype");
}

/// One input or output of a compiled model, as Python sees it.
struct TensorInfo {
  std::string name, elementType;
  std::vector<int64_t> shape;
};

class Session {
public:
  Session(const Module &module, bool profile, int64_t microbatches,
          const std::string &cacheDir, int64_t threads) {
    PlacerSessionOptions options = placerSessionOptionsGetDefault();
    options.profile = profile;
    options.microbatches = microbatches;
    options.cacheDir = toRef(cacheDir);
    options.threads = threads;
    PlacerStatus status;
    {
      py::gil_scoped_release release;
      status = placerSessionCreate(module.get(), options, &session);
    }
    check(status);
    for (intptr_t i = 0; i < placerSessionGetNumInputs(session); ++i)
      inputs.push_back(info(placerSessionGetInput(session, i)));
    for (intptr_t i = 0; i < placerSessionGetNumOutputs(session); ++i)
      outputs.push_back(info(placerSessionGetOutput(session, i)));
    dynamic = anyDynamic(inputs) || anyDynamic(outputs);
  }
  ~Session() { placerSessionDestroy(session); }
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  py::list describe(bool ofInputs) const {
    py::list list;
    for (const TensorInfo &tensor : ofInputs ? inputs : outputs) {
      py::dict entry;
      entry["name"] = tensor.name;
      entry["dtype"] = dtypeOf(tensor.elementType);
      entry["shape"] = py::tuple(py::cast(tensor.shape));
      list.append(entry);
    }
    return list;
  }
  bool isCached() const { return placerSessionIsCached(session); }
  int64_t getThreads() const { return placerSessionGetThreads(session); }

  py::dict run(const py::dict &given) { return call(given, 0, nullptr); }

  std::string profile(const py::dict &given, unsigned repeat) {
    std::string json;
    call(given, std::max(1u, repeat), &json);
    return json;
  }

private:
  static TensorInfo info(PlacerTensor tensor) {
    return TensorInfo{std::string(tensor.name.data, tensor.name.length),
                      std::string(tensor.elementType.data,
                                  tensor.elementType.length),
                      std::vector<int64_t>(tensor.shape,
                                           tensor.shape + tensor.rank)};
  }

  /// `value` as a C-ordered array of `spec`'s dtype: the caller's own
  /// memory when it already is one (no copy), else a copy in C order. An
  /// array of another dtype is refused, as placer-run refuses such a .npy
  /// (docs/Python.md: one rule for both; ONNX Runtime's too); a list or
  /// scalar, which has no dtype of its own, is made one of the input's.
  static py::array asInput(const TensorInfo &spec, const py::handle &value) {
    py::module_ numpy = py::module_::import("numpy");
    py::dtype want = dtypeOf(spec.elementType);
    bool isArray = py::isinstance(value, numpy.attr("ndarray")) ||
                   py::isinstance(value, numpy.attr("generic"));
    py::array array = isArray ? numpy.attr("asarray")(value)
                              : numpy.attr("asarray")(value, want);
    if (!array.dtype().is(want) && !array.dtype().equal(want))
      throw PlacerError("input '" + spec.name + "' needs " +
                        py::str(want).cast<std::string>() + ", got " +
                        py::str(array.dtype()).cast<std::string>() +
                        " (convert it with .astype(numpy." +
                        py::str(want).cast<std::string>() + "))");
    return py::array::ensure(array, py::array::c_style);
  }

  static PlacerTensor view(const TensorInfo &spec, py::array &array,
                           std::vector<int64_t> &shape) {
    shape.assign(array.shape(), array.shape() + array.ndim());
    return PlacerTensor{toRef(spec.name), toRef(spec.elementType),
                        static_cast<intptr_t>(shape.size()), shape.data(),
                        array.mutable_data()};
  }

  /// Runs once (repeat = 0) or profiles; returns the outputs by name.
  py::dict call(const py::dict &given, unsigned repeat, std::string *json) {
    for (auto item : given) {
      std::string name = py::str(item.first);
      bool known = false;
      for (const TensorInfo &spec : inputs)
        known |= spec.name == name;
      if (!known)
        throw PlacerError("the model has no input named '" + name + "'");
    }
    std::vector<py::array> keep;
    std::vector<std::vector<int64_t>> shapes(inputs.size() + outputs.size());
    std::vector<PlacerTensor> in, out;
    for (const TensorInfo &spec : inputs) {
      if (!given.contains(spec.name))
        throw PlacerError("input '" + spec.name + "' is not given");
      keep.push_back(asInput(spec, given[py::str(spec.name)]));
      in.push_back(view(spec, keep.back(), shapes[in.size()]));
    }
    // Dynamic dims: this call's inputs size the outputs.
    if (dynamic) {
      check(placerSessionSetInputShapes(session, in.data(), in.size()));
      for (size_t i = 0; i < outputs.size(); ++i)
        outputs[i] = info(placerSessionGetOutput(session, i));
    }
    py::dict results;
    for (const TensorInfo &spec : outputs) {
      py::array array(dtypeOf(spec.elementType), spec.shape);
      results[py::str(spec.name)] = array;
      keep.push_back(array);
      out.push_back(
          view(spec, keep.back(), shapes[inputs.size() + out.size()]));
    }
    PlacerStatus status;
    {
      py::gil_scoped_release release;
      status = json ? placerSessionProfile(session, in.data(), in.size(),
                                           out.data(), out.size(), repeat,
                                           appendTo, json)
                    : placerSessionRun(session, in.data(), in.size(),
                                       out.data(), out.size());
    }
    check(status);
    return results;
  }

  /// Whether a dim is dynamic (-1 as the session describes it before any
  /// call sizes it): each call then sizes the outputs from its inputs.
  static bool anyDynamic(const std::vector<TensorInfo> &tensors) {
    for (const TensorInfo &tensor : tensors)
      for (int64_t d : tensor.shape)
        if (d < 0)
          return true;
    return false;
  }

  PlacerSession session;
  std::vector<TensorInfo> inputs, outputs;
  bool dynamic = false;
};

} // namespace

PYBIND11_MODULE(_placer, m) {
  m.doc() = "Placer's C API for Python; use the names in `placer`.";
  py::register_exception<PlacerError>(m, "Error");

  py::class_<Module>(m, "Module")
      .def("__str__", &Module::str)
      .def("clone", &Module::clone)
      .def("run_pipeline", &Module::runPipeline, py::arg("pipeline"))
      .def("export_onnx", &Module::exportOnnx)
      .def("export_stages", &Module::exportStages, py::arg("embed_weights"))
      .def("simulate", &Module::simulate, py::arg("microbatches"));

  m.def("import_onnx_file", &importFile, py::arg("path"), py::arg("dims"),
        py::arg("shapes_only"));
  m.def("import_workload_file", &importWorkload, py::arg("path"));
  m.def("import_onnx_bytes", &importBytes, py::arg("data"),
        py::arg("model_dir"), py::arg("dims"), py::arg("shapes_only"));

  py::class_<Session>(m, "Session")
      .def(py::init<const Module &, bool, int64_t, const std::string &,
                    int64_t>(),
           py::arg("module"), py::arg("profile"), py::arg("microbatches"),
           py::arg("cache_dir"), py::arg("threads"))
      .def_property_readonly("inputs",
                             [](const Session &s) { return s.describe(true); })
      .def_property_readonly(
          "outputs", [](const Session &s) { return s.describe(false); })
      .def_property_readonly("cached", &Session::isCached)
      .def_property_readonly("threads", &Session::getThreads)
      .def("run", &Session::run, py::arg("inputs"))
      .def("profile", &Session::profile, py::arg("inputs"),
           py::arg("repeat"));
}
