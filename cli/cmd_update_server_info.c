/* git update-server-info: info/refs and objects/info/packs for dumb transports. */
#include "cli.h"
#include "fgit/repack.h"

static const char *const usi_usage[] = {
	"git update-server-info [--force]",
	NULL
};

CLI_CMD(update_server_info)
{
	int force = 0;
	struct cli_option opts[] = {
		OPT_BOOL('f', "force", &force, "update the info files from scratch"),
		OPT_END(),
	};
	if (cli_parse_options(argc, argv, "update-server-info", opts, usi_usage, 0))
		cli_usage_with_options(usi_usage, opts, 0);
	if (fgit_update_server_info(cli_repo(), force) < 0)
		die_last();
	return 0;
}
