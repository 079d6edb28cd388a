//===- Runner.cpp - Compile a graph module and run it on this machine -----===//

#include "placer/Compiler/Runner.h"

#include "placer/Analysis/Cluster.h"
#include "placer/Conversion/Passes.h"
#include "placer/Dialect/Dist/DistDialect.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"
#include "placer/InitAll.h"
#include "placer/Runtime/ProfileHooks.h"
#include "placer/Transforms/Passes.h"

#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/TosaToTensor/TosaToTensor.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <unistd.h>

using namespace mlir;
using namespace placer;
using namespace placer::runtime;

static llvm::Error runError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The spec of an argument or result: its tensor type, with the element type
/// the model declares where lowering made it signless (graph.element_type).
static TensorSpec specOf(Type type, std::string name, int64_t graphIndex,
                         DictionaryAttr attrs = {}) {
  auto tensor = cast<ShapedType>(type);
  Type elementType = tensor.getElementType();
  if (auto declared = attrs ? attrs.getAs<TypeAttr>(graph::attrs::kElementType)
                            : TypeAttr())
    elementType = declared.getValue();
  std::string element;
  llvm::raw_string_ostream os(element);
  elementType.print(os);
  TensorSpec spec{
      std::move(name), graphIndex, element,
      graph::getElementByteSize(tensor.getElementType()),
      std::vector<int64_t>(tensor.getShape().begin(), tensor.getShape().end())};
  if (!spec.hasDynamicDims())
    return spec;
  // Dynamic dims: -1, named by the graph's symbols; an unnamed one is a
  // symbol of its own.
  auto names =
      attrs ? attrs.getAs<ArrayAttr>(graph::attrs::kDimParams) : ArrayAttr();
  for (size_t d = 0; d < spec.shape.size(); ++d) {
    std::string dimName;
    if (ShapedType::isDynamic(spec.shape[d])) {
      spec.shape[d] = -1;
      if (names && d < names.size())
        dimName = cast<StringAttr>(names[d]).str();
      if (dimName.empty())
        dimName = spec.name + ":" + std::to_string(d);
    }
    spec.dimNames.push_back(dimName);
  }
  return spec;
}

//===----------------------------------------------------------------------===//
// Weights
//===----------------------------------------------------------------------===//

static llvm::Expected<Buffer> loadWeight(ModuleOp module, Attribute value,
                                         const TensorSpec &spec) {
  Buffer buffer(spec.getByteSize());
  if (llvm::Error error = graph::readConstantBytes(
          module, value, spec.name,
          llvm::MutableArrayRef<char>(reinterpret_cast<char *>(buffer.data()),
                                      buffer.size())))
    return std::move(error);
  return std::move(buffer);
}

//===----------------------------------------------------------------------===//
// Lowering
//===----------------------------------------------------------------------===//

/// The graph input / output a stage argument / result is: its dist.arg /
/// dist.result, or its position in an unsplit function.
static int64_t graphIndexOf(DictionaryAttr attrs, StringRef name,
                            int64_t position) {
  auto index = attrs ? attrs.getAs<IntegerAttr>(name) : IntegerAttr();
  return index ? index.getInt() : position;
}

/// Placement annotations on ops (placer.cost, placer.device, dist.position)
/// mean nothing to code generation, and an op that a lowering moves out of
/// its stage function (a constant becoming an LLVM constant) would carry
/// them where their verifiers refuse them.
static void dropPlacementAnnotations(ModuleOp module) {
  module.walk([](Operation *op) {
    if (isa<ModuleOp>(op))
      return;
    for (NamedAttribute attr : llvm::to_vector(op->getDiscardableAttrs()))
      if (attr.getName().getValue().starts_with("placer.") ||
          attr.getName() == dist::kPositionAttrName)
        op->removeDiscardableAttr(attr.getName());
  });
}

