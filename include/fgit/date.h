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

/* The local zone's offset (as +hhmm integer) at time t. */
int fgit_local_tz_offset(int64_t t);

#endif
