/*
 * git cat-file: an object's type, size, existence or content, one at a
 * time or in batches.
 *
 * Batch output goes through one big stdout buffer; it is flushed per input
 * line only when reading requests interactively (no --buffer), as git does
 * so that a reader on the other end of a pipe is never left waiting.
 * --batch-all-objects reads ids straight from the .idx files and loose
 * directories, sorted and deduplicated unless --unordered asks for pack order.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "fgit/quote.h"
#include "fgit/buf.h"
#include "fgit/object.h"
#include "fgit/odb.h"
#include "fgit/ordered.h"
#include "fgit/repo.h"

static const char *const cat_file_usage[] = {
	"git cat-file <type> <object>",
	"git cat-file (-e | -p) <object>",
	"git cat-file (-t | -s) [--allow-unknown-type] <object>",
	"git cat-file (--batch | --batch-check | --batch-command) [--batch-all-objects]\n"
	"                    [--buffer] [--follow-symlinks] [--unordered]\n"
	"                    [--textconv | --filters] [-z]",
	"git cat-file (--textconv | --filters)\n"
	"                    [<rev>:<path|tree-ish> | --path=<path|tree-ish> <rev>]",
	NULL
};

static const struct cli_option *usage_opts;

/* Blobs bigger than this are streamed rather than held whole. */
#define STREAM_THRESHOLD (32u << 20)

static _Noreturn void usage_msg(const char *msg)
{
	fflush(stdout);
	fprintf(stderr, "fatal: %s\n\n", msg);
	cli_usage_with_options(cat_file_usage, usage_opts, 0);
}

/* ---- output helpers ---- */

static void out_write(const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, stdout) != n)
		cli_flush_stdout();
}

/* Name quoted as git's quote_c_style does with core.quotePath on. */
static void write_quoted(const char *s, size_t n)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	fgit_quote_c_style(&b, s, n, 1);
	out_write(b.ptr, b.len);
	fgit_buf_release(&b);
}

static int pretty_tree(const void *buf, size_t len)
{
	struct fgit_tree_iter it;
	struct fgit_tree_entry e;
	char hex[FGIT_MAX_HEXSZ + 1];
	int r;

	fgit_tree_iter_init(&it, buf, len, FGIT_HASH_SHA1);
	while ((r = fgit_tree_iter_next(&e, &it)) > 0) {
		unsigned mode = fgit_mode_canon(e.mode);
		const char *type = fgit_mode_is_tree(mode) ? "tree"
			: mode == FGIT_MODE_GITLINK ? "commit" : "blob";
		printf("%06o %s %s\t", mode, type, fgit_oid_to_hex(hex, &e.oid));
		write_quoted(e.name, e.name_len);
		putchar('\n');
	}
	return r;
}

/* Stream a (possibly huge) object's content to stdout. */
static int stream_object(struct fgit_odb *odb, const struct fgit_oid *oid)
{
	struct fgit_odb_stream *s;
	enum fgit_object_type type;
	uint64_t size;
	char buf[65536];
	long n;
	int r;

	if ((r = fgit_odb_stream_open(&s, &type, &size, odb, oid)) < 0)
		return r;
	while ((n = fgit_odb_stream_read(s, buf, sizeof(buf))) > 0)
		out_write(buf, (size_t)n);
	fgit_odb_stream_free(s);
	return n < 0 ? (int)n : 0;
}

/*
 * A read failed: say it as git does.  Corruption messages from the library
 * read "<what> is corrupt (<detail>)": git prints the detail as an error
 * first, then dies with the first part.
 */
static _Noreturn void die_read(void)
{
	char msg[1024];
	char *cut;
	snprintf(msg, sizeof(msg), "%s", fgit_error_last());
	cut = strstr(msg, " is corrupt (");
	if (cut && msg[strlen(msg) - 1] == ')') {
		msg[strlen(msg) - 1] = 0;
		error("%s", cut + 13);
		strcpy(cut, " is corrupt");
	}
	die("%s", msg);
}

