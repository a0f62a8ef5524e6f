/*
 * git hash-object: name (and with -w store) file contents as objects.
 *
 * How a file is read follows seed 000's measurements: read() into a
 * buffer for small files (no mapping set-up, no page-fault per page),
 * mmap() for bigger ones, and for files above core.bigFileThreshold plain
 * streaming through a fixed buffer.  Hashing alone never deflates (git
 * 2.39 deflates big files even then).  With -w the object is hashed and
 * deflated from one private copy, or in one streaming pass for large
 * files, so what is stored always matches its name.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "convert_setup.h"
#include "fgit/buf.h"
#include "fgit/config.h"
#include "fgit/hash.h"
#include "fgit/object.h"
#include "fgit/quote.h"
#include "fgit/odb.h"
#include "fgit/pack.h"
#include "fgit/ordered.h"
#include "fgit/repo.h"

#define SMALL_FILE (64u << 10)
#define BIG_FILE_DEFAULT (512ull << 20)

static const char *const hash_object_usage[] = {
	"git hash-object [-t <type>] [-w] [--path=<file> | --no-filters]\n"
	"                       [--stdin [--literally]] [--] <file>...",
	"git hash-object [-t <type>] [-w] --stdin-paths [--no-filters]",
	NULL
};

struct hopts;
static void hash_buffer(struct hopts *o, const void *buf, size_t len);

struct hopts {
	const char *type_name;
	enum fgit_object_type type;
	int write, literally;
	struct fgit_odb *odb;
};

/* Whether content named by `path` goes through the to-git conversion:
 * blobs only, never --literally, and only when there is a path to look
 * attributes up for (--no-filters gives none). */
static int converts(const struct hopts *o, const char *path)
{
	return path && o->type == FGIT_OBJ_BLOB && !o->literally;
}

/*
 * The path attributes are looked up for: an absolute path inside the
 * worktree is taken relative to its top.  (git looks such a path up as
 * it is, reading .gitattributes along it from the root of the file
 * system; for the usual basename patterns the result is the same.)
 */
static const char *attr_path(const char *top, const char *name)
{
	size_t n = top ? strlen(top) : 0;
	if (name[0] == '/' && n && !strncmp(name, top, n) && name[n] == '/')
		return name + n + 1;
	return name;
}

/* Hash (and store) content after converting it as `path`'s would be. */
static void hash_converted(struct hopts *o, const char *path, const void *buf, size_t len)
{
	struct fgit_buf conv = FGIT_BUF_INIT;

	if (cli_convert_to_git(&conv, path, buf, len, o->write ? CLI_CONVERT_WRITE : 0))
		hash_buffer(o, conv.ptr, conv.len);
	else
		hash_buffer(o, buf, len);
	fgit_buf_release(&conv);
}

/* core.bigFileThreshold: above it a file is streamed, never mapped whole,
 * and with -w stored in a pack of its own at pack.compression */
static uint64_t big_file_threshold = BIG_FILE_DEFAULT;
static int pack_level = -1;

static void print_oid(const struct fgit_oid *oid)
{
	char hex[FGIT_MAX_HEXSZ + 1];
	fgit_oid_to_hex(hex, oid);
	hex[40] = '\n';
	fwrite(hex, 1, 41, stdout);
}

/* git 2.39's format checks for hash-object without --literally. */
static void check_format(enum fgit_object_type type, const void *buf, size_t len)
{
	if (type == FGIT_OBJ_TREE) {
		struct fgit_tree_iter it;
		struct fgit_tree_entry e;
		int r;
		fgit_tree_iter_init(&it, buf, len, FGIT_HASH_SHA1);
		while ((r = fgit_tree_iter_next(&e, &it)) > 0)
			;
		if (r < 0)
			die("%s", fgit_error_last());
	} else if (type == FGIT_OBJ_COMMIT) {
		struct fgit_commit c;
		if (fgit_commit_parse(&c, buf, len, FGIT_HASH_SHA1) < 0) {
			error("bogus commit object 0000000000000000000000000000000000000000");
			die("corrupt commit");
		}
	} else if (type == FGIT_OBJ_TAG) {
		struct fgit_tag t;
		if (fgit_tag_parse(&t, buf, len, FGIT_HASH_SHA1) < 0)
			die("corrupt tag");
	}
}

