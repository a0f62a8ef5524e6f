/*
 * git repack: lib/ops/repack.c does the work in-process (walk, pack,
 * remove old packs and packed loose objects, update-server-info).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "pack_setup.h"
#include "wt_setup.h"
#include "fgit/config.h"
#include "fgit/repack.h"
#include "fgit/repo.h"

static const char *const repack_usage[] = {
	"git repack [<options>]",
	NULL
};

static const char *window_memory_arg;

CLI_CMD(repack)
{
	struct fgit_repack_options ro = FGIT_REPACK_OPTIONS_INIT;
	struct fgit_repack_result res;
	int all = 0, loosen = 0, del = 0, no_reuse_delta = 0, no_reuse_object = 0;
	int local = 0, quiet = 0, no_update = 0, window = -1, depth = -1, threads = -1;
	int write_bitmaps = -1, write_midx = 0, ofs = 1, v, ret;
	struct cli_option opts[] = {
		OPT_BOOL('a', NULL, &all, "pack everything in a single pack"),
		OPT_BOOL('A', NULL, &loosen,
			 "same as -a, and turn unreachable objects loose"),
		OPT_BOOL('d', NULL, &del, "remove redundant packs, and run git-prune-packed"),
		OPT_BOOL('f', NULL, &no_reuse_delta, "pass --no-reuse-delta to git-pack-objects"),
		OPT_BOOL('F', NULL, &no_reuse_object, "pass --no-reuse-object to git-pack-objects"),
		OPT_BOOL('n', NULL, &no_update, "do not run git-update-server-info"),
		OPT__QUIET(&quiet, "be quiet"),
		OPT_BOOL('l', "local", &local, "pass --local to git-pack-objects"),
		OPT_BOOL('b', "write-bitmap-index", &write_bitmaps, "write bitmap index"),
		OPT_BOOL('m', "write-midx", &write_midx, "write a multi-pack index of the resulting packs"),
		OPT_INTEGER(0, "window", &window, "size of the window used for delta compression"),
		OPT_STRING(0, "window-memory", &window_memory_arg, "bytes",
			   "same as the above, but limit memory size instead of entries count"),
		OPT_INTEGER(0, "depth", &depth, "limits the maximum delta depth"),
		OPT_INTEGER(0, "threads", &threads, "limits the maximum number of threads"),
		OPT_UNIMPLEMENTED(0, "cruft"),
		OPT_UNIMPLEMENTED(0, "cruft-expiration"),
		OPT_UNIMPLEMENTED('k', "keep-unreachable"),
		OPT_UNIMPLEMENTED(0, "unpack-unreachable"),
		OPT_UNIMPLEMENTED('i', "delta-islands"),
		OPT_UNIMPLEMENTED(0, "max-pack-size"),
		OPT_UNIMPLEMENTED(0, "pack-kept-objects"),
		OPT_UNIMPLEMENTED(0, "keep-pack"),
		OPT_UNIMPLEMENTED('g', "geometric"),
		OPT_UNIMPLEMENTED(0, "filter"),
		OPT_UNIMPLEMENTED('s', "expire-to"),
		OPT_END(),
	};
	struct fgit_repo *repo;
	struct fgit_config *cfg;
	struct fgit_index *idx = NULL;
	char *index_path = NULL;
	int progress;

	if (cli_parse_options(argc, argv, "repack", opts, repack_usage, 0))
		cli_usage_with_options(repack_usage, opts, 0);
	repo = cli_repo();
	cfg = fgit_repo_config(repo);
	if (write_bitmaps < 0 && (!fgit_config_get_bool(&v, cfg, "repack.writebitmaps") ||
				  !fgit_config_get_bool(&v, cfg, "pack.writebitmaps")))
		write_bitmaps = v;
	/* git: unset, bitmaps only for -a/-A in a bare repository (and then
	 * kept packs stay out of the new pack) */
	if (write_bitmaps < 0 && !write_midx && (!(all || loosen) || fgit_repo_is_bare(repo) != 1))
		write_bitmaps = 0;
	if (write_bitmaps && !(all || loosen) && !write_midx)
		die("Incremental repacks are incompatible with bitmap indexes.  Use\n"
		    "--no-write-bitmap-index or disable the pack.writeBitmaps configuration.");
	ro.write_bitmap = write_bitmaps != 0 && !write_midx;
	ro.pack_kept_objects = write_bitmaps > 0 && !write_midx;
	ro.write_midx = write_midx;
	ro.write_midx_bitmap = write_midx && write_bitmaps > 0;
	if (!fgit_config_get_bool(&v, cfg, "pack.writebitmaphashcache"))
		ro.bitmap_hash_cache = v;
	if (!fgit_config_get_bool(&v, cfg, "repack.usedeltabaseoffset"))
		ofs = v;
	fgit_error_clear();
	cli_pack_options_from_config(&ro.pack, cfg, &ro.write_rev);
	if (window >= 0)
		ro.pack.window = window;
	if (depth >= 0)
		ro.pack.depth = depth;
	if (threads >= 0)
		ro.pack.nthreads = threads;
	if (window_memory_arg) {
		int64_t wm;
		if (fgit_config_parse_int64(&wm, window_memory_arg) < 0 || wm < 0)
			die("option `window-memory' expects a numerical value");
		ro.pack.window_memory = (uint64_t)wm;
	}
	if (ro.pack.depth > 4095) {
		warning("delta chain depth %d is too deep, forcing %d", ro.pack.depth, 4095);
		ro.pack.depth = 4095;
	}
	ro.pack.reuse_delta = !no_reuse_delta && !no_reuse_object;
	ro.pack.reuse_object = !no_reuse_object;
	ro.pack.delta_base_offset = ofs;
	progress = !quiet && isatty(2);
	ro.pack.progress = progress ? 2 : 0;
	ro.pack.progress_fd = 2;
	ro.all = all;
	ro.loosen_unreachable = loosen;
	ro.delete_redundant = del;
	ro.local = local;
	ro.update_server_info = !no_update;
	if (fgit_repo_work_tree(repo)) {
		index_path = cli_index_path(repo);
		idx = cli_index_load(repo, index_path);
		ro.index = idx;
	}
	ret = fgit_repack(&res, repo, &ro);
	if (ret < 0)
		die_last();
	if (ret == 1 && !quiet) {
		printf("Nothing new to pack.\n");
		cli_flush_stdout();
	}
	if (ret == 0 && progress)
		fprintf(stderr, "Total %u (delta %u), reused %u (delta %u), pack-reused %u\n",
			res.stats.written, res.stats.written_delta, res.stats.reused,
			res.stats.reused_delta, 0u);
	fgit_index_free(idx);
	free(index_path);
	return 0;
}
