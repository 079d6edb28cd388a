// --placer-lower-dist-to-mpi on bufferized stage functions.
// RUN: placer-opt %s --split-input-file --placer-lower-dist-to-mpi | FileCheck %s
// RUN: placer-opt %s --split-input-file --placer-lower-dist-to-mpi=transfers=blocking | FileCheck %s --check-prefix=BLOCKING
// RUN: placer-opt %s --split-input-file --placer-lower-dist-to-mpi="transfers=blocking mpi-implementation=MPICH" | FileCheck %s --check-prefix=MPICH
// RUN: placer-opt %s --split-input-file --placer-lower-dist-to-mpi=progress=false | FileCheck %s --check-prefix=QUIET
// RUN: not placer-opt %s --split-input-file --placer-lower-dist-to-mpi=transfers=eager 2>&1 | FileCheck %s --check-prefix=BADMODE
// RUN: not placer-opt %s --split-input-file --placer-lower-dist-to-mpi="transfers=blocking mpi-implementation=LAM" 2>&1 | FileCheck %s --check-prefix=BADABI

// Pipelined: libplacer_rt's hooks with (pointer, bytes, rank, replicas,
// tag); peer devices 2 and 7 are ranks 0 and 1 through dist.ranks, which is
// consumed, and neither is replicated.
// A progress call follows each compute op (here the fill), unless
// progress=false; blocking transfers have none.
// CHECK-DAG: func.func private @placer_dist_recv(!llvm.ptr, i64, i64, i64, i64)
// CHECK-DAG: func.func private @placer_dist_send(!llvm.ptr, i64, i64, i64, i64)
// CHECK-DAG: func.func private @placer_dist_progress()
// CHECK-LABEL: func.func @stage(
// CHECK-NOT: dist.ranks
// CHECK: linalg.fill
// CHECK-NEXT: call @placer_dist_progress() : () -> ()
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %arg0
// CHECK: %[[I:.*]] = arith.index_cast %[[P]] : index to i64
// CHECK: %[[PTR:.*]] = llvm.inttoptr %[[I]] : i64 to !llvm.ptr
// CHECK-DAG: %[[BYTES:.*]] = arith.constant 24 : i64
// CHECK-DAG: %[[RANK:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[COPIES:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[TAG:.*]] = arith.constant 5 : i64
// CHECK: call @placer_dist_send(%[[PTR]], %[[BYTES]], %[[RANK]], %[[COPIES]], %[[TAG]])
// CHECK: arith.constant 16 : i64
// CHECK: arith.constant 0 : i64
// CHECK: arith.constant 1 : i64
// CHECK: arith.constant 6 : i64
// CHECK: call @placer_dist_recv(
// CHECK-NOT: dist.
// Blocking: upstream mpi.send/recv of the buffer collapsed to 1-D, i32 tag
// and rank on MPI_COMM_WORLD; the module names the ABI.
// BLOCKING: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">}
// BLOCKING-NOT: placer_dist_progress
// BLOCKING: %[[FLAT:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1]] : memref<2x3xf32> into memref<6xf32>
// BLOCKING: %[[COMM:.*]] = mpi.comm_world : !mpi.comm
// BLOCKING-DAG: %[[TAG:.*]] = arith.constant 5 : i32
// BLOCKING-DAG: %[[RANK:.*]] = arith.constant 1 : i32
// BLOCKING: mpi.send(%[[FLAT]], %[[TAG]], %[[RANK]], %[[COMM]]) : memref<6xf32>, i32, i32
// BLOCKING: mpi.recv(%arg1, {{.*}}) : memref<2xi64>, i32, i32
// MPICH: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "MPICH">}
// QUIET-NOT: placer_dist_progress
// QUIET: call @placer_dist_send
// QUIET-NOT: placer_dist_progress
// BADMODE: error: --placer-lower-dist-to-mpi: transfers must be 'pipelined' or 'blocking', not 'eager'
// BADABI: error: --placer-lower-dist-to-mpi: mpi-implementation must be 'OpenMPI' or 'MPICH', not 'LAM'
func.func @stage(%x: memref<2x3xf32>, %y: memref<2xi64>) attributes {dist.ranks = array<i64: 2, 7>} {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%x : memref<2x3xf32>)
  dist.send %x to 7 channel 5 : memref<2x3xf32>
  dist.recv from 2 channel 6 into %y : memref<2xi64>
  return
}

// -----

