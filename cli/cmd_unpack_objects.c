/*
 * git unpack-objects: explode a pack read from stdin into loose objects.
 *
 * The pack goes through the indexer (lib/pack) like index-pack's, into an
 * unlinked temporary file: entries are parsed and the trailer checked as
 * the stream arrives, then objects are named and deltas resolved on
 * several threads, and each object is written loose as soon as it is
 * known.  REF deltas against objects the repository has (a thin pack, as
 * a push sends) are resolved from the repository.  Objects git already
 * has are left alone; bytes after the pack trailer are copied to stdout.
 *
 * A pack that does not verify (wrong trailer checksum, a corrupt entry,
 * truncated) is read again from that temporary file (the indexer copies
 * every byte it read there) and the rest of stdin, through
 * lib/pack/unpack.c, one entry at a time as git reads it: the objects
 * before the damage are written, and git's message and exit code end the
 * run.  With -r (recover) the pack goes through lib/pack/unpack.c from
 * the start: bad entries are reported and stepped over, and the objects
 * written are git's, whatever the damage.  --strict without -r still
 * writes nothing from a damaged pack (git writes its blobs).
 *
 * --strict checks every object with fsck's rules; blobs are written as
 * they come, other objects only once every object they point to is known
 * to exist (in the pack or the repository), as git delays them.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "fgit/config.h"
#include "fgit/odb.h"
#include "fgit/pack.h"
#include "fgit/repo.h"

static const char unpack_usage[] = "git unpack-objects [-n] [-q] [-r] [--strict]";

struct held {
	struct fgit_oid oid;
	enum fgit_object_type type;
	size_t size;
	unsigned char *data;
};

struct unpack {
	struct fgit_odb *odb;
	int dry_run, strict;
	struct fgit_pack_checker *checker;
	_Atomic int fsck_failed;
	/* --strict: non-blob objects waiting for the link check */
	pthread_mutex_t lock;
	struct held *held;
	size_t nr_held, alloc_held;
};

static void print_warning(const char *msg, void *payload)
{
	warning("%s", msg);
}

static int hold(struct unpack *u, const struct fgit_oid *oid, enum fgit_object_type type,
		const void *data, size_t size)
{
	struct held h;
	int ret = 0;

	h.oid = *oid;
	h.type = type;
	h.size = size;
	h.data = malloc(size ? size : 1);
	if (!h.data)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	memcpy(h.data, data, size);
	pthread_mutex_lock(&u->lock);
	if (u->nr_held == u->alloc_held) {
		size_t na = u->alloc_held ? 2 * u->alloc_held : 64;
		struct held *nh = realloc(u->held, na * sizeof(*nh));
		if (!nh) {
			ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
			free(h.data);
		} else {
			u->held = nh;
			u->alloc_held = na;
		}
	}
	if (!ret)
		u->held[u->nr_held++] = h;
	pthread_mutex_unlock(&u->lock);
	return ret;
}

static int write_object(struct unpack *u, enum fgit_object_type type, const void *data,
			size_t size)
{
	struct fgit_oid written;

	if (u->dry_run)
		return 0;
	return fgit_odb_write(&written, u->odb, type, data, size);
}

static int unpack_object(const struct fgit_oid *oid, enum fgit_object_type type,
			 const void *data, size_t size, void *payload)
{
	struct unpack *u = payload;
	int r;

	if (u->strict) {
		r = fgit_pack_checker_object(u->checker, oid, type, data, size);
		if (r == FGIT_EINVALID)
			u->fsck_failed = 1;
		if (r)
			return r;
		if (type != FGIT_OBJ_BLOB)
			return hold(u, oid, type, data, size);
	}
	return write_object(u, type, data, size);
}

static void print_error(const char *msg, void *payload)
{
	error("%s", msg);
}

/*
 * git's sequential reading (lib/pack/unpack.c): with -r it steps over
 * damaged entries; without, it writes what comes before the damage and
 * stops there as git does.  prefix_fd (or -1) holds the start of the
 * stream, already read from stdin.
 */
static int unpack_sequential(struct fgit_odb *odb, int recover, int dry_run, int quiet,
			     int prefix_fd)
{
	struct fgit_unpack_options o = FGIT_UNPACK_OPTIONS_INIT;
	struct fgit_unpack_result res;
	int64_t v;

	o.flags = (recover ? FGIT_UNPACK_RECOVER : 0) | (dry_run ? FGIT_UNPACK_DRY_RUN : 0);
	o.odb = odb;
	o.prefix_fd = prefix_fd;
	if (!fgit_config_get_int64(&v, cli_config(), "core.bigfilethreshold") && v > 0)
		o.big_file_threshold = (uint64_t)v;
	o.progress_fd = !quiet && prefix_fd < 0 && isatty(2) ? 2 : -1;
	o.error_cb = print_error;
	if (fgit_unpack_stream(&res, 0, &o)) {
		if (res.stopped)
			exit(1);	/* git: the entry's error line, then exit 1 */
		die_last();
	}
	if (res.leftover_len && fwrite(res.leftover, 1, res.leftover_len, stdout) !=
	    res.leftover_len)
		die_errno("write error");
	free(res.leftover);
	return res.errors ? 1 : 0;
}

