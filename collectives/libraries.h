/* The libraries some algorithms load beside NCCL and the CUDA runtime, with the version this run
 * found, for the run's metadata: the one place the program asks, so it names no family's
 * library itself. Today cuDNN (the fused block kernel of ring attention's *_cudnn rows). */
#ifndef CB_LIBRARIES_H
#define CB_LIBRARIES_H

#include "strbuf.h"

/* Each library as a JSON member after a comma: ,"cudnn":"9.8.0 (headers 9.8.0)" or
 * "not available: ...". */
void cb_libraries_json(cb_strbuf_t *out);

#endif
