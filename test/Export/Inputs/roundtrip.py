"""Round-trips each fixture: import, export, import again, compare.

    roundtrip.py FIXTURE_COMMAND... OUT_DIR

Prints one line per fixture; lit's FileCheck asserts them.
"""
import os
import subprocess
import sys

import onnx

FIXTURES = ["conv", "unsorted", "symbolic", "subgraph-if", "loop", "custom-op",
            "optional-io", "multi-output", "all-attrs", "constants", "dtypes",
            "large-initializer", "external"]


def run(*args):
    return subprocess.run(args, check=True, capture_output=True).stdout


def check(path):
    """onnx.checker's verdict: None when the model passes, else the error."""
    try:
        onnx.checker.check_model(path)
        return None
    except Exception as e:  # a verdict to report, not a failure of the script
        return str(e).splitlines()[0]


def main():
    *fixture_cmd, out = sys.argv[1:]
    fixture_cmd = fixture_cmd[0].split() + fixture_cmd[1:]
    for name in FIXTURES:
        # External data is relative to the model: keep each model and its
        # export in a directory of their own.
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        first = os.path.join(d, "model.onnx")
        mlir = os.path.join(d, "model.mlir")
        exported = os.path.join(d, "exported.onnx")
        subprocess.run(fixture_cmd + [name, first], check=True)
        text1 = run("placer-translate", "--import-onnx", first, "-o", mlir)
        run("placer-translate", "--export-onnx", mlir, "-o", exported)
        text1 = open(mlir).read()
        text2 = run("placer-translate", "--import-onnx", exported).decode()
        same = "identical" if text1 == text2 else "DIFFERENT"
        before, after = check(first), check(exported)
        if after is None:
            checker = "checker ok"
        elif after == before:
            checker = "checker rejects it like the original"
        else:
            checker = "checker failed: %s" % after
        print("%s: %s, %s" % (name, same, checker))
        if text1 != text2:
            import difflib
            sys.stdout.writelines(difflib.unified_diff(
                text1.splitlines(True), text2.splitlines(True)))


if __name__ == "__main__":
    main()
