/*
 * git index-pack, verify-pack: build (or check) the .idx/.rev of a pack.
 *
 * index-pack parses its arguments by hand, as git's does (no parse-options:
 * an unknown option prints the one-line usage and exits 129).  verify-pack
 * is `index-pack --verify[-stat[-only]]` run in process, one pack after the
 * other, so one bad pack does not stop the others.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "fgit/buf.h"
#include "fgit/config.h"
#include "fgit/odb.h"
#include "fgit/pack.h"
#include "fgit/repo.h"
#include "fgit/thread.h"

static const char index_pack_usage[] =
	"git index-pack [-v] [-o <index-file>] [--keep | --keep=<msg>] [--[no-]rev-index] "
	"[--verify] [--strict] (<pack-file> | --stdin [--fix-thin] [<pack-file>])";

struct ip_opts {
	const char *pack_name;
	const char *index_name;
	const char *keep_msg;
	const char *progress_title;
	int from_stdin, verify, show_stat, stat_only, verbose, rev_index;
	int show_resolving_progress, nthreads, strict, fsck_objects, fix_thin;
	unsigned int idx_version;
	uint32_t off32_limit;
};

/* The objects directory of the repository we are in, or NULL. */
static char *objects_dir(void)
{
	struct fgit_repo *repo = cli_repo_gently();
	struct fgit_odb *odb;

	if (!repo)
		return NULL;
	if (fgit_repo_odb(&odb, repo))
		die_last();
	return strdup(fgit_odb_path(odb));
}

/* git_index_pack_config: what the configuration says before the options. */
static void read_config(struct ip_opts *o)
{
	struct fgit_config *cfg = cli_config();
	int v, r;

	if (!(r = fgit_config_get_int(&v, cfg, "pack.indexversion"))) {
		if (v < 0 || v > 2)
			die("bad pack.indexVersion=%u", (unsigned)v);
		o->idx_version = v ? (unsigned)v : 1;
	} else if (r != FGIT_ENOTFOUND) {
		die_last();
	}
	if (!(r = fgit_config_get_int(&v, cfg, "pack.threads"))) {
		if (v < 0)
			die("invalid number of threads specified (%d)", v);
		o->nthreads = v;
	} else if (r != FGIT_ENOTFOUND) {
		die_last();
	}
	if (!(r = fgit_config_get_bool(&v, cfg, "pack.writereverseindex")))
		o->rev_index = v;
	else if (r != FGIT_ENOTFOUND)
		die_last();
}

/* "x.<from>" -> "x.<to>", or die as git does. */
static char *derive(const char *name, const char *from, const char *to)
{
	size_t n = strlen(name), fl = strlen(from);
	char *out;
	if (n <= fl + 1 || name[n - fl - 1] != '.' || strcmp(name + n - fl, from))
		die("packfile name '%s' does not end with '.%s'", name, from);
	out = malloc(n - fl + strlen(to) + 1);
	if (!out)
		die("out of memory");
	memcpy(out, name, n - fl);
	strcpy(out + n - fl, to);
	return out;
}

static const char *type_name(enum fgit_object_type t)
{
	const char *n = fgit_object_type_name(t);
	return n ? n : "unknown";
}

static void show_pack_info(const struct fgit_indexer *ix, int stat_only)
{
	uint32_t nr = fgit_indexer_count(ix), i, maxd = 0, base_objects = 0;
	uint64_t *hist;
	char hex[FGIT_MAX_HEXSZ + 1], bhex[FGIT_MAX_HEXSZ + 1];
	struct fgit_pack_entry_info e, b;

	for (i = 0; i < nr; i++) {
		fgit_indexer_entry(&e, ix, i);
		if (e.depth > maxd)
			maxd = e.depth;
	}
	hist = calloc((size_t)maxd + 1, sizeof(*hist));
	if (!hist)
		die("out of memory");
	for (i = 0; i < nr; i++) {
		fgit_indexer_entry(&e, ix, i);
		if (e.pack_type == FGIT_OBJ_OFS_DELTA || e.pack_type == FGIT_OBJ_REF_DELTA)
			hist[e.depth]++;
		else
			base_objects++;
		if (stat_only)
			continue;
		printf("%s %-6s %" PRIu64 " %" PRIu64 " %" PRIu64, fgit_oid_to_hex(hex, &e.oid),
		       type_name(e.type), e.size, e.packed_size, e.offset);
		if (e.pack_type == FGIT_OBJ_OFS_DELTA || e.pack_type == FGIT_OBJ_REF_DELTA) {
			fgit_indexer_entry(&b, ix, e.base);
			printf(" %u %s", e.depth, fgit_oid_to_hex(bhex, &b.oid));
		}
		putchar('\n');
	}
	if (base_objects)
		printf("non delta: %u object%s\n", base_objects, base_objects == 1 ? "" : "s");
	for (i = 1; i <= maxd; i++)
		if (hist[i])
			printf("chain length = %u: %" PRIu64 " object%s\n", i, hist[i],
			       hist[i] == 1 ? "" : "s");
	free(hist);
}

