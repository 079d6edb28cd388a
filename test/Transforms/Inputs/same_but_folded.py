"""Checks that a merged module equals the placed one line for line, except
that a Shape or Size node of a static tensor may come back as the constant
it folds to (the split folds such values; see docs/Split.md).

usage: same_but_folded.py EXPECTED MERGED
Prints the number of folded lines; exits 1 at the first other difference.
"""
import re
import sys

expected = open(sys.argv[1]).read().splitlines()
merged = open(sys.argv[2]).read().splitlines()
if len(expected) != len(merged):
    sys.exit(f"{len(expected)} lines expected, {len(merged)} merged")
folded = 0
for number, (want, got) in enumerate(zip(expected, merged), 1):
    if want == got:
        continue
    node = re.search(r'= graph\.node "(Shape|Size)"\(.*\bname = "([^"]*)"', want)
    constant = re.search(r'= graph\.constant .*\bnode = "([^"]*)"', got)
    result = lambda line: line.split("=", 1)[0]
    if node and constant and node.group(2) == constant.group(1) \
            and result(want) == result(got):
        folded += 1
        continue
    sys.exit(f"line {number} differs:\n- {want}\n+ {got}")
print(f"folded {folded}")
