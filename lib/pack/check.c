/*
 * --strict for index-pack and unpack-objects: fsck's rules on each object
 * and the links between objects.  Links are gathered from any number of
 * threads into one array (sorted and deduplicated whenever it doubles, so
 * it holds about one entry per distinct linked object), then matched
 * against the pack's sorted names and, for what remains, the repository.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fgit/common.h"
#include "fgit/config.h"
#include "fgit/odb.h"
#include "fgit/pack.h"
#include "pack_internal.h"

struct fgit_pack_checker {
	int algo;
	void (*warn)(const char *msg, void *payload);
	void *payload;
	pthread_mutex_t lock;
	struct fgit_oid *links;
	size_t nr, alloc, nr_sorted;
};

int fgit_pack_checker_new(struct fgit_pack_checker **out, int algo,
			  void (*warn)(const char *msg, void *payload), void *payload)
{
	struct fgit_pack_checker *c = calloc(1, sizeof(*c));

	if (!c)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	c->algo = algo ? algo : FGIT_HASH_SHA1;
	c->warn = warn;
	c->payload = payload;
	pthread_mutex_init(&c->lock, NULL);
	*out = c;
	return 0;
}

void fgit_pack_checker_free(struct fgit_pack_checker *c)
{
	if (!c)
		return;
	pthread_mutex_destroy(&c->lock);
	free(c->links);
	free(c);
}

static int cmp_oid(const void *a, const void *b)
{
	return fgit_oid_cmp(a, b);
}

/* Sort and drop duplicates; the caller holds the lock. */
static void compact(struct fgit_pack_checker *c)
{
	size_t i, n = 0;

	qsort(c->links, c->nr, sizeof(*c->links), cmp_oid);
	for (i = 0; i < c->nr; i++)
		if (!n || !fgit_oid_equal(&c->links[n - 1], &c->links[i]))
			c->links[n++] = c->links[i];
	c->nr = c->nr_sorted = n;
}

struct gather {
	struct fgit_oid *v;
	size_t nr, alloc;
};

static int gather_link(const struct fgit_oid *oid, enum fgit_object_type type, void *payload)
{
	struct gather *g = payload;

	(void)type;
	if (g->nr == g->alloc) {
		size_t na = g->alloc ? 2 * g->alloc : 64;
		struct fgit_oid *nv = realloc(g->v, na * sizeof(*nv));
		if (!nv)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		g->v = nv;
		g->alloc = na;
	}
	g->v[g->nr++] = *oid;
	return 0;
}

/*
 * fsck's rules as --strict applies them (index-pack and unpack-objects):
 * fsck's warnings are errors, set as "object <id>: <msgId>: <message>";
 * its infos go to warn (may be NULL) in the same words.
 */
int pack_fsck_object(const struct fgit_oid *oid, enum fgit_object_type type, const void *data,
		     size_t size, int algo, void (*warn)(const char *msg, void *payload),
		     void *payload)
{
	char hex[FGIT_MAX_HEXSZ + 1], msg[600];

	fgit_oid_to_hex(hex, oid);
	if (fgit_object_check(type, data, size, algo, FGIT_CHECK_STRICT | FGIT_CHECK_NO_INFO) < 0) {
		snprintf(msg, sizeof(msg), "%s", fgit_error_last());
		return fgit_error_set(FGIT_EINVALID, "object %s: %s", hex, msg);
	}
	if (fgit_object_check(type, data, size, algo, FGIT_CHECK_STRICT) < 0 && warn) {
		snprintf(msg, sizeof(msg), "object %s: %s", hex, fgit_error_last());
		warn(msg, payload);
	}
	return 0;
}

int fgit_pack_checker_object(struct fgit_pack_checker *c, const struct fgit_oid *oid,
			     enum fgit_object_type type, const void *data, size_t size)
{
	struct gather g = { NULL, 0, 0 };
	int r;