static void print_error(const char *msg, void *payload)
{
	error("%s", msg);
}

static void print_warning(const char *msg, void *payload)
{
	warning("%s", msg);
}

/* --strict / --fsck-objects: each object through fsck's rules as it is named. */
struct strict_state {
	struct fgit_pack_checker *checker;
	_Atomic int failed;	/* the error is fsck's, not the pack's */
};

static int strict_object(const struct fgit_oid *oid, enum fgit_object_type type,
			 const void *data, size_t size, void *payload)
{
	struct strict_state *st = payload;
	int r = fgit_pack_checker_object(st->checker, oid, type, data, size);
	if (r == FGIT_EINVALID)
		st->failed = 1;
	return r;
}

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	char msg[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fflush(stdout);
	fprintf(stderr, "fatal: %s\n", msg);
	return 128;
}

/* Read the version and the "anomalous" 64-bit offsets of an existing .idx,
 * so --verify re-creates it exactly. */
static int read_idx_layout(struct fgit_buf *idx, const char *index_name, unsigned int *version,
			   uint32_t **anom, size_t *nanom)
{
	const unsigned char *d;
	uint32_t nr, i, n64 = 0;
	size_t cap = 0;

	if (fgit_buf_read_file(idx, index_name))
		return -1;
	d = (const unsigned char *)idx->ptr;
	*anom = NULL;
	*nanom = 0;
	*version = fgit_idx_version(d, idx->len) == 2 ? 2 : 1;
	if (*version != 2)
		return 0;
	if (idx->len < 8 + 1024)
		return -1;
	nr = (uint32_t)d[8 + 1020] << 24 | (uint32_t)d[8 + 1021] << 16 |
	     (uint32_t)d[8 + 1022] << 8 | d[8 + 1023];
	if ((uint64_t)nr * 28 + 1032 > idx->len)
		return -1;
	for (i = 0; i < nr; i++) {
		const unsigned char *p = d + 1032 + (size_t)nr * 24 + 4 * (size_t)i;
		uint32_t v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
		const unsigned char *q;
		uint64_t off;
		if (!(v & 0x80000000u))
			continue;
		q = d + 1032 + (size_t)nr * 28 + 8 * (size_t)(v & 0x7fffffff);
		if ((size_t)(q - d) + 8 > idx->len)
			return -1;
		off = (uint64_t)((uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 |
				 (uint32_t)q[2] << 8 | q[3]) << 32 |
		      ((uint32_t)q[4] << 24 | (uint32_t)q[5] << 16 | (uint32_t)q[6] << 8 | q[7]);
		n64++;
		if (off >> 31)
			continue;
		if (*nanom == cap) {
			uint32_t *na;
			cap = cap ? cap * 2 : 16;
			na = realloc(*anom, cap * sizeof(*na));
			if (!na)
				return -1;
			*anom = na;
		}
		(*anom)[(*nanom)++] = (uint32_t)off;
	}
	if (*nanom > 1) {
		/* sort ascending (insertion sort: there are very few) */
		size_t a, b;
		for (a = 1; a < *nanom; a++)
			for (b = a; b > 0 && (*anom)[b - 1] > (*anom)[b]; b--) {
				uint32_t t = (*anom)[b];
				(*anom)[b] = (*anom)[b - 1];
				(*anom)[b - 1] = t;
			}
	}
	return 0;
}

static int verify_file(const char *name, const struct fgit_buf *want)
{
	struct fgit_buf have = FGIT_BUF_INIT;
	int ret = 0;
	if (fgit_buf_read_file(&have, name))
		ret = fail("unable to open '%s': %s", name, strerror(errno));
	else if (have.len < want->len)
		ret = fail("%s: sha1 file truncated", name);
	else if (memcmp(have.ptr, want->ptr, want->len))
		ret = fail("sha1 file '%s' validation error", name);
	else if (have.len > want->len)
		ret = fail("%s: sha1 file has trailing garbage", name);
	fgit_buf_release(&have);
	return ret;
}

static int hexcpy_path(char **out, const char *dir, const unsigned char *hash, const char *ext)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	char hex[FGIT_MAX_HEXSZ + 1];
	struct fgit_oid oid;
	fgit_oid_from_raw(&oid, hash, FGIT_HASH_SHA1);
	fgit_buf_addf(&b, "%s/pack/pack-%s.%s", dir, fgit_oid_to_hex(hex, &oid), ext);
	*out = fgit_buf_detach(&b, NULL);
	return 0;
}

