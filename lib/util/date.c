/*
 * Date parsing (see include/fgit/date.h).  A small tokenizer: each token is
 * a time (has ':'), a date (digits joined by '-', '/' or '.'), a zone
 * (+hhmm, a zone name), a month or weekday name, or a bare number whose
 * size says what it is (epoch seconds, a year, a day).  Calendar arithmetic
 * is done by hand in UTC (days from civil), so the result never depends on
 * the process's TZ except where the input names no zone.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "fgit/common.h"
#include "fgit/date.h"

static const char *const months[] = {
	"january", "february", "march", "april", "may", "june", "july",
	"august", "september", "october", "november", "december",
};
static const char *const weekdays[] = {
	"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
};
static const struct {
	const char *name;
	int minutes;	/* offset east of UTC */
	int dst;
} zones[] = {
	{ "UTC", 0, 0 }, { "UT", 0, 0 }, { "GMT", 0, 0 }, { "Z", 0, 0 },
	{ "WET", 0, 0 }, { "BST", 0, 1 }, { "CET", 60, 0 }, { "MET", 60, 0 },
	{ "MEWT", 60, 0 }, { "MEST", 60, 1 }, { "CEST", 60, 1 }, { "MESZ", 60, 1 },
	{ "FWT", 60, 0 }, { "FST", 60, 1 }, { "EET", 120, 0 }, { "EEST", 120, 1 },
	{ "WAST", 420, 0 }, { "WADT", 420, 1 }, { "CCT", 480, 0 }, { "JST", 540, 0 },
	{ "EAST", 600, 0 }, { "EADT", 600, 1 }, { "GST", 600, 0 }, { "NZT", 720, 0 },
	{ "NZST", 720, 0 }, { "NZDT", 720, 1 }, { "IDLE", 720, 0 },
	{ "IDLW", -720, 0 }, { "NT", -660, 0 }, { "HST", -600, 0 }, { "YST", -540, 0 },
	{ "PST", -480, 0 }, { "PDT", -480, 1 }, { "MST", -420, 0 }, { "MDT", -420, 1 },
	{ "CST", -360, 0 }, { "CDT", -360, 1 }, { "EST", -300, 0 }, { "EDT", -300, 1 },
	{ "AST", -240, 0 }, { "ADT", -240, 1 }, { "WAT", -60, 0 },
};

/* Days since 1970-01-01 of a proleptic Gregorian date (month 1..12). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;
	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int fgit_local_tz_offset(int64_t t)
{
	time_t tt = (time_t)t;
	struct tm lt, gt;
	int64_t diff;
	if (!localtime_r(&tt, &lt) || !gmtime_r(&tt, &gt))
		return 0;
	diff = (days_from_civil(lt.tm_year + 1900, lt.tm_mon + 1, lt.tm_mday) -
		days_from_civil(gt.tm_year + 1900, gt.tm_mon + 1, gt.tm_mday)) * 1440 +
	       (lt.tm_hour - gt.tm_hour) * 60 + (lt.tm_min - gt.tm_min);
	return (int)(diff / 60 * 100 + (diff < 0 ? -(-diff % 60) : diff % 60));
}

struct parsed {
	int year, month, day;		/* -1 unknown */
	int hour, min, sec;
	int tz_min;			/* offset east, minutes */
	int have_tz;
	int pm, am;
};

static int match_name(const char *tok, size_t len, const char *const *names, int n)
{
	int i;
	if (len < 3)
		return -1;
	for (i = 0; i < n; i++)
		if (len <= strlen(names[i]) && !strncasecmp(tok, names[i], len))
			return i;
	return -1;
}

static int alpha_token(struct parsed *p, const char *t, size_t len)
{
	int i;
	for (i = 0; i < (int)(sizeof(zones) / sizeof(zones[0])); i++)
		if (strlen(zones[i].name) == len && !strncasecmp(t, zones[i].name, len)) {
			p->tz_min = zones[i].minutes + (zones[i].dst ? 60 : 0);
			p->have_tz = 1;
			return 0;
		}
	if ((i = match_name(t, len, months, 12)) >= 0) {
		p->month = i + 1;
		return 0;
	}
	if (match_name(t, len, weekdays, 7) >= 0)
		return 0;
	if (len == 2 && !strncasecmp(t, "PM", 2)) {
		p->pm = 1;
		return 0;
	}
	if (len == 2 && !strncasecmp(t, "AM", 2)) {
		p->am = 1;
		return 0;
	}
	return -1;
}