/* ---- single-object modes ---- */

static void resolve_or_die(struct fgit_oid *oid, const char *name)
{
	struct fgit_revparse_info info = FGIT_REVPARSE_INFO_INIT;
	int r = fgit_revparse_ext(oid, &info, cli_repo(), name);
	cli_revparse_warnings(cli_repo(), &info);
	if (r < 0 && info.why == FGIT_REVPARSE_PATH_ERROR)
		die_last();	/* "path 'x' does not exist in 'HEAD'" */
	if (r < 0 && r != FGIT_ENOTFOUND)
		error_last();	/* a bad peel, an ambiguous id */
	if (r < 0)
		die("Not a valid object name %s", name);
	fgit_revparse_info_release(&info);
}

/* The repository's object database; dies as git does when there is none. */
static struct fgit_odb *repo_odb(void)
{
	struct fgit_odb *odb;
	if (fgit_repo_odb(&odb, cli_repo()) < 0)
		die_last();
	return odb;
}

static int cat_one(int opt, const char *type_name, const char *name)
{
	struct fgit_odb *odb = repo_odb();
	struct fgit_object_info info;
	struct fgit_oid oid;
	enum fgit_object_type want = FGIT_OBJ_NONE, type;
	void *buf;
	size_t size;
	int r, depth;

	if (opt == 0) {
		want = fgit_object_type_from_name(type_name, strlen(type_name));
		if (want == FGIT_OBJ_BAD)
			die("invalid object type \"%s\"", type_name);
	}
	if (opt == 'e') {
		resolve_or_die(&oid, name);
		return fgit_odb_exists(odb, &oid) ? 0 : 1;
	}
	resolve_or_die(&oid, name);
	switch (opt) {
	case 't':
	case 's':
		if (fgit_odb_read_info(&info, odb, &oid, FGIT_INFO_TYPE | FGIT_INFO_SIZE) < 0) {
			if (fgit_error_last_code() != FGIT_ENOTFOUND)
				error_last();
			die("git cat-file: could not get object info");
		}
		if (opt == 't')
			printf("%s\n", fgit_object_type_name(info.type));
		else
			printf("%llu\n", (unsigned long long)info.size);
		return 0;
	case 'p':
		r = fgit_odb_read_info(&info, odb, &oid, FGIT_INFO_TYPE | FGIT_INFO_SIZE);
		if (r < 0) {
			if (r != FGIT_ENOTFOUND)
				error_last();
			die("Not a valid object name %s", name);
		}
		if (info.type == FGIT_OBJ_BLOB && info.size > STREAM_THRESHOLD) {
			if (stream_object(odb, &oid) < 0)
				die_read();
			return 0;
		}
		if (fgit_odb_read(&buf, &size, &type, odb, &oid) < 0)
			die_read();
		if (type == FGIT_OBJ_TREE) {
			if (pretty_tree(buf, size) < 0)
				die("%s", fgit_error_last());
		} else {
			out_write(buf, size);
		}
		free(buf);
		return 0;
	}
	/* <type> <object>: peel tags (and commits to trees) to the type asked */
	for (depth = 0; depth < 64; depth++) {
		r = fgit_odb_read(&buf, &size, &type, odb, &oid);
		if (r == FGIT_ENOTFOUND)
			die("git cat-file %s: bad file", name);
		if (r < 0)
			die_read();
		if (type == want) {
			out_write(buf, size);
			free(buf);
			return 0;
		}
		if (type == FGIT_OBJ_TAG) {
			struct fgit_tag t;
			if (fgit_tag_parse(&t, buf, size, FGIT_HASH_SHA1) < 0)
				break;
			oid = t.object;
		} else if (type == FGIT_OBJ_COMMIT && want == FGIT_OBJ_TREE) {
			struct fgit_commit c;
			if (fgit_commit_parse(&c, buf, size, FGIT_HASH_SHA1) < 0)
				break;
			oid = c.tree;
		} else {
			break;
		}
		free(buf);
	}
	die("git cat-file %s: bad file", name);
}

