/*
 * Dates as git takes them for GIT_AUTHOR_DATE, GIT_COMMITTER_DATE and
 * --date: raw "<seconds> <+hhmm>", "@<seconds>", ISO 8601, RFC 2822 and the
 * looser forms git's parser accepts (a date and a time in any order, month
 * names, time-zone names).  A date without a time is invalid, as in git.
 */
#ifndef FGIT_DATE_H
#define FGIT_DATE_H

#include <stdint.h>

/*
 * Parse `s` into seconds since the epoch and a zone offset written as git
 * writes it (-0700 is -700).  When `s` names no zone, the local zone's
 * offset at that moment is used.  Returns 0, or FGIT_EINVALID (message
 * "invalid date format: <s>").
 */
int fgit_date_parse(int64_t *time_out, int *tz_out, const char *s);

/*
 * An expiry date as git's parse_expiry_date reads it: "never"/"false" give
 * 0 (nothing is older), "now"/"all" INT64_MAX (everything is), "<n>.<unit>
 * .ago" (seconds to years; months and years by the calendar) counts back
 * from `now`, anything else is an absolute date.  FGIT_EINVALID
 * ("malformed expiration date '<s>'").
 * NEEDSWORK: main has its own fgit_date_parse_expiry (lib/util/date.c);
 * when both meet, keep main's and delete lib/util/expiry.c.
 */
int fgit_date_parse_expiry(int64_t *out, const char *s, int64_t now);

/* The local zone's offset (as +hhmm integer) at time t. */
int fgit_local_tz_offset(int64_t t);

#endif