static int set_date(struct parsed *p, long a, long b, long c, char sep)
{
	/* YYYY-MM-DD, YYYY/MM/DD, YYYY.MM.DD */
	if (a > 31) {
		p->year = (int)a;
		p->month = (int)b;
		p->day = (int)c;
	} else if (sep == '.') {	/* DD.MM.YYYY */
		p->day = (int)a;
		p->month = (int)b;
		p->year = (int)c;
	} else {			/* MM/DD/YYYY, MM-DD-YYYY */
		p->month = (int)a;
		p->day = (int)b;
		p->year = (int)c;
	}
	if (p->year < 100)
		p->year += p->year < 70 ? 2000 : 1900;
	return p->month >= 1 && p->month <= 12 && p->day >= 1 && p->day <= 31 ? 0 : -1;
}

static int numeric_token(struct parsed *p, const char *t, size_t len, int64_t *epoch)
{
	char buf[64];
	char *end;
	long a, b, c;

	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, t, len);
	buf[len] = 0;
	if (strchr(buf, ':')) {
		int n;
		double sec = 0;
		n = sscanf(buf, "%ld:%ld:%lf", &a, &b, &sec);
		if (n < 2 || a > 24 || b > 59 || sec >= 61)
			return -1;
		p->hour = (int)a;
		p->min = (int)b;
		p->sec = (int)sec;
		return 0;
	}
	a = strtol(buf, &end, 10);
	if (*end == '-' || *end == '/' || *end == '.') {
		char sep = *end;
		b = strtol(end + 1, &end, 10);
		if (*end != sep)
			return -1;
		c = strtol(end + 1, &end, 10);
		if (*end)
			return -1;
		return set_date(p, a, b, c, sep);
	}
	if (*end)
		return -1;
	if (len >= 9) {			/* seconds since the epoch */
		*epoch = strtoll(buf, NULL, 10);
		return 0;
	}
	if (len == 4 && a >= 1970 && a < 2100 && p->year < 0) {
		p->year = (int)a;
		return 0;
	}
	if (a >= 1 && a <= 31 && p->day < 0) {
		p->day = (int)a;
		return 0;
	}
	return -1;
}

static int zone_token(struct parsed *p, const char *t, size_t len)
{
	int sign = t[0] == '-' ? -1 : 1, hh, mm;
	size_t i, nd = 0;
	char d[4];

	for (i = 1; i < len; i++) {
		if (t[i] == ':' && nd == 2)
			continue;
		if (!isdigit((unsigned char)t[i]) || nd == 4)
			return -1;
		d[nd++] = t[i];
	}
	if (nd == 2) {
		hh = (d[0] - '0') * 10 + d[1] - '0';
		mm = 0;
	} else if (nd == 4) {
		hh = (d[0] - '0') * 10 + d[1] - '0';
		mm = (d[2] - '0') * 10 + d[3] - '0';
	} else {
		return -1;
	}
	if (mm > 59)
		return -1;
	p->tz_min = sign * (hh * 60 + mm);
	p->have_tz = 1;
	return 0;
}

int fgit_date_parse(int64_t *time_out, int *tz_out, const char *s)
{
	struct parsed p = { -1, -1, -1, -1, -1, 0, 0, 0, 0, 0 };
	int64_t epoch = -1, t;
	const char *c = s;

	if (*c == '@') {
		char *end;
		epoch = strtoll(c + 1, &end, 10);
		if (end == c + 1)
			goto bad;
		c = end;
	}
	while (*c) {
		const char *st;
		size_t len;
		int r;

		if (isspace((unsigned char)*c) || *c == ',') {
			c++;
			continue;
		}
		st = c;
		if ((*c == '+' || *c == '-') && isdigit((unsigned char)c[1])) {
			for (c++; isdigit((unsigned char)*c) || *c == ':'; c++)
				;
			r = zone_token(&p, st, (size_t)(c - st));
		} else if (isalpha((unsigned char)*c)) {
			while (isalpha((unsigned char)*c))
				c++;
			r = alpha_token(&p, st, (size_t)(c - st));
		} else if (isdigit((unsigned char)*c)) {
			/* an ISO "T" joins a date and a time; "Z" may end it */
			while (isdigit((unsigned char)*c) || *c == ':' || *c == '-' ||
			       *c == '/' || *c == '.') {
				if (*c == '-' && strchr(st, ':') && strchr(st, ':') < c)
					break;	/* 22:13:13-0700 */
				c++;
			}
			len = (size_t)(c - st);
			r = numeric_token(&p, st, len, &epoch);
			if (!r && (*c == 'T' || *c == 't') && isdigit((unsigned char)c[1]))
				c++;
		} else {
			goto bad;
		}
		if (r)
			goto bad;
	}

	if (epoch >= 0 && p.year < 0 && p.hour < 0) {
		t = epoch;
	} else {
		if (p.year < 0 || p.month < 0 || p.day < 0 || p.hour < 0)
			goto bad;
		if (p.pm && p.hour < 12)
			p.hour += 12;
		if (p.am && p.hour == 12)
			p.hour = 0;
		t = days_from_civil(p.year, p.month, p.day) * 86400 +
		    p.hour * 3600 + p.min * 60 + p.sec;
		if (p.have_tz) {
			t -= (int64_t)p.tz_min * 60;
		} else {
			/* local wall time: find the offset in force then */
			int off = fgit_local_tz_offset(t), m;
			m = (off / 100) * 60 + off % 100;
			t -= (int64_t)m * 60;
			off = fgit_local_tz_offset(t);	/* near a DST switch */
			p.tz_min = (off / 100) * 60 + off % 100;
			t = days_from_civil(p.year, p.month, p.day) * 86400 +
			    p.hour * 3600 + p.min * 60 + p.sec - (int64_t)p.tz_min * 60;
			p.have_tz = 1;
		}
	}
	if (!p.have_tz) {
		int off = fgit_local_tz_offset(t);
		p.tz_min = (off / 100) * 60 + off % 100;
	}
	*time_out = t;
	*tz_out = (p.tz_min / 60) * 100 + p.tz_min % 60;
	return 0;
bad:
	return fgit_error_set(FGIT_EINVALID, "invalid date format: %s", s);
}

