/*
 * Big arrays on transparent huge pages.
 *
 * A page fault costs ~25 us of system time on this project's VM (PVM
 * guest): a 4 MB array touched once on 4 KiB pages is ~1,000 faults and
 * ~25 ms, more than the work done in it.  On 2 MiB pages, where the
 * system grants them on request (transparent_hugepage=madvise), the same
 * array takes 2 faults.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "fgit/common.h"

#define HUGE_PAGE ((size_t)2 << 20)
#define HUGE_MIN ((size_t)1 << 20)	/* below this, plain calloc */

void *fgit_calloc_huge(size_t n, size_t size)
{
	size_t bytes, sz;
	void *p;

	if (size && n > SIZE_MAX / size)
		return NULL;
	bytes = n * size;
	if (bytes < HUGE_MIN)
		return calloc(bytes ? bytes : 1, 1);
	sz = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	if (sz < bytes || !(p = aligned_alloc(HUGE_PAGE, sz)))
		return NULL;
	madvise(p, sz, MADV_HUGEPAGE);
	memset(p, 0, bytes);
	return p;
}
