/* See wt_setup.h. */
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "wt_setup.h"
#include "untr_setup.h"
#include "attr_setup.h"
#include "fgit/convert.h"
#include "fgit/hash.h"
#include "fgit/lockfile.h"
#include "fgit/object.h"
#include "fgit/quote.h"
#include "fgit/config.h"
#include "fgit/date.h"
#include "fgit/repo.h"

char *cli_index_path(struct fgit_repo *repo)
{
	const char *env = getenv("GIT_INDEX_FILE");
	struct fgit_buf b = FGIT_BUF_INIT;

	if (env && *env)
		return strdup(env);
	fgit_buf_adds(&b, fgit_repo_git_dir(repo));
	fgit_buf_adds(&b, "/index");
	return fgit_buf_detach(&b, NULL);
}

struct fgit_index *cli_index_load(struct fgit_repo *repo, const char *path)
{
	struct fgit_index *idx;
	struct fgit_index_load_opts o = FGIT_INDEX_LOAD_OPTS_INIT;

	o.algo = fgit_repo_algo(repo);
	o.shared_index_dir = fgit_repo_git_dir(repo);
	o.flags = FGIT_INDEX_LOAD_MISSING_OK;
	if (fgit_index_load(&idx, path, &o)) {
		if (fgit_index_error_is_hdr()) {
			error_last();
			die("index file corrupt");
		}
		die_last();
	}
	cli_untr_tweak(repo, idx);
	return idx;
}

int cli_quote_path(struct fgit_repo *repo)
{
	int qp = 1;
	if (fgit_config_get_bool(&qp, fgit_repo_config(repo), "core.quotepath"))
		qp = 1;
	fgit_error_clear();
	return qp;
}

void cli_add_c_quoted(struct fgit_buf *b, const char *s, size_t len, int quote_path)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	int need = 0;

	for (; p < end; p++)
		if (*p < 0x20 || *p == '"' || *p == '\\' || *p == 0x7f || (*p >= 0x80 && quote_path))
			need = 1;
	if (!need) {
		fgit_buf_add(b, s, len);
		return;
	}
	fgit_buf_addch(b, '"');
	for (p = (const unsigned char *)s; p < end; p++) {
		switch (*p) {
		case '\a': fgit_buf_adds(b, "\\a"); break;
		case '\b': fgit_buf_adds(b, "\\b"); break;
		case '\t': fgit_buf_adds(b, "\\t"); break;
		case '\n': fgit_buf_adds(b, "\\n"); break;
		case '\v': fgit_buf_adds(b, "\\v"); break;
		case '\f': fgit_buf_adds(b, "\\f"); break;
		case '\r': fgit_buf_adds(b, "\\r"); break;
		case '"': fgit_buf_adds(b, "\\\""); break;
		case '\\': fgit_buf_adds(b, "\\\\"); break;
		default:
			if (*p < 0x20 || *p == 0x7f || (*p >= 0x80 && quote_path))
				fgit_buf_addf(b, "\\%03o", *p);
			else
				fgit_buf_addch(b, *p);
		}
	}
	fgit_buf_addch(b, '"');
}

void cli_add_relative(struct fgit_buf *b, const char *path, const char *prefix)
{
	fgit_relative_path(b, path, prefix ? prefix : "");
}

void cli_excludes_file_path(struct fgit_buf *b, struct fgit_repo *repo)
{
	const char *v = NULL;

	if (fgit_config_get_string(&v, fgit_repo_config(repo), "core.excludesfile") == 0 && v) {
		if (v[0] == '~' && v[1] == '/' && getenv("HOME")) {
			fgit_buf_adds(b, getenv("HOME"));
			fgit_buf_adds(b, v + 1);
		} else {
			fgit_buf_adds(b, v);
		}
	} else {
		const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
		if (xdg && *xdg)
			fgit_buf_addf(b, "%s/git/ignore", xdg);
		else if (home)
			fgit_buf_addf(b, "%s/.config/git/ignore", home);
	}
	fgit_error_clear();
}

