/* git multi-pack-index: write, verify, expire (repack: see below). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "fgit/buf.h"
#include "fgit/config.h"
#include "fgit/odb.h"
#include "fgit/pack.h"
#include "pack_setup.h"
#include "fgit/midx.h"
#include "fgit/repo.h"

static const char *const midx_usage[] = {
	"git multi-pack-index [<options>] write [--preferred-pack=<pack>]"
	"[--refs-snapshot=<path>]",
	"git multi-pack-index [<options>] verify",
	"git multi-pack-index [<options>] expire",
	"git multi-pack-index [<options>] repack [--batch-size=<size>]",
	NULL
};
static const char *const write_usage[] = {
	"git multi-pack-index [<options>] write [--preferred-pack=<pack>]"
	"[--refs-snapshot=<path>]",
	NULL
};
static const char *const verify_usage[] = {
	"git multi-pack-index [<options>] verify",
	NULL
};
static const char *const expire_usage[] = {
	"git multi-pack-index [<options>] expire",
	NULL
};
static const char *const repack_usage[] = {
	"git multi-pack-index [<options>] repack [--batch-size=<size>]",
	NULL
};

static const char *object_dir;
static int progress = -1;

#define OPT_OBJECT_DIR OPT_STRING(0, "object-dir", &object_dir, "directory", \
	"object directory containing set of packfile and pack-index pairs")
#define OPT_PROGRESS OPT_BOOL(0, "progress", &progress, "force progress reporting")

static void report(int level, const char *msg, void *payload)
{
	fflush(stdout);
	if (level == 0)
		fprintf(stderr, "warning: %s\n", msg);
	else if (level == 1)
		fprintf(stderr, "error: %s\n", msg);
	else
		fprintf(stderr, "%s\n", msg);
}

/* The object directory and git's name for it in messages. */
static void setup(struct fgit_midx_options *o, struct fgit_buf *dir, struct fgit_buf *display)
{
	struct fgit_repo *repo = cli_repo();
	const char *env = getenv("GIT_OBJECT_DIRECTORY");

	if (object_dir) {
		fgit_buf_adds(dir, object_dir);
		fgit_buf_adds(display, object_dir);
	} else if (env && *env) {
		fgit_buf_adds(dir, env);
		fgit_buf_adds(display, env);
	} else {
		fgit_buf_addf(dir, "%s/objects", fgit_repo_common_dir(repo));
		fgit_buf_addf(display, "%s/objects", fgit_repo_common_dir_display(repo));
	}
	o->algo = fgit_repo_algo(repo);
	if (progress < 0)
		progress = isatty(2);
	o->progress_fd = progress ? 2 : -1;
	o->display_dir = display->ptr;
	o->report = report;
}

static int finish(int r)
{
	if (r < 0)
		die_last();
	return r;
}

static int cmd_write(int argc, const char **argv, struct fgit_midx_options *o)
{
	const char *preferred = NULL, *snapshot = NULL;
	int stdin_packs = 0, bitmap = 0, r;
	struct cli_option opts[] = {
		OPT_OBJECT_DIR,
		OPT_STRING(0, "preferred-pack", &preferred, "preferred-pack",
			   "pack for reuse when computing a multi-pack bitmap"),
		OPT_BOOL(0, "bitmap", &bitmap, "write multi-pack bitmap"),
		OPT_PROGRESS,
		OPT_BOOL(0, "stdin-packs", &stdin_packs,
			 "write multi-pack index containing only given indexes"),
		OPT_STRING(0, "refs-snapshot", &snapshot, "file",
			   "refs snapshot for selecting bitmap commits"),
		OPT_END(),
	};
	struct fgit_buf dir = FGIT_BUF_INIT, display = FGIT_BUF_INIT, in = FGIT_BUF_INIT;
	const char **names = NULL;
	size_t n = 0;

	if (cli_parse_options(argc, argv, "multi-pack-index write", opts, write_usage, 0))
		cli_usage_with_options(write_usage, opts, 0);
	setup(o, &dir, &display);
	o->preferred_pack = preferred;
	o->refs_snapshot = snapshot;
	if (bitmap) {
		struct fgit_repo *repo = cli_repo();
		int v;
		if (fgit_repo_odb(&o->odb, repo) < 0 || fgit_repo_refdb(&o->refdb, repo) < 0)
			die_last();
		if (!fgit_config_get_bool(&v, fgit_repo_config(repo), "pack.writebitmaphashcache"))
			o->bitmap_hash_cache = v;
		fgit_error_clear();
		o->write_bitmap = 1;
	}
	if (stdin_packs) {
		char *p, *end;
		if (fgit_buf_read_fd(&in, 0, 4096) < 0)
			die_errno("read error");
		names = malloc((in.len + 1) * sizeof(*names));
		if (!names)
			die("out of memory");
		for (p = in.ptr, end = p + in.len; p < end;) {
			char *nl = memchr(p, '\n', (size_t)(end - p));
			if (!nl)
				nl = end;
			*nl = 0;
			if (nl > p)
				names[n++] = p;
			p = nl + 1;
		}
		o->only_packs = names;
		o->nr_only_packs = n;
	}
	r = fgit_midx_write(dir.ptr, o);
	free(names);
	fgit_buf_release(&in);
	fgit_buf_release(&dir);
	fgit_buf_release(&display);
	return finish(r);
}

