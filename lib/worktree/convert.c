/*
 * Line-ending and ident conversion (see include/fgit/convert.h).
 *
 * The attributes and core.autocrlf/core.eol resolve to one action: leave the
 * bytes alone, normalise always ("text"), or normalise only what looks like
 * text ("auto"); each with LF or CRLF as the worktree form.  The worktree
 * form matters on the way in only for core.safecrlf, which asks whether a
 * checkout of what we store would give back the same bytes.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "fgit/attr.h"
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/config.h"
#include "fgit/convert.h"
#include "fgit/run.h"

enum action {
	ACT_BINARY,		/* no conversion */
	ACT_TEXT_INPUT,		/* always normalise; worktree keeps LF */
	ACT_TEXT_CRLF,		/* always normalise; worktree gets CRLF */
	ACT_AUTO_INPUT,		/* normalise text files; worktree LF */
	ACT_AUTO_CRLF,		/* normalise text files; worktree CRLF */
};

static enum action resolve(const struct fgit_conv_attrs *a, const struct fgit_conv_config *c)
{
	int crlf_out;

	if (a->text == FGIT_TEXT_UNSET)
		return ACT_BINARY;
	if (a->eol != FGIT_EOL_UNSPECIFIED) {
		/* an eol attribute implies text unless text=auto */
		int crlf = a->eol == FGIT_EOL_CRLF;
		if (a->text == FGIT_TEXT_AUTO)
			return crlf ? ACT_AUTO_CRLF : ACT_AUTO_INPUT;
		return crlf ? ACT_TEXT_CRLF : ACT_TEXT_INPUT;
	}
	/* the worktree form from config: autocrlf wins over core.eol */
	if (c->autocrlf == FGIT_AUTOCRLF_TRUE)
		crlf_out = 1;
	else if (c->autocrlf == FGIT_AUTOCRLF_INPUT)
		crlf_out = 0;
	else
		crlf_out = c->core_eol == FGIT_EOL_CRLF;
	switch (a->text) {
	case FGIT_TEXT_SET:
		return crlf_out ? ACT_TEXT_CRLF : ACT_TEXT_INPUT;
	case FGIT_TEXT_AUTO:
		return crlf_out ? ACT_AUTO_CRLF : ACT_AUTO_INPUT;
	default:
		if (c->autocrlf == FGIT_AUTOCRLF_FALSE)
			return ACT_BINARY;
		return crlf_out ? ACT_AUTO_CRLF : ACT_AUTO_INPUT;
	}
}

struct stats {
	size_t nul, lonecr, lonelf, crlf, printable, nonprintable;
};

static void gather(struct stats *s, const unsigned char *p, size_t n)
{
	size_t i;
	memset(s, 0, sizeof(*s));
	for (i = 0; i < n; i++) {
		unsigned char c = p[i];
		if (c == '\r') {
			if (i + 1 < n && p[i + 1] == '\n') {
				s->crlf++;
				i++;
			} else {
				s->lonecr++;
			}
		} else if (c == '\n') {
			s->lonelf++;
		} else if (c == 127) {
			s->nonprintable++;
		} else if (c < 32) {
			/* backspace, tab, escape and form feed pass as text */
			if (c == '\b' || c == '\t' || c == 033 || c == 014)
				s->printable++;
			else if (c == 0) {
				s->nul++;
				s->nonprintable++;
			} else
				s->nonprintable++;
		} else {
			s->printable++;
		}
	}
	/* a DOS end-of-file marker at the very end is not binary-ness */
	if (n >= 1 && p[n - 1] == 032)
		s->nonprintable--;
}

static int looks_binary(const struct stats *s)
{
	if (s->lonecr || s->nul)
		return 1;
	return (s->printable >> 7) < s->nonprintable;
}

/*
 * core.safecrlf: would a checkout of what we store give these bytes back?
 * Input actions drop CRs for good; CRLF actions turn every LF into CRLF.
 */