/// GPU code must load on a machine with only the CUDA driver: its PTX may
/// declare no external function (libdevice's __nv_* would be one).
static llvm::Error checkSelfContainedPtx(ModuleOp module) {
  std::vector<std::string> externals;
  module.walk([&](gpu::BinaryOp binary) {
    for (Attribute attr : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(attr);
      if (!object)
        continue;
      StringRef ptx = object.getObject().getValue();
      for (size_t at = ptx.find(".extern .func"); at != StringRef::npos;
           at = ptx.find(".extern .func", at + 1)) {
        // ".extern .func  (.param .b32 func_retval0) NAME" ends its line.
        StringRef declaration =
            ptx.substr(at).take_until([](char c) { return c == '\n'; });
        StringRef name = declaration.rtrim(" \t(").rsplit(' ').second;
        if (!name.empty() && !llvm::is_contained(externals, name.str()))
          externals.push_back(name.str());
      }
    }
  });
  if (externals.empty())
    return llvm::Error::success();
  return runError("the GPU code calls " + llvm::join(externals, ", ") +
                  ", which its PTX does not define (CUDA's libdevice?): "
                  "no GPU lowering of that math");
}

/// With target=cuda, whether `stage` of a split module runs on a GPU: its
/// device is an accelerator of the module's cluster (without a cluster,
/// every stage is).
static bool runsOnAccelerator(ModuleOp module, int64_t stage) {
  ClusterAttr clusterAttr = getCluster(module);
  auto programs = module.getOps<dist::ProgramOp>();
  if (!clusterAttr || programs.empty())
    return true;
  SmallVector<int64_t> devices = (*programs.begin()).getStageDevices(stage);
  Cluster cluster = clusterAttr.getCluster();
  return devices.empty() ||
         cluster.getKinds()[cluster.getKindOfDevice(devices.front())]
             .isAccelerator;
}

