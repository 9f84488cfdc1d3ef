// nvrtc-version: 11
// Rodinia 3.1 kmeans with Rodinia's texture references: kmeans.cu (the port warpsim runs by
// default, whose header describes the algorithm and launches) reading the features through the
// texture reference t_features by tex1Dfetch, as Rodinia does, instead of __ldg; Rodinia's
// t_features_flipped and t_clusters, which only its optional GPU reductions read, are declared
// and bound as Rodinia binds them. CUDA 12 removed texture references, so this file is
// compiled with NVRTC 11.8 (tools/regen_ptx.py reads the first line).
#define RODINIA_TEXTURES
#include "kmeans.cu"
