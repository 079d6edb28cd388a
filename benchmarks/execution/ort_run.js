// Runs an ONNX model with onnxruntime-node (THREADS intra-op threads, one
// unless given) and reports its outputs and time per run.
//
//   node ort_run.js MODEL.onnx CASE_DIR REPEAT [THREADS]
//
// CASE_DIR/inputs.json lists {name, dtype, shape, file} with raw
// little-endian data files (written by compare.py); outputs are written as
// CASE_DIR/ort_<index>.bin, and ort.json holds their names, shapes and the
// timings.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

const ARRAYS = {float32: Float32Array, int64: BigInt64Array, int32: Int32Array};

async function main() {
  const [model, dir, repeatText, threadsText] = process.argv.slice(2);
  const repeat = Number(repeatText);
  const threads = Number(threadsText || 1);
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const feeds = {};
  for (const input of JSON.parse(fs.readFileSync(path.join(dir, 'inputs.json')))) {
    const bytes = fs.readFileSync(path.join(dir, input.file));
    const Array = ARRAYS[input.dtype];
    const data = new Array(bytes.buffer, bytes.byteOffset,
                           bytes.byteLength / Array.BYTES_PER_ELEMENT);
    feeds[input.name] = new ort.Tensor(input.dtype, data, input.shape);
  }
  let results = await session.run(feeds); // warm-up
  const times = [];
  for (let r = 0; r < repeat; ++r) {
    const start = process.hrtime.bigint();
    results = await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - start) * 1e-9);
  }
  times.sort((a, b) => a - b);
  const outputs = session.outputNames.map((name, i) => {
    const tensor = results[name];
    const file = `ort_${i}.bin`;
    fs.writeFileSync(path.join(dir, file), Buffer.from(tensor.data.buffer,
        tensor.data.byteOffset, tensor.data.byteLength));
    return {name, dtype: tensor.type, shape: tensor.dims, file};
  });
  fs.writeFileSync(path.join(dir, 'ort.json'), JSON.stringify({
    version: require('onnxruntime-node/package.json').version,
    outputs,
    seconds_per_run: {min: times[0], median: times[Math.floor(times.length / 2)]},
  }, null, 2));
}

main().catch((error) => {
  console.error(`ort_run.js: ${error.message}`);
  process.exit(1);
});