static int run_index_pack(struct ip_opts *o)
{
	struct fgit_index_pack_options iopts = FGIT_INDEX_PACK_OPTIONS_INIT;
	struct fgit_idx_options xopts = FGIT_IDX_OPTIONS_INIT;
	struct fgit_buf idx = FGIT_BUF_INIT, rev = FGIT_BUF_INIT, old = FGIT_BUF_INIT;
	struct fgit_indexer *ix = NULL;
	char *odir = NULL, *index_name = NULL, *rev_name = NULL, *tmp_pack = NULL;
	char *final_pack = NULL, *keep_name = NULL, *final_idx = NULL, *final_rev = NULL;
	uint32_t *anom = NULL;
	size_t nanom = 0;
	int in_fd = -1, copy_fd = -1, ret = 0, created_pack = 0;
	const char *report = "pack";
	char hex[FGIT_MAX_HEXSZ + 1];
	struct fgit_oid packid;
	struct strict_state strict = { NULL, 0 };

	if (!o->pack_name && !o->from_stdin)
		cli_usage(index_pack_usage);
	if (o->fix_thin && !o->from_stdin)
		die("the option '%s' requires '%s'", "--fix-thin", "--stdin");
	if (o->from_stdin) {
		odir = objects_dir();
		if (!odir)
			die("--stdin requires a git repository");
	}
	if (o->index_name)
		index_name = strdup(o->index_name);
	else if (o->pack_name)
		index_name = derive(o->pack_name, "pack", "idx");
	if (o->rev_index && index_name)
		rev_name = derive(index_name, "idx", "rev");
	if (o->verify) {
		if (!index_name)
			die("--verify with no packfile name given");
		if (read_idx_layout(&old, index_name, &xopts.idx_version, &anom, &nanom)) {
			ret = fail("Cannot open existing pack idx file for '%s'", o->pack_name);
			goto out;
		}
		xopts.anomalies = anom;
		xopts.nr_anomalies = nanom;
	} else {
		xopts.idx_version = o->idx_version;
		xopts.off32_limit = o->off32_limit;
	}

	if (o->from_stdin) {
		in_fd = 0;
		if (o->pack_name) {
			copy_fd = open(o->pack_name, O_CREAT | O_EXCL | O_RDWR, 0600);
			if (copy_fd < 0) {
				ret = fail("unable to create '%s': %s", o->pack_name, strerror(errno));
				goto out;
			}
			created_pack = 1;
		} else {
			struct fgit_buf t = FGIT_BUF_INIT;
			fgit_buf_addf(&t, "%s/pack/tmp_pack_XXXXXX", odir);
			tmp_pack = fgit_buf_detach(&t, NULL);
			copy_fd = mkstemp(tmp_pack);
			if (copy_fd < 0) {
				ret = fail("unable to create temporary file: %s", strerror(errno));
				free(tmp_pack);
				tmp_pack = NULL;
				goto out;
			}
		}
	} else {
		in_fd = open(o->pack_name, O_RDONLY);
		if (in_fd < 0) {
			ret = fail("cannot open packfile '%s': %s", o->pack_name, strerror(errno));
			goto out;
		}
	}

	if (o->fix_thin) {
		/* git compresses appended bases at its loose-object level */
		struct fgit_config *cfg = cli_config();
		int level;
		if (fgit_repo_odb(&iopts.fix_thin_odb, cli_repo()))
			die_last();
		if (!fgit_config_get_int(&level, cfg, "core.loosecompression") ||
		    !fgit_config_get_int(&level, cfg, "core.compression"))
			iopts.fix_thin_compression = level < 0 ? 6 : level;
	}
	/* Inside a repository git compares every object it already has. */
	if (cli_repo_gently() && fgit_repo_odb(&iopts.collision_odb, cli_repo_gently()))
		die_last();
	iopts.nthreads = o->nthreads;
	iopts.warn = print_error;
	iopts.progress_fd = o->verbose ? 2 : -1;
	iopts.progress_title = o->progress_title;
	if (o->from_stdin)
		iopts.flags |= FGIT_INDEX_PACK_RECEIVING;
	if (o->show_stat)
		iopts.flags |= FGIT_INDEX_PACK_STATS;
	if (o->strict || o->fsck_objects) {
		if (fgit_pack_checker_new(&strict.checker, FGIT_HASH_SHA1, print_warning, NULL))
			die_last();
		iopts.object_cb = strict_object;
		iopts.object_payload = &strict;
	}
	if (fgit_indexer_run(&ix, in_fd, copy_fd, &iopts)) {
		if (strict.failed) {
			error("%s", fgit_error_last());
			ret = fail("fsck error in packed object");
		} else {
			ret = fail("%s", fgit_error_last());
		}
		goto out;
	}
	if (o->strict) {
		struct fgit_odb *odb = NULL;
		struct fgit_oid missing;
		int r;
		if (cli_repo_gently() && fgit_repo_odb(&odb, cli_repo_gently()))
			die_last();
		r = fgit_pack_checker_missing(&missing, strict.checker, ix, odb);
		if (r < 0) {
			ret = fail("%s", fgit_error_last());
			goto out;
		}
		if (r) {
			ret = fail("did not receive expected object %s", fgit_oid_to_hex(hex, &missing));
			goto out;
		}
	}
	if (o->show_stat)
		show_pack_info(ix, o->stat_only);
	if (fgit_indexer_idx(&idx, ix, &xopts, o->strict || o->verify) ||
	    (o->rev_index && fgit_indexer_rev(&rev, ix))) {
		ret = fail("%s", fgit_error_last());
		goto out;
	}
	if (o->verify) {
		ret = verify_file(index_name, &idx);
		if (!ret && o->rev_index)
			ret = verify_file(rev_name, &rev);
		goto out;
	}

	fgit_oid_from_raw(&packid, fgit_indexer_pack_hash(ix), FGIT_HASH_SHA1);
	if (o->keep_msg) {
		int kfd;
		if (o->pack_name)
			keep_name = derive(o->pack_name, "pack", "keep");
		else
			hexcpy_path(&keep_name, odir, fgit_indexer_pack_hash(ix), "keep");
		kfd = open(keep_name, O_RDWR | O_CREAT | O_EXCL, 0600);
		if (kfd < 0) {
			if (errno != EEXIST) {
				ret = fail("cannot write keep file '%s': %s", keep_name, strerror(errno));
				goto out;
			}
		} else {
			if (*o->keep_msg &&
			    (write(kfd, o->keep_msg, strlen(o->keep_msg)) < 0 || write(kfd, "\n", 1) < 0)) {
				close(kfd);
				ret = fail("cannot write keep file '%s'", keep_name);
				goto out;
			}
			if (close(kfd)) {
				ret = fail("cannot close written keep file '%s'", keep_name);
				goto out;
			}
			report = "keep";
		}
	}
	if (copy_fd >= 0) {
		if (fchmod(copy_fd, 0444) || close(copy_fd)) {
			copy_fd = -1;
			ret = fail("error while closing pack file: %s", strerror(errno));
			goto out;
		}
		copy_fd = -1;
	}
	if (tmp_pack) {
		struct stat st;
		hexcpy_path(&final_pack, odir, fgit_indexer_pack_hash(ix), "pack");
		if (!stat(final_pack, &st)) {
			unlink(tmp_pack);
		} else if (rename(tmp_pack, final_pack)) {
			ret = fail("cannot store pack file");
			goto out;
		}
		free(tmp_pack);
		tmp_pack = NULL;
	}
	created_pack = 0;
	if (!index_name)
		hexcpy_path(&final_idx, odir, fgit_indexer_pack_hash(ix), "idx");
	if (fgit_pack_write_file(index_name ? index_name : final_idx, idx.ptr, idx.len, 0444)) {
		ret = fail("cannot store index file: %s", fgit_error_last());
		goto out;
	}
	if (o->rev_index) {
		if (!rev_name)
			hexcpy_path(&final_rev, odir, fgit_indexer_pack_hash(ix), "rev");
		if (fgit_pack_write_file(rev_name ? rev_name : final_rev, rev.ptr, rev.len, 0444)) {
			ret = fail("cannot store reverse index file: %s", fgit_error_last());
			goto out;
		}
	}
	if (!o->from_stdin) {
		printf("%s\n", fgit_oid_to_hex(hex, &packid));
	} else {
		size_t n;
		const unsigned char *rest = fgit_indexer_leftover(ix, &n);
		printf("%s\t%s\n", report, fgit_oid_to_hex(hex, &packid));
		if (n)
			fwrite(rest, 1, n, stdout);
	}
out:
	if (in_fd > 0)
		close(in_fd);
	if (copy_fd >= 0)
		close(copy_fd);
	if (tmp_pack) {
		unlink(tmp_pack);
		free(tmp_pack);
	}
	if (created_pack && ret)
		unlink(o->pack_name);
	fgit_indexer_free(ix);
	fgit_pack_checker_free(strict.checker);
	fgit_buf_release(&idx);
	fgit_buf_release(&rev);
	fgit_buf_release(&old);
	free(anom);
	free(odir);
	free(index_name);
	free(rev_name);
	free(final_pack);
	free(final_idx);
	free(final_rev);
	free(keep_name);
	return ret;
}

