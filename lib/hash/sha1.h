/* Internal SHA-1 block functions; picked once by hash.c. */
#ifndef FGIT_LIB_HASH_SHA1_H
#define FGIT_LIB_HASH_SHA1_H
#include <stddef.h>
#include <stdint.h>

typedef void (*fgit_sha1_blocks_fn)(uint32_t h[5], const unsigned char *data, size_t nblocks);
void fgit_sha1_blocks_portable(uint32_t h[5], const unsigned char *data, size_t nblocks);

#endif
