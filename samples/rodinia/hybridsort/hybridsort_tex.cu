// nvrtc-version: 11
// Rodinia 3.1 hybridsort with Rodinia's texture references: hybridsort.cu (the port warpsim runs
// by default, whose header describes the kernels and launches) reading the pivots through
// texPivot and the merge input through tex (float4s) by tex1Dfetch, as Rodinia does, instead of
// __ldg from an extra pointer argument: the kernels take Rodinia's arguments. mergeSortPass's
// look-ahead fetch past the bound list reads zero, as a texture does. CUDA 12 removed texture
// references, so this file is compiled with NVRTC 11.8 (tools/regen_ptx.py reads the first
// line).
#define RODINIA_TEXTURES
#include "hybridsort.cu"