static int cmd_simple(int argc, const char **argv, struct fgit_midx_options *o,
		      const char *name, const char *const *usage,
		      int (*fn)(const char *, const struct fgit_midx_options *))
{
	struct cli_option opts[] = {
		OPT_OBJECT_DIR,
		OPT_PROGRESS,
		OPT_END(),
	};
	struct fgit_buf dir = FGIT_BUF_INIT, display = FGIT_BUF_INIT;
	int r;

	if (cli_parse_options(argc, argv, name, opts, usage, 0))
		cli_usage_with_options(usage, opts, 0);
	setup(o, &dir, &display);
	r = fn(dir.ptr, o);
	fgit_buf_release(&dir);
	fgit_buf_release(&display);
	return finish(r);
}

static int cmd_repack(int argc, const char **argv, struct fgit_midx_options *o)
{
	const char *batch = NULL;
	struct cli_option opts[] = {
		OPT_OBJECT_DIR,
		OPT_STRING(0, "batch-size", &batch, "n",
			   "during repack, collect pack-files of smaller size into a batch"
			   " that is larger than this size"),
		OPT_PROGRESS,
		OPT_END(),
	};
	struct fgit_pack_objects_options po = FGIT_PACK_OBJECTS_OPTIONS_INIT;
	struct fgit_pack_objects_stats st;
	struct fgit_buf dir = FGIT_BUF_INIT, display = FGIT_BUF_INIT;
	struct fgit_config *cfg = fgit_repo_config(cli_repo());
	struct fgit_odb *odb;
	int64_t size = 0;
	int write_rev, kept = 0, v, r;

	if (cli_parse_options(argc, argv, "multi-pack-index repack", opts, repack_usage, 0))
		cli_usage_with_options(repack_usage, opts, 0);
	if (batch && (fgit_config_parse_int64(&size, batch) < 0 || size < 0)) {
		fprintf(stderr, "error: option `batch-size' expects a non-negative integer"
			" value with an optional k/m/g suffix\n");
		exit(129);
	}
	setup(o, &dir, &display);
	if (fgit_repo_odb(&odb, cli_repo()) < 0)
		die_last();
	/* what git's pack-objects child would read from the configuration */
	cli_pack_options_from_config(&po, cfg, &write_rev);
	if (!fgit_config_get_bool(&v, cfg, "repack.usedeltabaseoffset"))
		po.delta_base_offset = v;
	if (!fgit_config_get_bool(&v, cfg, "repack.packkeptobjects"))
		kept = v;
	fgit_error_clear();
	po.progress = o->progress_fd >= 0 ? 2 : 0;
	po.progress_fd = 2;
	r = fgit_midx_repack(dir.ptr, odb, (uint64_t)size, kept, &po, write_rev, o, &st);
	if (r < 0)
		die_last();
	if (po.progress && st.pack_size)
		fprintf(stderr, "Total %u (delta %u), reused %u (delta %u), pack-reused %u\n",
			st.written, st.written_delta, st.reused, st.reused_delta, 0u);
	fgit_buf_release(&dir);
	fgit_buf_release(&display);
	return r;
}

CLI_CMD(multi_pack_index)
{
	struct cli_option common[] = {
		OPT_OBJECT_DIR,
		OPT_END(),
	};
	struct fgit_midx_options o = FGIT_MIDX_OPTIONS_INIT;
	int n;

	cli_repo();	/* git needs a repository even for --object-dir */
	n = cli_parse_options(argc, argv, "multi-pack-index", common, midx_usage,
			      CLI_PARSE_STOP_AT_NON_OPTION);
	if (!n) {
		fprintf(stderr, "error: need a subcommand\n");
		cli_usage_with_options(midx_usage, common, 0);
	}
	if (!strcmp(argv[0], "write"))
		return cmd_write(n, argv, &o);
	if (!strcmp(argv[0], "verify"))
		return cmd_simple(n, argv, &o, "multi-pack-index verify", verify_usage,
				  fgit_midx_verify);
	if (!strcmp(argv[0], "expire"))
		return cmd_simple(n, argv, &o, "multi-pack-index expire", expire_usage,
				  fgit_midx_expire);
	if (!strcmp(argv[0], "repack"))
		return cmd_repack(n, argv, &o);
	fprintf(stderr, "error: unknown subcommand: `%s'\n", argv[0]);
	cli_usage_with_options(midx_usage, common, 0);
}