static int skip_optional(const char *arg, const char *name, const char **val)
{
	size_t n = strlen(name);
	if (strncmp(arg, name, n))
		return 0;
	if (!arg[n]) {
		*val = "";
		return 1;
	}
	if (arg[n] != '=')
		return 0;
	*val = arg + n + 1;
	return 1;
}

CLI_CMD(index_pack)
{
	struct ip_opts o;
	int i;
	const char *v;

	memset(&o, 0, sizeof(o));
	o.idx_version = 2;
	o.off32_limit = 0x7fffffff;
	if (argc == 2 && !strcmp(argv[1], "-h"))
		cli_usage(index_pack_usage);
	read_config(&o);
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (*arg != '-') {
			if (o.pack_name)
				cli_usage(index_pack_usage);
			o.pack_name = arg;
			continue;
		}
		if (!strcmp(arg, "--stdin")) {
			o.from_stdin = 1;
		} else if (!strcmp(arg, "--fix-thin")) {
			o.fix_thin = 1;
		} else if (!strcmp(arg, "--strict")) {
			o.strict = 1;
		} else if (!strcmp(arg, "--fsck-objects")) {
			o.fsck_objects = 1;
		} else if (skip_optional(arg, "--strict", &v) ||
			   !strcmp(arg, "--check-self-contained-and-connected") ||
			   skip_optional(arg, "--fsck-objects", &v) ||
			   skip_optional(arg, "--promisor", &v) ||
			   !strncmp(arg, "--pack_header=", 14) ||
			   !strncmp(arg, "--max-input-size=", 17) ||
			   !strncmp(arg, "--object-format=", 16)) {
			char what[64];
			snprintf(what, sizeof(what), "%.*s", (int)strcspn(arg, "="), arg);
			die_unimplemented("index-pack", what);
		} else if (!strcmp(arg, "--verify")) {
			o.verify = 1;
		} else if (!strcmp(arg, "--verify-stat")) {
			o.verify = o.show_stat = 1;
		} else if (!strcmp(arg, "--verify-stat-only")) {
			o.verify = o.show_stat = o.stat_only = 1;
		} else if (skip_optional(arg, "--keep", &v)) {
			o.keep_msg = v;
		} else if (!strncmp(arg, "--threads=", 10)) {
			char *end;
			long n = strtol(arg + 10, &end, 0);
			if (!arg[10] || *end || n < 0)
				cli_usage(index_pack_usage);
			o.nthreads = (int)n;
		} else if (!strcmp(arg, "-v")) {
			o.verbose = 1;
		} else if (!strcmp(arg, "--progress-title")) {
			if (o.progress_title || i + 1 >= argc)
				cli_usage(index_pack_usage);
			o.progress_title = argv[++i];
		} else if (!strcmp(arg, "--show-resolving-progress")) {
			o.show_resolving_progress = 1;
		} else if (!strcmp(arg, "--report-end-of-input")) {
			die_unimplemented("index-pack", "--report-end-of-input");
		} else if (!strcmp(arg, "-o")) {
			if (o.index_name || i + 1 >= argc)
				cli_usage(index_pack_usage);
			o.index_name = argv[++i];
		} else if (!strncmp(arg, "--index-version=", 16)) {
			char *c;
			unsigned long ver = strtoul(arg + 16, &c, 10), lim = o.off32_limit;
			if (ver > 2)
				die("bad %s", arg);
			if (*c == ',')
				lim = strtoul(c + 1, &c, 0);
			if (*c || (lim & 0x80000000ul) || lim > 0xfffffffful)
				die("bad %s", arg);
			o.idx_version = ver ? (unsigned)ver : 1;
			o.off32_limit = (uint32_t)lim;
		} else if (!strcmp(arg, "--rev-index")) {
			o.rev_index = 1;
		} else if (!strcmp(arg, "--no-rev-index")) {
			o.rev_index = 0;
		} else {
			cli_usage(index_pack_usage);
		}
	}
	if (!o.pack_name && !o.from_stdin)
		cli_usage(index_pack_usage);
	return run_index_pack(&o);
}

