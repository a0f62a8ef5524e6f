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

long fgit_unquote_c_style(struct fgit_buf *out, const char *s, size_t n)
{
	static const char from[] = "abfnrtv\\\"", to[] = "\a\b\f\n\r\t\v\\\"";
	size_t i = 1;

	if (!n || s[0] != '"')
		return FGIT_EINVALID;
	while (i < n) {
		unsigned char c = (unsigned char)s[i++];
		const char *k;

		if (c == '"')
			return (long)i;
		if (c != '\\') {
			fgit_buf_add(out, &c, 1);
			continue;
		}
		if (i >= n)
			break;
		c = (unsigned char)s[i++];
		if (c && (k = strchr(from, c))) {
			fgit_buf_add(out, &to[k - from], 1);
		} else if (c >= '0' && c <= '3' && i + 1 < n &&
			   s[i] >= '0' && s[i] <= '7' && s[i + 1] >= '0' && s[i + 1] <= '7') {
			unsigned char v = (unsigned char)((c - '0') << 6 | (s[i] - '0') << 3 |
							  (s[i + 1] - '0'));
			fgit_buf_add(out, &v, 1);
			i += 2;
		} else {
			return FGIT_EINVALID;
		}
	}
	return FGIT_EINVALID;
}
