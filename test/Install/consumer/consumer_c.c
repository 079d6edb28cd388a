/* A C program that uses the installed Placer through its C API alone:
 * imports the bundled example, partitions it over 4 devices by a pass
 * pipeline, reads the placement report, exports the stages to memory, and
 * runs the whole and the split model on the same input: the outputs must be
 * the same bits. Exits 1 with Placer's message on any failure. */
#include "placer-c/Dialects.h"
#include "placer-c/Placer.h"
#include "placer-c/Runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(PlacerStatus status, const char *what) {
  if (placerStatusIsOk(status))
    return;
  MlirStringRef message = placerStatusGetMessage(status);
  fprintf(stderr, "c consumer: %s failed: %.*s\n", what, (int)message.length,
          message.data);
  placerStatusDestroy(status);
  exit(1);
}

struct Text {
  char data[1 << 16];
  size_t size;
};

static void onReport(MlirStringRef pass, MlirStringRef json, void *userData) {
  struct Text *text = userData;
  if (pass.length != strlen("placer-place-devices") ||
      memcmp(pass.data, "placer-place-devices", pass.length) != 0)
    return;
  size_t n = json.length < sizeof(text->data) - 1 ? json.length
                                                  : sizeof(text->data) - 1;
  memcpy(text->data, json.data, n);
  text->data[n] = '\0';
  text->size = n;
}

static void countFile(MlirStringRef name, MlirStringRef bytes, void *userData) {
  if (bytes.length > 0)
    ++*(int *)userData;
}

static MlirStringRef str(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

/* Runs `module` on x[8, 32] into y[8, 32]. */
static void run(MlirModule module, float *x, float *y, const char *cache) {
  PlacerSessionOptions options = placerSessionOptionsGetDefault();
  options.cacheDir = str(cache);
  PlacerSession session;
  check(placerSessionCreate(module, options, &session), "compiling");
  int64_t shape[2] = {8, 32};
  PlacerTensor input = {str("x"), str("f32"), 2, shape, x};
  PlacerTensor output = {str("y"), str("f32"), 2, shape, y};
  check(placerSessionRun(session, &input, 1, &output, 1), "running");
  placerSessionDestroy(session);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: consumer_c MODEL.onnx CACHE_DIR\n");
    return 2;
  }
  MlirStringRef graph = mlirDialectHandleGetNamespace(mlirGetDialectHandle__graph__());
  if (graph.length != 5 || memcmp(graph.data, "graph", 5) != 0)
    return 1;

  MlirContext context = placerContextCreate();
  PlacerImportOptions importOptions = placerImportOptionsGetDefault();
  importOptions.dims = str("batch=8");
  MlirModule whole;
  check(placerImportOnnxFile(context, str(argv[1]), importOptions, &whole),
        "importing");
  MlirModule split = mlirModuleFromOperation(
      mlirOperationClone(mlirModuleGetOperation(whole)));
  static struct Text report;
  check(placerRunPassPipeline(split, str("partition-devices{devices=4}"),
                              onReport, &report),
        "partitioning");
  if (!strstr(report.data, "\"optimal\":true") ||
      !strstr(report.data, "\"accelerators\":4")) {
    fprintf(stderr, "c consumer: unexpected report %s\n", report.data);
    return 1;
  }
  int files = 0;
  check(placerExportOnnxStages(split, true, countFile, &files), "exporting");

  /* A pass that does not exist: an error, not a crash. */
  PlacerStatus bad = placerRunPassPipeline(whole, str("no-such-pass"), NULL, NULL);
  MlirStringRef message = placerStatusGetMessage(bad);
  if (placerStatusIsOk(bad) || !strstr(message.data, "no-such-pass")) {
    fprintf(stderr, "c consumer: a bad pipeline did not fail\n");
    return 1;
  }
  placerStatusDestroy(bad);

  float x[8 * 32], wholeY[8 * 32], splitY[8 * 32];
  for (int i = 0; i < 8 * 32; ++i)
    x[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
  run(whole, x, wholeY, argv[2]);
  run(split, x, splitY, argv[2]);
  if (memcmp(wholeY, splitY, sizeof(wholeY)) != 0) {
    fprintf(stderr, "c consumer: the split run differs from the whole model\n");
    return 1;
  }
  mlirModuleDestroy(split);
  mlirModuleDestroy(whole);
  mlirContextDestroy(context);
  printf("c consumer: %d stage files (4 models and a manifest), optimal "
         "placement on 4 devices, split run equals the whole model\n",
         files);
  return 0;
}
