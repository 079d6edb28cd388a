//===- CostOpInterface.cpp ------------------------------------------------===//
#include "placer/Interfaces/CostOpInterface.h"

#include "placer/Interfaces/CostOpInterface.cpp.inc"