/* ---- batch ---- */

enum atom {
	A_LITERAL, A_NAME, A_TYPE, A_SIZE, A_DISK, A_DELTABASE, A_REST,
};

struct seg {
	enum atom atom;
	const char *lit;
	size_t len;
};

struct batch {
	int mode;			/* 'c' check, 'b' batch, 'C' command */
	const char *format;
	struct seg *segs;
	size_t nsegs;
	unsigned int info_flags;
	int has_rest;
	int all, unordered, buffer, nul;
	struct fgit_odb *odb;
};

static void compile_format(struct batch *b)
{
	const char *f = b->format ? b->format : "%(objectname) %(objecttype) %(objectsize)";
	size_t alloc = 8;

	b->segs = malloc(alloc * sizeof(*b->segs));
	while (*f) {
		struct seg s;
		const char *pct = strstr(f, "%(");
		if (pct != f) {
			s.atom = A_LITERAL;
			s.lit = f;
			s.len = pct ? (size_t)(pct - f) : strlen(f);
			f += s.len;
		} else {
			const char *close = strchr(f, ')');
			size_t n;
			if (!close) {	/* no closing paren: literal text */
				s.atom = A_LITERAL;
				s.lit = f;
				s.len = strlen(f);
				f += s.len;
			} else {
				n = (size_t)(close - f - 2);
				f += 2;
#define IS(x) (n == strlen(x) && !memcmp(f, x, n))
				if (IS("objectname"))
					s.atom = A_NAME;
				else if (IS("objecttype"))
					s.atom = A_TYPE, b->info_flags |= FGIT_INFO_TYPE;
				else if (IS("objectsize"))
					s.atom = A_SIZE, b->info_flags |= FGIT_INFO_SIZE;
				else if (IS("objectsize:disk"))
					s.atom = A_DISK, b->info_flags |= FGIT_INFO_DISK_SIZE;
				else if (IS("deltabase"))
					s.atom = A_DELTABASE, b->info_flags |= FGIT_INFO_DELTA_BASE;
				else if (IS("rest"))
					s.atom = A_REST, b->has_rest = 1;
				else
					die("unknown format element: %.*s", (int)n, f);
#undef IS
				s.lit = NULL;
				s.len = 0;
				f = close + 1;
			}
		}
		if (b->nsegs == alloc) {
			alloc *= 2;
			b->segs = realloc(b->segs, alloc * sizeof(*b->segs));
		}
		b->segs[b->nsegs++] = s;
	}
}

/* Decimal digits of v at p; returns the count. */
static size_t put_u64(char *p, uint64_t v)
{
	char tmp[24];
	size_t n = 0, i;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		p[i] = tmp[n - 1 - i];
	return n;
}

/*
 * One info line, built in a local buffer and written with one call: the
 * per-atom stdio calls were a fifth of --batch-check's time (perf, 57k
 * objects).
 */
static void print_info(struct batch *b, const struct fgit_oid *oid,
		       const struct fgit_object_info *info, const char *rest)
{
	char line[512], *p = line;
	size_t i;

	for (i = 0; i < b->nsegs; i++) {
		const struct seg *s = &b->segs[i];
		const char *t;
		if ((size_t)(p - line) + 128 > sizeof(line) ||
		    (s->atom == A_LITERAL && s->len > 64)) {
			out_write(line, (size_t)(p - line));	/* long formats: flush */
			p = line;
		}
		switch (s->atom) {
		case A_LITERAL:
			if (s->len > 64)
				out_write(s->lit, s->len);
			else {
				memcpy(p, s->lit, s->len);
				p += s->len;
			}
			break;
		case A_NAME:
			fgit_oid_to_hex(p, oid);
			p += fgit_hash_hexsz(FGIT_HASH_SHA1);
			break;
		case A_TYPE:
			t = fgit_object_type_name(info->type);
			memcpy(p, t, strlen(t));
			p += strlen(t);
			break;
		case A_SIZE:
			p += put_u64(p, info->size);
			break;
		case A_DISK:
			p += put_u64(p, info->disk_size);
			break;
		case A_DELTABASE:
			fgit_oid_to_hex(p, &info->delta_base);
			p += fgit_hash_hexsz(FGIT_HASH_SHA1);
			break;
		case A_REST:
			if (rest) {
				out_write(line, (size_t)(p - line));
				p = line;
				fputs(rest, stdout);
			}
			break;
		}
	}
	*p++ = '\n';
	out_write(line, (size_t)(p - line));
}

