// nvrtc-version: 11
// Rodinia 3.1 leukocyte with Rodinia's texture references: leukocyte.cu (the port warpsim runs
// by default, whose header describes the kernels and launches) with GICOV_kernel reading the
// gradients through t_grad_x and t_grad_y and dilate_kernel the GICOV matrix through t_img, by
// tex1Dfetch, as Rodinia does: the two kernels take Rodinia's arguments. CUDA 12 removed
// texture references, so this file is compiled with NVRTC 11.8 (tools/regen_ptx.py reads the
// first line).
#define RODINIA_TEXTURES
#include "leukocyte.cu"
