/* git show-index: list the entries of an .idx read from standard input. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "fgit/buf.h"
#include "fgit/pack.h"

static const char *const usage[] = {
	"git show-index [--object-format=<hash-algorithm>]",
	NULL
};

static int show(const struct fgit_idx_entry *e, int has_crc, void *payload)
{
	char hex[FGIT_MAX_HEXSZ + 1];
	fgit_oid_to_hex(hex, &e->oid);
	if (has_crc)
		printf("%" PRIu64 " %s (%08" PRIx32 ")\n", e->offset, hex, e->crc32);
	else
		printf("%" PRIu64 " %s\n", e->offset, hex);
	return 0;
}

CLI_CMD(show_index)
{
	const char *object_format = NULL;
	struct fgit_buf b = FGIT_BUF_INIT;
	struct cli_option opts[] = {
		OPT_STRING(0, "object-format", &object_format, "hash-algorithm",
			   "specify the hash algorithm to use"),
		OPT_END(),
	};

	if (cli_parse_options(argc, argv, "show-index", opts, usage, 0))
		cli_usage_with_options(usage, opts, 0);
	if (object_format && strcmp(object_format, "sha1"))
		die_unimplemented("show-index", "--object-format");
	if (fgit_buf_read_fd(&b, 0, 1 << 20))
		die_errno("read error");
	if (fgit_idx_parse((const unsigned char *)b.ptr, b.len, FGIT_HASH_SHA1, show, NULL))
		die_last();
	fgit_buf_release(&b);
	return 0;
}