llvm::Expected<LoweredModule>
placer::runtime::lowerForExecution(ModuleOp module,
                                   const ExecutionOptions &options) {
  // The lowering pipeline names upstream passes.
  registerAllPasses();
  MLIRContext *context = module.getContext();
  PassManager graphPm(context);
  bool split = !module.getOps<dist::ProgramOp>().empty();
  if (options.stage >= 0 && !split)
    return runError("stage " + llvm::Twine(options.stage) +
                    " was asked for, but the module is not split");
  if (options.target != "cpu" && options.target != "cpu-portable" &&
      options.target != "cuda")
    return runError("the target must be 'cpu', 'cpu-portable' or 'cuda', "
                    "not '" +
                    options.target + "'");
  // The stages of a split module on CPU cores stay CPU code.
  bool gpu = options.target == "cuda" &&
             (options.stage < 0 || runsOnAccelerator(module, options.stage));
  if (options.precision != "fp32" && options.precision != "bf16" &&
      options.precision != "fp16")
    return runError("the GPU precision must be fp32, bf16 or fp16, not '" +
                    options.precision + "'");
  // A module placer-autocast rewrote already computes in its type, on
  // every device.
  std::string precision = gpu ? options.precision : "fp32";
  if (auto done = module->getAttrOfType<TypeAttr>(kPrecisionAttrName)) {
    std::string recorded = done.getValue().isBF16() ? "bf16" : "fp16";
    if (options.precision != "fp32" && options.precision != recorded)
      return runError("the module computes in " + recorded +
                      " already (placer-autocast), not " + options.precision);
    precision = recorded;
  }
  if (gpu && options.stage >= 0 && options.transfers != "pipelined")
    return runError("a GPU stage transfers through the pipelined hooks "
                    "only, not transfers=" +
                    options.transfers);
  // A split module runs as one program (its stages merged back), or one
  // rank compiles its own stage.
  if (options.stage >= 0)
    graphPm.addPass(createSelectStage(SelectStageOptions{options.stage}));
  else if (split)
    graphPm.addPass(createMergeDevices());
  LowerGraphToLinalgOptions graphOptions;
  graphOptions.profile = options.profile;
  graphOptions.inlineWeights = options.inlineWeights;
  // Half-precision GPU code: the graph casts to and from it, as PyTorch's
  // autocast does at run time (placer-autocast).
  if (precision != "fp32")
    graphPm.addPass(
        createAutocast(AutocastOptions{precision == "bf16" ? "bf16" : "f16"}));
  graphPm.addPass(createLowerGraphToLinalg(graphOptions));
  // TOSA programs go to linalg, arith and tensor first, as IREE lowers
  // them: upstream's TOSA-to-linalg pipeline, then constants and shapes.
  bool hasTosa = module
                     .walk([](Operation *op) {
                       return isa<tosa::TosaDialect>(op->getDialect())
                                  ? WalkResult::interrupt()
                                  : WalkResult::advance();
                     })
                     .wasInterrupted();
  if (hasTosa) {
    tosa::addTosaToLinalgPasses(graphPm, TosaToLinalgOptions(),
                                TosaToLinalgNamedOptions());
    OpPassManager &funcPm = graphPm.nest<func::FuncOp>();
    funcPm.addPass(createTosaToArithPass());
    funcPm.addPass(createTosaToTensorPass());
    funcPm.addPass(createCanonicalizerPass());
  }
  if (failed(graphPm.run(module)))
    return runError("cannot lower the module (see the errors above)");
  dropPlacementAnnotations(module);

  SmallVector<func::FuncOp> entries;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic() && !func.isDeclaration())
      entries.push_back(func);
  if (entries.size() != 1)
    return runError("expected one public function to run, found " +
                    llvm::Twine(entries.size()));
  func::FuncOp entry = entries.front();
  auto isDynamic = [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return shaped && !shaped.hasStaticShape();
  };
  bool dynamic = llvm::any_of(entry.getFunctionType().getInputs(), isDynamic) ||
                 llvm::any_of(entry.getFunctionType().getResults(), isDynamic);
  if (dynamic && options.stage >= 0)
    return runError("stage " + llvm::Twine(options.stage) +
                    " has dynamic dims: the stages of a split program "
                    "exchange tensors of fixed sizes (bind the dims with --dim "
                    "on import)");
  if (dynamic && gpu)
    return runError("the module has dynamic dims: GPU code is compiled for "
                    "fixed sizes (bind the dims with --dim on import)");

  LoweredModule lowered;
  lowered.precision = precision;
  lowered.function = entry.getName().str();
  lowered.transfers = options.transfers;
  if (auto names = module->getAttrOfType<ArrayAttr>(kProfileNodesAttrName)) {
    for (auto name : names.getAsValueRange<StringAttr>())
      lowered.profileNodes.push_back(name.str());
    module->removeAttr(kProfileNodesAttrName);
  }
  llvm::SmallBitVector weightArgs(entry.getNumArguments());
  for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
    Type type = entry.getArgument(i).getType();
    if (auto weight =
            entry.getArgAttrOfType<DictionaryAttr>(i, kWeightAttrName)) {
      weightArgs.set(i);
      TensorSpec spec =
          specOf(type, weight.getAs<StringAttr>("name").getValue().str(), i);
      auto data = loadWeight(module, weight.get("value"), spec);
      if (!data)
        return data.takeError();
      lowered.weights.push_back(std::move(spec));
      lowered.weightData.push_back(std::move(*data));
      entry.removeArgAttr(i, kWeightAttrName);
      continue;
    }
    auto name = entry.getArgAttrOfType<StringAttr>(i, "graph.name");
    int64_t index = graphIndexOf(entry.getArgAttrDict(i), dist::kArgAttrName,
                                 lowered.inputs.size());
    lowered.inputs.push_back(specOf(
        type, name ? name.getValue().str() : "input" + std::to_string(index),
        index, entry.getArgAttrDict(i)));
  }
  for (unsigned i = 0; i < entry.getNumResults(); ++i) {
    auto name = entry.getResultAttrOfType<StringAttr>(i, "graph.name");
    int64_t index =
        graphIndexOf(entry.getResultAttrDict(i), dist::kResultAttrName, i);
    lowered.outputs.push_back(
        specOf(entry.getResultTypes()[i],
               name ? name.getValue().str() : "output" + std::to_string(index),
               index, entry.getResultAttrDict(i)));
    if (auto updates =
            entry.getResultAttrOfType<StringAttr>(i, kUpdatesAttrName))
      lowered.outputs.back().updates = updates.str();
    lowered.outputs.back().replica =
        entry.getResultAttr(i, kReplicaAttrName) != nullptr;
    if (auto shard = entry.getResultAttrOfType<ShardAttr>(i, kShardAttrName)) {
      FailureOr<dist::GroupRanks> ranks =
          dist::getGroupRanks(entry, entry, shard.getGroup());
      if (failed(ranks))
        return runError("cannot place the group of a training state's "
                        "slices (see the errors above)");
      lowered.outputs.back().shard =
          ShardSpec{shard.getAxis(), shard.getBlocks(), shard.getIndex(),
                    ranks->count,    ranks->first,      ranks->stride};
    }
  }
  // A training step's weights change from step to step: not constant.
  llvm::StringSet<> updated;
  for (const TensorSpec &output : lowered.outputs)
    if (!output.updates.empty())
      updated.insert(output.updates);
  for (unsigned i = 0, w = 0; i < entry.getNumArguments(); ++i)
    if (weightArgs.test(i) && updated.contains(lowered.weights[w++].name))
      weightArgs.reset(i);
  // The interface is recorded and every weight's bytes are in host buffers:
  // the graph's names and blobs have no meaning in LLVM IR.
  // A weight's buffer keeps its values from call to call: the CPU library
  // calls may keep what they derive from it.
  for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
    entry.setArgAttrs(i, DictionaryAttr::get(context));
    if (weightArgs.test(i))
      entry.setArgAttr(i, kConstantArgAttrName, UnitAttr::get(context));
  }
  for (unsigned i = 0; i < entry.getNumResults(); ++i)
    entry.setResultAttrs(i, DictionaryAttr::get(context));
  PassManager llvmPm(context);
  if (gpu) {
    GpuTarget target;
    target.chip = options.gpuChip;
    target.tf32 = options.tf32;
    target.channelsLast = options.gpuChannelsLast;
    lowered.gpuChip = options.gpuChip;
    lowered.tf32 = options.tf32;
    if (llvm::Error error = buildLowerToNVVMPipeline(llvmPm, target))
      return std::move(error);
  } else {
    LowerDistToMPIOptions transfers;
    transfers.transfers = options.transfers;
    // Code for another machine (cpu-portable, or a GPU machine's CPU
    // stages) runs where LLVM's libomp and oneDNN may not be installed: its
    // batch loops stay sequential, its convolutions and products generated
    // code.
    bool here = options.target == "cpu";
    if (llvm::Error error = buildLowerToLLVMPipeline(
            llvmPm, transfers, /*parallelLoops=*/here, /*libraryCalls=*/here))
      return std::move(error);
  }
  if (failed(llvmPm.run(module)))
    return runError("cannot lower the module to LLVM (see the errors above)");
  if (llvm::Error error = checkSelfContainedPtx(module))
    return std::move(error);
  return std::move(lowered);
}

