/* git commit-graph: write (--reachable, --stdin-commits, --append, packs) and verify. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "fgit/buf.h"
#include "fgit/commit_graph.h"
#include "fgit/odb.h"
#include "fgit/refs.h"
#include "fgit/repo.h"

static const char *const cg_usage[] = {
	"git commit-graph verify [--object-dir <dir>] [--shallow] [--[no-]progress]",
	"git commit-graph write [--object-dir <dir>] [--append]\n"
	"                              [--split[=<strategy>]] [--reachable | --stdin-packs | --stdin-commits]\n"
	"                              [--changed-paths] [--[no-]max-new-filters <n>] [--[no-]progress]\n"
	"                              <split options>",
	NULL
};
static const char *const verify_usage[] = {
	"git commit-graph verify [--object-dir <dir>] [--shallow] [--[no-]progress]",
	NULL
};
static const char *const write_usage[] = {
	"git commit-graph write [--object-dir <dir>] [--append]\n"
	"                              [--split[=<strategy>]] [--reachable | --stdin-packs | --stdin-commits]\n"
	"                              [--changed-paths] [--[no-]max-new-filters <n>] [--[no-]progress]\n"
	"                              <split options>",
	NULL
};

static const char *object_dir;
static int progress = -1;

static void report(int level, const char *msg, void *payload)
{
	fflush(stdout);
	fprintf(stderr, "%s%s\n", level == 0 ? "warning: " : level == 1 ? "error: " : "", msg);
}

static void setup(struct fgit_commit_graph_options *o, struct fgit_buf *dir,
		  struct fgit_odb **odb)
{
	struct fgit_repo *repo = cli_repo();
	const char *env = getenv("GIT_OBJECT_DIRECTORY");
	if (object_dir)
		fgit_buf_adds(dir, object_dir);
	else if (env && *env)
		fgit_buf_adds(dir, env);
	else
		fgit_buf_addf(dir, "%s/objects", fgit_repo_common_dir(repo));
	if (fgit_repo_odb(odb, repo) < 0)
		die_last();
	o->algo = fgit_repo_algo(repo);
	if (progress < 0)
		progress = isatty(2);
	o->progress_fd = progress ? 2 : -1;
	o->report = report;
}

static int cmd_verify(int argc, const char **argv)
{
	int shallow = 0, r;
	struct cli_option opts[] = {
		OPT_STRING(0, "object-dir", &object_dir, "dir", "the object directory to store the graph"),
		OPT_BOOL(0, "shallow", &shallow, "if the commit-graph is split, only verify the tip file"),
		OPT_BOOL(0, "progress", &progress, "force progress reporting"),
		OPT_END(),
	};
	struct fgit_commit_graph_options o = FGIT_COMMIT_GRAPH_OPTIONS_INIT;
	struct fgit_buf dir = FGIT_BUF_INIT;
	struct fgit_odb *odb;

	if (cli_parse_options(argc, argv, "commit-graph verify", opts, verify_usage, 0))
		cli_usage_with_options(verify_usage, opts, 0);
	setup(&o, &dir, &odb);
	r = fgit_commit_graph_verify(dir.ptr, odb, &o);
	fgit_buf_release(&dir);
	if (r < 0)
		die_last();
	return r;
}

static int read_stdin_commits(struct fgit_oid **out, size_t *n, int algo)
{
	struct fgit_buf in = FGIT_BUF_INIT;
	struct fgit_oid *v;
	char *p, *end;
	size_t nr = 0;

	if (fgit_buf_read_fd(&in, 0, 4096) < 0)
		die_errno("read error");
	v = malloc((in.len / 2 + 1) * sizeof(*v));
	if (!v)
		die("out of memory");
	for (p = in.ptr, end = p + in.len; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		*nl = 0;
		if (nl > p) {
			size_t hexsz = fgit_hash_hexsz(algo);
			char hex[FGIT_MAX_HEXSZ + 1];
			if ((size_t)(nl - p) < hexsz)
				die("unexpected non-hex object ID: %s", p);
			memcpy(hex, p, hexsz);
			hex[hexsz] = 0;
			if (fgit_oid_from_hex(&v[nr], hex, algo) < 0)
				die("unexpected non-hex object ID: %s", p);
			nr++;
		}
		p = nl + 1;
	}
	fgit_buf_release(&in);
	*out = v;
	*n = nr;
	return 0;
}

static int cmd_write(int argc, const char **argv)
{
	int reachable = 0, stdin_packs = 0, stdin_commits = 0, append = 0, r;
	struct cli_option opts[] = {
		OPT_STRING(0, "object-dir", &object_dir, "dir", "the object directory to store the graph"),
		OPT_BOOL(0, "reachable", &reachable, "start walk at all refs"),
		OPT_BOOL(0, "stdin-packs", &stdin_packs, "scan pack-indexes listed by stdin for commits"),
		OPT_BOOL(0, "stdin-commits", &stdin_commits, "start walk at commits listed by stdin"),
		OPT_BOOL(0, "append", &append, "include all commits already in the commit-graph file"),
		OPT_UNIMPLEMENTED(0, "changed-paths"),
		OPT_UNIMPLEMENTED(0, "split"),
		OPT_UNIMPLEMENTED(0, "max-commits"),
		OPT_UNIMPLEMENTED(0, "size-multiple"),
		OPT_UNIMPLEMENTED(0, "expire-time"),
		OPT_UNIMPLEMENTED(0, "max-new-filters"),
		OPT_BOOL(0, "progress", &progress, "force progress reporting"),
		OPT_END(),
	};
	struct fgit_commit_graph_options o = FGIT_COMMIT_GRAPH_OPTIONS_INIT;
	struct fgit_buf dir = FGIT_BUF_INIT;
	struct fgit_oid *tips = NULL;
	struct fgit_odb *odb;
	size_t n = 0;

	if (cli_parse_options(argc, argv, "commit-graph write", opts, write_usage, 0))
		cli_usage_with_options(write_usage, opts, 0);
	if (reachable + stdin_packs + stdin_commits > 1)
		die("use at most one of --reachable, --stdin-commits, or --stdin-packs");
	if (stdin_packs)
		die_unimplemented("commit-graph write", "--stdin-packs");
	setup(&o, &dir, &odb);
	if (append)
		o.flags |= FGIT_CG_APPEND;
	if (reachable) {
		struct fgit_refdb *refs;
		if (fgit_repo_refdb(&refs, cli_repo()) < 0 ||
		    fgit_commit_graph_ref_tips(&tips, &n, refs) < 0)
			die_last();
	} else if (stdin_commits) {
		read_stdin_commits(&tips, &n, o.algo);
	} else if (fgit_commit_graph_pack_tips(&tips, &n, odb) < 0) {
		die_last();
	}
	r = fgit_commit_graph_write(dir.ptr, odb, tips, n, &o);
	free(tips);
	fgit_buf_release(&dir);
	if (r < 0)
		die_last();
	return 0;
}

CLI_CMD(commit_graph)
{
	struct cli_option common[] = {
		OPT_STRING(0, "object-dir", &object_dir, "dir", "the object directory to store the graph"),
		OPT_END(),
	};
	int n = cli_parse_options(argc, argv, "commit-graph", common, cg_usage,
				  CLI_PARSE_STOP_AT_NON_OPTION);
	if (!n) {
		fprintf(stderr, "error: need a subcommand\n");
		cli_usage_with_options(cg_usage, common, 0);
	}
	if (!strcmp(argv[0], "verify"))
		return cmd_verify(n, argv);
	if (!strcmp(argv[0], "write"))
		return cmd_write(n, argv);
	fprintf(stderr, "error: unknown subcommand: `%s'\n", argv[0]);
	cli_usage_with_options(cg_usage, common, 0);
}