/* Name of content with an arbitrary type string (--literally). */
static void hash_literally(struct fgit_oid *out, const char *type, const void *buf, size_t len)
{
	struct fgit_hash_ctx c;
	char hdr[128];
	int n = snprintf(hdr, sizeof(hdr), "%s %zu", type, len);
	if (n < 0 || (size_t)n >= sizeof(hdr))
		die("invalid object type \"%s\"", type);
	fgit_objname_init(&c, FGIT_HASH_SHA1);
	fgit_objname_update(&c, hdr, (size_t)n + 1);
	fgit_objname_update(&c, buf, len);
	if (fgit_objname_final(out, &c) < 0)
		die_last();
}

static void hash_buffer(struct hopts *o, const void *buf, size_t len)
{
	struct fgit_oid oid;

	if (o->type == FGIT_OBJ_BAD) {	/* only with --literally */
		if (o->write)
			die_unimplemented("hash-object", "-w --literally with a non-standard type");
		hash_literally(&oid, o->type_name, buf, len);
	} else {
		if (!o->literally)
			check_format(o->type, buf, len);
		if (o->write) {
			if (fgit_odb_write(&oid, o->odb, o->type, buf, len) < 0)
				die("%s", fgit_error_last());
		} else if (fgit_hash_object(&oid, FGIT_HASH_SHA1, o->type, buf, len) < 0) {
			die_last();
		}
	}
	print_oid(&oid);
}

