/*
 * Test tool: convert a file as `git add` would with the given attribute
 * values and config, print the blob id, warnings to stderr.
 *   convert [--text=set|unset|auto] [--eol=lf|crlf] [--ident]
 *           [--autocrlf=true|false|input] [--core-eol=lf|crlf]
 *           [--safecrlf=true|false|warn] [--index-cr] PATH FILE
 */
#include <stdio.h>
#include <string.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/convert.h"
#include "fgit/hash.h"

static int index_cr;
static int has_cr(const char *path, void *p) { return index_cr; }
static void warn(const char *msg, void *p) { fprintf(stderr, "warning: %s\n", msg); }

int main(int argc, char **argv)
{
	struct fgit_conv_attrs a = { 0 };
	struct fgit_conv_config c = FGIT_CONV_CONFIG_INIT;
	struct fgit_conv_hooks h = { .index_has_cr = has_cr, .warn = warn };
	struct fgit_buf in = FGIT_BUF_INIT, out = FGIT_BUF_INIT;
	struct fgit_oid oid;
	char hex[FGIT_MAX_HEXSZ + 1];
	int i, r;

	for (i = 1; i < argc && !strncmp(argv[i], "--", 2); i++) {
		const char *o = argv[i];
		if (!strcmp(o, "--text=set")) a.text = FGIT_TEXT_SET;
		else if (!strcmp(o, "--text=unset")) a.text = FGIT_TEXT_UNSET;
		else if (!strcmp(o, "--text=auto")) a.text = FGIT_TEXT_AUTO;
		else if (!strcmp(o, "--eol=lf")) a.eol = FGIT_EOL_LF;
		else if (!strcmp(o, "--eol=crlf")) a.eol = FGIT_EOL_CRLF;
		else if (!strcmp(o, "--ident")) a.ident = 1;
		else if (!strcmp(o, "--autocrlf=true")) c.autocrlf = FGIT_AUTOCRLF_TRUE;
		else if (!strcmp(o, "--autocrlf=input")) c.autocrlf = FGIT_AUTOCRLF_INPUT;
		else if (!strcmp(o, "--autocrlf=false")) c.autocrlf = FGIT_AUTOCRLF_FALSE;
		else if (!strcmp(o, "--core-eol=lf")) c.core_eol = FGIT_EOL_LF;
		else if (!strcmp(o, "--core-eol=crlf")) c.core_eol = FGIT_EOL_CRLF;
		else if (!strcmp(o, "--safecrlf=true")) c.safecrlf = FGIT_SAFECRLF_TRUE;
		else if (!strcmp(o, "--safecrlf=false")) c.safecrlf = FGIT_SAFECRLF_FALSE;
		else if (!strcmp(o, "--safecrlf=warn")) c.safecrlf = FGIT_SAFECRLF_WARN;
		else if (!strcmp(o, "--index-cr")) index_cr = 1;
		else return 2;
	}
	if (argc - i != 2 || fgit_buf_read_file(&in, argv[i + 1]))
		return 2;
	r = fgit_convert_to_git(&out, argv[i], in.ptr, in.len, &a, &c,
				FGIT_CONV_CHECK_ROUNDTRIP, &h);
	if (r < 0) {
		fprintf(stderr, "fatal: %s\n", fgit_error_last());
		return 128;
	}
	if (r > 0)
		fgit_hash_object(&oid, FGIT_HASH_SHA1, FGIT_OBJ_BLOB, out.ptr, out.len);
	else
		fgit_hash_object(&oid, FGIT_HASH_SHA1, FGIT_OBJ_BLOB, in.ptr, in.len);
	printf("%s\n", fgit_oid_to_hex(hex, &oid));
	return 0;
}
