/* The family columns' schema (row.h): names, kinds, CSV formats and groups, in the JSON's order.
 * docs/results-format.md defines each; tests/cpu/check_report.py holds the header it must give. */
#include "row.h"

#include <math.h>
#include <stdio.h>

/* moe: the phase's own bytes and traffic (remote_gbs, the link bytes) and the routing's
 * imbalance; ringattn: the shape, the pass, the compute figures and the context-parallel form */
const cb_column_t cb_columns[CB_NCOLS] = {
    [CB_COL_MODEL] = {"model", CB_COL_TEXT, NULL, CB_COLS_MOE, 0, 0},
    [CB_COL_TOKENS] = {"tokens", CB_COL_INT, NULL, CB_COLS_MOE, 0, 0},
    [CB_COL_HIDDEN] = {"hidden", CB_COL_INT, NULL, CB_COLS_MOE, 0, 0},
    [CB_COL_TOPK] = {"topk", CB_COL_INT, NULL, CB_COLS_MOE, 0, 0},
    [CB_COL_EXPERTS] = {"experts", CB_COL_INT, NULL, CB_COLS_MOE, 0, 0},
    [CB_COL_ROUTING] = {"routing", CB_COL_TEXT, NULL, CB_COLS_MOE, 0, 0},
    [CB_COL_PHASE] = {"phase", CB_COL_TEXT, NULL, CB_COLS_MOE, 0, 0},
    [CB_COL_REMOTE_GBS] = {"remote_gbs", CB_COL_REAL, "%.3f", CB_COLS_MOE, 1, 0},
    [CB_COL_IMBALANCE] = {"imbalance", CB_COL_REAL, "%.4f", CB_COLS_MOE, 0, 0},
    [CB_COL_NET_BYTES] = {"net_bytes", CB_COL_REAL, "%.0f", CB_COLS_MOE, 1, 0},
    [CB_COL_NVLINK_BYTES] = {"nvlink_bytes", CB_COL_REAL, "%.0f", CB_COLS_MOE, 1, 0},
    [CB_COL_SEQ] = {"seq", CB_COL_INT, NULL, CB_COLS_ATTN, 0, 0},
    [CB_COL_BATCH] = {"batch", CB_COL_INT, NULL, CB_COLS_ATTN, 0, 0},
    [CB_COL_HEADS] = {"heads", CB_COL_INT, NULL, CB_COLS_ATTN, 0, 0},
    [CB_COL_KV_HEADS] = {"kv_heads", CB_COL_INT, NULL, CB_COLS_ATTN, 0, 0},
    [CB_COL_HEAD_DIM] = {"head_dim", CB_COL_INT, NULL, CB_COLS_ATTN, 0, 0},
    [CB_COL_CAUSAL] = {"causal", CB_COL_INT, NULL, CB_COLS_ATTN, 0, 0},
    [CB_COL_PASS] = {"pass", CB_COL_TEXT, NULL, CB_COLS_ATTN, 0, 1},
    [CB_COL_TFLOPS] = {"tflops", CB_COL_REAL, "%.4f", CB_COLS_ATTN, 1, 0},
    [CB_COL_COMM_US] = {"comm_us", CB_COL_REAL, "%.4f", CB_COLS_ATTN, 1, 0},
    [CB_COL_COMPUTE_US] = {"compute_us", CB_COL_REAL, "%.4f", CB_COLS_ATTN, 1, 0},
    [CB_COL_OVERLAP_EFF] = {"overlap_eff", CB_COL_REAL, "%.4f", CB_COLS_ATTN, 1, 0},
    [CB_COL_RING_OVER_SINGLE] = {"ring_over_single", CB_COL_REAL, "%.4f", CB_COLS_ATTN, 1, 0},
    [CB_COL_ERR_MAX] = {"err_max", CB_COL_REAL, "%.6g", CB_COLS_ATTN, 1, 0},
    [CB_COL_ERR_MEAN] = {"err_mean", CB_COL_REAL, "%.6g", CB_COLS_ATTN, 1, 0},
    /* ringattn's context-parallel form: the sequence layout, and the U x R factorisation the row
     * ran (Ulysses groups of U ranks, a ring of R: integers, written only on timed rows) */
    [CB_COL_LAYOUT] = {"layout", CB_COL_TEXT, NULL, CB_COLS_ATTN, 0, 1},
    [CB_COL_ULYSSES] = {"ulysses", CB_COL_REAL, "%.0f", CB_COLS_ATTN, 1, 1},
    [CB_COL_RING] = {"ring", CB_COL_REAL, "%.0f", CB_COLS_ATTN, 1, 1},
    /* alltoallv: how the per-peer counts were made (--counts: spread, uniform, matrix:FILE, moe:...) */
    [CB_COL_COUNTS] = {"counts", CB_COL_TEXT, NULL, CB_COLS_A2AV, 0, 1},
};

const char *cb_row_real_text(double v, const char *fmt, char *buf, size_t n) {
  if (isfinite(v)) snprintf(buf, n, fmt, v);
  else snprintf(buf, n, "-");
  return buf;
}
