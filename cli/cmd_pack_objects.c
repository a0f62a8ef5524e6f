/*
 * git pack-objects: objects from stdin (ids with names, or rev-list
 * arguments with --revs) or from --all/--reflog/--indexed-objects, packed
 * in-process by lib/pack/objects.c into <base-name>-<hash>.pack/.idx (the
 * hash printed) or to stdout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "pack_setup.h"
#include "rev_args.h"
#include "fgit/buf.h"
#include "fgit/config.h"
#include "fgit/odb.h"
#include "fgit/pack.h"
#include "fgit/progress.h"
#include "fgit/refs.h"
#include "fgit/repo.h"
#include "fgit/revwalk.h"

static const char *const pack_objects_usage[] = {
	"git pack-objects --stdout [<options>...] [< <ref-list> | < <object-list>]",
	"git pack-objects [<options>...] <base-name> [< <ref-list> | < <object-list>]",
	NULL
};

static const char **keep_packs;
static size_t nkeep_packs;

static int keep_pack_cb(const struct cli_option *opt, const char *arg, int unset)
{
	if (unset) {
		nkeep_packs = 0;
		return 0;
	}
	keep_packs = realloc(keep_packs, (nkeep_packs + 1) * sizeof(*keep_packs));
	if (!keep_packs)
		die("out of memory");
	keep_packs[nkeep_packs++] = arg;
	return 0;
}

static const char *window_memory_arg;

/* --thin: the edges' trees, whose entries may serve as delta bases */
static struct fgit_oid *edge_trees;
static size_t nedge_trees, aedge_trees;

static int edge_cb(const struct fgit_oid *commit, const struct fgit_oid *tree, void *payload)
{
	if (nedge_trees == aedge_trees) {
		size_t na = aedge_trees ? aedge_trees * 2 : 16;
		struct fgit_oid *nt = realloc(edge_trees, na * sizeof(*nt));
		if (!nt)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		edge_trees = nt;
		aedge_trees = na;
	}
	edge_trees[nedge_trees++] = *tree;
	return 0;
}

/* Lines of stdin without their newline; NULL at the end. */
static char *next_line(struct fgit_buf *in, size_t *pos)
{
	char *s, *nl;
	if (*pos >= in->len)
		return NULL;
	s = in->ptr + *pos;
	nl = memchr(s, '\n', in->len - *pos);
	if (nl) {
		*nl = '\0';
		*pos = (size_t)(nl - in->ptr) + 1;
	} else {
		*pos = in->len;
	}
	return s;
}