/* Info line and, for --batch/contents, the content.  name: the request. */
static void batch_object(struct batch *b, const struct fgit_oid *oid, const char *name,
			 const char *rest, int contents)
{
	struct fgit_object_info info;
	unsigned int flags = b->info_flags;
	int r;

	if (contents && !(flags & ~(FGIT_INFO_TYPE | FGIT_INFO_SIZE))) {
		/* one read gives type, size and content */
		void *buf;
		size_t size;
		enum fgit_object_type type;
		r = fgit_odb_read_capped(&buf, &size, &type, b->odb, oid, STREAM_THRESHOLD);
		if (r == 0) {
			memset(&info, 0, sizeof(info));
			info.type = type;
			info.size = size;
			print_info(b, oid, &info, rest);
			out_write(buf, size);
			putchar('\n');
			free(buf);
			return;
		}
		if (r == FGIT_ENOTFOUND) {
			printf("%s missing\n", name);
			return;
		}
		/* too big, or corrupt: the careful path below says it as git */
	}
	if (contents)
		flags |= FGIT_INFO_TYPE | FGIT_INFO_SIZE;
	r = fgit_odb_read_info(&info, b->odb, oid, flags);
	if (r < 0) {
		if (r != FGIT_ENOTFOUND)
			error_last();
		printf("%s missing\n", name);
		return;
	}
	print_info(b, oid, &info, rest);
	if (!contents)
		return;
	if (info.type == FGIT_OBJ_BLOB && info.size > STREAM_THRESHOLD) {
		if (stream_object(b->odb, oid) < 0)
			die_read();
	} else {
		void *buf;
		size_t size;
		enum fgit_object_type type;
		if (fgit_odb_read(&buf, &size, &type, b->odb, oid) < 0)
			die_read();
		if (type != info.type || size != info.size) {
			char hex[FGIT_MAX_HEXSZ + 1];
			die("object %s changed type!?", fgit_oid_to_hex(hex, oid));
		}
		out_write(buf, size);
		free(buf);
	}
	putchar('\n');
}

static void batch_name(struct batch *b, char *line, int contents)
{
	struct fgit_oid oid;
	char *rest = NULL;
	int r;

	if (b->has_rest) {
		char *p = line + strcspn(line, " \t\n\v\f\r");
		if (*p) {
			*p++ = 0;
			while (*p && strchr(" \t\n\v\f\r", *p))
				p++;
			rest = p;
		}
	}
	r = fgit_revparse_single(&oid, cli_repo(), line);
	if (r == FGIT_EAMBIGUOUS) {
		printf("%s ambiguous\n", line);
		return;
	}
	if (r < 0) {
		printf("%s missing\n", line);
		return;
	}
	batch_object(b, &oid, line, rest, contents);
}

/* ---- --batch-all-objects ---- */

/*
 * The ids to print, as raw hashes back to back: 20 bytes an id rather
 * than a 36-byte struct fgit_oid, 8 MB less for the history corpus's
 * 507,773 objects (peak memory is compared with git's).
 */
/* Where an object of an --unordered walk lives (fgit_odb_foreach_located). */
struct id_place {
	uint64_t offset;
	int pack;
};

struct id_list {
	unsigned char *v;
	struct id_place *at;	/* --unordered: beside v, else NULL */
	size_t n, alloc, rawsz;
	int algo;
};