/* "<n>.<unit>.ago": seconds back from now, or -1 if s is not that form. */
static int64_t relative_seconds(const char *s, int64_t now)
{
	static const struct { const char *name; int64_t secs; int months; } units[] = {
		{ "second", 1, 0 }, { "minute", 60, 0 }, { "hour", 3600, 0 },
		{ "day", 86400, 0 }, { "week", 7 * 86400, 0 }, { "month", 0, 1 },
		{ "year", 0, 12 },
	};
	int64_t total = 0;
	int any = 0;

	while (*s) {
		char *end;
		long long n;
		size_t i, len;

		while (*s == '.' || *s == ' ')
			s++;
		if (!*s)
			break;
		if (!strncasecmp(s, "ago", 3) && (!s[3] || s[3] == '.' || s[3] == ' ')) {
			s += 3;
			continue;
		}
		if (!isdigit((unsigned char)*s))
			return -1;
		n = strtoll(s, &end, 10);
		s = end;
		while (*s == '.' || *s == ' ')
			s++;
		for (len = 0; isalpha((unsigned char)s[len]); len++)
			;
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			size_t ul = strlen(units[i].name);
			if ((len == ul || (len == ul + 1 && (s[ul] | 32) == 's')) &&
			    !strncasecmp(s, units[i].name, ul))
				break;
		}
		if (i == sizeof(units) / sizeof(units[0]) || n < 0 || n > 1000000000)
			return -1;
		if (units[i].months) {
			/* calendar months, as git's approxidate steps tm_mon */
			time_t t = (time_t)(now - total);
			struct tm tm;
			localtime_r(&t, &tm);
			tm.tm_mon -= (int)(n * units[i].months);
			tm.tm_isdst = -1;
			total = now - (int64_t)mktime(&tm);
		} else {
			total += (int64_t)n * units[i].secs;
		}
		s += len;
		any = 1;
	}
	return any ? total : -1;
}

int fgit_date_parse_expiry(int64_t *out, const char *s, int64_t now)
{
	int64_t back;
	int tz;

	if (!strcmp(s, "never") || !strcmp(s, "false")) {
		*out = 0;
		return 0;
	}
	if (!strcmp(s, "all") || !strcmp(s, "now")) {
		*out = INT64_MAX;
		return 0;
	}
	back = relative_seconds(s, now);
	if (back >= 0) {
		*out = now - back;
		return 0;
	}
	if (!fgit_date_parse(out, &tz, s))
		return 0;
	/* a date alone ("2001-01-01"): approxidate keeps the time of day of now */
	if (strlen(s) == 10 && s[4] == '-' && s[7] == '-') {
		char buf[64];
		time_t t = (time_t)now;
		struct tm tm;
		localtime_r(&t, &tm);
		snprintf(buf, sizeof(buf), "%s %02d:%02d:%02d", s, tm.tm_hour, tm.tm_min, tm.tm_sec);
		if (!fgit_date_parse(out, &tz, buf))
			return 0;
	}
	return fgit_error_set(FGIT_EINVALID, "invalid date format: %s", s);
}