	if (pack_fsck_object(oid, type, data, size, c->algo, c->warn, c->payload))
		return FGIT_EINVALID;
	r = fgit_object_foreach_link(type, data, size, c->algo, gather_link, &g);
	if (r < 0) {
		free(g.v);
		return r;
	}
	if (!g.nr)
		return 0;
	pthread_mutex_lock(&c->lock);
	if (c->nr + g.nr > c->alloc) {
		size_t na = c->alloc ? c->alloc : 1024;
		struct fgit_oid *nv;
		while (na < c->nr + g.nr)
			na *= 2;
		nv = realloc(c->links, na * sizeof(*nv));
		if (!nv) {
			pthread_mutex_unlock(&c->lock);
			free(g.v);
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		}
		c->links = nv;
		c->alloc = na;
	}
	memcpy(c->links + c->nr, g.v, g.nr * sizeof(*g.v));
	c->nr += g.nr;
	if (c->nr > 2 * c->nr_sorted + 4096)
		compact(c);
	pthread_mutex_unlock(&c->lock);
	free(g.v);
	return 0;
}

int fgit_pack_checker_missing(struct fgit_oid *out, struct fgit_pack_checker *c,
			      const struct fgit_indexer *ix, struct fgit_odb *odb)
{
	struct fgit_oid *have = NULL;
	uint32_t nr_have = 0, i;
	size_t k, h = 0;
	int found = 0;

	compact(c);
	if (ix && (nr_have = fgit_indexer_count(ix))) {
		struct fgit_pack_entry_info e;
		have = malloc((size_t)nr_have * sizeof(*have));
		if (!have)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		for (i = 0; i < nr_have; i++) {
			fgit_indexer_entry(&e, ix, i);
			have[i] = e.oid;
		}
		qsort(have, nr_have, sizeof(*have), cmp_oid);
	}
	for (k = 0; k < c->nr && !found; k++) {
		const struct fgit_oid *want = &c->links[k];
		while (h < nr_have && fgit_oid_cmp(&have[h], want) < 0)
			h++;
		if (h < nr_have && fgit_oid_equal(&have[h], want))
			continue;
		if (odb && fgit_odb_exists(odb, want) == 1)
			continue;
		*out = *want;
		found = 1;
	}
	free(have);
	return found;
}

/* ---- .gitmodules and .gitattributes blobs (fsck_finish) ---- */

struct dotfile_check {
	const char *hex;
	void (*error)(const char *msg, void *payload);
	void *payload;
	int failed;
};

static void dotfile_error(struct dotfile_check *d, const char *id, const char *what,
			  const char *value)
{
	char msg[1024];

	snprintf(msg, sizeof(msg), "object %s: %s: %s%s", d->hex, id, what, value ? value : "");
	d->failed = 1;
	if (d->error)
		d->error(msg, d->payload);
}

static int is_dir_sep_any(char c)
{
	return c == '/' || c == '\\';
}

