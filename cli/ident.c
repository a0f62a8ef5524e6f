/*
 * Identities ("Name <email> <time> <tz>") as git's ident.c builds them for
 * commits and reflogs: GIT_AUTHOR_* / GIT_COMMITTER_*, <who>.name and
 * <who>.email, user.name and user.email, $EMAIL, then the passwd entry and
 * host name.
 * NEEDSWORK: the full gecos/hostname fallbacks of git's ident.c.
 */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "fgit/buf.h"
#include "fgit/config.h"
#include "fgit/date.h"

static int is_crud(unsigned char c)
{
	return c <= 32 || c == '.' || c == ',' || c == ':' || c == ';' || c == '<' ||
	       c == '>' || c == '"' || c == '\\' || c == '\'';
}

/* git's strbuf_addstr_without_crud */
static void add_without_crud(struct fgit_buf *b, const char *s)
{
	size_t len = strlen(s);
	while (len && is_crud((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len && is_crud((unsigned char)s[len - 1]))
		len--;
	for (; len; s++, len--)
		if (*s != '\n' && *s != '<' && *s != '>')
			fgit_buf_addch(b, *s);
}

void cli_ident(struct fgit_buf *b, struct fgit_config *cfg, const char *who, int strict)
{
	char key[64];
	const char *name = NULL, *email = NULL, *date;
	int64_t t;
	int tz;
	struct fgit_buf def = FGIT_BUF_INIT;
	int upper = who[0] == 'a';

	name = getenv(upper ? "GIT_AUTHOR_NAME" : "GIT_COMMITTER_NAME");
	email = getenv(upper ? "GIT_AUTHOR_EMAIL" : "GIT_COMMITTER_EMAIL");
	date = getenv(upper ? "GIT_AUTHOR_DATE" : "GIT_COMMITTER_DATE");
	if (!name) {
		snprintf(key, sizeof(key), "%s.name", who);
		if (fgit_config_get_string(&name, cfg, key) || !name)
			fgit_config_get_string(&name, cfg, "user.name");
	}
	if (!email) {
		snprintf(key, sizeof(key), "%s.email", who);
		if (fgit_config_get_string(&email, cfg, key) || !email)
			if (fgit_config_get_string(&email, cfg, "user.email") || !email)
				email = getenv("EMAIL");
	}
	fgit_error_clear();
	if (!name) {
		struct passwd *pw = getpwuid(getuid());
		name = pw && pw->pw_gecos && *pw->pw_gecos ? pw->pw_gecos : pw ? pw->pw_name : "";
	}
	if (!email) {
		struct passwd *pw = getpwuid(getuid());
		char host[256] = "";
		gethostname(host, sizeof(host) - 1);
		fgit_buf_addf(&def, "%s@%s", pw ? pw->pw_name : "unknown", host);
		email = def.ptr;
	}
	{
		struct fgit_buf n = FGIT_BUF_INIT;
		add_without_crud(&n, name);
		if (!n.len && strict)
			die("empty ident name (for <%s>) not allowed", email);
		fgit_buf_add(b, n.ptr, n.len);
		fgit_buf_release(&n);
	}
	fgit_buf_adds(b, " <");
	add_without_crud(b, email);
	fgit_buf_adds(b, "> ");
	if (date && *date) {
		if (fgit_date_parse(&t, &tz, date))
			die("invalid date format: %s", date);
	} else {
		t = (int64_t)time(NULL);
		tz = fgit_local_tz_offset(t);
	}
	fgit_buf_addf(b, "%lld %c%04d", (long long)t, tz < 0 ? '-' : '+', tz < 0 ? -tz : tz);
	fgit_buf_release(&def);
}


char *cli_reflog_ident(struct fgit_config *cfg)
{
	struct fgit_buf b = FGIT_BUF_INIT;

	cli_ident(&b, cfg, "committer", 0);
	return fgit_buf_detach(&b, NULL);
}
