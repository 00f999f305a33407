/* The strict parser behind every CB_* environment knob (collectives/knobs.h lists them and
 * reads them all at start): a malformed value is an error that names the variable, never a
 * silent default. */
#ifndef CB_ENV_H
#define CB_ENV_H

#include <stddef.h>
#include <stdint.h>

/* Returns 0 when `name` is unset (*out untouched), 1 with *out set when it holds a decimal
 * integer in [lo, hi], -1 with why otherwise: a knob set to the empty string is an error naming
 * it, as every CB_* knob's (CB_MOE_TRACE=, CB_FAULT=, CB_NODE_ID= too). */
int cb_env_u64(const char *name, uint64_t lo, uint64_t hi, uint64_t *out, char *why, size_t n);

#endif
