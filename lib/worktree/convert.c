/*
 * Line-ending and ident conversion (see include/fgit/convert.h).
 *
 * The attributes and core.autocrlf/core.eol resolve to one action: leave the
 * bytes alone, normalise always ("text"), or normalise only what looks like
 * text ("auto"); each with LF or CRLF as the worktree form.  The worktree
 * form matters on the way in only for core.safecrlf, which asks whether a
 * checkout of what we store would give back the same bytes.
 */
#include <stdio.h>
#include <string.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/convert.h"

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
	return attrs->ident || resolve(attrs, cfg) != ACT_BINARY;
}

int fgit_convert_to_git(struct fgit_buf *out, const char *path, const char *src,
			size_t len, const struct fgit_conv_attrs *attrs,
			const struct fgit_conv_config *cfg, unsigned int flags,
			const struct fgit_conv_hooks *hooks)
{
	enum action act = resolve(attrs, cfg);
	struct fgit_buf tmp = FGIT_BUF_INIT;
	int changed = 0, r;

	fgit_buf_reset(out);
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
