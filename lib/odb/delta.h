/*
 * Git's delta format (gitformat-pack "Deltified representation"): two
 * varint sizes (source, target), then copy and insert instructions.
 */
#ifndef FGIT_ODB_DELTA_H
#define FGIT_ODB_DELTA_H

#include <stddef.h>
#include <stdint.h>

/*
 * Read the source and target sizes from the start of a delta.  Returns the
 * number of bytes consumed, or -1 if the header is truncated or overflows.
 */
int fgit_delta_sizes(const unsigned char *delta, size_t len,
		     uint64_t *src_size, uint64_t *dst_size);

/*
 * Apply delta to base into out, which has room for exactly out_size bytes
 * (the target size from the header).  Every copy is checked against the
 * base and the output; 0 or FGIT_EINVALID with a message.
 */
int fgit_delta_apply(unsigned char *out, size_t out_size,
		     const unsigned char *base, size_t base_size,
		     const unsigned char *delta, size_t delta_len);

#endif
