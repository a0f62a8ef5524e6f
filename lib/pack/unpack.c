/*
 * unpack-objects' sequential path (include/fgit/pack.h): one entry at a
 * time, in git's order, with git's reading of a damaged stream.
 *
 * fgit normally unpacks through the indexer (two passes, several
 * threads), which needs a pack that verifies.  `unpack-objects -r` must
 * instead do what git does with a damaged stream: report the entry it
 * cannot read, carry on with the bytes that follow, and keep every object
 * it could name.  Which objects survive depends on exactly where zlib
 * stopped inside the damaged bytes, so the input is consumed as git
 * consumes it: a 4 KiB window, refilled only when empty (or when a delta
 * base name needs more bytes than it holds), with zlib fed whatever the
 * window holds and told to fill the object's whole buffer.  A delta whose
 * base has not been seen waits in a list, newest first, and is applied
 * when its base is written; its children are then looked for from the
 * head of the list again.  That is git's resolution order, so a delta that
 * cannot be applied stops the run after the same objects as git's.
 *
 * Slow on purpose: one thread, bases read back from the object database;
 * only the recovery path and --strict use it.
 *
 * --strict follows git's order too, since it decides which objects a
 * failing run leaves behind: blobs are written as they come; any other
 * object is named, parsed (its links noted with their types, as git's
 * object table notes them: a name met as two types is an error) and held
 * in memory.  Once every entry is read (before the trailer is checked),
 * the held objects are visited in pack order, each one checked by fsck's
 * rules, then what it points to (depth first, held objects before the
 * objects pointing to them), and written: the run dies at the first
 * failure, with the objects checked so far written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "fgit/common.h"
#include "fgit/hash.h"
#include "fgit/object.h"
#include "fgit/odb.h"
#include "fgit/oidmap.h"
#include "fgit/pack.h"
#include "fgit/progress.h"
#include "odb/delta.h"
#include "pack_internal.h"

#define WINDOW 4096
/* git hands zlib at most this much output room per call */
#define ZCHUNK (1u << 30)

/*
 * --strict: an object git's table knows (met in the pack, or named by an
 * object met there), with the type it was met as.
 */
enum { K_OPEN = 1, K_WRITTEN = 2, K_BUSY = 4 };
struct known {
	struct fgit_oid oid;
	enum fgit_object_type type;
	unsigned int flags;	/* K_OPEN: held (data); K_BUSY: being checked */
	unsigned char *data;
	size_t size;
};

struct obj {
	uint64_t offset;
	struct fgit_oid oid;	/* zero until written */
	struct known *held;	/* --strict: this entry's object, held */
};

struct waiting {
	struct waiting *next;
	uint32_t nr;		/* the delta's entry */
	struct fgit_oid base_oid;	/* REF delta: zero for OFS */
	uint64_t base_offset;	/* OFS delta: 0 for REF */
	unsigned char *delta;
	uint64_t size;
};

struct unpacker {
	const struct fgit_unpack_options *opts;
	struct fgit_unpack_result *res;
	int algo;
	size_t rawsz;
	int fd, prefix_done;
	unsigned char win[WINDOW];
	size_t off, len;	/* unconsumed bytes: win[off .. off + len) */
	uint64_t consumed;
	struct fgit_hash_ctx csum;
	struct fgit_progress *prog;
	struct obj *objs;
	uint32_t nr_objs, alloc_objs;
	struct waiting *waiting;
	struct fgit_oidmap known;	/* --strict */
	/* --strict: blobs trees name .gitmodules / .gitattributes, in the
	 * order met, for fsck_finish's check */
	struct fgit_oidmap dotfiles[2];
	struct dotfile {
		struct fgit_oid oid;
	} **dotfile_list[2];
	size_t nr_dotfiles[2], alloc_dotfiles[2];
};

static int dry_run(const struct unpacker *u)
{
	return !!(u->opts->flags & FGIT_UNPACK_DRY_RUN);
}

static int strict(const struct unpacker *u)
{
	return !!(u->opts->flags & FGIT_UNPACK_STRICT);
}

