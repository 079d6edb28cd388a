# Lit configuration of Placer's tool and pass tests.
import os

import lit.formats

config.name = "Placer"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "Install", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.placer_obj_root, "test")

# Tools: ours first, then FileCheck/not/count from LLVM 22.
path = os.pathsep.join([config.placer_tools_dir, config.llvm_tools_dir,
                        config.environment.get("PATH", os.environ["PATH"])])
config.environment["PATH"] = path

inputs = os.path.join(config.test_source_root, "Inputs")
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(
    ("%onnx-fixture", "%s %s" % (config.python_executable,
                                 os.path.join(inputs, "onnx_fixtures.py"))))
config.substitutions.append(("%inputs", inputs))
config.substitutions.append(("%placer_bin", config.placer_tools_dir))
# The stock mlir-opt of Debian's mlir-22-tools, and Placer as its plugin.
plugin = os.path.join(config.placer_obj_root, "lib", "libPlacerPlugin.so")
config.substitutions.append(("%placer_plugin_flags",
                             "--load-dialect-plugin=%s --load-pass-plugin=%s"
                             % (plugin, plugin)))
config.substitutions.append(("%placer_plugin", plugin))
config.substitutions.append(("%mlir_opt",
                             os.path.join(config.llvm_tools_dir, "mlir-opt")))

# The paper's published workloads, kept in the repository as test data
# (MIT, test/Inputs/workloads/LICENSE.txt): checked everywhere.
config.substitutions.append(
    ("%workloads", os.path.join(config.placer_src_root, "test", "Inputs", "workloads")))

# Shared, read-only data next to the checkout (real models, weights absent).
shared = os.path.abspath(os.path.join(config.placer_src_root, "..", "shared"))
config.substitutions.append(("%shared", shared))
if os.path.isdir(os.path.join(shared, "models")):
    config.available_features.add("shared-models")

testdata = "/usr/lib/python3/dist-packages/onnx/backend/test/data"
config.substitutions.append(("%onnx-testdata", testdata))
if os.path.isdir(testdata):
    config.available_features.add("onnx-testdata")

# Under scripts/sanitize.sh everything runs 10-20x slower: tests that need
# a solver to get CPU time within a wall-clock limit do not run there.
if os.environ.get("ASAN_OPTIONS"):
    config.available_features.add("sanitizers")

import shutil
# MPI runs (Open MPI): as root too, with more ranks than cores, and without
# the shared-memory single-copy path that containers often forbid.
if shutil.which("mpirun"):
    config.available_features.add("mpi")
    config.environment.update({
        "OMPI_ALLOW_RUN_AS_ROOT": "1",
        "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
        "OMPI_MCA_btl_vader_single_copy_mechanism": "none",
        "OMPI_MCA_rmaps_base_oversubscribe": "1",
        # Components stay loaded, so sanitizer reports can name them.
        "OMPI_MCA_mca_base_component_disable_dlclose": "1",
    })
    for name in ("HOME", "TMPDIR"):
        if name in os.environ:
            config.environment[name] = os.environ[name]
    # Never a hang: every MPI job of the suite is bounded. Under
    # LeakSanitizer, MPI ranks unwind allocation stacks exactly, so that
    # Open MPI's own leaks match scripts/sanitizers/lsan.supp.
    mpirun = "timeout 300 mpirun"
    if os.environ.get("LSAN_OPTIONS"):
        mpirun = "env LSAN_OPTIONS=%s:fast_unwind_on_malloc=0 %s" % (
            os.environ["LSAN_OPTIONS"], mpirun)
    config.substitutions.append(("%mpirun", mpirun))

if shutil.which("dot"):
    config.available_features.add("graphviz")
