/*
 * Pack writing options from the configuration, shared by pack-objects and
 * repack: pack.window, pack.depth, pack.threads, pack.windowMemory,
 * pack.compression (else core.compression), core.bigFileThreshold,
 * pack.writeReverseIndex.
 */
#ifndef FGIT_CLI_PACK_SETUP_H
#define FGIT_CLI_PACK_SETUP_H

struct fgit_config;
struct fgit_pack_objects_options;

void cli_pack_options_from_config(struct fgit_pack_objects_options *o,
				  struct fgit_config *cfg, int *write_rev);

#endif