//===----------------------------------------------------------------------===//
// Ahead-of-time compilation
//===----------------------------------------------------------------------===//

/// `void placer_invoke(void **args)`: calls the C interface with args[i] as
/// its i-th memref descriptor pointer, so the runner needs no per-signature
/// code.
static llvm::Error addInvokeWrapper(llvm::Module &module,
                                    llvm::StringRef function) {
  llvm::Function *ciface =
      module.getFunction(("_mlir_ciface_" + function).str());
  if (!ciface)
    return runError("the compiled module has no C interface for '" + function +
                    "'");
  llvm::LLVMContext &context = module.getContext();
  auto *ptr = llvm::PointerType::getUnqual(context);
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(context), {ptr},
                                       /*isVarArg=*/false);
  auto *wrapper = llvm::Function::Create(
      type, llvm::GlobalValue::ExternalLinkage, "placer_invoke", module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", wrapper));
  SmallVector<llvm::Value *> args;
  for (unsigned i = 0; i < ciface->arg_size(); ++i)
    args.push_back(
        b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, wrapper->getArg(0), i)));
  b.CreateCall(ciface, args);
  b.CreateRetVoid();
  return llvm::Error::success();
}

/// The folder of the libplacer_rt this process uses: compiled programs link
/// that very copy, in a build tree or installed.
static llvm::Expected<std::string> placerRuntimeDir() {
  Dl_info info;
  if (!::dladdr(reinterpret_cast<void *>(&placer_profile_enter), &info) ||
      !info.dli_fname)
    return runError("cannot locate libplacer_rt");
  llvm::SmallString<256> path(info.dli_fname);
  if (std::error_code ec = llvm::sys::fs::make_absolute(path))
    return runError("cannot locate libplacer_rt: " + ec.message());
  return std::string(llvm::sys::path::parent_path(path));
}