int cli_add_standard_excludes(struct fgit_ignore *ig, struct fgit_repo *repo)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	int r;

	cli_excludes_file_path(&b, repo);
	if (b.len && access(b.ptr, R_OK) == 0 &&
	    (r = fgit_ignore_add_file(ig, b.ptr, b.ptr)) < 0)
		goto out;
	fgit_buf_reset(&b);
	fgit_buf_addf(&b, "%s/info/exclude", fgit_repo_common_dir(repo));
	r = 0;
	if (access(b.ptr, R_OK) == 0) {
		/* check-ignore -v names it as git_path() does after moving to
		 * the top of the work tree: relative to it when inside */
		const char *wt = fgit_repo_work_tree(repo), *cd = fgit_repo_common_dir(repo);
		size_t wl = wt ? strlen(wt) : 0;
		struct fgit_buf name = FGIT_BUF_INIT;
		if (wt && !strncmp(cd, wt, wl) && cd[wl] == '/')
			cd += wl + 1;
		fgit_buf_addf(&name, "%s/info/exclude", cd);
		r = fgit_ignore_add_file(ig, b.ptr, name.ptr);
		fgit_buf_release(&name);
	}
out:
	fgit_buf_release(&b);
	return r;
}

/*
 * Content checks (racily clean entries, --really-refresh) hash the file as
 * `git add` would store it: through the path's clean filter, eol and ident
 * conversion.  One context per process: the CLI works on one repository.
 */
struct conv_ctx {
	struct fgit_attrs *attrs;
	struct fgit_conv_config cfg;
	const struct fgit_config *config;	/* filter.<driver>.* */
	int algo;
};

static int hash_converted(struct fgit_oid *out, const char *fspath, const char *path,
			  const struct stat *st, void *payload)
{
	struct conv_ctx *c = payload;
	struct fgit_conv_attrs a;
	struct fgit_buf raw = FGIT_BUF_INIT, conv = FGIT_BUF_INIT;
	int r;

	if (fgit_convert_attrs_lookup(&a, c->attrs, c->config, path) < 0) {
		fgit_error_clear();
		memset(&a, 0, sizeof(a));
	}
	if (!fgit_convert_may_change(&a, &c->cfg))
		return fgit_worktree_hash_file(out, fspath, st, c->algo);
	if ((r = fgit_buf_read_file(&raw, fspath)) < 0)
		goto out;
	r = fgit_convert_to_git(&conv, path, raw.ptr, raw.len, &a, &c->cfg, 0, NULL);
	if (r < 0)
		goto out;
	r = r ? fgit_hash_object(out, c->algo, FGIT_OBJ_BLOB, conv.ptr, conv.len) :
		fgit_hash_object(out, c->algo, FGIT_OBJ_BLOB, raw.ptr, raw.len);
out:
	fgit_buf_release(&raw);
	fgit_buf_release(&conv);
	return r;
}

void cli_wt_stat_options(struct fgit_wt_stat_options *o, struct fgit_repo *repo)
{
	static struct conv_ctx conv;
	struct fgit_config *cfg = fgit_repo_config(repo);
	const char *v;
	int b;

	*o = (struct fgit_wt_stat_options)FGIT_WT_STAT_OPTIONS_INIT;
	o->algo = fgit_repo_algo(repo);
	if (!conv.attrs && fgit_repo_work_tree(repo)) {
		conv.attrs = cli_attrs(repo);
		conv.algo = o->algo;
		fgit_convert_config_load(&conv.cfg, cfg);
		conv.cfg.filter_dir = fgit_repo_work_tree(repo);
		conv.config = cfg;
	}
	if (conv.attrs) {
		o->hash_file = hash_converted;
		o->hash_payload = &conv;
	}
	if (!fgit_config_get_bool(&b, cfg, "core.filemode"))
		o->trust_exec_bit = b;
	if (!fgit_config_get_bool(&b, cfg, "core.trustctime"))
		o->trust_ctime = b;
	if (!fgit_config_get_bool(&b, cfg, "core.symlinks"))
		o->has_symlinks = b;
	if (!fgit_config_get_string(&v, cfg, "core.checkstat") && v && !strcasecmp(v, "minimal"))
		o->check_stat = 0;
	fgit_error_clear();
}

/* An index version from GIT_INDEX_VERSION or index.version, as git reads it. */
static unsigned int version_setting(const char *value, const char *what)
{
	char *end;
	long v = strtol(value, &end, 10);

	if (*value && !*end && v >= 2 && v <= 4)
		return (unsigned int)v;
	warning("%s set, but the value is invalid.\nUsing version %i", what, 2);
	return 2;
}

