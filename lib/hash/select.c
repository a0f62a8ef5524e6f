/*
 * Picks the SHA-1 implementation once, at first use.  pthread_once makes
 * the choice thread-safe; afterwards it is a plain load.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "hash/sha1.h"
#include "hash/sha1dc.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static enum fgit_sha1_impl chosen;
static fgit_sha1_blocks_fn chosen_fn;
static fgit_sha1dc_blocks_fn chosen_dc_fn;

static void choose(void)
{
	const char *env = getenv("FGIT_SHA1_IMPL");
	int have = fgit_sha1_have_shani();

	chosen = have ? FGIT_SHA1_SHANI : FGIT_SHA1_PORTABLE;
	if (env && !strcmp(env, "portable"))
		chosen = FGIT_SHA1_PORTABLE;
	/* "shani" on a CPU without it falls back rather than crash. */
	chosen_fn = fgit_sha1_blocks_portable;
#if defined(__x86_64__) || defined(__i386__)
	if (chosen == FGIT_SHA1_SHANI)
		chosen_fn = fgit_sha1_blocks_shani;
#else
	chosen = FGIT_SHA1_PORTABLE;
#endif
	chosen_dc_fn = chosen == FGIT_SHA1_SHANI && fgit_sha1dc_fast_available()
		? fgit_sha1dc_blocks_fast : fgit_sha1dc_blocks_portable;
}

enum fgit_sha1_impl fgit_sha1_impl(void)
{
	pthread_once(&once, choose);
	return chosen;
}

fgit_sha1_blocks_fn fgit_sha1_blocks(void)
{
	pthread_once(&once, choose);
	return chosen_fn;
}

fgit_sha1dc_blocks_fn fgit_sha1dc_blocks(void)
{
	pthread_once(&once, choose);
	return chosen_dc_fn;
}

const char *fgit_sha1_impl_name(enum fgit_sha1_impl impl)
{
	return impl == FGIT_SHA1_SHANI ? "shani" : "portable";
}

int fgit_sha1_impl_force(enum fgit_sha1_impl impl)
{
	pthread_once(&once, choose);
	if (impl == FGIT_SHA1_PORTABLE) {
		chosen = impl;
		chosen_fn = fgit_sha1_blocks_portable;
		chosen_dc_fn = fgit_sha1dc_blocks_portable;
		return 0;
	}
#if defined(__x86_64__) || defined(__i386__)
	if (impl == FGIT_SHA1_SHANI && fgit_sha1_have_shani()) {
		chosen = impl;
		chosen_fn = fgit_sha1_blocks_shani;
		chosen_dc_fn = fgit_sha1dc_fast_available()
			? fgit_sha1dc_blocks_fast : fgit_sha1dc_blocks_portable;
		return 0;
	}
#endif
	return -1;
}