static const char *const verify_pack_usage[] = {
	"git verify-pack [-v | --verbose] [-s | --stat-only] [--] <pack>.idx...",
	NULL
};

CLI_CMD(verify_pack)
{
	int verbose = 0, stat_only = 0, err = 0, n, i;
	const char *object_format = NULL;
	struct cli_option opts[] = {
		OPT_BOOL('v', "verbose", &verbose, "verbose"),
		OPT_BOOL('s', "stat-only", &stat_only, "show statistics only"),
		OPT_STRING(0, "object-format", &object_format, "hash",
			   "specify the hash algorithm to use"),
		OPT_END(),
	};

	n = cli_parse_options(argc, argv, "verify-pack", opts, verify_pack_usage, 0);
	if (n < 1)
		cli_usage_with_options(verify_pack_usage, opts, 0);
	if (object_format && strcmp(object_format, "sha1"))
		die_unimplemented("verify-pack", "--object-format");
	for (i = 0; i < n; i++) {
		struct ip_opts o;
		struct fgit_buf name = FGIT_BUF_INIT;
		size_t len = strlen(argv[i]);
		int rc;

		memset(&o, 0, sizeof(o));
		o.idx_version = 2;
		o.off32_limit = 0x7fffffff;
		o.verify = 1;
		o.show_stat = verbose || stat_only;
		o.stat_only = stat_only;
		/* "foo.idx", "foo.pack" and "foo" all mean "foo.pack" */
		fgit_buf_adds(&name, argv[i]);
		if (len >= 4 && !strcmp(argv[i] + len - 4, ".idx")) {
			fgit_buf_setlen(&name, len - 4);
			fgit_buf_adds(&name, ".pack");
		} else if (len < 5 || strcmp(argv[i] + len - 5, ".pack")) {
			fgit_buf_adds(&name, ".pack");
		}
		o.pack_name = name.ptr;
		rc = run_index_pack(&o);
		if (verbose || stat_only) {
			if (rc)
				printf("%s: bad\n", name.ptr);
			else if (!stat_only)
				printf("%s: ok\n", name.ptr);
		}
		if (rc)
			err = 1;
		fflush(stdout);
		fgit_buf_release(&name);
	}
	return err;
}