CLI_CMD(pack_objects)
{
	struct fgit_pack_objects_options po = FGIT_PACK_OBJECTS_OPTIONS_INIT;
	int write_bitmap = 0, hash_cache = 1, v;
	int to_stdout = 0, revs = 0, all = 0, reflog = 0, indexed = 0, unpacked = 0;
	int incremental = 0, local = 0, honor_keep = 0, quiet = 0, progress = -1;
	int all_progress = 0, no_reuse_delta = 0, no_reuse_object = 0, ofs = 0, thin = 0;
	int window = -1, depth = -1, threads = -1, non_empty = 0;
	struct cli_option opts[] = {
		OPT_BOOL(0, "stdout", &to_stdout, "output pack to stdout"),
		OPT_BOOL(0, "revs", &revs, "read revision arguments from standard input"),
		OPT_BOOL(0, "all", &all, "include objects reachable from any reference"),
		OPT_BOOL(0, "reflog", &reflog, "include objects referred by reflog entries"),
		OPT_BOOL(0, "indexed-objects", &indexed, "include objects referred to by the index"),
		OPT_BOOL(0, "unpacked", &unpacked, "limit the objects to those that are not yet packed"),
		OPT_BOOL(0, "incremental", &incremental, "ignore packed objects"),
		OPT_BOOL(0, "local", &local, "ignore borrowed objects from alternate object store"),
		OPT_BOOL(0, "honor-pack-keep", &honor_keep, "ignore packs that have companion .keep file"),
		OPT_CALLBACK(0, "keep-pack", NULL, "name", "ignore this pack", keep_pack_cb),
		OPT_INTEGER(0, "window", &window, "limit pack window by objects"),
		OPT_STRING(0, "window-memory", &window_memory_arg, "bytes",
			   "limit pack window by memory in addition to object limit"),
		OPT_INTEGER(0, "depth", &depth, "maximum length of delta chain allowed in the resulting pack"),
		OPT_INTEGER(0, "threads", &threads, "use threads when searching for best delta matches"),
		OPT_BOOL(0, "no-reuse-delta", &no_reuse_delta, "do not reuse existing deltas"),
		OPT_BOOL(0, "no-reuse-object", &no_reuse_object, "do not reuse existing objects"),
		OPT_BOOL(0, "delta-base-offset", &ofs, "use OFS_DELTA objects"),
		OPT_BOOL(0, "thin", &thin, "create thin packs"),
		OPT_BOOL(0, "non-empty", &non_empty, "do not create an empty pack output"),
		OPT__QUIET(&quiet, "do not show progress meter"),
		OPT_BOOL(0, "progress", &progress, "show progress meter"),
		OPT_BOOL(0, "all-progress", &all_progress, "show progress meter during object writing phase"),
		OPT_UNIMPLEMENTED(0, "shallow"),
		OPT_UNIMPLEMENTED(0, "keep-true-parents"),
		OPT_UNIMPLEMENTED(0, "include-tag"),
		OPT_UNIMPLEMENTED(0, "filter"),
		OPT_UNIMPLEMENTED(0, "missing"),
		OPT_BOOL(0, "write-bitmap-index", &write_bitmap,
			 "write a bitmap index together with the pack index"),
		OPT_UNIMPLEMENTED(0, "use-bitmap-index"),
		OPT_UNIMPLEMENTED(0, "stdin-packs"),
		OPT_UNIMPLEMENTED(0, "cruft"),
		OPT_UNIMPLEMENTED(0, "unpack-unreachable"),
		OPT_UNIMPLEMENTED(0, "keep-unreachable"),
		OPT_UNIMPLEMENTED(0, "sparse"),
		OPT_UNIMPLEMENTED(0, "index-version"),
		OPT_UNIMPLEMENTED(0, "max-pack-size"),
		OPT_END(),
	};
	struct fgit_repo *repo = cli_repo();
	struct fgit_odb *odb;
	struct fgit_refdb *refdb;
	struct fgit_packer *pk;
	struct fgit_buf in = FGIT_BUF_INIT;
	struct fgit_pack_objects_stats st;
	int n, algo, write_rev;
	char hex[FGIT_MAX_HEXSZ + 1];

	n = cli_parse_options(argc, argv, "pack-objects", opts, pack_objects_usage, 0);
	if (to_stdout ? n != 0 : n != 1)
		cli_usage_with_options(pack_objects_usage, opts, 0);
	if (thin && !to_stdout)
		die("--thin cannot be used to build an indexable pack");
	if (fgit_repo_odb(&odb, repo) < 0 || fgit_repo_refdb(&refdb, repo) < 0)
		die_last();
	algo = fgit_odb_algo(odb);
	cli_pack_options_from_config(&po, fgit_repo_config(repo), &write_rev);
	if (window >= 0)
		po.window = window;
	if (depth >= 0)
		po.depth = depth;
	if (threads >= 0)
		po.nthreads = threads;
	if (window_memory_arg) {
		int64_t v;
		if (fgit_config_parse_int64(&v, window_memory_arg) < 0 || v < 0)
			die("option `window-memory' expects a numerical value");
		po.window_memory = (uint64_t)v;
	}
	if (po.depth > 4095) {
		warning("delta chain depth %d is too deep, forcing %d", po.depth, 4095);
		po.depth = 4095;
	}
	po.reuse_delta = !no_reuse_delta && !no_reuse_object;
	po.reuse_object = !no_reuse_object;
	po.delta_base_offset = ofs;
	po.thin = thin;
	if (incremental)
		po.skip |= FGIT_PACK_SKIP_PACKED;
	if (honor_keep)
		po.skip |= FGIT_PACK_SKIP_KEPT;
	if (local)
		po.skip |= FGIT_PACK_SKIP_NONLOCAL;
	po.keep_packs = keep_packs;
	po.nkeep_packs = nkeep_packs;
	if (progress < 0)
		progress = isatty(2);
	if (quiet)
		progress = 0;
	po.progress = progress ? (all_progress || !to_stdout ? 2 : 1) : 0;
	po.progress_fd = 2;
	if (fgit_packer_new(&pk, odb, &po) < 0)
		die_last();

	if (all || reflog || indexed)
		revs = 1;
	if (!revs) {
		size_t pos = 0;
		char *line;
		struct fgit_progress *prog = po.progress ?
			fgit_progress_new("Enumerating objects", 0, 2, 0) : NULL;
		uint64_t seen = 0;
		if (fgit_buf_read_fd(&in, 0, 0) < 0)
			die_last();
		while ((line = next_line(&in, &pos))) {
			struct fgit_oid oid;
			size_t hexsz = fgit_hash_hexsz(algo);
			const char *name;
			if (line[0] == '-') {
				if (strlen(line + 1) < hexsz || fgit_oid_from_hex(&oid, line + 1, algo))
					die("expected edge object ID, got garbage:\n %s", line);
				if (thin) {	/* an edge commit: its tree's entries are bases */
					void *buf;
					size_t len;
					enum fgit_object_type t;
					struct fgit_commit c;
					if (fgit_odb_read(&buf, &len, &t, odb, &oid) == 0) {
						if (t == FGIT_OBJ_COMMIT &&
						    fgit_commit_parse(&c, buf, len, algo) == 0 &&
						    edge_cb(&oid, &c.tree, NULL) < 0)
							die_last();
						free(buf);
					}
					fgit_error_clear();
				}
				continue;
			}
			if (strlen(line) < hexsz || fgit_oid_from_hex(&oid, line, algo) ||
			    (line[hexsz] && line[hexsz] != ' '))
				die("expected object ID, got garbage:\n %s", line);
			name = line[hexsz] ? line + hexsz + 1 : NULL;
			if (!fgit_odb_exists(odb, &oid)) {
				char h[FGIT_MAX_HEXSZ + 1];
				die("unable to get type of object %s", fgit_oid_to_hex(h, &oid));
			}
			if (fgit_packer_add(pk, &oid, FGIT_OBJ_NONE, name, name ? strlen(name) : 0) < 0)
				die_last();
			fgit_progress_set(prog, ++seen);
		}
		fgit_progress_done(prog);
		if (thin && fgit_packer_add_base_trees(pk, edge_trees, nedge_trees) < 0)
			die_last();
	} else {
		struct fgit_objwalk *w;
		unsigned int not = 0;
		size_t pos = 0, nstdin = 0;
		char *line;
		int r;
		if (fgit_objwalk_new(&w, odb, FGIT_OBJWALK_OBJECTS |
				     (unpacked ? FGIT_OBJWALK_UNPACKED : 0)) < 0)
			die_last();
		if (all)
			cli_walk_add_arg(w, repo, "--all", &not);
		if (reflog)
			cli_walk_add_arg(w, repo, "--reflog", &not);
		if (indexed)
			cli_walk_add_arg(w, repo, "--indexed-objects", &not);
		if (!isatty(0) || !(all || reflog || indexed)) {
			if (fgit_buf_read_fd(&in, 0, 0) < 0)
				die_last();
		}
		while ((line = next_line(&in, &pos))) {
			if (!*line)
				continue;
			if (!strcmp(line, "--"))
				break;
			if (!cli_walk_add_arg(w, repo, line, &not))
				die("not a rev '%s'", line);
			nstdin++;
		}
		/* what a clone asks for: the whole pack, straight from its bitmap */
		if (to_stdout && all && !reflog && !indexed && !nstdin && !po.skip &&
		    !po.nkeep_packs && po.reuse_delta && po.reuse_object && !thin) {
			uint32_t count;
			r = fgit_pack_bitmap_send_all(&count, odb, refdb, 1, ofs,
							  po.progress ? 2 : -1);
			if (r < 0)
				die_last();
			if (r == 0) {
				if (progress)
					fprintf(stderr, "Total %u (delta 0), reused 0 (delta 0), "
						"pack-reused %u\n", count, count);
				return 0;
			}
		}
		/* else count from a bitmap (a midx's, which cannot be sent
		 * whole) when it can answer for --all; walk otherwise */
		r = 1;
		if (to_stdout && all && !reflog && !indexed && !nstdin && !thin &&
		    (r = fgit_packer_add_bitmap_all(pk, refdb)) < 0)
			die_last();
		if (thin)
			fgit_objwalk_set_edge_cb(w, edge_cb, NULL);
		if (r && fgit_packer_add_walk(pk, w) < 0)
			die_last();
		fgit_objwalk_free(w);
		if (thin && fgit_packer_add_base_trees(pk, edge_trees, nedge_trees) < 0)
			die_last();
	}
	if (fgit_packer_mark_tags(pk, refdb) < 0)
		die_last();
	if (non_empty && !fgit_packer_count(pk))
		return 0;
	if (to_stdout) {
		if (fgit_packer_write(pk, 1) < 0)
			die_last();
	} else {
		struct fgit_idx_options io = FGIT_IDX_OPTIONS_INIT;
		if (fgit_packer_write_files(hex, pk, argv[0], write_rev, &io) < 0)
			die_last();
		/* git: bitmaps only for a pack of everything (--all) */
		if (write_bitmap && all) {
			if (!fgit_config_get_bool(&v, fgit_repo_config(repo),
						  "pack.writebitmaphashcache"))
				hash_cache = v;
			fgit_error_clear();
			if (fgit_packer_write_bitmap(pk, argv[0], hex, refdb, hash_cache ?
						     FGIT_PACKER_BITMAP_HASH_CACHE : 0) < 0)
				die_last();
		}
		printf("%s\n", hex);
		cli_flush_stdout();
	}
	fgit_packer_stats(&st, pk);
	if (progress)
		fprintf(stderr, "Total %u (delta %u), reused %u (delta %u), pack-reused %u\n",
			st.written, st.written_delta, st.reused, st.reused_delta, 0u);
	fgit_packer_free(pk);
	fgit_buf_release(&in);
	free(keep_packs);
	free(edge_trees);
	return 0;
}
