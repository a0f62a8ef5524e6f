/*
 * Set-up shared by add and commit: pathspecs from the command line or a
 * file, the staging options from the configuration, the standard ignore
 * rules, the index write options.
 */
#ifndef FGIT_CLI_ADD_SETUP_H
#define FGIT_CLI_ADD_SETUP_H

#include <stddef.h>

struct fgit_repo;
struct fgit_add_options;
struct fgit_ignore;
struct fgit_index_write_opts;

/*
 * The pathspec arguments: argv[0..*n) as given, or with
 * --pathspec-from-file the elements read from that file ("-": standard
 * input), one per line (C-quoted lines unquoted) or NUL-separated with
 * --pathspec-file-nul.  Dies with git's messages for the conflicts.
 */
const char **cli_pathspec_args(size_t *n, const char **argv, const char *from_file, int nul);
/* FGIT_PATHSPEC_* flags from GIT_LITERAL_PATHSPECS and friends. */
unsigned cli_pathspec_flags(void);
/* Staging options: odb, attributes, conversion and stat config, workdir. */
void cli_add_options(struct fgit_add_options *o, struct fgit_repo *repo, const char *workdir);
/* The standard excludes (core.excludesFile, info/exclude, .gitignore),
 * with core.ignorecase; workdir ".". */
struct fgit_ignore *cli_standard_ignore(struct fgit_repo *repo);
/*
 * The messages of an add event that every command prints the same way
 * (warnings, filter errors, fatal conversion errors, a file that could
 * not be read: "error: <why>" lines then "error: unable to index file").
 * Returns 1 when it printed something for a failed path, 0 otherwise.
 */
enum fgit_add_event;
int cli_add_report_common(enum fgit_add_event ev, const char *path, const char *msg);
/* index.version, index.threads, index.recordEndOfIndexEntries, ... */
void cli_index_write_opts(struct fgit_index_write_opts *wo, struct fgit_repo *repo);

#endif
