/*
 * Shared by the odb unit tests: build a repository with git (the oracle)
 * and load what `git cat-file --batch-all-objects --batch` says it holds.
 */
#ifndef ODB_TEST_HELPER_H
#define ODB_TEST_HELPER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fgit/buf.h"
#include "fgit/object.h"
#include "fgit/oid.h"

struct ref_obj {
	struct fgit_oid oid;
	enum fgit_object_type type;
	char *data;
	size_t size;
};

static char test_repo[256];

/* A history with deltas (packed by git) plus some loose objects. */
static int make_repo(const char *tag)
{
	char cmd[2048];
	snprintf(test_repo, sizeof(test_repo), "/tmp/fgit-unit-%s-%d", tag, (int)getpid());
	snprintf(cmd, sizeof(cmd),
		 "set -e; export GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent "
		 "GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@d;"
		 "rm -rf %s; git init -q %s; cd %s;"
		 "for i in $(seq 1 40); do seq 1 $((i * 7)) > f; seq $i 500 > g$((i %% 4));"
		 " head -c $((i * 100)) /dev/zero | tr '\\0' x > big; mkdir -p d$((i %% 3));"
		 " echo $i > d$((i %% 3))/n; git add -A; git commit -qm c$i; done;"
		 "git tag -a -m tagmsg v1 HEAD; git repack -adq --depth=20 --window=10;"
		 "echo loose > l; git add l; git commit -qm loose >/dev/null",
		 test_repo, test_repo, test_repo);
	return system(cmd) == 0 ? 0 : -1;
}

static void remove_repo(void)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", test_repo);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", test_repo);
}

/* Every object of the repository as git reads it. */
static int load_reference(struct ref_obj **out, size_t *n_out)
{
	char cmd[512], hex[128], type[32];
	struct ref_obj *objs = NULL;
	size_t n = 0, alloc = 0;
	unsigned long size;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "git -C %s cat-file --batch-all-objects --batch", test_repo);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fscanf(f, "%127s %31s %lu", hex, type, &size) == 3) {
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 256;
			objs = realloc(objs, alloc * sizeof(*objs));
		}
		fgetc(f);
		fgit_oid_from_hex(&objs[n].oid, hex, FGIT_HASH_SHA1);
		objs[n].type = fgit_object_type_from_name(type, strlen(type));
		objs[n].size = size;
		objs[n].data = malloc(size + 1);
		if (fread(objs[n].data, 1, size, f) != size)
			break;
		fgetc(f);
		n++;
	}
	pclose(f);
	*out = objs;
	*n_out = n;
	return n ? 0 : -1;
}

static void free_reference(struct ref_obj *objs, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		free(objs[i].data);
	free(objs);
}

#endif
