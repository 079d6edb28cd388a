// Exact work of one op of each family (hand-computed in the comments) and
// its roofline time on Inputs/simple-cluster.json:
//   acc: 1e12 FLOP/s (f32), 1e11 B/s, 1e-6 s per op;  cpu: 1e10, 1e10 B/s, 0.
// RUN: placer-opt %S/Inputs/op-zoo.mlir --placer-estimate-costs=cluster=%S/Inputs/simple-cluster.json --placer-print-costs -o /dev/null 2>&1 | FileCheck %s --check-prefix=TABLE
// RUN: placer-opt %S/Inputs/op-zoo.mlir --placer-estimate-costs=cluster=%S/Inputs/simple-cluster.json 2>/dev/null | FileCheck %s --check-prefix=ATTR

// Element types: a 128x128 product (2 x 128^3 = 4194304 FLOP) priced at
// its type's peak (Inputs/dtype-cluster.json: f32 1e12, tf32 2e12, f16 4e12, bf16
// 8e12 FLOP/s; 1e11 B/s; no overhead), its bytes those of its type: f32
// computes 4.19e-6 s; f16 1.05e-6 s, above its 98304 bytes' 9.83e-7 s;
// bf16's 5.2e-7 s of work hides under those bytes: 9.83e-7 s.
// RUN: placer-opt %S/Inputs/dtype-zoo.mlir --placer-estimate-costs=cluster=%S/Inputs/dtype-cluster.json --placer-print-costs -o /dev/null 2>&1 | FileCheck %s --check-prefix=DTYPES
// DTYPES: f32{{ +}}MatMul{{ +}}4194304{{ +}}131072{{ +}}65536{{ +}}65536{{ +}}4.1943e-06
// DTYPES: f16{{ +}}MatMul{{ +}}4194304{{ +}}65536{{ +}}32768{{ +}}32768{{ +}}1.0486e-06
// DTYPES: bf16{{ +}}MatMul{{ +}}4194304{{ +}}65536{{ +}}32768{{ +}}32768{{ +}}9.8304e-07
// tf32=true: the f32 product at the tf32 peak (2e12): 2.10e-6 s, above its
// 196608 bytes' 1.97e-6 s; the half-precision ones keep their peaks.
// RUN: placer-opt %S/Inputs/dtype-zoo.mlir --placer-estimate-costs="cluster=%S/Inputs/dtype-cluster.json tf32=true" --placer-print-costs -o /dev/null 2>&1 | FileCheck %s --check-prefix=TF32
// TF32: f32{{ +}}MatMul{{ +}}4194304{{ +}}131072{{ +}}65536{{ +}}65536{{ +}}2.0972e-06
// TF32: f16{{ +}}MatMul{{ +}}4194304{{ +}}65536{{ +}}32768{{ +}}32768{{ +}}1.0486e-06

