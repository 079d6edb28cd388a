/*===- CpuLibraryCallsNone.c - The host side without oneDNN ---------------===*
 *
 * A runtime-only build without oneDNN (a GPU machine) has no placer_cpu_*
 * calls, and code compiled for it makes none (docs/Execution.md): the host
 * side then has no error to take and nothing to release.
 *
 *===----------------------------------------------------------------------===*/

#include "placer/Runtime/CpuLibraryCalls.h"

int placer_cpu_library_take_error(char *buffer, size_t size) { return 0; }

int placer_cpu_native_bf16(void) { return 0; }

void placer_cpu_library_release(void) {}
