/* Implementation of libraries.h. */
#include "libraries.h"

#include "attn_cudnn.h"

void cb_libraries_json(cb_strbuf_t *out) {
  char cudnn[128]; /* loaded version and headers, or "not available: ..." */
  cb_cudnn_version(cudnn, sizeof cudnn);
  cb_sb_printf(out, ",\"cudnn\":");
  cb_sb_json_str(out, cudnn);
}
