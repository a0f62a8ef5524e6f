/* git count-objects: loose and packed object counts and sizes. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include <stdlib.h>
#include "fgit/buf.h"
#include "fgit/odb.h"
#include "fgit/repo.h"

static const char *const count_objects_usage[] = {
	"git count-objects [-v] [-H | --human-readable]",
	NULL
};

/* git's humanised byte counts: "12.00 KiB", "0 bytes". */
static void human(char *out, size_t n, uint64_t bytes)
{
	if (bytes > (1ull << 30)) {
		uint64_t x = bytes + 5368709;
		snprintf(out, n, "%u.%2.2u GiB", (unsigned)(x >> 30),
			 (unsigned)(((x & ((1ull << 30) - 1)) * 100) >> 30));
	} else if (bytes > (1u << 20)) {
		uint64_t x = bytes + 5243;
		snprintf(out, n, "%u.%2.2u MiB", (unsigned)(x >> 20),
			 (unsigned)(((x & ((1u << 20) - 1)) * 100) >> 20));
	} else if (bytes > (1u << 10)) {
		uint64_t x = bytes + 5;
		snprintf(out, n, "%u.%2.2u KiB", (unsigned)(x >> 10),
			 (unsigned)(((x & ((1u << 10) - 1)) * 100) >> 10));
	} else {
		snprintf(out, n, "%u %s", (unsigned)bytes, bytes == 1 ? "byte" : "bytes");
	}
}

static void size_str(char *out, size_t n, uint64_t bytes, int h)
{
	if (h)
		human(out, n, bytes);
	else
		snprintf(out, n, "%llu", (unsigned long long)(bytes / 1024));
}

struct gctx {
	int verbose;
	const char *odb_path;		/* absolute, as the library has it */
	const char *display;		/* git's spelling of it, e.g. ".git/objects" */
};

static void garbage(const char *path, const char *why, void *payload)
{
	struct gctx *g = payload;
	size_t n = strlen(g->odb_path);
	if (!g->verbose)
		return;
	if (g->display && !strncmp(path, g->odb_path, n) && path[n] == '/')
		warning("%s: %s%s", why, g->display, path + n);
	else
		warning("%s: %s", why, path);
}

CLI_CMD(count_objects)
{
	int verbose = 0, h = 0, n;
	struct cli_option real[] = {
		OPT_BOOL('v', "verbose", &verbose, "be verbose"),
		OPT_BOOL('H', "human-readable", &h, "print sizes in human readable format"),
		OPT_END(),
	};
	struct fgit_odb_counts c;
	struct fgit_odb *odb;
	char a[64], b[64], g[64];

	n = cli_parse_options(argc, argv, "count-objects", real, count_objects_usage, 0);
	if (n)
		cli_usage_with_options(count_objects_usage, real, 0);
	if (fgit_repo_odb(&odb, cli_repo()) < 0)
		die_last();
	{
		struct fgit_buf disp = FGIT_BUF_INIT;
		struct gctx g = { verbose, fgit_odb_path(odb), NULL };
		if (!getenv("GIT_OBJECT_DIRECTORY")) {
			fgit_buf_addf(&disp, "%s/objects",
				      fgit_repo_common_dir_display(cli_repo()));
			g.display = disp.ptr;
		}
		if (fgit_odb_count(&c, odb, garbage, &g) < 0)
			die_last();
		fgit_buf_release(&disp);
	}
	size_str(a, sizeof(a), c.loose_size, h);
	if (!verbose) {
		if (h)
			printf("%llu objects, %s\n", (unsigned long long)c.loose_count, a);
		else
			printf("%llu objects, %s kilobytes\n", (unsigned long long)c.loose_count, a);
		return 0;
	}
	size_str(b, sizeof(b), c.pack_size, h);
	size_str(g, sizeof(g), c.garbage_size, h);
	printf("count: %llu\nsize: %s\nin-pack: %llu\npacks: %llu\nsize-pack: %s\n"
	       "prune-packable: %llu\ngarbage: %llu\nsize-garbage: %s\n",
	       (unsigned long long)c.loose_count, a, (unsigned long long)c.packed_count,
	       (unsigned long long)c.pack_count, b, (unsigned long long)c.prune_packable,
	       (unsigned long long)c.garbage_count, g);
	{
		const char *alts[64];
		size_t i, na = fgit_odb_alternates(odb, alts, 64);
		for (i = 0; i < na && i < 64; i++)
			printf("alternate: %s\n", alts[i]);
	}
	return 0;
}