std::string placer::runtime::getPortableHostCpu() {
  return llvm::Triple(llvm::sys::getDefaultTargetTriple()).isX86() ? "x86-64"
                                                                   : "generic";
}

/// Placer's argument attributes (placer.constant: a weight the library
/// calls may pack once) have done their work by the LLVM dialect, and LLVM
/// IR has no parameter attribute for them: the translation would warn about
/// each, on every compile.
static void dropPlacerArgumentAttrs(ModuleOp module) {
  module.walk([](LLVM::LLVMFuncOp op) {
    auto func = cast<FunctionOpInterface>(op.getOperation());
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
      SmallVector<StringAttr> names;
      for (NamedAttribute attr : func.getArgAttrs(i))
        if (attr.getName().getValue().starts_with("placer."))
          names.push_back(attr.getName());
      for (StringAttr name : names)
        func.removeArgAttr(i, name);
    }
  });
}

/// Changes whenever the link command below does, so that libraries cached
/// under an older recipe are not reused.
static constexpr llvm::StringLiteral kLinkRecipe =
    "placer_rt+as-needed mpi+m, -z defs, run path $ORIGIN, omp if parallel";

llvm::Expected<std::string>
placer::runtime::compileToSharedObject(ModuleOp module,
                                       llvm::StringRef function,
                                       llvm::StringRef cacheDir, bool &cached) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::LLVMContext llvmContext;
  dropPlacerArgumentAttrs(module);
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return runError("cannot translate the module to LLVM IR");
  if (llvm::Error error = addInvokeWrapper(*llvmModule, function))
    return std::move(error);

  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  // GPU code's host side only launches and copies, and runs on the GPU
  // machine's CPU, not this one: generic code for the architecture.
  bool gpu = module->hasAttr(gpu::GPUDialect::getContainerModuleAttrName());
  if (gpu) {
    builder->setCPU(getPortableHostCpu());
    builder->getFeatures() = llvm::SubtargetFeatures();
  }
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  builder->setRelocationModel(llvm::Reloc::PIC_);
  auto machine = builder->createTargetMachine();
  if (!machine)
    return machine.takeError();
  llvmModule->setDataLayout((*machine)->createDataLayout());
  llvmModule->setTargetTriple((*machine)->getTargetTriple());

  // The cache key: the unoptimised IR, the host CPU, the tool's LLVM and
  // how the library is linked (kLinkRecipe, below).
  std::string text;
  llvm::raw_string_ostream os(text);
  llvmModule->print(os, nullptr);
  os << (*machine)->getTargetCPU() << LLVM_VERSION_STRING << kLinkRecipe
     << (gpu ? " gpu" : "");
  std::string key = llvm::utohexstr(llvm::xxh3_64bits(text), true, 16);
  if (std::error_code ec = llvm::sys::fs::create_directories(cacheDir))
    return runError("cannot create the cache folder " + cacheDir + ": " +
                    ec.message());
  llvm::SmallString<256> shared(cacheDir);
  llvm::sys::path::append(shared, key + ".so");
  cached = llvm::sys::fs::exists(shared);
  if (cached)
    return std::string(shared);
  // Every intermediate carries the process id: ranks or runs compiling the
  // same key at once must not link or delete each other's files; the
  // rename at the end makes the cached library whole.
  std::string suffix = (".tmp" + llvm::Twine(::getpid())).str();
  std::string object = (shared + ".o" + suffix).str();
  std::string partial = (shared + suffix).str();
  llvm::scope_exit removeIntermediates([&] {
    llvm::sys::fs::remove(object);
    llvm::sys::fs::remove(partial);
  });

  if (llvm::Error error =
          makeOptimizingTransformer(3, 0, machine->get())(llvmModule.get()))
    return std::move(error);
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(object, ec, llvm::sys::fs::OF_None);
    if (ec)
      return runError("cannot write " + object + ": " + ec.message());
    llvm::legacy::PassManager codegen;
    if ((*machine)->addPassesToEmitFile(codegen, out, nullptr,
                                        llvm::CodeGenFileType::ObjectFile))
      return runError("this target cannot emit object files");
    codegen.run(*llvmModule);
  }
  auto linker = llvm::sys::findProgramByName("cc");
  if (!linker)
    return runError("no C compiler driver ('cc') to link " + shared);
  // The code needs libplacer_rt (hooks, transfers, memrefCopy), Open MPI
  // (blocking transfers only: --as-needed, so that a whole program runs
  // where no MPI is installed) and libm, each by name: the host process has
  // libplacer_rt loaded already, and an artifact's run path is its own
  // folder, so nothing from the build tree is linked by path (artifacts
  // move to other machines). -z defs: a symbol no runtime library defines
  // is a link error here, not a load error there.
  llvm::Expected<std::string> rtDir = placerRuntimeDir();
  if (!rtDir)
    return rtDir.takeError();
  std::string rtSearchPath = "-L" + *rtDir;
  // GPU code calls the CUDA runtime's mgpu* and placer_gpu_* functions
  // (docs/Execution.md, "GPU code"), which the process that loads it
  // provides: those are the only symbols -z defs would refuse.
  llvm::SmallVector<llvm::StringRef> args = {*linker,
                                             "-shared",
                                             "-o",
                                             partial,
                                             object,
                                             rtSearchPath,
                                             "-lplacer_rt",
                                             "-Wl,--as-needed",
                                             PLACER_MPI_LIBRARY,
                                             "-lm",
                                             "-Wl,-rpath,$ORIGIN"};
  if (!gpu)
    args.push_back("-Wl,-z,defs");
  // Parallel loops (OpenMP: the images of a batch) call LLVM 22's libomp,
  // found where it is installed (libomp-22-dev).
  if (llvmModule->getFunction("__kmpc_fork_call")) {
    args.push_back("-L" PLACER_OMP_LIBRARY_DIR);
    args.push_back("-lomp");
    args.push_back("-Wl,-rpath," PLACER_OMP_LIBRARY_DIR);
  }
  std::string message;
  if (llvm::sys::ExecuteAndWait(*linker, args, std::nullopt, {}, 0, 0,
                                &message) != 0)
    return runError("linking " + shared + " failed" +
                    (message.empty() ? "" : ": " + message));
  if (std::error_code ec = llvm::sys::fs::rename(partial, shared))
    return runError("cannot write " + shared + ": " + ec.message());
  return std::string(shared);
}
