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
 * written are git's, whatever the damage.
 *
 * --strict goes through lib/pack/unpack.c as well (with or without -r):
 * which objects a failing check leaves written depends on git's order
 * (blobs as they come, the rest after every entry is read, each after
 * what it points to), and that path keeps it.  git 2.39 is single-threaded
 * there too.
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

static void print_error(const char *msg, void *payload)
{
	error("%s", msg);
}

static void print_warning(const char *msg, void *payload)
{
	warning("%s", msg);
}

static int unpack_object(const struct fgit_oid *oid, enum fgit_object_type type,
			 const void *data, size_t size, void *payload)
{
	struct fgit_odb *odb = payload;
	struct fgit_oid written;

	if (!odb)	/* -n */
		return 0;
	return fgit_odb_write(&written, odb, type, data, size);
}

/*
 * git's sequential reading (lib/pack/unpack.c): with -r it steps over
 * damaged entries; without, it writes what comes before the damage and
 * stops there as git does.  prefix_fd (or -1) holds the start of the
 * stream, already read from stdin.
 */
static int unpack_sequential(struct fgit_odb *odb, int recover, int strict, int dry_run,
			     int quiet, int prefix_fd)
{
	struct fgit_unpack_options o = FGIT_UNPACK_OPTIONS_INIT;
	struct fgit_unpack_result res;
	int64_t v;

	o.flags = (recover ? FGIT_UNPACK_RECOVER : 0) | (dry_run ? FGIT_UNPACK_DRY_RUN : 0) |
		  (strict ? FGIT_UNPACK_STRICT : 0);
	o.odb = odb;
	o.prefix_fd = prefix_fd;
	if (!fgit_config_get_int64(&v, cli_config(), "core.bigfilethreshold") && v > 0)
		o.big_file_threshold = (uint64_t)v;
	o.progress_fd = !quiet && prefix_fd < 0 && isatty(2) ? 2 : -1;
	o.error_cb = print_error;
	o.warn_cb = print_warning;
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
	struct fgit_odb *odb;
	int dry_run = 0, strict = 0, quiet = 0, recover = 0, fd, i, r;
	const unsigned char *rest;
	size_t nrest;

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (!strcmp(arg, "-n"))
			dry_run = 1;
		else if (!strcmp(arg, "-q"))
			quiet = 1;
		else if (!strcmp(arg, "-r"))
			recover = 1;
		else if (!strcmp(arg, "--strict"))
			strict = 1;
		else if (!strncmp(arg, "--strict=", 9) || !strncmp(arg, "--pack_header=", 14) ||
			 !strncmp(arg, "--max-input-size=", 17))
			die_unimplemented("unpack-objects", arg);
		else
			cli_usage(unpack_usage);
	}
	if (fgit_repo_odb(&odb, cli_repo()))
		die_last();
	if (recover || strict)
		return unpack_sequential(odb, recover, strict, dry_run, quiet, -1);

	fd = temp_pack(fgit_odb_path(odb));
	iopts.object_cb = unpack_object;
	iopts.object_payload = dry_run ? NULL : odb;
	iopts.fix_thin_odb = odb;	/* bases of a thin pack */
	iopts.flags = FGIT_INDEX_PACK_RECEIVING | FGIT_INDEX_PACK_ONE_METER |
		      FGIT_INDEX_PACK_STREAM;
	iopts.progress_fd = !quiet && isatty(2) ? 2 : -1;
	iopts.progress_title = "Unpacking objects";
	iopts.warn = NULL;
	r = fgit_indexer_run(&ix, 0, fd, &iopts);
	if (r) {
		/*
		 * A damaged stream: git writes every object before the damage,
		 * then stops with its own words.  The indexer kept each byte
		 * it read in fd: read the stream again, git's way.
		 */
		if (lseek(fd, 0, SEEK_SET) < 0)
			die_errno("cannot read back the pack");
		fgit_error_clear();
		r = unpack_sequential(odb, 0, 0, dry_run, 1, fd);
		close(fd);
		return r;
	}
	close(fd);
	rest = fgit_indexer_leftover(ix, &nrest);
	if (nrest && fwrite(rest, 1, nrest, stdout) != nrest)
		die_errno("write error");
	fgit_indexer_free(ix);
	return 0;
}
