/* Internal layout of the repository handle (lib/repo only). */
#ifndef FGIT_LIB_REPO_H
#define FGIT_LIB_REPO_H

#include <pthread.h>
#include "fgit/repo.h"

struct fgit_repo {
	char *git_dir;			/* absolute */
	char *common_dir;		/* absolute */
	char *work_tree;		/* absolute, NULL if none */
	char *prefix;			/* "" or "a/b/" */
	char *git_dir_display;
	char *common_dir_display;
	int bare;
	int inside_work_tree;
	int inside_git_dir;
	int algo;
	int from_start_dir;		/* paths relative to the cwd are no good */
	struct fgit_config *config;
	struct fgit_config *local;	/* the repository's config file alone (setup) */

	pthread_mutex_t lock;		/* guards the lazily opened parts */
	struct fgit_odb *odb;
	void (*odb_free)(struct fgit_odb *);
	struct fgit_refdb *refdb;
	void (*refdb_free)(struct fgit_refdb *);
};

#endif
