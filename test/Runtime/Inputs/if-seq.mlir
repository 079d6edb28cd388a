// An If whose branches yield a sequence (ONNX's test_if_seq): the program's
// output is no tensor. runtime-errors.test runs it.
module {
  func.func @main(%c: tensor<i1> {graph.name = "cond"}, %x: tensor<2xf32> {graph.name = "x"}) -> (!graph.seq<tensor<2xf32>> {graph.name = "res"}) {
    %r = graph.node "If"(%c) attributes {name = "res", output_names = ["res"], subgraphs = ["then_branch", "else_branch"], version = 13 : i64} {
      %t = graph.node "SequenceConstruct"(%x) attributes {name = "then_out", output_names = ["t"], version = 13 : i64} : (tensor<2xf32>) -> !graph.seq<tensor<2xf32>>
      graph.yield %t : !graph.seq<tensor<2xf32>> {graph_name = "then", input_names = [], output_names = ["t"]}
    }, {
      %e = graph.node "SequenceConstruct"(%x) attributes {name = "else_out", output_names = ["e"], version = 13 : i64} : (tensor<2xf32>) -> !graph.seq<tensor<2xf32>>
      graph.yield %e : !graph.seq<tensor<2xf32>> {graph_name = "else", input_names = [], output_names = ["e"]}
    } : (tensor<i1>) -> !graph.seq<tensor<2xf32>>
    return %r : !graph.seq<tensor<2xf32>>
  }
}
