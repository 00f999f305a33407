/* Where ringattn's --save DIR files go, created so that nothing planted is written through:
 * DIR is a folder collbench makes itself (the start check, attn_config.h, found nothing at that
 * name), each row's folder is new inside it, and each file is new inside that
 * (O_CREAT|O_EXCL|O_NOFOLLOW); folders are opened without following a symlink and used by
 * descriptor, so a name swapped afterwards is not followed either. Host C, no CUDA (the CPU
 * tests plant symlinks at every step). */
#ifndef CB_ATTN_SAVE_DIR_H
#define CB_ATTN_SAVE_DIR_H

#include <stddef.h>
#include <stdio.h>

/* Makes DIR on the first row (mkdir; a later row finds the folder made by the first) and opens
 * it, refusing a symlink and a folder this process does not own (one someone else made since
 * the start check); then makes the row's folder `sub` inside it (a name already there is an
 * error). Returns the row folder's descriptor, or -1 with why. */
int cb_attn_save_open_row(const char *dir, const char *sub, char *why, size_t n);

/* Creates `name` in the row folder rowfd as a new file for writing (binary), mode 0666 less
 * the umask. `shown` names the row folder in messages. NULL with why. */
FILE *cb_attn_save_create(int rowfd, const char *shown, const char *name, char *why, size_t n);

#endif