static const unsigned char *id_at(const struct id_list *l, size_t i)
{
	return l->v + i * l->rawsz;
}

static int collect_cb(const struct fgit_oid *oid, void *payload)
{
	struct id_list *l = payload;
	if (l->n == l->alloc) {
		l->alloc = l->alloc ? l->alloc + l->alloc / 2 : 4096;
		l->v = realloc(l->v, l->alloc * l->rawsz);
		if (!l->v)
			die("out of memory");
	}
	memcpy(l->v + l->n++ * l->rawsz, oid->hash, l->rawsz);
	return 0;
}

static int collect_located_cb(const struct fgit_oid *oid, int pack, uint64_t offset,
			      void *payload)
{
	struct id_list *l = payload;
	size_t alloc = l->alloc;
	collect_cb(oid, payload);
	if (!l->at || alloc != l->alloc) {
		l->at = realloc(l->at, l->alloc * sizeof(*l->at));
		if (!l->at)
			die("out of memory");
	}
	l->at[l->n - 1].pack = pack;
	l->at[l->n - 1].offset = offset;
	return 0;
}

static size_t sort_rawsz;

static int raw_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sort_rawsz);
}

/* Sort by id and drop repeats (an object in two packs, or loose too). */
static void sort_unique(struct id_list *l)
{
	size_t i, k = 0;
	if (!l->n)
		return;
	sort_rawsz = l->rawsz;
	qsort(l->v, l->n, l->rawsz, raw_cmp);
	for (i = 0; i < l->n; i++)
		if (!k || memcmp(id_at(l, i), id_at(l, k - 1), l->rawsz))
			memmove(l->v + k++ * l->rawsz, id_at(l, i), l->rawsz);
	l->n = k;
}

/*
 * Drop repeats, keeping each id's first place (--unordered keeps pack
 * order): a hash set of positions, keyed by the ids' leading bytes (ids are
 * uniformly distributed).  Sorting the positions by id instead took about
 * 0.7 s of one core for the history corpus's 507,773 objects, before any
 * object was read.
 */
static void unique_in_place(struct id_list *l)
{
	uint32_t *set, mask;
	size_t i, k = 0, cap = 16;

	if (l->n < 2)
		return;
	if (l->n >= UINT32_MAX / 2)
		die("too many objects");
	while (cap < 2 * l->n)
		cap *= 2;
	mask = (uint32_t)cap - 1;
	set = calloc(cap, sizeof(*set));	/* position + 1; 0 is empty */
	if (!set)
		die("out of memory");
	for (i = 0; i < l->n; i++) {
		const unsigned char *id = id_at(l, i);
		uint32_t h, s;
		memcpy(&h, id, sizeof(h));
		for (s = h & mask; set[s]; s = (s + 1) & mask)
			if (!memcmp(id_at(l, set[s] - 1), id, l->rawsz))
				break;
		if (set[s])
			continue;	/* seen: its first place was kept */
		if (k != i) {
			memmove(l->v + k * l->rawsz, id, l->rawsz);
			if (l->at)
				l->at[k] = l->at[i];
		}
		set[s] = (uint32_t)++k;
	}
	free(set);
	l->n = k;
}

/*
 * --batch-all-objects: the objects are read (inflated, deltas resolved) on
 * every core by fgit_ordered_run and printed here in order.  Anything
 * unusual (an object too big to hold, a corrupt one) is redone on this
 * thread by batch_object, which says it exactly as git does.
 */
