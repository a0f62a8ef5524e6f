/* Test tool: print "<seconds> <+hhmm>" for a date string, as git var would. */
#include <stdio.h>
#include <stdlib.h>
#include "fgit/common.h"
#include "fgit/date.h"

int main(int argc, char **argv)
{
	int64_t t;
	int tz;
	if (argc != 2)
		return 2;
	if (fgit_date_parse(&t, &tz, argv[1])) {
		fprintf(stderr, "fatal: %s\n", fgit_error_last());
		return 128;
	}
	printf("%lld %c%04d\n", (long long)t, tz < 0 ? '-' : '+', abs(tz));
	return 0;
}
