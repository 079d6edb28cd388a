/* libPlacerMLIRCAPI.so has no code of its own: it is MLIR's core C API
 * (libMLIRCAPIIR.a) as a shared library; see CMakeLists.txt. */
typedef int placer_mlir_capi_has_no_code_of_its_own;
