/* The ring schedules' host arithmetic (ringattn_bwd_plan.h). */
#include "ringattn_bwd_plan.h"

cb_ra_bwd_step_t cb_ra_bwd_step(int P, int r, int i) {
  cb_ra_bwd_step_t st;
  st.kv_src = ((r - i) % P + P) % P;
  st.dkv_to = (r + 1) % P;
  st.dkv_home = i == P - 1;
  st.contributions = i + 1;
  return st;
}

unsigned cb_ra_slot_fills(int P, int s) {
  unsigned c = 0;
  for (int t = 1; t < P; t++) c += (t % 2) == s;
  return c;
}

unsigned cb_ra_fill_index(int t) { return (unsigned)((t + 1) / 2); }