/* An unlinked temporary file for the pack, in the objects directory. */
static int temp_pack(const char *objdir)
{
	char *path = NULL;
	int fd;

	fd = open(objdir, O_TMPFILE | O_RDWR, 0600);
	if (fd >= 0)
		return fd;
	if (asprintf(&path, "%s/tmp_unpack_XXXXXX", objdir) < 0)
		die("out of memory");
	fd = mkstemp(path);
	if (fd < 0)
		die_errno("unable to create temporary file '%s'", path);
	unlink(path);
	free(path);
	return fd;
}

CLI_CMD(unpack_objects)
{
	struct fgit_index_pack_options iopts = FGIT_INDEX_PACK_OPTIONS_INIT;
	struct fgit_indexer *ix = NULL;
	struct unpack u;
	int quiet = 0, recover = 0, fd, i, r;
	const unsigned char *rest;
	size_t nrest, k;

	memset(&u, 0, sizeof(u));
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (!strcmp(arg, "-n"))
			u.dry_run = 1;
		else if (!strcmp(arg, "-q"))
			quiet = 1;
		else if (!strcmp(arg, "-r"))
			recover = 1;
		else if (!strcmp(arg, "--strict"))
			u.strict = 1;
		else if (!strncmp(arg, "--strict=", 9) || !strncmp(arg, "--pack_header=", 14) ||
			 !strncmp(arg, "--max-input-size=", 17))
			die_unimplemented("unpack-objects", arg);
		else
			cli_usage(unpack_usage);
	}
	if (fgit_repo_odb(&u.odb, cli_repo()))
		die_last();
	if (recover && u.strict)
		die_unimplemented("unpack-objects", "-r with --strict");
	if (recover)
		return unpack_sequential(u.odb, 1, u.dry_run, quiet, -1);
	pthread_mutex_init(&u.lock, NULL);
	if (u.strict && fgit_pack_checker_new(&u.checker, FGIT_HASH_SHA1, print_warning, NULL))
		die_last();

	fd = temp_pack(fgit_odb_path(u.odb));
	iopts.object_cb = unpack_object;
	iopts.object_payload = &u;
	iopts.fix_thin_odb = u.odb;	/* bases of a thin pack */
	iopts.flags = FGIT_INDEX_PACK_RECEIVING | FGIT_INDEX_PACK_ONE_METER |
		      FGIT_INDEX_PACK_STREAM;
	iopts.progress_fd = !quiet && isatty(2) ? 2 : -1;
	iopts.progress_title = "Unpacking objects";
	iopts.warn = NULL;
	r = fgit_indexer_run(&ix, 0, fd, &iopts);
	if (r && !u.strict) {
		/*
		 * A damaged stream: git writes every object before the damage,
		 * then stops with its own words.  The indexer kept each byte
		 * it read in fd: read the stream again, git's way.
		 */
		if (lseek(fd, 0, SEEK_SET) < 0)
			die_errno("cannot read back the pack");
		fgit_error_clear();
		r = unpack_sequential(u.odb, 0, u.dry_run, 1, fd);
		close(fd);
		return r;
	}
	close(fd);
	if (r) {
		/* --strict (no replay: held objects are not written) */
		const char *msg = fgit_error_last();
		if (u.fsck_failed) {
			error("%s", msg);
			die("fsck error in packed object");
		}
		/* git's words for what the indexer says its own way */
		if (strstr(msg, "unresolved delta"))
			die("unresolved deltas left after unpacking");
		if (strstr(msg, "SHA1 mismatch"))
			die("final sha1 did not match");
		if (strstr(msg, "signature mismatch"))
			die("bad pack file");
		if (!strncmp(msg, "pack version ", 13)) {
			die("unknown pack file version %d", atoi(msg + 13));
		}
		if (!strncmp(msg, "pack has bad object", 19)) {
			/* git reports the entry and stops with 1 */
			error("%s", msg);
			exit(1);
		}
		die("%s", msg);
	}
	if (u.strict) {
		struct fgit_oid missing;
		r = fgit_pack_checker_missing(&missing, u.checker, ix, u.odb);
		if (r < 0)
			die_last();
		if (r)
			die("object of unexpected type");
		for (k = 0; k < u.nr_held; k++) {
			if (write_object(&u, u.held[k].type, u.held[k].data, u.held[k].size))
				die_last();
			free(u.held[k].data);
		}
	}
	rest = fgit_indexer_leftover(ix, &nrest);
	if (nrest && fwrite(rest, 1, nrest, stdout) != nrest)
		die_errno("write error");
	free(u.held);
	fgit_pack_checker_free(u.checker);
	fgit_indexer_free(ix);
	pthread_mutex_destroy(&u.lock);
	return 0;
}
