/* git version: fgit speaks git 2.39's dialect, and says so the same way. */
#include <stdio.h>
#include <string.h>
#include "cli.h"

#define FGIT_GIT_VERSION "2.39.5"
#define FGIT_VERSION "0.1.0"

static const char *const usage[] = { "git version [<options>]", NULL };

CLI_CMD(version)
{
	int build_options = 0;
	struct cli_option opts[] = {
		OPT_BOOL(0, "build-options", &build_options,
			 "also print build options"),
		OPT_END(),
	};
	cli_parse_options(argc, argv, "version", opts, usage, 0);
	printf("git version %s\n", FGIT_GIT_VERSION);
	if (build_options) {
		printf("cpu: x86_64\n");
		printf("fgit: %s\n", FGIT_VERSION);
		printf("sizeof-long: %zu\n", sizeof(long));
		printf("sizeof-size_t: %zu\n", sizeof(size_t));
		printf("shell-path: /bin/sh\n");
	}
	return 0;
}