/*
 * Each object is lent by the odb (fgit_odb_read_located_view) and given
 * back after printing: in pack order an object that is a delta base is
 * kept in the delta-base cache for the deltas after it, and printed from
 * there without a copy.  Before, each object was malloc'd by the read, and
 * a base was built a second time for its deltas: history corpus,
 * --unordered, 211,279 of 591,744 delta applications (1.1 GB of 3.3 GB
 * built) and 32,168 base inflations (389 MB) were such repeats; with the
 * views 27,913 (151 MB) and 7,744 (23 MB).  Reading
 * into a buffer per ring slot instead, reused from object to object
 * (fgit_odb_read_into's way), was measured and gave nothing on the history
 * corpus (--unordered, 3 interleaved runs): user+sys the same within the
 * noise, minor faults about 195k either way, peak RSS 448 MB instead of
 * ~405 MB with buffers of up to 1 MiB kept, and 64 KiB kept raised the
 * faults to 214k-230k.  perf -d -e page-faults: 4.7k faults in the
 * pack's mapping, the rest anonymous memory written by the inflater and
 * fgit_delta_apply into fresh buffers over 128 KiB (see the mallopt
 * below); the odb now recycles those (lib/odb/bufpool.c): 158k -> 67k
 * faults --unordered, ~400k -> 80-90k sorted.
 */
struct all_slot {
	int status;			/* 0 ok, else redo serially */
	struct fgit_odb_view view;	/* the contents, lent by the odb */
	struct fgit_object_info info;
};

struct all_ctx {
	struct batch *b;
	const struct id_list *ids;
	int contents, info_needed;
};

static size_t all_work(size_t i, void *slot, void *payload)
{
	struct all_ctx *c = payload;
	struct all_slot *s = slot;
	struct fgit_oid oidbuf, *oid = &oidbuf;

	fgit_oid_from_raw(oid, id_at(c->ids, i), c->ids->algo);
	if (c->info_needed || !c->contents) {
		if (fgit_odb_read_info(&s->info, c->b->odb, oid, c->b->info_flags) < 0) {
			s->status = -1;
			return 0;
		}
	}
	if (c->contents) {
		s->status = fgit_odb_read_located_view(&s->view, c->b->odb, oid,
						       c->ids->at ? c->ids->at[i].pack : -1,
						       c->ids->at ? c->ids->at[i].offset : 0,
						       STREAM_THRESHOLD);
		if (s->status)
			return 0;
		if (!c->info_needed) {
			s->info.type = s->view.type;
			s->info.size = s->view.size;
		}
		return s->view.size;
	}
	return 0;
}

static int all_emit(size_t i, void *slot, void *payload)
{
	struct all_ctx *c = payload;
	struct all_slot *s = slot;
	struct fgit_oid oidbuf, *oid = &oidbuf;

	fgit_oid_from_raw(oid, id_at(c->ids, i), c->ids->algo);
	if (s->status) {
		char hex[FGIT_MAX_HEXSZ + 1];
		batch_object(c->b, oid, fgit_oid_to_hex(hex, oid), NULL, c->contents);
		return 0;
	}
	print_info(c->b, oid, &s->info, NULL);
	if (c->contents) {
		out_write(s->view.data, s->view.size);
		putchar('\n');
		fgit_odb_view_release(&s->view);
	}
	return 0;
}

