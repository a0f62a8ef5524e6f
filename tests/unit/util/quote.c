#include "unit.h"
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/quote.h"

/* Every byte value survives quote then unquote. */
TEST(quote, round_trip_every_byte)
{
	struct fgit_buf q = FGIT_BUF_INIT, u = FGIT_BUF_INIT;
	char in[256];
	int i;

	for (i = 0; i < 255; i++)
		in[i] = (char)(i + 1);	/* no NUL: paths have none */
	CHECK(fgit_quote_c_style(&q, in, 255, 1) == 0);
	CHECK(q.ptr[0] == '"');
	const char *end;
	CHECK(fgit_unquote_c_style(&u, q.ptr, &end) == 0 && end == q.ptr + q.len);
	CHECK(u.len == 255 && !memcmp(u.ptr, in, 255));
	fgit_buf_release(&q);
	fgit_buf_release(&u);
}

TEST(quote, unquote_stops_at_closing_quote)
{
	struct fgit_buf u = FGIT_BUF_INIT;
	const char *s = "\"a\\tb\\303\\251\" rest";

	const char *end;
	CHECK(fgit_unquote_c_style(&u, s, &end) == 0 && end == s + 14);
	CHECK(!strcmp(u.ptr, "a\tb\303\251"));
	fgit_buf_release(&u);
}

TEST(quote, unquote_rejects_bad_input)
{
	struct fgit_buf u = FGIT_BUF_INIT;
	const char *bad[] = { "\"open", "\"bad\\q\"", "\"oct\\38\"", "\"oct\\4", "noquote", "\"\\", NULL };
	int i;

	for (i = 0; bad[i]; i++) {
		fgit_buf_reset(&u);
		CHECK_MSG(fgit_unquote_c_style(&u, bad[i], NULL) == FGIT_EINVALID, bad[i]);
	}
	fgit_buf_release(&u);
}
