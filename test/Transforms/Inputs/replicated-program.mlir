// A split program whose first stage runs on two devices (0 and its copy
// on 3), the second on device 1.
func.func @r_d0(%x: tensor<2xf32> {dist.arg = 0 : i64}) {
  dist.send %x to 1 channel 0 : tensor<2xf32>
  return
}
func.func @r_d1() -> (tensor<2xf32> {dist.result = 0 : i64}) {
  %0 = dist.recv from 0 channel 0 : tensor<2xf32>
  return %0 : tensor<2xf32>
}
dist.program @r {channels = [#dist.channel<0 : 0 -> 1, tensor<2xf32>>], devices = array<i64: 0, 1>, replicas = array<i64: 2, 1>, replica_devices = array<i64: 3>, stages = [@r_d0, @r_d1]}