static void batch_all(struct batch *b)
{
	struct id_list l = { NULL, NULL, 0, 0, 0, 0 };
	struct all_ctx c;

	l.algo = fgit_repo_algo(cli_repo());
	l.rawsz = fgit_hash_rawsz(l.algo);
	if (b->unordered) {
		/* git's order: the loose objects (of every object directory),
		 * then each pack's in pack order */
		if (fgit_odb_foreach_located(b->odb, FGIT_FOREACH_LOOSE, collect_located_cb,
					     &l) < 0 ||
		    fgit_odb_foreach_located(b->odb, FGIT_FOREACH_PACKED |
					     FGIT_FOREACH_PACK_ORDER, collect_located_cb, &l) < 0)
			die_last();
		unique_in_place(&l);
		fgit_odb_set_access(b->odb, FGIT_ODB_ACCESS_PACK_ORDER);
	} else {
		if (fgit_odb_foreach(b->odb, FGIT_FOREACH_LOOSE | FGIT_FOREACH_PACKED,
				     collect_cb, &l) < 0)
			die_last();
		sort_unique(&l);
		fgit_odb_set_access(b->odb, FGIT_ODB_ACCESS_ALL_BY_ID);
	}
	c.b = b;
	c.ids = &l;
	c.contents = b->mode == 'b';
	c.info_needed = (b->info_flags & ~(FGIT_INFO_TYPE | FGIT_INFO_SIZE)) != 0;
	/*
	 * In id order, up to 4096 objects ahead as long as the finished ones
	 * waiting to be printed hold at most 8 MiB.  With a window of 128
	 * objects a worker building a big object (a 24 MB blob takes ~50 ms)
	 * left the other idle as soon as it was 128 ahead: history corpus,
	 * sorted, 31 s of the workers' time waiting (under load), 2.7 s with
	 * 4096; peak RSS 483 MB bounded at 8 MiB, 505 MB at 32 MiB, 502 MB
	 * unbounded (96 MiB cache then).  In pack order (--unordered)
	 * neighbours are versions of one big file: 1024 objects without a
	 * byte bound held up to 100 MB more there; it keeps 128.
	 */
	fgit_ordered_run_bytes(l.n, fgit_ordered_threads(), b->unordered ? 128 : 4096,
			       b->unordered ? 0 : 8u << 20, sizeof(struct all_slot),
			       all_work, all_emit, &c);
	free(l.v);
	free(l.at);
}

/* Read one request line (newline- or NUL-terminated); 0 at EOF. */
static int read_line(struct fgit_buf *line, int nul)
{
	int c;
	fgit_buf_reset(line);
	while ((c = getchar()) != EOF) {
		if (c == (nul ? 0 : '\n'))
			return 1;
		fgit_buf_addch(line, c);
	}
	return line->len > 0;
}

static void batch_stdin(struct batch *b)
{
	struct fgit_buf line = FGIT_BUF_INIT;

	while (read_line(&line, b->nul)) {
		if (b->mode == 'C') {
			char *cmd = line.ptr, *arg = strchr(cmd, ' ');
			if (!line.len || strchr(" \t", *cmd))
				die("whitespace before command: '%s'", cmd);
			if (arg)
				*arg++ = 0;
			if (!strcmp(cmd, "flush")) {
				if (!b->buffer)
					die("flush is only for --buffer mode");
				if (arg)
					die("flush takes no arguments");
				cli_flush_stdout();
				continue;
			}
			if (strcmp(cmd, "contents") && strcmp(cmd, "info"))
				die("unknown command: '%s'", cmd);
			if (!arg || !*arg)
				die("%s requires arguments", cmd);
			batch_name(b, arg, cmd[0] == 'c');
		} else {
			batch_name(b, line.ptr, b->mode == 'b');
		}
		if (!b->buffer)
			cli_flush_stdout();
	}
	fgit_buf_release(&line);
}

static struct batch batch;

static int batch_opt(const struct cli_option *opt, const char *arg, int unset)
{
	int mode = (int)(intptr_t)opt->value;
	if (unset) {
		batch.mode = 0;
		return 0;
	}
	if (batch.mode && batch.mode != mode)
		usage_msg("only one batch option may be specified");
	batch.mode = mode;
	batch.format = arg;
	return 0;
}