static int check_roundtrip(const char *path, enum action act, const struct stats *s,
			   const struct fgit_conv_config *cfg,
			   const struct fgit_conv_hooks *hooks)
{
	char msg[4200];
	const char *what = NULL;

	if (cfg->safecrlf == FGIT_SAFECRLF_FALSE)
		return 0;
	if ((act == ACT_TEXT_INPUT || act == ACT_AUTO_INPUT) && s->crlf)
		what = "CRLF";
	else if ((act == ACT_TEXT_CRLF || act == ACT_AUTO_CRLF) && s->lonelf)
		what = "LF";
	if (!what)
		return 0;
	if (cfg->safecrlf == FGIT_SAFECRLF_TRUE)
		return fgit_error_set(FGIT_EINVALID, "%s would be replaced by %s in %s",
				      what, what[0] == 'C' ? "LF" : "CRLF", path);
	if (hooks && hooks->warn) {
		snprintf(msg, sizeof(msg),
			 "in the working copy of '%s', %s will be replaced by %s the next time Git touches it",
			 path, what, what[0] == 'C' ? "LF" : "CRLF");
		hooks->warn(msg, hooks->payload);
	}
	return 0;
}

/* Copy src dropping each CR that precedes an LF. */
static int crlf_to_lf(struct fgit_buf *out, const char *src, size_t len)
{
	size_t i, start = 0;
	for (i = 0; i + 1 < len; i++) {
		if (src[i] == '\r' && src[i + 1] == '\n') {
			if (fgit_buf_add(out, src + start, i - start))
				return FGIT_ENOMEM;
			start = i + 1;
		}
	}
	return fgit_buf_add(out, src + start, len - start);
}

/* "$Id: anything $" (on one line) becomes "$Id$". */
static int ident_collapse(struct fgit_buf *out, const char *src, size_t len, int *changed)
{
	size_t i = 0, start = 0;
	*changed = 0;
	while (i + 3 < len) {
		const char *dollar = memchr(src + i, '$', len - i), *end;
		size_t k;
		if (!dollar)
			break;
		k = (size_t)(dollar - src);
		if (k + 4 > len || memcmp(src + k, "$Id", 3)) {
			i = k + 1;
			continue;
		}
		if (src[k + 3] != ':') {
			i = k + 3;
			continue;
		}
		end = memchr(src + k + 4, '$', len - k - 4);
		if (!end || memchr(src + k + 4, '\n', (size_t)(end - (src + k + 4)))) {
			i = k + 4;
			continue;
		}
		if (fgit_buf_add(out, src + start, k - start) || fgit_buf_add(out, "$Id$", 4))
			return FGIT_ENOMEM;
		start = i = (size_t)(end - src) + 1;
		*changed = 1;
	}
	return fgit_buf_add(out, src + start, len - start);
}

int fgit_convert_may_change(const struct fgit_conv_attrs *attrs,
			    const struct fgit_conv_config *cfg)
{
	return attrs->ident || resolve(attrs, cfg) != ACT_BINARY ||
	       (attrs->filter && (attrs->clean || attrs->required || attrs->process));
}

/* ---- clean filters ---- */

static void report_error(const struct fgit_conv_hooks *hooks, const char *fmt,
			 const char *cmd, int code)
{
	char msg[4200];

	if (!hooks || !hooks->error)
		return;
	snprintf(msg, sizeof(msg), fmt, cmd, code);
	hooks->error(msg, hooks->payload);
}

/*
 * Run the clean command on src.  1 and out filled on success; 0 when it
 * failed (reported through hooks->error, as git's error() lines).  The
 * thread blocks SIGPIPE while feeding the child, as git ignores it there: a
 * filter that does not read its input must not kill us.
 */
