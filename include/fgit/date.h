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
 * An expiry date as git's parse_expiry_date() takes it (gc.pruneExpire,
 * --expire=, gc.reflogExpire, splitIndex.sharedIndexExpire): "never" or
 * "false" give 0 (nothing expires), "all" or "now" INT64_MAX (everything
 * does), relative forms "<n>.<unit>.ago" / "<n> <unit> ago" (seconds,
 * minutes, hours, days, weeks, months, years; "." and " " alike, "ago"
 * optional) count back from `now`, and anything else is a date for
 * fgit_date_parse().  0 or FGIT_EINVALID ("invalid date format: <s>").
 */
int fgit_date_parse_expiry(int64_t *out, const char *s, int64_t now);

/* The local zone's offset (as +hhmm integer) at time t. */
int fgit_local_tz_offset(int64_t t);

#endif
