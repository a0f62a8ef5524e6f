/* Commit message cleanup and sign-off (see include/fgit/message.h). */
#include <ctype.h>
#include <string.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/message.h"

int fgit_message_cleanup(struct fgit_buf *msg, enum fgit_cleanup_mode mode, char cc)
{
	struct fgit_buf out = FGIT_BUF_INIT;
	size_t i = 0, blank = 0;
	int r = 0;

	if (mode == FGIT_CLEANUP_VERBATIM)
		return 0;
	while (i < msg->len) {
		const char *line = msg->ptr + i, *nl = memchr(line, '\n', msg->len - i);
		size_t len = nl ? (size_t)(nl - line) : msg->len - i;

		i += len + (nl ? 1 : 0);
		if (mode == FGIT_CLEANUP_SCISSORS && len >= 3 && line[0] == cc && line[1] == ' ' &&
		    !strncmp(line + 2, "------------------------ >8 ------------------------", len - 2) &&
		    len - 2 == 52)
			break;
		if (mode == FGIT_CLEANUP_STRIP && len && line[0] == cc)
			continue;
		while (len && isspace((unsigned char)line[len - 1]))
			len--;
		if (!len) {
			blank++;
			continue;
		}
		if (blank && out.len)
			r |= fgit_buf_addch(&out, '\n');
		blank = 0;
		r |= fgit_buf_add(&out, line, len);
		r |= fgit_buf_addch(&out, '\n');
	}
	if (r) {
		fgit_buf_release(&out);
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	fgit_buf_release(msg);
	*msg = out;
	return 0;
}

/* "Token: value" with a token of letters, digits and '-' (git's trailer rule). */
static int is_trailer_line(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '-'))
		i++;
	return i > 0 && i < n && s[i] == ':';
}

int fgit_message_add_signoff(struct fgit_buf *msg, const char *ident, char cc)
{
	struct fgit_buf sob = FGIT_BUF_INIT;
	size_t end = msg->len, start, last_start = 0, last_len = 0;
	int trailers = 1, any = 0, r;

	fgit_buf_addf(&sob, "Signed-off-by: %s", ident);
	/* the last paragraph, ignoring trailing blank and comment lines */
	while (end && msg->ptr[end - 1] == '\n')
		end--;
	start = end;
	while (start) {
		size_t ls = start, n;
		while (ls && msg->ptr[ls - 1] != '\n')
			ls--;
		n = start - ls;
		if (!n)
			break;
		if (msg->ptr[ls] != cc) {
			if (!any) {
				last_start = ls;
				last_len = n;
			}
			any = 1;
			if (!is_trailer_line(msg->ptr + ls, n) &&
			    !(n && (msg->ptr[ls] == ' ' || msg->ptr[ls] == '\t')))
				trailers = 0;
		}
		start = ls ? ls - 1 : 0;
		if (!ls)
			break;
	}
	/* a one-paragraph message is the subject, never a trailer block */
	if (!start)
		trailers = 0;
	if (any && last_len == sob.len && !memcmp(msg->ptr + last_start, sob.ptr, sob.len) &&
	    trailers) {
		fgit_buf_release(&sob);
		return 0;
	}
	if (msg->len && msg->ptr[msg->len - 1] != '\n')
		fgit_buf_addch(msg, '\n');
	if (!any || !trailers)
		fgit_buf_addch(msg, '\n');
	r = fgit_buf_add(msg, sob.ptr, sob.len);
	r |= fgit_buf_addch(msg, '\n');
	fgit_buf_release(&sob);
	return r ? fgit_error_set(FGIT_ENOMEM, "out of memory") : 0;
}
