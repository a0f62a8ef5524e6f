/*
 * Commit lookups through a git-written commit-graph give the same parents,
 * dates and trees as parsing the commits, and really come from the graph;
 * generation numbers match git's definition (corrected commit dates).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "fgit/commit_graph.h"
#include "fgit/common.h"
#include "fgit/odb.h"
#include "fgit/revwalk.h"

static char repo[256], objdir[300];
static struct fgit_oid commits[512];
static size_t ncommits;

TEST(graph, setup)
{
	char cmd[2048], line[128];
	FILE *f;
	snprintf(repo, sizeof(repo), "/tmp/fgit-unit-graph-%d", (int)getpid());
	snprintf(objdir, sizeof(objdir), "%s/.git/objects", repo);
	snprintf(cmd, sizeof(cmd),
		 "set -e; export GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent GIT_AUTHOR_NAME=A"
		 " GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@d;"
		 "rm -rf %s; git init -q -b main %s; cd %s;"
		 "for i in $(seq 1 60); do echo $i > f$((i %% 7)); git add .; "
		 " GIT_COMMITTER_DATE=\"@$((1600000000 + (i %% 13) * 1000)) +0000\" git commit -qm c$i;"
		 " if [ $((i %% 10)) = 0 ]; then for b in x y z; do git checkout -qb $b$i HEAD~2;"
		 "  echo $b$i > $b; git add $b; git commit -qm $b; done; git checkout -q main;"
		 "  git merge -q --no-edit x$i y$i z$i >/dev/null; fi; done;"
		 "git commit-graph write --reachable",
		 repo, repo, repo);
	CHECK(system(cmd) == 0);
	snprintf(cmd, sizeof(cmd), "git -C %s rev-list --all", repo);
	f = popen(cmd, "r");
	CHECK(f != NULL);
	while (ncommits < 512 && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		CHECK(fgit_oid_from_hex(&commits[ncommits++], line, FGIT_HASH_SHA1) == 0);
	}
	pclose(f);
	CHECK(ncommits > 80);
}

TEST(graph, lookups_match_parsing)
{
	struct fgit_odb *odb;
	struct fgit_revwalk *wg, *wp;
	char gpath[400], moved[400];
	size_t i;

	CHECK(fgit_odb_open(&odb, objdir, NULL) == 0);
	CHECK(fgit_revwalk_new(&wg, odb) == 0);
	for (i = 0; i < ncommits; i++) {
		struct fgit_commit_node *n;
		CHECK(fgit_revwalk_commit(&n, wg, &commits[i]) == 0);
	}
	CHECK(fgit_revwalk_graph_hits(wg) == ncommits);
	/* now without the graph: parse every commit */
	snprintf(gpath, sizeof(gpath), "%s/info/commit-graph", objdir);
	snprintf(moved, sizeof(moved), "%s/info/cg-away", objdir);
	CHECK(rename(gpath, moved) == 0);
	CHECK(fgit_revwalk_new(&wp, odb) == 0);
	for (i = 0; i < ncommits; i++) {
		struct fgit_commit_node *a, *b;
		struct fgit_oid ta, tb;
		uint32_t k;
		CHECK(fgit_revwalk_commit(&a, wg, &commits[i]) == 0);
		CHECK(fgit_revwalk_commit(&b, wp, &commits[i]) == 0);
		CHECK(a->date == b->date && a->nparents == b->nparents);
		for (k = 0; k < a->nparents; k++)
			CHECK(fgit_oid_equal(&a->parents[k]->oid, &b->parents[k]->oid));
		CHECK(fgit_revwalk_commit_tree(&ta, wg, a) == 0);
		CHECK(fgit_revwalk_commit_tree(&tb, wp, b) == 0);
		CHECK(fgit_oid_equal(&ta, &tb));
	}
	CHECK(fgit_revwalk_graph_hits(wp) == 0);
	/* generation: corrected commit date = max(date, parents' + 1) */
	for (i = 0; i < ncommits; i++) {
		struct fgit_commit_node *a;
		uint64_t g, pg, want;
		uint32_t k;
		CHECK(fgit_revwalk_commit(&a, wg, &commits[i]) == 0);
		CHECK(fgit_revwalk_generation(&g, wg, a) == 1);
		want = (uint64_t)a->date;
		for (k = 0; k < a->nparents; k++) {
			CHECK(fgit_revwalk_generation(&pg, wg, a->parents[k]) == 1);
			if (pg + 1 > want)
				want = pg + 1;
		}
		CHECK(g == want);
	}
	CHECK(rename(moved, gpath) == 0);
	fgit_revwalk_free(wg);
	fgit_revwalk_free(wp);
	fgit_odb_free(odb);
}

TEST(graph, hostile_graphs_rejected)
{
	char cmd[1024];
	struct fgit_commit_graph *g;
	snprintf(cmd, sizeof(cmd), "cd %s/info && chmod u+w commit-graph && cp commit-graph ok &&"
		 " head -c 60 ok > commit-graph", objdir);
	CHECK(system(cmd) == 0);
	CHECK(fgit_commit_graph_open(&g, objdir, FGIT_HASH_SHA1) == FGIT_EINVALID);
	/* a chunk offset pointing past the end */
	snprintf(cmd, sizeof(cmd), "cd %s/info && cp ok commit-graph &&"
		 " printf '\\377\\377\\377\\377' | dd of=commit-graph bs=1 seek=16 conv=notrunc"
		 " 2>/dev/null", objdir);
	CHECK(system(cmd) == 0);
	CHECK(fgit_commit_graph_open(&g, objdir, FGIT_HASH_SHA1) == FGIT_EINVALID);
	/* a walker ignores a bad graph and parses the commits */
	{
		struct fgit_odb *odb;
		struct fgit_revwalk *w;
		struct fgit_commit_node *n;
		CHECK(fgit_odb_open(&odb, objdir, NULL) == 0);
		CHECK(fgit_revwalk_new(&w, odb) == 0);
		CHECK(fgit_revwalk_commit(&n, w, &commits[0]) == 0);
		CHECK(fgit_revwalk_graph_hits(w) == 0);
		fgit_revwalk_free(w);
		fgit_odb_free(odb);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", repo);
	CHECK(system(cmd) == 0);
}
