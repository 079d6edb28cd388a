// The cost models of upstream ops (UpstreamCostModels.cpp), one op of each
// rule family with its work hand-computed in the comments, on
// Inputs/simple-cluster.json (acc: 1e12 FLOP/s f32, 1e11 B/s, 1e-6 s per
// launch; cpu: 1e10 FLOP/s, 1e10 B/s, 0).
// RUN: placer-opt %S/Inputs/upstream-linalg-zoo.mlir --placer-estimate-costs=cluster=%S/Inputs/simple-cluster.json --placer-print-costs -o /dev/null 2>&1 | FileCheck %s --check-prefix=LINALG
// RUN: placer-opt %S/Inputs/upstream-tosa-zoo.mlir --placer-estimate-costs=cluster=%S/Inputs/simple-cluster.json --placer-print-costs -o /dev/null 2>&1 | FileCheck %s --check-prefix=TOSA

// Every op has a model: no bytes-only warning (the payloads' arith ops are
// the linalg ops' FLOPs, not ops of their own).
// LINALG-NOT: warning
// LINALG: op{{ +}}op_type{{ +}}flops{{ +}}bytes_read{{ +}}bytes_written{{ +}}param_bytes{{ +}}time[acc]{{ +}}time[cpu]
// A fill of a constant read only as an init runs in its readers' kernels:
// the accumulator starts in registers, and nothing reads it from memory.
// LINALG: fill#3{{ +}}linalg.fill{{ +}}0{{ +}}0{{ +}}256{{ +}}0{{ +}}0.0000e+00{{ +}}0.0000e+00
// matmul 4x8 * 8x16: 2*4*16*8 = 1024; reads x 128 and w 512 (a graph.weight
// argument: 512 parameter bytes); its result, read by relu_exp alone, stays
// in the kernel (relu_exp is its epilogue): nothing written.
// max(1024/1e12, 640/1e11) + 1e-6 = 1.0064e-6.
// LINALG: matmul#4{{ +}}linalg.matmul{{ +}}1024{{ +}}640{{ +}}0{{ +}}512{{ +}}1.0064e-06{{ +}}1.0240e-07
// generic: 64 points * (maximumf 1 + exp 4); its init is not read; the
// matmul's epilogue: reads from registers, no launch, writes its 256 bytes.
// LINALG: relu_exp#5{{ +}}linalg.generic{{ +}}320{{ +}}0{{ +}}256{{ +}}0{{ +}}2.5600e-09
// reduce: 64 addf; reads 256 (its init, a fill, in registers).
// LINALG: rowsum#8{{ +}}linalg.reduce{{ +}}64{{ +}}256{{ +}}16{{ +}}0{{ +}}1.0027e-06
// The pad only the conv reads runs in the conv's kernel: reads the image,
// writes nothing, no launch.
// LINALG: pad#9{{ +}}tensor.pad{{ +}}0{{ +}}576{{ +}}0{{ +}}0{{ +}}5.7600e-09
// conv 1x6x6x8 outputs * 3x3x4 = 10368 MACs = 20736; reads the constant
// filter (1152, its parameter bytes) alone: max(2.0736e-8, 1.152e-8) + 1e-6.
// LINALG: conv#14{{ +}}linalg.conv_2d_nhwc_hwcf{{ +}}20736{{ +}}1152{{ +}}0{{ +}}1152{{ +}}1.0207e-06
// Its bias add has the conv's location (one source op): it runs in the
// conv's kernel, reads the conv's result from registers (only the 32-byte
// bias), and launches nothing: (32 + 1152) / 1e11 = 1.184e-8.
// LINALG: conv#15{{ +}}linalg.generic{{ +}}288{{ +}}32{{ +}}1152{{ +}}32{{ +}}1.1840e-08{{ +}}1.1840e-07
// LINALG: collapse#16{{ +}}tensor.collapse_shape{{ +}}0{{ +}}0{{ +}}0{{ +}}0{{ +}}0.0000e+00
// Elementwise on tensors: 1 per element, 4 for tanh; an operand given
// twice is read twice.
// LINALG: square#17{{ +}}arith.mulf{{ +}}64{{ +}}512{{ +}}256{{ +}}0
// LINALG: tanh#18{{ +}}math.tanh{{ +}}256{{ +}}256{{ +}}256{{ +}}0
// LINALG: concat#19{{ +}}tensor.concat{{ +}}0{{ +}}512{{ +}}512{{ +}}0
// LINALG: slice#20{{ +}}tensor.extract_slice{{ +}}0{{ +}}0{{ +}}0{{ +}}0{{ +}}0.0000e+00
// LINALG: total{{ +}}22752{{ +}}3936{{ +}}3872{{ +}}1696

// TOSA-NOT: warning
// conv2d 288 outputs * 3x3x4 MACs * 2 + 288 bias adds = 21024; reads the
// input, weights, bias and two zero points (1768); their first reader owns
// the constants (1152 + 32 + 4).
// TOSA: conv#4{{ +}}tosa.conv2d{{ +}}21024{{ +}}1768{{ +}}1152{{ +}}1188
// TOSA: relu#5{{ +}}tosa.clamp{{ +}}288{{ +}}1152{{ +}}1152{{ +}}0
// depthwise: 288 * 3x3 * 2 + 288 = 5472; the bias is conv's already.
// TOSA: depthwise#7{{ +}}tosa.depthwise_conv2d{{ +}}5472{{ +}}1480{{ +}}1152{{ +}}288
// pooling: 72 outputs * 2x2 window.
// TOSA: avgpool#8{{ +}}tosa.avg_pool2d{{ +}}288{{ +}}1160{{ +}}288{{ +}}0
// TOSA: maxpool#9{{ +}}tosa.max_pool2d{{ +}}288{{ +}}1152{{ +}}288{{ +}}0
// matmul [1,4,8] x [1,8,16]: 2 * 64 * 8.
// TOSA: matmul#11{{ +}}tosa.matmul{{ +}}1024{{ +}}648{{ +}}256{{ +}}512
// TOSA: exp#12{{ +}}tosa.exp{{ +}}256{{ +}}256{{ +}}256{{ +}}0
// TOSA: add#13{{ +}}tosa.add{{ +}}64{{ +}}512{{ +}}256{{ +}}0
// TOSA: reducesum#14{{ +}}tosa.reduce_sum{{ +}}64{{ +}}256{{ +}}64{{ +}}0
// TOSA: transpose#15{{ +}}tosa.transpose{{ +}}0{{ +}}256{{ +}}256{{ +}}0
// TOSA: reshape#17{{ +}}tosa.reshape{{ +}}0{{ +}}0{{ +}}0{{ +}}0{{ +}}0.0000e+00
// gather reads the indices (16) and the 4 gathered rows (128), not the
// table.
// TOSA: gather#18{{ +}}tosa.gather{{ +}}0{{ +}}144{{ +}}128{{ +}}0
// transpose_conv2d: 36 inputs * 8x2x2 MACs * 2 + 288 bias adds = 2592.
// TOSA: upconv#20{{ +}}tosa.transpose_conv2d{{ +}}2592{{ +}}696{{ +}}1152{{ +}}512
// TOSA: total{{ +}}31360{{ +}}9480{{ +}}6400{{ +}}2500
