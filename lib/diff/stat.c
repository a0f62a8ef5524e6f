/* Diffstat summary lines and git's abbreviated rename names. */
#include <string.h>
#include "fgit/buf.h"
#include "fgit/diff.h"

int fgit_diffstat_summary(struct fgit_buf *out, size_t files, size_t ins, size_t del)
{
	int r;

	if (!files)
		return fgit_buf_adds(out, " 0 files changed\n");
	r = fgit_buf_addf(out, " %zu file%s changed", files, files == 1 ? "" : "s");
	/* git names a zero count only when the other one is zero too */
	if (!r && (ins || !del))
		r = fgit_buf_addf(out, ", %zu insertion%s(+)", ins, ins == 1 ? "" : "s");
	if (!r && (del || !ins))
		r = fgit_buf_addf(out, ", %zu deletion%s(-)", del, del == 1 ? "" : "s");
	return r ? r : fgit_buf_addch(out, '\n');
}

int fgit_diff_rename_name(struct fgit_buf *out, const char *from, const char *to)
{
	size_t la = strlen(from), lb = strlen(to), pfx = 0, sfx = 0, i, floor;
	size_t mida, midb;

	/* shared leading directories: the longest common prefix ending in '/' */
	for (i = 0; i < la && i < lb && from[i] == to[i]; i++)
		if (from[i] == '/')
			pfx = i + 1;
	/*
	 * shared trailing components: the longest common suffix starting at
	 * '/'; it may reach back onto the prefix's own final slash, never
	 * further
	 */
	floor = pfx ? pfx - 1 : 0;
	for (i = 1; i <= la - floor && i <= lb - floor; i++) {
		char ca = from[la - i], cb = to[lb - i];
		if (ca != cb)
			break;
		if (ca == '/')
			sfx = i;
	}
	if (!pfx && !sfx)
		return fgit_buf_addf(out, "%s => %s", from, to);
	mida = la > pfx + sfx ? la - pfx - sfx : 0;
	midb = lb > pfx + sfx ? lb - pfx - sfx : 0;
	return fgit_buf_addf(out, "%.*s{%.*s => %.*s}%s", (int)pfx, from,
			     (int)mida, from + pfx, (int)midb, to + pfx, from + la - sfx);
}
