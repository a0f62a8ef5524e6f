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

int fgit_unquote_c_style(struct fgit_buf *out, const char *s)
{
	static const char esc[] = "abtnvfr", val[] = "\a\b\t\n\v\f\r";

	if (*s++ != '"')
		return FGIT_EINVALID;
	for (;;) {
		const char *e;
		int c = (unsigned char)*s++;
		if (!c)
			return FGIT_EINVALID;
		if (c == '"')
			return *s ? FGIT_EINVALID : 0;
		if (c != '\\') {
			fgit_buf_addch(out, c);
			continue;
		}
		c = (unsigned char)*s++;
		if (c == '\\' || c == '"') {
			fgit_buf_addch(out, c);
		} else if (c && (e = strchr(esc, c))) {
			fgit_buf_addch(out, val[e - esc]);
		} else if (c >= '0' && c <= '3' && s[0] >= '0' && s[0] <= '7' &&
			   s[1] >= '0' && s[1] <= '7') {
			fgit_buf_addch(out, ((c - '0') << 6) | ((s[0] - '0') << 3) | (s[1] - '0'));
			s += 2;
		} else {
			return FGIT_EINVALID;
		}
	}
}
