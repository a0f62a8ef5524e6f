/*
 * Expiry dates as git's parse_expiry_date takes them (gc.pruneExpire,
 * prune --expire, reflog expire): "never"/"false" (nothing expires), "now"/
 * "all" (everything does), relative "<n>.<unit>.ago" forms, and absolute
 * dates through fgit_date_parse.
 */
#include <ctype.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "fgit/common.h"
#include "fgit/date.h"

static int unit_seconds(const char *u, size_t n, int64_t *secs, int *months)
{
	static const struct { const char *name; int64_t secs; int months; } units[] = {
		{ "second", 1, 0 }, { "minute", 60, 0 }, { "hour", 3600, 0 },
		{ "day", 86400, 0 }, { "week", 7 * 86400, 0 }, { "month", 0, 1 },
		{ "year", 0, 12 },
	};
	size_t i;
	if (n > 1 && u[n - 1] == 's')
		n--;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strlen(units[i].name) == n && !strncmp(units[i].name, u, n)) {
			*secs = units[i].secs;
			*months = units[i].months;
			return 0;
		}
	return -1;
}

/* "<n>[. ]<unit>[. ]ago" (n optional: "yesterday"-style words are not
 * needed by the callers); 0 and *out, or -1 if s has another form. */
static int relative(int64_t *out, const char *s, int64_t now)
{
	const char *p = s, *u;
	int64_t n = 1, secs;
	int months;
	size_t ulen;

	if (isdigit((unsigned char)*p)) {
		n = strtoll(p, (char **)&p, 10);
		while (*p == '.' || *p == ' ' || *p == '_')
			p++;
	}
	u = p;
	while (isalpha((unsigned char)*p))
		p++;
	ulen = (size_t)(p - u);
	if (!ulen || unit_seconds(u, ulen, &secs, &months) < 0)
		return -1;
	while (*p == '.' || *p == ' ' || *p == '_')
		p++;
	if (strcmp(p, "ago"))
		return -1;
	if (months) {
		time_t t = (time_t)now;
		struct tm tm;
		localtime_r(&t, &tm);
		tm.tm_mon -= (int)(n * months);
		tm.tm_isdst = -1;
		*out = (int64_t)mktime(&tm);
	} else {
		*out = now - n * secs;
	}
	return 0;
}

int fgit_date_parse_expiry(int64_t *out, const char *s, int64_t now)
{
	int tz;
	if (!strcmp(s, "never") || !strcmp(s, "false")) {
		*out = 0;
		return 0;
	}
	if (!strcmp(s, "all") || !strcmp(s, "now")) {
		*out = INT64_MAX;
		return 0;
	}
	if (relative(out, s, now) == 0)
		return 0;
	if (fgit_date_parse(out, &tz, s) == 0)
		return 0;
	fgit_error_clear();
	/* a date alone: approxidate keeps the current time of day */
	if (strlen(s) == 10 && s[4] == '-' && s[7] == '-') {
		char buf[64];
		time_t t = (time_t)now;
		struct tm tm;
		localtime_r(&t, &tm);
		snprintf(buf, sizeof(buf), "%s %02d:%02d:%02d", s, tm.tm_hour, tm.tm_min, tm.tm_sec);
		if (fgit_date_parse(out, &tz, buf) == 0)
			return 0;
	}
	return fgit_error_set(FGIT_EINVALID, "malformed expiration date '%s'", s);
}