static int run_clean(struct fgit_buf *out, const char *cmd, const char *path,
		     const char *src, size_t len, const struct fgit_conv_config *cfg,
		     const struct fgit_conv_hooks *hooks)
{
	struct fgit_buf full = FGIT_BUF_INIT;
	struct fgit_child c = FGIT_CHILD_INIT;
	const char *argv[2];
	sigset_t block, old, pending;
	const char *p;
	int r;

	/* %f is the path, quoted for the shell (git's sq_quote) */
	for (p = cmd; *p; p++) {
		if (p[0] == '%' && p[1] == 'f') {
			const char *q;
			fgit_buf_addch(&full, '\'');
			for (q = path; *q; q++) {
				if (*q == '\'' || *q == '!')
					fgit_buf_addf(&full, "'\\%c'", *q);
				else
					fgit_buf_addch(&full, *q);
			}
			fgit_buf_addch(&full, '\'');
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			fgit_buf_addch(&full, '%');
			p++;
		} else {
			fgit_buf_addch(&full, *p);
		}
	}
	argv[0] = full.ptr;
	argv[1] = NULL;
	c.argv = argv;
	c.use_shell = 1;
	c.dir = cfg->filter_dir;
	fgit_buf_reset(out);
	sigemptyset(&block);
	sigaddset(&block, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	r = fgit_run_pipe(&c, src, len, out);
	sigpending(&pending);
	if (sigismember(&pending, SIGPIPE) && !sigismember(&old, SIGPIPE)) {
		struct timespec zero = { 0, 0 };
		sigtimedwait(&block, NULL, &zero);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	fgit_buf_release(&full);
	if (r < 0) {
		if (hooks && hooks->error)
			hooks->error(fgit_error_last(), hooks->payload);
		report_error(hooks, "cannot fork to run external filter '%s'", cmd, 0);
		report_error(hooks, "external filter '%s' failed", cmd, 0);
		fgit_error_clear();
		return 0;
	}
	if (r) {
		report_error(hooks, "external filter '%s' failed %d", cmd, r);
		report_error(hooks, "external filter '%s' failed", cmd, 0);
		return 0;
	}
	return 1;
}

int fgit_convert_attrs_lookup(struct fgit_conv_attrs *out, struct fgit_attrs *a,
			      const struct fgit_config *cfg, const char *path)
{
	static const char *const names[] = { "crlf", "ident", "filter", "eol", "text" };
	struct fgit_attr_value v[5];
	const struct fgit_attr_value *t;
	char key[512];
	const char *s;
	int r, b;

	memset(out, 0, sizeof(*out));
	if ((r = fgit_attrs_get(v, a, path, names, 5)) < 0)
		return r;
	t = v[4].state != FGIT_ATTR_UNSPECIFIED ? &v[4] : &v[0];
	switch (t->state) {
	case FGIT_ATTR_SET:
		out->text = FGIT_TEXT_SET;
		break;
	case FGIT_ATTR_UNSET:
		out->text = FGIT_TEXT_UNSET;
		break;
	case FGIT_ATTR_VALUE:
		if (!strcmp(t->value, "input")) {
			out->text = FGIT_TEXT_SET;
			out->eol = FGIT_EOL_LF;
		} else if (!strcmp(t->value, "auto")) {
			out->text = FGIT_TEXT_AUTO;
		}
		break;
	default:
		break;
	}
	if (out->text != FGIT_TEXT_UNSET && v[3].state == FGIT_ATTR_VALUE) {
		if (!strcmp(v[3].value, "lf"))
			out->eol = FGIT_EOL_LF;
		else if (!strcmp(v[3].value, "crlf"))
			out->eol = FGIT_EOL_CRLF;
	}
	out->ident = v[1].state == FGIT_ATTR_SET;
	if (v[2].state == FGIT_ATTR_VALUE && cfg && strlen(v[2].value) < 400) {
		/* a driver exists once any filter.<name>.* setting names it */
		int known = 0;
		snprintf(key, sizeof(key), "filter.%s.clean", v[2].value);
		if (!fgit_config_get_string(&s, cfg, key) && s) {
			out->clean = s;
			known = 1;
		}
		snprintf(key, sizeof(key), "filter.%s.smudge", v[2].value);
		if (!fgit_config_get_string(&s, cfg, key))
			known = 1;
		snprintf(key, sizeof(key), "filter.%s.process", v[2].value);
		if (!fgit_config_get_string(&s, cfg, key) && s)
			known = out->process = 1;
		snprintf(key, sizeof(key), "filter.%s.required", v[2].value);
		if (!fgit_config_get_bool(&b, cfg, key)) {
			out->required = b;
			known = 1;
		}
		fgit_error_clear();
		if (known)
			out->filter = v[2].value;
		else
			out->clean = NULL;
	}
	return 0;
}

void fgit_convert_config_load(struct fgit_conv_config *out, const struct fgit_config *cfg)
{
	const char *v;

	*out = (struct fgit_conv_config)FGIT_CONV_CONFIG_INIT;
	if (!fgit_config_get_string(&v, cfg, "core.autocrlf") && v) {
		if (!strcasecmp(v, "input"))
			out->autocrlf = FGIT_AUTOCRLF_INPUT;
		else if (fgit_config_parse_bool(v) > 0)
			out->autocrlf = FGIT_AUTOCRLF_TRUE;
	}
	if (!fgit_config_get_string(&v, cfg, "core.eol") && v) {
		if (!strcasecmp(v, "lf"))
			out->core_eol = FGIT_EOL_LF;
		else if (!strcasecmp(v, "crlf"))
			out->core_eol = FGIT_EOL_CRLF;
	}
	if (!fgit_config_get_string(&v, cfg, "core.safecrlf") && v) {
		if (!strcasecmp(v, "warn"))
			out->safecrlf = FGIT_SAFECRLF_WARN;
		else
			out->safecrlf = fgit_config_parse_bool(v) > 0 ? FGIT_SAFECRLF_TRUE
								       : FGIT_SAFECRLF_FALSE;
	}
	fgit_error_clear();
}

int fgit_convert_to_git(struct fgit_buf *out, const char *path, const char *src,
			size_t len, const struct fgit_conv_attrs *attrs,
			const struct fgit_conv_config *cfg, unsigned int flags,
			const struct fgit_conv_hooks *hooks)
{
	enum action act = resolve(attrs, cfg);
	struct fgit_buf tmp = FGIT_BUF_INIT, filtered = FGIT_BUF_INIT;
	int changed = 0, r;

	fgit_buf_reset(out);
	if (attrs->filter && attrs->process)
		return fgit_error_set(FGIT_ENOTSUPP, "%s: long-running filter '%s' (filter.%s.process)",
				      path, attrs->filter, attrs->filter);
	if (attrs->filter) {
		int ok = 0;
		if (attrs->clean && *attrs->clean)
			ok = run_clean(&filtered, attrs->clean, path, src, len, cfg, hooks);
		if (!ok && attrs->required) {
			fgit_buf_release(&filtered);
			return fgit_error_set(FGIT_ERROR, "%s: clean filter '%s' failed",
					      path, attrs->filter);
		}
		if (ok) {
			r = fgit_convert_to_git(out, path, filtered.ptr, filtered.len, &(struct fgit_conv_attrs){
				attrs->text, attrs->eol, attrs->ident, NULL, NULL, 0, 0 }, cfg, flags, hooks);
			if (r == 0) {
				fgit_buf_release(out);
				*out = filtered;
				return 1;
			}
			fgit_buf_release(&filtered);
			return r < 0 ? r : 1;
		}
		fgit_buf_release(&filtered);
	}
	if (act != ACT_BINARY && len) {
		struct stats s;
		int convert;

		gather(&s, (const unsigned char *)src, len);
		if (act == ACT_AUTO_INPUT || act == ACT_AUTO_CRLF) {
			if (looks_binary(&s))
				goto ident;
			/* committed with CRLF: leave it as it was */
			if (hooks && hooks->index_has_cr &&
			    hooks->index_has_cr(path, hooks->payload))
				goto ident;
		}
		if (flags & FGIT_CONV_CHECK_ROUNDTRIP) {
			r = check_roundtrip(path, act, &s, cfg, hooks);
			if (r < 0)
				return r;
		}
		convert = s.crlf > 0;
		if (convert) {
			if (crlf_to_lf(out, src, len))
				return FGIT_ENOMEM;
			src = out->ptr;
			len = out->len;
			changed = 1;
		}
	}
ident:
	if (attrs->ident && len >= 4 && memmem(src, len, "$Id:", 4)) {
		int ic;
		if (ident_collapse(&tmp, src, len, &ic)) {
			fgit_buf_release(&tmp);
			return FGIT_ENOMEM;
		}
		if (ic) {
			fgit_buf_release(out);
			*out = tmp;
			return 1;
		}
		fgit_buf_release(&tmp);
	}
	return changed;
}
