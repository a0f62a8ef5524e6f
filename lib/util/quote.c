/* Quoting and relative paths in git's output style (see include/fgit/quote.h). */
#include <string.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/quote.h"

static int must_escape(unsigned char c, int quote_high)
{
	return c < 0x20 || c == '"' || c == '\\' || c == 0x7f || (c >= 0x80 && quote_high);
}

int fgit_quote_needed(const char *s, size_t n, int quote_high)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (must_escape((unsigned char)s[i], quote_high))
			return 1;
	return 0;
}

int fgit_quote_c_style(struct fgit_buf *out, const char *s, size_t n, int quote_high)
{
	static const char ctrl[] = "\a\b\t\n\v\f\r";
	static const char letter[] = "abtnvfr";
	size_t i, start = 0;
	int r = 0;

	if (!fgit_quote_needed(s, n, quote_high))
		return fgit_buf_add(out, s, n);
	r |= fgit_buf_addch(out, '"');
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *e;
		if (!must_escape(c, quote_high))
			continue;
		r |= fgit_buf_add(out, s + start, i - start);
		start = i + 1;
		if (c && (e = strchr(ctrl, c)))
			r |= fgit_buf_addf(out, "\\%c", letter[e - ctrl]);
		else if (c == '"' || c == '\\')
			r |= fgit_buf_addf(out, "\\%c", c);
		else
			r |= fgit_buf_addf(out, "\\%03o", c);
	}
	r |= fgit_buf_add(out, s + start, n - start);
	r |= fgit_buf_addch(out, '"');
	return r ? FGIT_ENOMEM : 0;
}

int fgit_relative_path(struct fgit_buf *out, const char *path, const char *prefix)
{
	const char *p = prefix, *in = path;
	size_t ups = 0, before = out->len;
	int r = 0;

	/* walk down the directories path and prefix share */
	while (*p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if (strncmp(in, p, n) || (in[n] != '/' && in[n] != '\0'))
			break;
		in += n;
		p += n + (slash ? 1 : 0);
		if (*in != '/')
			break;	/* path is this directory, or an ancestor */
		in++;
	}
	for (; *p; p++)
		if (*p == '/')
			ups++;
	while (ups--)
		r |= fgit_buf_adds(out, "../");
	r |= fgit_buf_adds(out, in);
	if (out->len == before)
		r |= fgit_buf_adds(out, "./");
	return r ? FGIT_ENOMEM : 0;
}

int fgit_unquote_c_style(struct fgit_buf *out, const char *in, const char **end_out)
{
	const char *p = in;

	if (*p++ != '"')
		return FGIT_EINVALID;
	for (;;) {
		int c = (unsigned char)*p++;
		switch (c) {
		case '\0':
			return FGIT_EINVALID;
		case '"':
			if (end_out)
				*end_out = p;
			return 0;
		case '\\':
			break;
		default:
			fgit_buf_addch(out, c);
			continue;
		}
		c = (unsigned char)*p++;
		switch (c) {
		case 'a': c = '\a'; break;
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 't': c = '\t'; break;
		case 'v': c = '\v'; break;
		case '\\': case '"': break;
		case '0': case '1': case '2': case '3':
			if (p[0] < '0' || p[0] > '7' || p[1] < '0' || p[1] > '7')
				return FGIT_EINVALID;
			c = ((c - '0') << 6) | ((p[0] - '0') << 3) | (p[1] - '0');
			p += 2;
			break;
		default:
			return FGIT_EINVALID;
		}
		fgit_buf_addch(out, c);
	}
}