// TABLE: warning: ops with no cost formula got a bytes-only estimate: com.example.Fused
// TABLE-NOT: see current operation
// TABLE: op{{ +}}op_type{{ +}}flops{{ +}}bytes_read{{ +}}bytes_written{{ +}}param_bytes{{ +}}time[acc]{{ +}}time[cpu]
// MatMul [2,4,8]x[8,16]: 2*(2*4*16)*8 = 2048; reads 256+512, writes 512.
// max(2048/1e12, 1280/1e11) + 1e-6 = 1.0128e-6 on acc; 1280/1e10 on cpu.
// TABLE: matmul{{ +}}MatMul{{ +}}2048{{ +}}768{{ +}}512{{ +}}512{{ +}}1.0128e-06{{ +}}2.0480e-07
// Gemm [4,8]x[8,16]+C[16]: 2*4*16*8 + 4*16 = 1088.
// TABLE: gemm{{ +}}Gemm{{ +}}1088{{ +}}704{{ +}}256{{ +}}576
// Einsum bij,bjk->bik with b=2 i=3 j=4 k=5: 2 * 120 = 240.
// TABLE: einsum{{ +}}Einsum{{ +}}240{{ +}}256{{ +}}120{{ +}}0
// TABLE: relu{{ +}}Relu{{ +}}128{{ +}}512{{ +}}512{{ +}}0
// Softmax: 5 per element; LayerNormalization: 8; BatchNormalization: 4.
// The LayerNormalization reads the Softmax over the same 8 rows: one row
// kernel, launched by the Softmax; the probabilities stay in it (not
// written, not read again), the LayerNormalization reads its scale alone
// and launches nothing: 576 / 1e11 = 5.76e-9.
// TABLE: softmax{{ +}}Softmax{{ +}}640{{ +}}512{{ +}}0{{ +}}0{{ +}}1.0051e-06
// TABLE: layernorm{{ +}}LayerNormalization{{ +}}1024{{ +}}64{{ +}}512{{ +}}0{{ +}}5.7600e-09
// The scale constant is read 4 times but its 16 bytes count once.
// TABLE: batchnorm{{ +}}BatchNormalization{{ +}}1024{{ +}}1088{{ +}}1024{{ +}}16
// MaxPool: 64 outputs * 2x2 window.
// TABLE: maxpool{{ +}}MaxPool{{ +}}256{{ +}}1024{{ +}}256{{ +}}0
// TABLE: gap{{ +}}GlobalAveragePool{{ +}}256{{ +}}1024{{ +}}16{{ +}}0
// LSTM seq 5, batch 2: 5*2*(64*8 + 64*16) = 15360 MACs -> 30720, plus
// 4 per gate element (5*2*64 = 640) -> 33280.
// TABLE: lstm{{ +}}LSTM{{ +}}33280{{ +}}6464{{ +}}640{{ +}}6144
// Gather reads the indices (48) and the 6 gathered rows (384), not the
// 6400-byte table, which is its parameter.
// TABLE: gather{{ +}}Gather{{ +}}0{{ +}}432{{ +}}384{{ +}}6400
// TABLE: transpose{{ +}}Transpose{{ +}}0{{ +}}512{{ +}}512{{ +}}0
// TABLE: reshape{{ +}}Reshape{{ +}}0{{ +}}0{{ +}}0{{ +}}0{{ +}}0.0000e+00{{ +}}0.0000e+00
// TABLE: custom{{ +}}com.example.Fused{{ +}}0{{ +}}512{{ +}}512{{ +}}0
// TABLE: reducemean{{ +}}ReduceMean{{ +}}128{{ +}}512{{ +}}32{{ +}}0
// Depthwise conv (group 4): 256 outputs * (1*3*3) = 2304 MACs.
// TABLE: depthwise{{ +}}Conv{{ +}}4608{{ +}}1168{{ +}}1024{{ +}}144
// ConvTranspose: 32 inputs * (3*2*2) = 384 MACs.
// TABLE: convtranspose{{ +}}ConvTranspose{{ +}}768{{ +}}224{{ +}}768{{ +}}96
// TABLE: total{{ +}}45488{{ +}}15776{{ +}}7080{{ +}}13888

// ATTR: module attributes {placer.cluster = #placer.cluster<name = "simple", kinds = [#placer.kind<name = "acc", device_class = accelerator, count = 2,
// ATTR: graph.node "MatMul"{{.*}}placer.cost = #placer.cost<flops = 2048, bytes_read = 768, bytes_written = 512, param_bytes = 512, output_bytes = 512, time = {acc = 1.0127999999999999E-6 : f64, cpu = 2.048000e-07 : f64}, transfer_time = 1.0051200000000001e-05>
// A Reshape is a view, and its shape comes from a Constant node: no work
// and no parameter bytes (zero counts are not printed).
// ATTR: graph.node "Reshape"{{.*}}placer.cost = #placer.cost<time = {acc = 0.000000e+00 : f64, cpu = 0.000000e+00 : f64}>
// ATTR: graph.node "Fused"{{.*}}source = generic