static void report(struct unpacker *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(struct unpacker *u, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	u->res->errors++;
	if (u->opts->error_cb)
		u->opts->error_cb(msg, u->opts->payload);
}

/* A bad entry: reported; without RECOVER the run stops here. */
static int bad_entry(struct unpacker *u)
{
	if (u->opts->flags & FGIT_UNPACK_RECOVER)
		return 0;
	u->res->stopped = 1;
	return fgit_error_set(FGIT_EINVALID, "unpacking stopped at a bad entry");
}

/* At least min unconsumed bytes in the window. */
static int fill(struct unpacker *u, size_t min)
{
	if (min <= u->len)
		return 0;
	if (u->off) {
		fgit_checksum_update(&u->csum, u->win, u->off);
		memmove(u->win, u->win + u->off, u->len);
		u->off = 0;
	}
	do {
		int from = u->opts->prefix_fd >= 0 && !u->prefix_done ? u->opts->prefix_fd : u->fd;
		ssize_t n = read(from, u->win + u->len, WINDOW - u->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fgit_error_errno(FGIT_ERROR, "read error on input");
		if (!n && from != u->fd) {
			u->prefix_done = 1;
			continue;
		}
		if (!n)
			return fgit_error_set(FGIT_EINVALID, "early EOF");
		u->len += (size_t)n;
	} while (u->len < min);
	return 0;
}

static void use(struct unpacker *u, size_t n)
{
	u->off += n;
	u->len -= n;
	u->consumed += n;
	fgit_progress_bytes(u->prog, u->consumed);
}

static int next_byte(struct unpacker *u, unsigned char *c)
{
	if (fill(u, 1))
		return -1;
	*c = u->win[u->off];
	use(u, 1);
	return 0;
}

/* One inflate() round as git's wrapper makes it: more rounds while the
 * output buffer is bigger than what zlib may be told at once. */
static int zround(int *status_out, struct unpacker *u, z_stream *zs, uint64_t *out_left)
{
	int status;

	for (;;) {
		uInt give = *out_left > ZCHUNK ? ZCHUNK : (uInt)*out_left;
		zs->avail_out = give;
		status = inflate(zs, 0);
		*out_left -= give - zs->avail_out;
		if (status == Z_MEM_ERROR)
			return fgit_error_set(FGIT_ENOMEM, "inflate: out of memory");
		if (*out_left && !zs->avail_out && (status == Z_OK || status == Z_BUF_ERROR))
			continue;
		break;
	}
	if (status != Z_OK && status != Z_BUF_ERROR && status != Z_STREAM_END)
		report(u, "inflate: %s (%s)", pack_zerr_name(status),
		       zs->msg ? zs->msg : "no message");
	*status_out = status;
	return 0;
}

/*
 * Inflate the entry's data at the window: *out (size bytes and a NUL,
 * malloc'd) or NULL after reporting a bad stream.  A dry run inflates
 * through 8 KiB and returns that buffer.
 */
static int get_data(unsigned char **out, struct unpacker *u, uint64_t size)
{
	uint64_t bufsize = dry_run(u) && size > 8192 ? 8192 : size, out_left;
	unsigned char *buf;
	z_stream zs;
	int status, ret = 0;

	*out = NULL;
	/* as git's xmallocz: the allocation fails or succeeds as git's would */
	buf = bufsize < SIZE_MAX ? malloc((size_t)bufsize + 1) : NULL;
	if (!buf)
		return fgit_error_set(FGIT_ENOMEM,
				      "Out of memory, malloc failed (tried to allocate %llu bytes)",
				      (unsigned long long)bufsize + 1);
	buf[bufsize] = 0;
	if (fill(u, 1)) {
		free(buf);
		return -1;
	}
	memset(&zs, 0, sizeof(zs));
	zs.next_in = u->win + u->off;
	zs.avail_in = (uInt)u->len;
	if (inflateInit(&zs) != Z_OK) {
		free(buf);
		return fgit_error_set(FGIT_ENOMEM, "inflate: out of memory");
	}
	zs.next_out = buf;
	out_left = bufsize;
	for (;;) {
		if (zround(&status, u, &zs, &out_left)) {
			ret = -1;
			break;
		}
		use(u, u->len - zs.avail_in);
		if (zs.total_out == size && status == Z_STREAM_END)
			break;
		if (status != Z_OK) {
			report(u, "inflate returned %d", status);
			free(buf);
			buf = NULL;
			ret = bad_entry(u);
			break;
		}
		if (fill(u, 1)) {
			ret = -1;
			break;
		}
		zs.next_in = u->win + u->off;
		zs.avail_in = (uInt)u->len;
		if (dry_run(u)) {
			zs.next_out = buf;
			out_left = size - zs.total_out < bufsize ? size - zs.total_out : bufsize;
		}
	}
	inflateEnd(&zs);
	if (ret) {
		free(buf);
		return ret;
	}
	*out = buf;
	return 0;
}

static int write_object(struct fgit_oid *oid, struct unpacker *u, enum fgit_object_type type,
			const void *data, size_t size)
{
	/* --strict: only named here; finish() holds it */
	if (strict(u) && type != FGIT_OBJ_BLOB)
		return fgit_hash_object(oid, u->algo, type, data, size);
	if (fgit_odb_write(oid, u->opts->odb, type, data, size))
		return fgit_error_set(FGIT_ERROR, "failed to write object");
	return 0;
}

/*
 * git's lookup of oid as a `type`: the table's entry, made if new.  *out
 * is NULL, after git's error line, when oid is known as another type.
 */
static int lookup(struct known **out, struct unpacker *u, const struct fgit_oid *oid,
		  enum fgit_object_type type)
{
	struct known *k = fgit_oidmap_get(&u->known, oid);
	char hex[FGIT_MAX_HEXSZ + 1];
	int err = 0;

	*out = NULL;
	if (k) {
		if (k->type == type)
			*out = k;
		else
			report(u, "object %s is a %s, not a %s", fgit_oid_to_hex(hex, oid),
			       fgit_object_type_name(k->type), fgit_object_type_name(type));
		return 0;
	}
	k = calloc(1, sizeof(*k));
	if (!k)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	k->oid = *oid;
	k->type = type;
	fgit_oidmap_put(&u->known, k, &err);
	if (err) {
		free(k);
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	*out = k;
	return 0;
}

/* The held object named oid, or NULL. */
static struct known *held(struct unpacker *u, const struct fgit_oid *oid)
{
	struct known *k = strict(u) ? fgit_oidmap_get(&u->known, oid) : NULL;

	return k && (k->flags & K_OPEN) ? k : NULL;
}

/* git's parse of a held commit or tag: the objects it names, with their types. */
static int parse_links(struct unpacker *u, const struct known *k, const unsigned char *data,
		       size_t size)
{
	char hex[FGIT_MAX_HEXSZ + 1], other[FGIT_MAX_HEXSZ + 1];
	struct known *t;
	size_t i;

	fgit_oid_to_hex(hex, &k->oid);
	if (k->type == FGIT_OBJ_COMMIT) {
		struct fgit_commit c;
		struct fgit_oid p;

		/* NEEDSWORK: git says "bogus commit object" for a missing tree line */
		if (fgit_commit_parse(&c, data, size, u->algo)) {
			report(u, "%s %s", fgit_error_last(), hex);
			return fgit_error_set(FGIT_EINVALID, "invalid commit");
		}
		if (lookup(&t, u, &c.tree, FGIT_OBJ_TREE))
			return -1;
		if (!t) {
			report(u, "bad tree pointer %s in commit %s", fgit_oid_to_hex(other, &c.tree),
			       hex);
			return fgit_error_set(FGIT_EINVALID, "invalid commit");
		}
		for (i = 0; i < c.nparents; i++) {
			fgit_commit_parent(&p, &c, i);
			if (lookup(&t, u, &p, FGIT_OBJ_COMMIT))
				return -1;
			if (!t) {
				report(u, "bad parent %s in commit %s", fgit_oid_to_hex(other, &p), hex);
				return fgit_error_set(FGIT_EINVALID, "invalid commit");
			}
		}
	} else if (k->type == FGIT_OBJ_TAG) {
		struct fgit_tag g;

		if (fgit_tag_parse(&g, data, size, u->algo))
			return fgit_error_set(FGIT_EINVALID, "invalid tag");
		if (lookup(&t, u, &g.object, g.type))
			return -1;
		if (!t) {
			report(u, "bad tag pointer to %s in %s", fgit_oid_to_hex(other, &g.object),
			       hex);
			return fgit_error_set(FGIT_EINVALID, "invalid tag");
		}
	}
	return 0;
}

/*
 * --strict, once the deltas waiting for entry nr are applied (git's order):
 * a blob, already written, is noted as such; anything else is parsed and
 * held for write_rest().
 */
static int finish(struct unpacker *u, uint32_t nr, enum fgit_object_type type,
		  const unsigned char *data, size_t size)
{
	char hex[FGIT_MAX_HEXSZ + 1];
	struct known *k;

	if (!strict(u))
		return 0;
	if (lookup(&k, u, &u->objs[nr].oid, type))
		return -1;
	if (!k && type == FGIT_OBJ_BLOB)
		return fgit_error_set(FGIT_EINVALID, "invalid blob object");
	if (!k)
		return fgit_error_set(FGIT_EINVALID, "invalid %s", fgit_object_type_name(type));
	if (type == FGIT_OBJ_BLOB) {
		k->flags |= K_WRITTEN;
		return 0;
	}
	if (parse_links(u, k, data, size))
		return -1;
	if (k->flags & K_OPEN)
		return fgit_error_set(FGIT_EINVALID, "object %s tried to add buffer twice!",
				      fgit_oid_to_hex(hex, &k->oid));
	k->data = malloc(size ? size : 1);
	if (!k->data)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	memcpy(k->data, data, size);
	k->size = size;
	k->flags |= K_OPEN;
	u->objs[nr].held = k;
	return 0;
}

/* A held object being checked, and what it points to. */
struct frame {
	struct known *k;
	struct link {
		struct fgit_oid oid;
		enum fgit_object_type type;
	} *links;
	size_t nr, alloc, next;
	int failed;	/* a link known as another type */
};

static int gather(const struct fgit_oid *oid, enum fgit_object_type type, void *payload)
{
	struct frame *f = payload;

	if (f->nr == f->alloc) {
		size_t na = f->alloc ? 2 * f->alloc : 16;
		struct link *nl = realloc(f->links, na * sizeof(*nl));
		if (!nl)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		f->links = nl;
		f->alloc = na;
	}
	f->links[f->nr].oid = *oid;
	f->links[f->nr++].type = type;
	return 0;
}

/* Note the .gitmodules and .gitattributes blobs tree k names. */
static int note_dotfiles(struct unpacker *u, const struct known *k)
{
	struct fgit_tree_iter it;
	struct fgit_tree_entry e;
	int r, err = 0;

	fgit_tree_iter_init(&it, k->data, k->size, u->algo);
	while ((r = fgit_tree_iter_next(&e, &it)) > 0) {
		enum fgit_dotfile which = fgit_tree_dotfile(e.name, e.name_len);
		struct dotfile *d;
		size_t w = which - 1;

		if (which == FGIT_DOTFILE_NONE || e.mode == FGIT_MODE_LINK ||
		    fgit_oidmap_get(&u->dotfiles[w], &e.oid))
			continue;
		if (u->nr_dotfiles[w] == u->alloc_dotfiles[w]) {
			size_t na = u->alloc_dotfiles[w] ? 2 * u->alloc_dotfiles[w] : 8;
			struct dotfile **nl = realloc(u->dotfile_list[w], na * sizeof(*nl));
			if (!nl)
				return fgit_error_set(FGIT_ENOMEM, "out of memory");
			u->dotfile_list[w] = nl;
			u->alloc_dotfiles[w] = na;
		}
		d = malloc(sizeof(*d));
		if (!d)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		d->oid = e.oid;
		fgit_oidmap_put(&u->dotfiles[w], d, &err);
		if (err) {
			free(d);
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		}
		u->dotfile_list[w][u->nr_dotfiles[w]++] = d;
	}
	return r < 0 ? r : 0;
}

/* git's fsck_finish: the noted .gitmodules, then .gitattributes blobs. */
static int check_dotfiles(struct unpacker *u)
{
	int w, failed = 0;
	size_t i;

	for (w = 0; w < 2; w++) {
		for (i = 0; i < u->nr_dotfiles[w]; i++) {
			void *data = NULL;
			size_t size = 0;
			enum fgit_object_type type = FGIT_OBJ_NONE;

			if (fgit_odb_read(&data, &size, &type, u->opts->odb,
					  &u->dotfile_list[w][i]->oid))
				data = NULL;
			failed |= pack_fsck_dotfile(&u->dotfile_list[w][i]->oid,
						    (enum fgit_dotfile)(w + 1), type, data, size,
						    u->opts->error_cb, u->opts->warn_cb,
						    u->opts->payload);
			free(data);
		}
	}
	fgit_error_clear();
	if (failed) {
		u->res->errors++;
		return fgit_error_set(FGIT_EINVALID, "fsck error in pack objects");
	}
	return 0;
}

/* fsck's rules on held object k (git's errors and infos), then its links. */
static int push_frame(struct frame **stack, size_t *depth, size_t *cap, struct unpacker *u,
		      struct known *k)
{
	struct frame *f;

	if (pack_fsck_object(&k->oid, k->type, k->data, k->size, u->algo, u->opts->warn_cb,
			     u->opts->payload)) {
		report(u, "%s", fgit_error_last());
		return fgit_error_set(FGIT_EINVALID, "fsck error in packed object");
	}
	if (k->type == FGIT_OBJ_TREE && note_dotfiles(u, k))
		return -1;
	if (*depth == *cap) {
		size_t nc = *cap ? 2 * *cap : 16;
		struct frame *ns = realloc(*stack, nc * sizeof(*ns));
		if (!ns)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		*stack = ns;
		*cap = nc;
	}
	f = &(*stack)[(*depth)++];
	memset(f, 0, sizeof(*f));
	f->k = k;
	k->flags |= K_BUSY;
	return fgit_object_foreach_link(k->type, k->data, k->size, u->algo, gather, f);
}

/*
 * git's write_rest: each held object in pack order, checked with what it
 * points to, depth first, and written after them.  Iterative: a history
 * as deep as the pack is long must not exhaust the stack.
 */
static int write_rest(struct unpacker *u)
{
	struct frame *stack = NULL;
	size_t depth = 0, cap = 0;
	char hex[FGIT_MAX_HEXSZ + 1];
	uint32_t i;
	int ret = 0;

	for (i = 0; i < u->nr_objs && !ret; i++) {
		struct known *k = u->objs[i].held;
		if (!k || (k->flags & K_WRITTEN))
			continue;
		ret = push_frame(&stack, &depth, &cap, u, k);
		while (!ret && depth) {
			struct frame *f = &stack[depth - 1];
			struct fgit_object_info info;
			struct fgit_oid written;
			struct known *c;

			if (f->next < f->nr) {
				struct link *l = &f->links[f->next++];
				if ((ret = lookup(&c, u, &l->oid, l->type)))
					break;
				if (!c)
					f->failed = 1;
				else if (c->flags & (K_WRITTEN | K_BUSY))
					;
				else if (c->flags & K_OPEN)
					ret = push_frame(&stack, &depth, &cap, u, c);
				else if (fgit_odb_read_info(&info, u->opts->odb, &c->oid,
							    FGIT_INFO_TYPE) || info.type != c->type)
					ret = fgit_error_set(FGIT_EINVALID, "object of unexpected type");
				else
					c->flags |= K_WRITTEN;
				continue;
			}
			if (f->failed) {
				ret = fgit_error_set(FGIT_EINVALID, "Error on reachable objects of %s",
						     fgit_oid_to_hex(hex, &f->k->oid));
				break;
			}
			if (fgit_odb_write(&written, u->opts->odb, f->k->type, f->k->data,
					   f->k->size)) {
				ret = fgit_error_set(FGIT_ERROR, "failed to write object");
				break;
			}
			f->k->flags = (f->k->flags & ~K_BUSY) | K_WRITTEN;
			free(f->links);
			depth--;
		}
	}
	while (depth)
		free(stack[--depth].links);
	free(stack);
	return ret;
}

/*
 * A blob above core.bigFileThreshold: inflated to an unlinked temporary
 * file, then written from there.  git streams it into the object file and
 * dies (both with -r) if the data is bad or of the wrong length.
 */
static int stream_blob(struct unpacker *u, uint32_t nr, uint64_t size)
{
	unsigned char *chunk = NULL;
	const char *objdir = fgit_odb_path(u->opts->odb);
	uint64_t produced = 0, out_left;
	unsigned hdrlen = (unsigned)snprintf(NULL, 0, "blob %llu", (unsigned long long)size) + 1;
	z_stream zs;
	int fd, status = Z_OK, ret = 0, started = 0;

	fd = open(objdir, O_TMPFILE | O_RDWR, 0600);
	if (fd < 0)
		return fgit_error_errno(FGIT_ERROR, "unable to create temporary file in '%s'",
					objdir);
	chunk = malloc(8192);
	memset(&zs, 0, sizeof(zs));
	if (!chunk || inflateInit(&zs) != Z_OK) {
		ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	started = 1;
	while (status == Z_OK) {
		if (fill(u, 1)) {
			ret = -1;
			goto out;
		}
		zs.next_in = u->win + u->off;
		zs.avail_in = (uInt)u->len;
		zs.next_out = chunk;
		out_left = 8192;
		if (zround(&status, u, &zs, &out_left)) {
			ret = -1;
			goto out;
		}
		use(u, u->len - zs.avail_in);
		if (produced + (8192 - out_left) <= size &&
		    write(fd, chunk, 8192 - (size_t)out_left) != (ssize_t)(8192 - out_left)) {
			ret = fgit_error_errno(FGIT_ERROR, "unable to write temporary file");
			goto out;
		}
		produced += 8192 - out_left;
	}
	if (produced != size) {
		ret = fgit_error_set(FGIT_EINVALID, "write stream object %llu != %llu",
				     (unsigned long long)(produced + hdrlen),
				     (unsigned long long)(size + hdrlen));
		goto out;
	}
	if (status != Z_STREAM_END) {
		ret = fgit_error_set(FGIT_EINVALID, "inflate returned (%d)", status);
		goto out;
	}
	if (lseek(fd, 0, SEEK_SET) < 0 ||
	    fgit_odb_write_fd(&u->objs[nr].oid, u->opts->odb, FGIT_OBJ_BLOB, fd, size)) {
		ret = fgit_error_set(FGIT_ERROR, "failed to write object in stream");
		goto out;
	}
	if (strict(u) && finish(u, nr, FGIT_OBJ_BLOB, NULL, 0))
		ret = fgit_error_set(FGIT_EINVALID, "invalid blob object from stream");
out:
	if (started)
		inflateEnd(&zs);
	free(chunk);
	close(fd);
	return ret;
}

/* git's patch_delta and resolve_delta: its error line, then a fatal one. */
static int patch(unsigned char **out, size_t *out_size, struct unpacker *u, const void *base,
		 size_t base_size, const unsigned char *delta, size_t delta_size)
{
	char why[64];

	if (!pack_delta_patch(out, out_size, base, base_size, delta, delta_size, why,
			      sizeof(why)))
		return 0;
	if (why[0])
		report(u, "%s", why);
	return fgit_error_set(FGIT_EINVALID, "failed to apply delta");
}

/*
 * Entry nr is written with this content: apply every waiting delta based
 * on it, and theirs in turn, each level scanning the list from its head
 * again after each delta it applies (git's order).  Iterative, so a long
 * chain cannot exhaust the stack.
 */
struct level {
	uint32_t nr;
	enum fgit_object_type type;
	unsigned char *data;
	size_t size;
};

static int resolve_waiting(struct unpacker *u, uint32_t nr, enum fgit_object_type type,
			   const unsigned char *data, size_t size)
{
	struct level *stack = NULL;
	size_t depth = 0, cap = 0;
	int ret = 0;

	if (!u->waiting)
		return finish(u, nr, type, data, size);
	cap = 16;
	stack = malloc(cap * sizeof(*stack));
	if (!stack)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	stack[depth++] = (struct level){ nr, type, (unsigned char *)data, size };
	while (depth) {
		struct level *l = &stack[depth - 1];
		struct waiting **pp = &u->waiting, *w;
		const struct obj *o = &u->objs[l->nr];
		unsigned char *result = NULL;
		enum fgit_object_type ltype;
		size_t rsize;

		while ((w = *pp) && !fgit_oid_equal(&w->base_oid, &o->oid) &&
		       w->base_offset != o->offset)
			pp = &w->next;
		if (!w) {
			/* every delta on it applied: git's post-order check */
			ret = finish(u, l->nr, l->type, l->data, l->size);
			if (depth > 1)
				free(l->data);
			depth--;
			if (ret)
				break;
			continue;
		}
		*pp = w->next;
		ltype = l->type;
		ret = patch(&result, &rsize, u, l->data, l->size, w->delta, (size_t)w->size);
		free(w->delta);
		if (!ret)
			ret = write_object(&u->objs[w->nr].oid, u, l->type, result, rsize);
		if (!ret && depth == cap) {
			struct level *ns = realloc(stack, 2 * cap * sizeof(*ns));
			if (ns) {
				stack = ns;
				cap *= 2;
			} else {
				ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
			}
		}
		if (ret) {
			free(result);
			free(w);
			break;
		}
		stack[depth] = (struct level){ w->nr, ltype, result, rsize };
		depth++;
		free(w);
	}
	while (depth > 1)
		free(stack[--depth].data);
	free(stack);
	return ret;
}

/* Write entry nr's object and apply what waits for it. */
static int added(struct unpacker *u, uint32_t nr, enum fgit_object_type type,
		 const unsigned char *data, size_t size)
{
	if (write_object(&u->objs[nr].oid, u, type, data, size))
		return -1;
	return resolve_waiting(u, nr, type, data, size);
}

static int wait_for_base(struct unpacker *u, uint32_t nr, const struct fgit_oid *base_oid,
			 uint64_t base_offset, unsigned char *delta, uint64_t size)
{
	struct waiting *w = calloc(1, sizeof(*w));

	if (!w) {
		free(delta);
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	w->nr = nr;
	if (base_oid)
		w->base_oid = *base_oid;
	w->base_offset = base_offset;
	w->delta = delta;
	w->size = size;
	w->next = u->waiting;
	u->waiting = w;
	return 0;
}

static int unpack_delta(struct unpacker *u, uint32_t nr, int type, uint64_t size)
{
	struct fgit_oid base_oid;
	unsigned char *delta = NULL, *result = NULL;
	void *base = NULL;
	struct known *k;
	enum fgit_object_type base_type;
	size_t base_size, rsize;
	char hex[FGIT_MAX_HEXSZ + 1];
	int ret;

	memset(&base_oid, 0, sizeof(base_oid));
	if (type == FGIT_OBJ_REF_DELTA) {
		if (fill(u, u->rawsz))
			return -1;
		fgit_oid_from_raw(&base_oid, u->win + u->off, u->algo);
		use(u, u->rawsz);
		if (get_data(&delta, u, size))
			return -1;
		if (!delta || dry_run(u)) {
			free(delta);
			return 0;
		}
		if (fgit_odb_exists(u->opts->odb, &base_oid) != 1 && !held(u, &base_oid))
			return wait_for_base(u, nr, &base_oid, 0, delta, size);
	} else {
		uint64_t rel, base_off, here = u->objs[nr].offset;
		uint32_t lo = 0, hi = nr;
		unsigned char c;
		int found = 0;

		if (next_byte(u, &c))
			return -1;
		rel = c & 127;
		while (c & 128) {
			rel += 1;
			if (!rel || (rel >> 57))
				return fgit_error_set(FGIT_EINVALID,
						      "offset value overflow for delta base object");
			if (next_byte(u, &c))
				return -1;
			rel = (rel << 7) + (c & 127);
		}
		if (!rel || rel >= here)
			return fgit_error_set(FGIT_EINVALID,
					      "offset value out of bound for delta base object");
		base_off = here - rel;
		if (get_data(&delta, u, size))
			return -1;
		if (!delta || dry_run(u)) {
			free(delta);
			return 0;
		}
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (base_off < u->objs[mid].offset) {
				hi = mid;
			} else if (base_off > u->objs[mid].offset) {
				lo = mid + 1;
			} else {
				base_oid = u->objs[mid].oid;
				found = !fgit_oid_is_zero(&base_oid);
				break;
			}
		}
		/* the base is a delta still waiting, or no entry at all */
		if (!found)
			return wait_for_base(u, nr, NULL, base_off, delta, size);
	}
	if ((k = held(u, &base_oid))) {
		/* git's resolve_against_held, before the object database */
		ret = patch(&result, &rsize, u, k->data, k->size, delta, (size_t)size);
		free(delta);
		if (!ret)
			ret = added(u, nr, k->type, result, rsize);
		free(result);
		return ret;
	}
	if (fgit_odb_read(&base, &base_size, &base_type, u->opts->odb, &base_oid)) {
		free(delta);
		report(u, "failed to read delta-pack base object %s",
		       fgit_oid_to_hex(hex, &base_oid));
		return bad_entry(u);
	}
	ret = patch(&result, &rsize, u, base, base_size, delta, (size_t)size);
	free(delta);
	if (!ret)
		ret = added(u, nr, base_type, result, rsize);
	free(result);
	free(base);
	return ret;
}

static int unpack_one(struct unpacker *u, uint32_t nr)
{
	uint64_t size;
	unsigned shift = 4;
	unsigned char c, *data = NULL;
	int type, ret;

	u->objs[nr].offset = u->consumed;
	memset(&u->objs[nr].oid, 0, sizeof(u->objs[nr].oid));
	if (next_byte(u, &c))
		return -1;
	type = (c >> 4) & 7;
	size = c & 15;
	while (c & 0x80) {
		if (next_byte(u, &c))
			return -1;
		/* git's unsigned long shift, which wraps at 64 on x86 */
		size += (uint64_t)(c & 0x7f) << (shift & 63);
		shift += 7;
	}
	switch (type) {
	case FGIT_OBJ_BLOB:
		if (!dry_run(u) && size > u->opts->big_file_threshold)
			return stream_blob(u, nr, size);
		/* fallthrough */
	case FGIT_OBJ_COMMIT:
	case FGIT_OBJ_TREE:
	case FGIT_OBJ_TAG:
		if (get_data(&data, u, size))
			return -1;
		ret = data && !dry_run(u) ? added(u, nr, type, data, (size_t)size) : 0;
		free(data);
		return ret;
	case FGIT_OBJ_OFS_DELTA:
	case FGIT_OBJ_REF_DELTA:
		return unpack_delta(u, nr, type, size);
	default:
		report(u, "bad object type %d", type);
		return bad_entry(u);
	}
}

static int unpack_all(struct unpacker *u)
{
	const unsigned char *h;
	uint32_t version, nr, i;

	if (fill(u, 12))
		return -1;
	h = u->win + u->off;
	if (memcmp(h, "PACK", 4))
		return fgit_error_set(FGIT_EINVALID, "bad pack file");
	version = (uint32_t)h[4] << 24 | (uint32_t)h[5] << 16 | (uint32_t)h[6] << 8 | h[7];
	if (version != 2 && version != 3)
		return fgit_error_set(FGIT_EINVALID, "unknown pack file version %u", version);
	nr = (uint32_t)h[8] << 24 | (uint32_t)h[9] << 16 | (uint32_t)h[10] << 8 | h[11];
	use(u, 12);
	if (u->opts->progress_fd >= 0)
		u->prog = fgit_progress_new("Unpacking objects", nr, u->opts->progress_fd,
					    FGIT_PROGRESS_THROUGHPUT);
	for (i = 0; i < nr; i++) {
		/* grown as entries arrive, not as the header claims */
		if (i == u->alloc_objs) {
			uint32_t want = u->alloc_objs ? u->alloc_objs * 2 : 1024;
			struct obj *n;
			if (want > nr || want < u->alloc_objs)
				want = nr;
			n = realloc(u->objs, (size_t)want * sizeof(*n));
			if (!n)
				return fgit_error_set(FGIT_ENOMEM, "out of memory");
			u->objs = n;
			u->alloc_objs = want;
		}
		u->nr_objs = i + 1;
		u->objs[i].held = NULL;
		if (unpack_one(u, i))
			return -1;
		fgit_progress_set(u->prog, (uint64_t)i + 1);
	}
	fgit_progress_done(u->prog);
	u->prog = NULL;
	if (u->waiting)
		return fgit_error_set(FGIT_EINVALID, "unresolved deltas left after unpacking");
	return 0;
}

int fgit_unpack_stream(struct fgit_unpack_result *out, int fd,
		       const struct fgit_unpack_options *opts)
{
	struct fgit_unpack_options o = *opts;
	struct unpacker *u;
	unsigned char computed[FGIT_MAX_RAWSZ];
	int ret;

	memset(out, 0, sizeof(*out));
	if (!o.big_file_threshold)
		o.big_file_threshold = 512u << 20;
	u = calloc(1, sizeof(*u));
	if (!u)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	u->opts = &o;
	u->res = out;
	u->algo = fgit_odb_algo(o.odb);
	u->rawsz = fgit_hash_rawsz(u->algo);
	u->fd = fd;
	fgit_checksum_init(&u->csum, u->algo);
	ret = unpack_all(u);
	if (ret)
		goto out;
	/* everything consumed is checksummed; then the trailer */
	fgit_checksum_update(&u->csum, u->win, u->off);
	memmove(u->win, u->win + u->off, u->len);
	u->off = 0;
	fgit_checksum_final(computed, &u->csum);
	/*
	 * --strict: held objects are checked and written, then the blobs
	 * trees name .gitmodules or .gitattributes, before the trailer is
	 * (git's order).
	 */
	if (strict(u) && !dry_run(u) && ((ret = write_rest(u)) || (ret = check_dotfiles(u))))
		goto out;
	ret = fill(u, u->rawsz);
	if (ret)
		goto out;
	if (memcmp(computed, u->win, u->rawsz)) {
		ret = fgit_error_set(FGIT_EINVALID, "final sha1 did not match");
		goto out;
	}
	use(u, u->rawsz);
	if (u->len) {
		out->leftover = malloc(u->len);
		if (!out->leftover) {
			ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
			goto out;
		}
		memcpy(out->leftover, u->win + u->off, u->len);
		out->leftover_len = u->len;
	}
out:
	/* on failure git leaves its meter without the ", done." line */
	fgit_progress_abandon(u->prog);
	while (u->waiting) {
		struct waiting *w = u->waiting;
		u->waiting = w->next;
		free(w->delta);
		free(w);
	}
	for (size_t s = 0; s < u->known.cap; s++) {
		struct known *k = u->known.slots[s];
		if (k) {
			free(k->data);
			free(k);
		}
	}
	fgit_oidmap_release(&u->known);
	for (int w = 0; w < 2; w++) {
		for (size_t i = 0; i < u->nr_dotfiles[w]; i++)
			free(u->dotfile_list[w][i]);
		free(u->dotfile_list[w]);
		fgit_oidmap_release(&u->dotfiles[w]);
	}
	free(u->objs);
	free(u);
	return ret < 0 ? ret : (ret ? FGIT_ERROR : 0);
}
