/* Pack writing options from the configuration: see pack_setup.h. */
#include "cli.h"
#include "pack_setup.h"
#include "fgit/config.h"
#include "fgit/pack.h"

void cli_pack_options_from_config(struct fgit_pack_objects_options *o,
				  struct fgit_config *cfg, int *write_rev)
{
	int v;
	int64_t v64;

	if (!fgit_config_get_int(&v, cfg, "pack.window"))
		o->window = v;
	if (!fgit_config_get_int(&v, cfg, "pack.depth"))
		o->depth = v;
	if (!fgit_config_get_int(&v, cfg, "pack.threads"))
		o->nthreads = v;
	if (!fgit_config_get_int64(&v64, cfg, "pack.windowmemory") && v64 >= 0)
		o->window_memory = (uint64_t)v64;
	if (!fgit_config_get_int(&v, cfg, "core.compression"))
		o->compression = v;
	if (!fgit_config_get_int(&v, cfg, "pack.compression"))
		o->compression = v;
	if (o->compression < 0)
		o->compression = -1;
	if (!fgit_config_get_int64(&v64, cfg, "core.bigfilethreshold") && v64 > 0)
		o->big_file_threshold = (uint64_t)v64;
	*write_rev = 0;
	if (!fgit_config_get_bool(&v, cfg, "pack.writereverseindex"))
		*write_rev = v;
}