CLI_CMD(cat_file)
{
	int opt = 0, n;
	struct cli_option opts[] = {
		OPT_GROUP("Check object existence or emit object contents"),
		OPT_CMDMODE('e', NULL, &opt, "check if <object> exists", 'e'),
		OPT_CMDMODE('p', NULL, &opt, "pretty-print <object> content", 'p'),
		OPT_GROUP("Emit [broken] object attributes"),
		OPT_CMDMODE('t', NULL, &opt, "show object type (one of 'blob', 'tree', 'commit', 'tag', ...)", 't'),
		OPT_CMDMODE('s', NULL, &opt, "show object size", 's'),
		OPT_UNIMPLEMENTED(0, "allow-unknown-type"),
		OPT_UNIMPLEMENTED(0, "use-mailmap"),
		OPT_UNIMPLEMENTED(0, "mailmap"),
		OPT_GROUP("Batch objects requested on stdin (or --batch-all-objects)"),
		OPT_CALLBACK_F(0, "batch", (void *)(intptr_t)'b', "format",
			       "show full <object> or <rev> contents", CLI_OPT_OPTARG, batch_opt),
		OPT_CALLBACK_F(0, "batch-check", (void *)(intptr_t)'c', "format",
			       "like --batch, but don't emit <contents>", CLI_OPT_OPTARG, batch_opt),
		OPT_BOOL('z', NULL, &batch.nul, "stdin is NUL-terminated"),
		OPT_CALLBACK_F(0, "batch-command", (void *)(intptr_t)'C', "format",
			       "read commands from stdin", CLI_OPT_OPTARG, batch_opt),
		OPT_BOOL(0, "batch-all-objects", &batch.all,
			 "with --batch[-check]: ignores stdin, batches all known objects"),
		OPT_GROUP("Change or optimize batch output"),
		OPT_BOOL(0, "buffer", &batch.buffer, "buffer --batch output"),
		OPT_UNIMPLEMENTED(0, "follow-symlinks"),
		OPT_BOOL(0, "unordered", &batch.unordered, "do not order objects before emitting them"),
		OPT_UNIMPLEMENTED(0, "textconv"),
		OPT_UNIMPLEMENTED(0, "filters"),
		OPT_UNIMPLEMENTED(0, "path"),
		OPT_END(),
	};
	usage_opts = opts;
	n = cli_parse_options(argc, argv, "cat-file", opts, cat_file_usage, 0);

	if (batch.mode) {
		static char outbuf[1 << 18];
		if (opt)
			usage_msg("options '--batch' and '-e/-p/-t/-s' cannot be used together");
		if (n)
			usage_msg("batch modes take no arguments");
		setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
		batch.odb = repo_odb();
		compile_format(&batch);
		if (batch.all) {
			/*
			 * Object buffers of every size come and go here, from two
			 * threads.  glibc's sliding mmap threshold moved big ones
			 * into the heaps, which then stayed fragmented: peak RSS on
			 * the history corpus 522 MB sorted, 571 MB --unordered,
			 * against 471 and 451 MB with a fixed 128 KiB threshold
			 * (git: 464 and 471 MB).  The price: each object over
			 * 128 KiB (result, delta-base cache entry, checkpoint) is
			 * a fresh mmap, most of --unordered's ~190k minor faults.
			 * A higher threshold, --unordered, history corpus: 2 MiB
			 * ~165k faults but peak RSS 424-476 MB, 4 MiB ~155k
			 * faults and ~10% less user+sys but 437-479 MB (git
			 * 455 MB): fewer faults needs buffers reused, not the
			 * heap grown, which the odb's buffer pool now does.
			 */
			mallopt(M_MMAP_THRESHOLD, 128 << 10);
			batch.buffer = 1;
			batch_all(&batch);
		} else {
			batch_stdin(&batch);
		}
		free(batch.segs);
		return 0;
	}
	if (batch.all)
		usage_msg("'--batch-all-objects' requires a batch mode");
	if (batch.unordered || batch.buffer || batch.nul) {
		usage_msg(batch.unordered ? "'--unordered' requires a batch mode"
			  : batch.buffer ? "'--buffer' requires a batch mode"
			  : "'-z' requires a batch mode");
	}
	if (opt) {
		if (n == 0) {
			char m[64];
			snprintf(m, sizeof(m), "<object> required with '-%c'", opt);
			usage_msg(m);
		}
		if (n > 1)
			usage_msg("too many arguments");
		return cat_one(opt, NULL, argv[0]);
	}
	if (n != 2) {
		char m[96];
		snprintf(m, sizeof(m), "only two arguments allowed in <type> <object> mode, not %d", n);
		usage_msg(m);
	}
	return cat_one(0, argv[0], argv[1]);
}
