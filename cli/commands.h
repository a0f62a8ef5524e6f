/*
 * The subcommands fgit implements: X(name-as-typed, c_identifier).
 * Keep sorted.  Each lives in cli/cmd_<c_identifier>.c.
 */
#define FGIT_COMMANDS(X) \
	X("init", init) \
	X("init-db", init) \
	X("ls-tree", ls_tree) \
	X("rev-parse", rev_parse) \
	X("show-ref", show_ref) \
	X("symbolic-ref", symbolic_ref) \
	X("version", version)