static int read_full(int fd, void *buf, size_t len)
{
	char *p = buf;
	while (len) {
		ssize_t n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Hash a file in one streaming pass (no deflate: only naming). */
static void hash_stream(struct fgit_oid *oid, int fd, uint64_t size, const char *path)
{
	static char buf[1 << 17];
	struct fgit_hash_ctx c;
	uint64_t left = size;

	fgit_objname_init_header(&c, FGIT_HASH_SHA1, FGIT_OBJ_BLOB, size);
	while (left) {
		size_t want = left < sizeof(buf) ? (size_t)left : sizeof(buf);
		ssize_t n = read(fd, buf, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("short read of '%s'", path);
		fgit_objname_update(&c, buf, (size_t)n);
		left -= (uint64_t)n;
	}
	if (fgit_objname_final(oid, &c) < 0)
		die_last();
}

/*
 * A blob above core.bigFileThreshold, `size` bytes from fd: named in one
 * streaming pass, and with -w stored as git 2.39 stores it, in a pack of
 * its own (fgit_pack_write_fd); memory stays bounded either way.
 */
static void hash_big(struct hopts *o, int fd, uint64_t size, const char *path)
{
	struct fgit_oid oid;

	if (!o->write)
		hash_stream(&oid, fd, size, path);
	else if (fgit_pack_write_fd(&oid, o->odb, FGIT_OBJ_BLOB, fd, size, pack_level, path) < 0)
		die("%s", fgit_error_last());
	print_oid(&oid);
}

/* Hash the file at `path`; `vpath` names it for conversion (NULL: none). */
static void hash_file(struct hopts *o, const char *path, const char *vpath)
{
	static char small[SMALL_FILE];
	struct stat st;
	struct fgit_oid oid;
	size_t size;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die_errno("could not open '%s' for reading", path);
	if (fstat(fd, &st) < 0)
		die_errno("could not stat '%s'", path);
	size = (size_t)st.st_size;
	if (converts(o, vpath) && cli_would_convert(vpath)) {
		struct fgit_buf b = FGIT_BUF_INIT;
		if (fgit_buf_read_fd(&b, fd, size) < 0)
			die_errno("could not read '%s'", path);
		close(fd);
		hash_converted(o, vpath, b.ptr, b.len);
		fgit_buf_release(&b);
		return;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != size) {
		struct fgit_buf b = FGIT_BUF_INIT;
		if (fgit_buf_read_fd(&b, fd, 0) < 0)
			die_errno("could not read '%s'", path);
		close(fd);
		hash_buffer(o, b.ptr, b.len);
		fgit_buf_release(&b);
		return;
	}
	if (size <= SMALL_FILE) {
		if (read_full(fd, small, size) < 0)
			die_errno("could not read '%s'", path);
		close(fd);
		hash_buffer(o, small, size);
		return;
	}
	if (o->type == FGIT_OBJ_BLOB && !o->literally && (uint64_t)size > big_file_threshold) {
		hash_big(o, fd, size, path);
		close(fd);
		return;
	}
	if (o->write && o->type == FGIT_OBJ_BLOB && !o->literally) {
		/* hash and deflate the same bytes in one pass */
		if (fgit_odb_write_fd(&oid, o->odb, FGIT_OBJ_BLOB, fd, size) < 0)
			die("%s", fgit_error_last());
		close(fd);
		print_oid(&oid);
		return;
	}
	{
		/* populated in one call: 256 MiB faulted in page by page cost
		 * 221 ms against 199 ms (hyperfine, 30 runs, AMD EPYC VM) */
		void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
		close(fd);
		if (map == MAP_FAILED)
			die_errno("mmap failed");
		if (o->write && o->type != FGIT_OBJ_BAD) {
			/* a private copy: the mapping could change under us */
			void *copy = malloc(size);
			if (!copy)
				die("out of memory");
			memcpy(copy, map, size);
			munmap(map, size);
			hash_buffer(o, copy, size);
			free(copy);
			return;
		}
		hash_buffer(o, map, size);
		munmap(map, size);
	}
}

/*
 * --stdin-paths in batches.  Whatever complete lines one read() returns
 * (a pipe gives what the writer has written so far, a file 64 KiB) form a
 * batch: plain files are hashed (and with -w written) on every core, and
 * the names are printed in input order.  Anything unusual (conversion,
 * a file that cannot be read, not a regular file, above
 * core.bigFileThreshold, another type) is left to hash_file() on the
 * main thread at its turn, so messages and exits come exactly as git's
 * one-at-a-time loop gives them.  Before reading more, stdout is flushed
 * unless it is a regular file (git's rule, GIT_FLUSH overriding), so a
 * program driving hash-object line by line gets each answer.
 */
struct path_item {
	char *fs;		/* the file to open */
	char *vpath;		/* the path for conversion, or NULL */
	int serial;		/* leave to hash_file() in emit */
};

struct path_batch {
	struct hopts *o;
	struct path_item *it;
	size_t nr, alloc;
};

struct path_slot {
	struct fgit_oid oid;
	int ok;
};

/*
 * Files hashed on worker threads are read() through one buffer per thread,
 * never mapped: in a process with several threads every munmap() makes the
 * kernel shoot down the other cores' TLB entries by interrupt, and with
 * the page faults of a fresh mapping that was a quarter of the CPU time of
 * --stdin-paths over 2,000 files of 256 KiB (perf, 2026-12-01, AMD EPYC
 * VM).  256 KiB stays in the core's L2 between the copy and the hashing.
 */
#define READ_CHUNK (256u << 10)

static pthread_t main_thread;

/*
 * Each thread's READ_CHUNK buffer, malloc'd on first use and freed when the
 * thread ends.  Not a __thread array: glibc zeroes a thread's static TLS
 * when it creates the thread (and the main thread's at start-up), which
 * touched 256 KiB per thread in every fgit command and put hash-object -w
 * over 100,000 small files above git's peak RSS.
 */
static pthread_key_t read_buf_key;
static pthread_once_t read_buf_once = PTHREAD_ONCE_INIT;

static void make_read_buf_key(void)
{
	if (pthread_key_create(&read_buf_key, free))
		die("unable to create thread-specific data key");
}

static char *thread_read_buf(void)
{
	char *buf;

	pthread_once(&read_buf_once, make_read_buf_key);
	buf = pthread_getspecific(read_buf_key);
	if (!buf && (buf = malloc(READ_CHUNK)) && pthread_setspecific(read_buf_key, buf)) {
		free(buf);
		buf = NULL;
	}
	return buf;
}

/* Name a regular file of `size` bytes read from `fd` in READ_CHUNK pieces. */
static int hash_fd_chunked(struct fgit_oid *out, int fd, uint64_t size, char *buf)
{
	struct fgit_hash_ctx c;
	uint64_t left = size;

	fgit_objname_init_header(&c, FGIT_HASH_SHA1, FGIT_OBJ_BLOB, size);
	while (left) {
		size_t want = left < READ_CHUNK ? (size_t)left : READ_CHUNK;
		if (read_full(fd, buf, want) < 0)
			return -1;
		fgit_objname_update(&c, buf, want);
		left -= want;
	}
	return fgit_objname_final(out, &c);
}

/* Hash one plain regular file; 0, or -1 to leave it to hash_file(). */
static int hash_plain(struct hopts *o, const char *path, struct fgit_oid *out)
{
	char *buf = thread_read_buf();
	struct stat st;
	size_t size;
	int fd, r = -1;

	if (!buf)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > big_file_threshold || (uint64_t)st.st_size > SIZE_MAX) {
		close(fd);
		return -1;
	}
	size = (size_t)st.st_size;
	if (size > READ_CHUNK && pthread_equal(pthread_self(), main_thread)) {
		/* Alone (few files): hash_file() maps it, and the detecting
		 * hash of a big buffer puts the second core to work. */
		close(fd);
		return -1;
	}
	if (size <= READ_CHUNK) {
		/* whole: libdeflate compresses a buffer faster than zlib streams */
		if (!read_full(fd, buf, size))
			r = o->write ? fgit_odb_write(out, o->odb, FGIT_OBJ_BLOB, buf, size)
				     : fgit_hash_object(out, FGIT_HASH_SHA1, FGIT_OBJ_BLOB, buf, size);
	} else if (o->write) {
		r = fgit_odb_write_fd(out, o->odb, FGIT_OBJ_BLOB, fd, size);
	} else {
		r = hash_fd_chunked(out, fd, size, buf);
	}
	close(fd);
	if (r < 0)
		fgit_error_clear();
	return r < 0 ? -1 : 0;
}

static void batch_work(size_t i, void *slot, void *payload)
{
	struct path_batch *b = payload;
	struct path_slot *ps = slot;

	if (!b->it[i].serial)
		ps->ok = !hash_plain(b->o, b->it[i].fs, &ps->oid);
}

static int batch_emit(size_t i, void *slot, void *payload)
{
	struct path_batch *b = payload;
	struct path_slot *ps = slot;

	if (ps->ok)
		print_oid(&ps->oid);
	else
		hash_file(b->o, b->it[i].fs, b->it[i].vpath);
	return 0;
}

static int stdout_wants_flush(void)
{
	const char *env = getenv("GIT_FLUSH");
	struct stat st;

	if (env)
		return atoi(env) != 0;
	return fstat(1, &st) || !S_ISREG(st.st_mode);
}

/* Queue the file `fs` (malloc'd, taken) converted as `vpath` (copied). */
static void add_item(struct path_batch *b, char *fs, const char *vpath, int threaded)
{
	struct path_item *it;

	if (b->nr == b->alloc) {
		b->alloc = b->alloc ? 2 * b->alloc : 256;
		b->it = realloc(b->it, b->alloc * sizeof(*b->it));
		if (!b->it)
			die("out of memory");
	}
	it = &b->it[b->nr++];
	it->fs = fs;
	it->vpath = vpath ? strdup(vpath) : NULL;
	if (!it->fs || (vpath && !it->vpath))
		die("out of memory");
	/* conversion is decided here, on one thread, in input order */
	it->serial = !threaded || (converts(b->o, it->vpath) && cli_would_convert(it->vpath));
}

/* One input line: unquote, place under the worktree, queue it. */
static void queue_path(struct path_batch *b, const char *line, const char *prefix,
		       const char *top, int no_filters, int threaded)
{
	struct fgit_buf u = FGIT_BUF_INIT;
	const char *name = line;
	size_t len = strlen(line);

	if (len && line[len - 1] == '\r')	/* strbuf_getline's CRLF rule */
		((char *)line)[len - 1] = '\0';
	if (line[0] == '"') {
		const char *qend;
		if (fgit_unquote_c_style(&u, line, &qend) < 0 || *qend)
			die("line is badly quoted");
		name = u.ptr;
	}
	if (prefix && *prefix && top && name[0] != '/') {
		/* git reads these relative to the top of the worktree, even
		 * when run in a subdirectory */
		struct fgit_buf full = FGIT_BUF_INIT;
		fgit_buf_addf(&full, "%s/%s", top, name);
		add_item(b, fgit_buf_detach(&full, NULL), no_filters ? NULL : name, threaded);
	} else {
		add_item(b, strdup(name), no_filters ? NULL : attr_path(top, name), threaded);
	}
	fgit_buf_release(&u);
}

static void run_batch(struct path_batch *b, int threaded, int flush)
{
	size_t k;

	if (b->nr && fgit_ordered_run(b->nr, threaded ? fgit_ordered_threads() : 1,
				      sizeof(struct path_slot), batch_work, batch_emit, b))
		die_last();
	for (k = 0; k < b->nr; k++) {
		free(b->it[k].fs);
		free(b->it[k].vpath);
	}
	b->nr = 0;
	if (flush && fflush(stdout))
		die_errno("hash to stdout");
}

static void hash_stdin_paths(struct hopts *o, const char *prefix, const char *top,
			     int no_filters)
{
	struct path_batch b = { o, NULL, 0, 0 };
	int threaded = o->type == FGIT_OBJ_BLOB && !o->literally;
	int flush = stdout_wants_flush();
	struct fgit_buf in = FGIT_BUF_INIT;
	char chunk[1 << 16];

	for (;;) {
		ssize_t got = read(0, chunk, sizeof(chunk));
		size_t start = 0, k;

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			die_errno("could not read from stdin");
		if (!got) {
			if (in.len)	/* a last line without its newline */
				queue_path(&b, in.ptr, prefix, top, no_filters, threaded);
			run_batch(&b, threaded, flush);
			break;
		}
		fgit_buf_add(&in, chunk, (size_t)got);
		for (k = 0; k < in.len; k++) {
			if (in.ptr[k] != '\n')
				continue;
			in.ptr[k] = '\0';
			queue_path(&b, in.ptr + start, prefix, top, no_filters, threaded);
			start = k + 1;
		}
		if (start) {
			memmove(in.ptr, in.ptr + start, in.len - start);
			fgit_buf_setlen(&in, in.len - start);
		}
		run_batch(&b, threaded, flush);
	}
	free(b.it);
	fgit_buf_release(&in);
}

CLI_CMD(hash_object)
{
	struct hopts o = { "blob", FGIT_OBJ_BLOB, 0, 0, NULL };
	int use_stdin = 0, stdin_paths = 0, no_filters = 0, n, i;
	const char *path = NULL, *prefix, *top, *err = NULL;
	char *vpath_free = NULL;
	struct fgit_repo *repo;
	struct stat st;
	struct cli_option opts[] = {
		OPT_STRING('t', NULL, &o.type_name, "type", "object type"),
		OPT_BOOL('w', NULL, &o.write, "write the object into the object database"),
		OPT_COUNT(0, "stdin", &use_stdin, "read the object from stdin"),
		OPT_BOOL(0, "stdin-paths", &stdin_paths, "read file names from stdin"),
		OPT_BOOL(0, "no-filters", &no_filters, "store file as is without filters"),
		OPT_BOOL(0, "literally", &o.literally,
			 "just hash any random garbage to create corrupt objects for debugging Git"),
		OPT_STRING(0, "path", &path, "file", "process file as it were from this path"),
		OPT_END(),
	};
	static char outbuf[1 << 16];

	main_thread = pthread_self();
	n = cli_parse_options(argc, argv, "hash-object", opts, hash_object_usage, 0);
	if (stdin_paths) {
		err = use_stdin ? "Can't use --stdin-paths with --stdin"
			: n ? "Can't specify files with --stdin-paths"
			: path ? "Can't use --stdin-paths with --path" : NULL;
	} else {
		if (use_stdin > 1)
			err = "Multiple --stdin arguments are not supported";
		if (path && no_filters)
			err = "Can't use --path with --no-filters";
	}
	if (err) {
		fprintf(stderr, "error: %s\n", err);
		cli_usage_with_options(hash_object_usage, opts, 0);
	}
	o.type = fgit_object_type_from_name(o.type_name, strlen(o.type_name));
	if (o.type == FGIT_OBJ_BAD && !o.literally)
		die("invalid object type \"%s\"", o.type_name);
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	if (o.write) {
		repo = cli_repo();
		if (fgit_repo_odb(&o.odb, repo) < 0)
			die_last();
	} else {
		repo = cli_repo_gently();
	}
	prefix = repo ? fgit_repo_prefix(repo) : NULL;
	top = repo ? fgit_repo_work_tree(repo) : NULL;
	if (path && prefix && *prefix)
		path = vpath_free = cli_prefix_path(prefix, path);
	if (!no_filters)
		cli_convert_setup(repo, "hash-object");
	{
		int64_t v;
		int level;
		if (fgit_config_get_int64(&v, cli_config(), "core.bigfilethreshold") == 0 && v > 0)
			big_file_threshold = (uint64_t)v;
		if (!fgit_config_get_int(&level, cli_config(), "core.compression"))
			pack_level = level;
		if (!fgit_config_get_int(&level, cli_config(), "pack.compression"))
			pack_level = level;
		fgit_error_clear();
	}
	if (use_stdin && o.type == FGIT_OBJ_BLOB && !o.literally &&
	    !(converts(&o, path) && cli_would_convert(path)) &&
	    !fstat(0, &st) && S_ISREG(st.st_mode) && (uint64_t)st.st_size > big_file_threshold) {
		/* git streams a big regular file on stdin too */
		hash_big(&o, 0, (uint64_t)st.st_size, "<stdin>");
	} else if (use_stdin) {
		struct fgit_buf b = FGIT_BUF_INIT;
		if (fgit_buf_read_fd(&b, 0, 0) < 0)
			die_errno("could not read from stdin");
		if (converts(&o, path))
			hash_converted(&o, path, b.ptr, b.len);
		else
			hash_buffer(&o, b.ptr, b.len);
		fgit_buf_release(&b);
	}
	if (n) {
		/* files named on the command line: hashed like --stdin-paths */
		struct path_batch b = { &o, NULL, 0, 0 };
		int threaded = o.type == FGIT_OBJ_BLOB && !o.literally;
		for (i = 0; i < n; i++) {
			/* git names the file from the top of the worktree */
			char *arg = prefix && *prefix ? cli_prefix_path(prefix, argv[i]) : NULL;
			add_item(&b, strdup(argv[i]), no_filters ? NULL : path ? path
				 : arg ? arg : attr_path(top, argv[i]), threaded);
			free(arg);
		}
		run_batch(&b, threaded, 0);
		free(b.it);
	}
	if (stdin_paths)
		hash_stdin_paths(&o, prefix, top, no_filters);
	free(vpath_free);
	return 0;
}
