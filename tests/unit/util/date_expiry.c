#include <stdlib.h>
#include "unit.h"
#include "fgit/common.h"
#include "fgit/date.h"

#define NOW ((int64_t)1764547200)	/* 2025-12-01 00:00:00 UTC */

static int64_t expiry(const char *s)
{
	int64_t t = -1;
	return fgit_date_parse_expiry(&t, s, NOW) == 0 ? t : -2;	/* -2: refused */
}

TEST(date_expiry, keywords)
{
	CHECK(expiry("never") == 0);
	CHECK(expiry("false") == 0);
	CHECK(expiry("now") == INT64_MAX);
	CHECK(expiry("all") == INT64_MAX);
}

TEST(date_expiry, relative)
{
	CHECK(expiry("2.weeks.ago") == NOW - 14 * 86400);
	CHECK(expiry("2 weeks ago") == NOW - 14 * 86400);
	CHECK(expiry("90.days.ago") == NOW - 90 * 86400);
	CHECK(expiry("1.hour.ago") == NOW - 3600);
	CHECK(expiry("30.minutes") == NOW - 1800);
	CHECK(expiry("1.day.12.hours.ago") == NOW - 86400 - 12 * 3600);
}

TEST(date_expiry, months_are_calendar_months)
{
	setenv("TZ", "UTC", 1);
	/* 2025-12-01 minus three months is 2025-09-01 */
	CHECK(expiry("3.months.ago") == (int64_t)1756684800);
	CHECK(expiry("1.year.ago") == (int64_t)1733011200);
}

TEST(date_expiry, absolute_and_bad)
{
	int64_t t;
	CHECK(expiry("2005-04-07 22:13:13 +0000") == (int64_t)1112911993);
	setenv("TZ", "UTC", 1);
	CHECK(expiry("2001-01-01") == (int64_t)978307200);	/* NOW's time of day: 00:00 */
	CHECK(fgit_date_parse_expiry(&t, "2.fortnights.ago", NOW) == FGIT_EINVALID);
	CHECK(fgit_date_parse_expiry(&t, "garbage", NOW) == FGIT_EINVALID);
}