void cli_index_write_options(struct fgit_index_write_opts *wo, struct fgit_repo *repo,
			     const struct fgit_index *idx)
{
	struct fgit_config *cfg = fgit_repo_config(repo);
	const char *env = getenv("GIT_INDEX_VERSION"), *s;
	int v, split = -1;

	if (!fgit_index_version(idx)) {
		if (env) {
			wo->index_version = version_setting(env, "GIT_INDEX_VERSION");
		} else if (!fgit_config_get_string(&s, cfg, "index.version") && s) {
			wo->index_version = version_setting(s, "index.version");
		} else if (!fgit_config_get_bool(&v, cfg, "feature.manyfiles") && v) {
			wo->index_version = 4;
		}
	}
	if (!fgit_config_get_string(&s, cfg, "index.threads") && s) {
		char *end;
		long n = strtol(s, &end, 10);
		if (*s && !*end && n >= 0)
			wo->threads = (int)n;
		else if (!fgit_config_get_bool(&v, cfg, "index.threads"))
			wo->threads = v ? 0 : 1;
		else
			die("bad config variable 'index.threads'");
	}
	if (!fgit_config_get_bool(&v, cfg, "index.recordendofindexentries"))
		wo->record_eoie = v;
	if (!fgit_config_get_bool(&v, cfg, "index.recordoffsettable"))
		wo->record_ieot = v;
	if (!fgit_config_get_bool(&v, cfg, "core.splitindex"))
		split = v;
	if (split == 1 || (split < 0 && fgit_index_was_split(idx)))
		wo->flags |= FGIT_INDEX_WRITE_SPLIT;
	wo->shared_index_dir = fgit_repo_git_dir(repo);
	if (!fgit_config_get_int(&v, cfg, "splitindex.maxpercentchange")) {
		if (v >= 0 && v <= 100)
			wo->split_max_percent = v;
		else
			error("splitIndex.maxPercentChange value '%d' should be between 0 and 100", v);
	}
	if (!fgit_config_get_string(&s, cfg, "splitindex.sharedindexexpire") && s) {
		int64_t t;
		if (fgit_date_parse_expiry(&t, s, (int64_t)time(NULL)))
			die("failed to parse splitIndex.sharedIndexExpire value '%s'", s);
		wo->shared_index_expire = t;
	}
	fgit_error_clear();
}

void cli_index_commit_locked(struct fgit_repo *repo, struct fgit_index *idx,
			     struct fgit_lockfile *lk)
{
	struct fgit_index_write_opts wo = FGIT_INDEX_WRITE_OPTS_INIT;
	struct fgit_wt_stat_options so;
	struct fgit_buf path = FGIT_BUF_INIT;
	size_t i, n = fgit_index_entrycount(idx);
	const char *top = fgit_repo_work_tree(repo);

	/* git smudges racily clean entries whose file changed (size 0), so
	 * that a later stat cannot take them for clean */
	cli_wt_stat_options(&so, repo);
	for (i = 0; top && i < n; i++) {
		struct fgit_index_entry *e = fgit_index_get_mut(idx, i);
		struct stat st;
		if (e->stage || !fgit_index_entry_is_racy(idx, e))
			continue;
		fgit_buf_reset(&path);
		fgit_buf_addf(&path, "%s/%s", top, e->path);
		/* as git: a missing file or one whose stat data differ stays */
		if (lstat(path.ptr, &st) || fgit_worktree_stat_differs(e, &st, &so))
			continue;
		if (fgit_worktree_entry_changed(idx, e, &st, path.ptr, &so))
			e->size = 0;
		fgit_error_clear();
	}
	fgit_buf_release(&path);
	cli_index_write_options(&wo, repo, idx);
	/* NEEDSWORK: a split index is written whole here (the lock is ours
	 * already, and fgit_index_write's split path takes its own) */
	wo.flags &= ~FGIT_INDEX_WRITE_SPLIT;
	if (fgit_index_write_fd(idx, fgit_lockfile_fd(lk), &wo) || fgit_lockfile_commit(lk))
		die("Unable to write new index file");
}