/* git's check_submodule_name: no "..", on either platform's separators. */
static int bad_submodule_name(const char *name)
{
	const char *p = name;

	if (!*p)
		return 1;
	for (;;) {
		if (p[0] == '.' && p[1] == '.' && (!p[2] || is_dir_sep_any(p[2])))
			return 1;
		while (*p && !is_dir_sep_any(*p))
			p++;
		if (!*p)
			return 0;
		p++;
	}
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 32;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Does [p, end) hold a newline once %XX escapes are decoded? */
static int decoded_has_newline(const char *p, const char *end)
{
	for (; p < end; p++) {
		if (*p == '\n')
			return 1;
		if (*p == '%' && end - p >= 3 && hexval(p[1]) >= 0 && hexval(p[2]) >= 0) {
			if (hexval(p[1]) * 16 + hexval(p[2]) == '\n')
				return 1;
			p += 2;
		}
	}
	return 0;
}

/* git's check_submodule_url (2.39): 1 if the URL is refused. */
static int bad_submodule_url(const char *url)
{
	static const char *const curl[] = { "http::", "https::", "ftp::", "ftps::" };
	static const char *const curl_full[] = { "http://", "https://", "ftp://", "ftps://" };
	const char *u = NULL, *p, *host, *slash, *at;
	size_t i;

	if (url[0] == '-')
		return 1;
	if (!strncmp(url, "./", 2) || !strncmp(url, "../", 3) || !strncmp(url, ".\\", 2) ||
	    !strncmp(url, "..\\", 3) || !strncmp(url, "git://", 6)) {
		int dotdots = 0;
		if (decoded_has_newline(url, url + strlen(url)))
			return 1;
		p = url;
		for (;;) {
			if (p[0] == '.' && p[1] == '.' && is_dir_sep_any(p[2])) {
				dotdots++;
				p += 3;
			} else if (p[0] == '.' && is_dir_sep_any(p[1])) {
				p += 2;
			} else {
				break;
			}
		}
		return dotdots > 0 && (*p == ':' || *p == '/');
	}
	for (i = 0; i < 4 && !u; i++) {
		if (!strncmp(url, curl[i], strlen(curl[i])))
			u = url + strlen(curl[i]);
		else if (!strncmp(url, curl_full[i], strlen(curl_full[i])))
			u = url;
	}
	if (!u)
		return 0;
	/* git's credential_from_url_gently: a scheme, a host, no newline */
	p = strstr(u, "://");
	if (!p || p == u)
		return 1;
	if (decoded_has_newline(u, p))
		return 1;
	p += 3;
	slash = p + strcspn(p, "/?#");
	at = memchr(p, '@', (size_t)(slash - p));
	host = at ? at + 1 : p;
	if (host == slash)
		return 1;
	return decoded_has_newline(p, u + strlen(u));
}

static int gitmodules_entry(const char *key, const char *value, void *payload)
{
	struct dotfile_check *d = payload;
	const char *sub, *dot;
	char *name;

	if (strncmp(key, "submodule.", 10))
		return 0;
	sub = key + 10;
	dot = strrchr(sub, '.');
	if (!dot || dot == sub - 1 || dot < sub)
		return 0;
	name = strndup(sub, (size_t)(dot - sub));
	if (!name)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	if (bad_submodule_name(name))
		dotfile_error(d, "gitmodulesName", "disallowed submodule name: ", name);
	free(name);
	key = dot + 1;
	if (!value)
		return 0;
	if (!strcmp(key, "url") && bad_submodule_url(value))
		dotfile_error(d, "gitmodulesUrl", "disallowed submodule url: ", value);
	if (!strcmp(key, "path") && value[0] == '-')
		dotfile_error(d, "gitmodulesPath", "disallowed submodule path: ", value);
	if (!strcmp(key, "update") && value[0] == '!')
		dotfile_error(d, "gitmodulesUpdate", "disallowed submodule update setting: ", value);
	return 0;
}

int pack_fsck_dotfile(const struct fgit_oid *oid, enum fgit_dotfile which,
		      enum fgit_object_type type, const void *data, size_t size,
		      void (*error)(const char *msg, void *payload),
		      void (*warn)(const char *msg, void *payload), void *payload)
{
	const char *name = which == FGIT_DOTFILE_GITMODULES ? ".gitmodules" : ".gitattributes";
	const char *id = which == FGIT_DOTFILE_GITMODULES ? "gitmodules" : "gitattributes";
	char hex[FGIT_MAX_HEXSZ + 1], kind[32], what[64];
	struct dotfile_check d = { hex, error, payload, 0 };
	const char *p, *end;

	fgit_oid_to_hex(hex, oid);
	if (!data) {
		snprintf(kind, sizeof(kind), "%sMissing", id);
		snprintf(what, sizeof(what), "unable to read %s blob", name);
		dotfile_error(&d, kind, what, NULL);
		return 1;
	}
	if (type != FGIT_OBJ_BLOB) {
		snprintf(kind, sizeof(kind), "%sBlob", id);
		snprintf(what, sizeof(what), "non-blob found at %s", name);
		dotfile_error(&d, kind, what, NULL);
		return 1;
	}
	if (which == FGIT_DOTFILE_GITATTRIBUTES) {
		/* git's attribute parser limits: 100 MiB, lines under 2048 */
		if (size > 100u << 20) {
			dotfile_error(&d, "gitattributesLarge", ".gitattributes too large to parse",
				      NULL);
			return 1;
		}
		end = (const char *)data + size;
		for (p = data; p < end && *p;) {
			const char *eol = p;
			while (eol < end && *eol && *eol != '\n')
				eol++;
			if (eol - p >= 2048) {
				dotfile_error(&d, "gitattributesLineLength",
					      ".gitattributes has too long lines to parse", NULL);
				return 1;
			}
			p = eol < end && *eol == '\n' ? eol + 1 : eol;
		}
		return 0;
	}
	if (fgit_config_parse_buffer(data, size, gitmodules_entry, &d) < 0 && warn) {
		char msg[256];
		snprintf(msg, sizeof(msg), "object %s: gitmodulesParse: could not parse gitmodules blob",
			 hex);
		warn(msg, payload);
	}
	return d.failed;
}