// A strided buffer is sent through a dense copy, freed after the call;
// without dist.ranks a peer is its own rank.
// CHECK-LABEL: func.func @strided(
// CHECK: %[[DENSE:.*]] = memref.alloc() : memref<2x2xf32>
// CHECK: memref.copy %arg0, %[[DENSE]]
// CHECK: memref.extract_aligned_pointer_as_index %[[DENSE]]
// CHECK: arith.constant 3 : i64
// CHECK: call @placer_dist_send(
// CHECK: memref.dealloc %[[DENSE]]
// BLOCKING-LABEL: func.func @strided(
// BLOCKING: memref.copy
// BLOCKING: mpi.send
func.func @strided(%x: memref<2x2xf32, strided<[4, 1], offset: 1>>) {
  dist.send %x to 3 channel 0 : memref<2x2xf32, strided<[4, 1], offset: 1>>
  return
}

// -----

// A replicated peer: device 7's stage runs on ranks 1 to 3 (dist.replicas),
// so the send names rank 1 and 3 copies and the runtime picks the copy of
// each microbatch; blocking transfers ask placer_dist_route for the rank.
// Both attributes are consumed.
// CHECK-LABEL: func.func @replicated(
// CHECK-NOT: dist.replicas
// CHECK-DAG: %[[RANK:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[COPIES:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[TAG:.*]] = arith.constant 4 : i64
// CHECK: call @placer_dist_send(%{{.*}}, %{{.*}}, %[[RANK]], %[[COPIES]], %[[TAG]])
// BLOCKING-LABEL: func.func @replicated(
// BLOCKING-DAG: %[[FIRST:.*]] = arith.constant 1 : i64
// BLOCKING-DAG: %[[COPIES:.*]] = arith.constant 3 : i64
// BLOCKING: %[[RANK:.*]] = call @placer_dist_route(%[[FIRST]], %[[COPIES]]) : (i64, i64) -> i32
// BLOCKING: mpi.send(%{{.*}}, %{{.*}}, %[[RANK]], %{{.*}}) : memref<2xf32>, i32, i32
func.func @replicated(%x: memref<2xf32>) attributes {dist.ranks = array<i64: 2, 7, 8, 9>, dist.replicas = array<i64: 1, 3, 3, 3>} {
  dist.send %x to 7 channel 4 : memref<2xf32>
  return
}

// -----

// Collectives, in either transfer mode: libplacer_rt's hooks with (in, out,
// elements, kind, first rank, ranks, stride) and (in, out, rows, bytes of a
// slice's row, first rank, ranks, stride); devices 4 and 5 are ranks 1 and
// 2. A strided slice goes through a dense copy. Kind 0 is f32.
// CHECK-DAG: func.func private @placer_dist_all_reduce(!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64)
// CHECK-DAG: func.func private @placer_dist_all_gather(!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64)
// CHECK-LABEL: func.func @member(
// CHECK-DAG: %[[ELEMENTS:.*]] = arith.constant 32 : i64
// CHECK-DAG: %[[KIND:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[FIRST:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[COUNT:.*]] = arith.constant 2 : i64
// CHECK: call @placer_dist_all_reduce(%{{.*}}, %{{.*}}, %[[ELEMENTS]], %[[KIND]], %[[FIRST]], %[[COUNT]], %c1_i64{{.*}})
// CHECK: %[[DENSE:.*]] = memref.alloc() : memref<4x4xf32>
// CHECK: memref.copy %arg2, %[[DENSE]]
// CHECK-DAG: %[[ROWS:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[ROWBYTES:.*]] = arith.constant 16 : i64
// CHECK: call @placer_dist_all_gather(%{{.*}}, %{{.*}}, %[[ROWS]], %[[ROWBYTES]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: memref.dealloc %[[DENSE]]
// BLOCKING-LABEL: func.func @member(
// BLOCKING: call @placer_dist_all_reduce
// BLOCKING: call @placer_dist_all_gather
func.func @member(%partial: memref<4x8xf32>, %sum: memref<4x8xf32>,
                  %slice: memref<4x4xf32, strided<[8, 1]>>, %whole: memref<4x8xf32>)
    attributes {dist.ranks = array<i64: 0, 4, 5>} {
  dist.all_reduce %partial over [4, 5] into %sum : memref<4x8xf32> -> memref<4x8xf32>
  dist.all_gather %slice over [4, 5] along 1 into %whole : memref<4x4xf32, strided<[8, 1]>> -> memref<4x8xf32>
  return
}

// -----

// A tensor-parallel group whose members each have data-parallel copies:
// devices 0 and 1 are ranks 0 and 2 (each followed by its copy), so the
// group is every second rank from 0, and copy c's group starts c further
// (the hook adds this rank's copy).
// CHECK-LABEL: func.func @copies(
// CHECK: call @placer_dist_all_reduce(%{{.*}}, %{{.*}}, %c4_i64, %c0_i64, %c0_i64{{.*}}, %c2_i64, %c2_i64{{.*}})
func.func @copies(%partial: memref<4xf32>, %sum: memref<4xf32>)
    attributes {dist.ranks = array<i64: 0, 2, 1, 3>} {
  dist.all_reduce %partial over [0, 1] into %sum : memref<4xf32> -> memref<4xf32>
  return
}
