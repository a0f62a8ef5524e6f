/*
 * The subcommands fgit implements: X(name-as-typed, c_identifier).
 * Keep sorted.  Each lives in cli/cmd_<c_identifier>.c.
 */
#define FGIT_COMMANDS(X) \
	X("cat-file", cat_file) \
	X("count-objects", count_objects) \
	X("hash-object", hash_object) \
	X("index-pack", index_pack) \
	X("init", init) \
	X("init-db", init) \
	X("rev-parse", rev_parse) \
	X("show-index", show_index) \
	X("show-ref", show_ref) \
	X("symbolic-ref", symbolic_ref) \
	X("verify-pack", verify_pack) \
	X("version", version)
