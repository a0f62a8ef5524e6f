#include <stdlib.h>
#include <unistd.h>
#include "unit.h"
#include "fgit/common.h"
#include "fgit/config.h"

static struct fgit_config *load(const char *text)
{
	struct fgit_config *cfg;
	if (fgit_config_new(&cfg))
		return NULL;
	if (fgit_config_add_buffer(cfg, text, strlen(text), "test", FGIT_CONFIG_SCOPE_LOCAL, NULL)) {
		fgit_config_free(cfg);
		return NULL;
	}
	return cfg;
}

TEST(config, values_quotes_escapes_continuations)
{
	struct fgit_config *cfg = load(
		"# comment\n"
		"[Core]\n"
		"\tBare = false ; trailing comment\n"
		"\tname = \"  spaced  \" and  more \n"
		"\tesc = a\\tb\\\\c\\\"d\\n\n"
		"\tcont = one \\\n  two\n"
		"\tflag\n"
		"[remote \"Origin\"]\n url = x#y\n"
		"[a.B] c = 1\r\n");
	const char *v;
	CHECK(cfg);
	CHECK(fgit_config_get_string(&v, cfg, "core.bare") == 0 && !strcmp(v, "false"));
	CHECK(fgit_config_get_string(&v, cfg, "core.name") == 0 && !strcmp(v, "  spaced   and  more"));
	CHECK(fgit_config_get_string(&v, cfg, "core.esc") == 0 && !strcmp(v, "a\tb\\c\"d\n"));
	CHECK(fgit_config_get_string(&v, cfg, "core.cont") == 0 && !strcmp(v, "one   two"));
	CHECK(fgit_config_get_string(&v, cfg, "core.flag") == 0 && v == NULL);
	CHECK(fgit_config_get_string(&v, cfg, "remote.Origin.url") == 0 && !strcmp(v, "x"));
	CHECK(fgit_config_get_string(&v, cfg, "remote.origin.url") == FGIT_ENOTFOUND);
	CHECK(fgit_config_get_string(&v, cfg, "a.b.c") == 0 && !strcmp(v, "1"));
	fgit_config_free(cfg);
}

TEST(config, booleans_and_integers)
{
	struct fgit_config *cfg = load("[t]\n a = yes\n b = off\n c\n d = 2\n e = maybe\n"
				       " k = 4k\n m = 3M\n g = 1g\n bad = 12x\n big = 99999999999g\n");
	int b;
	int64_t n;
	CHECK(cfg);
	CHECK(fgit_config_get_bool(&b, cfg, "t.a") == 0 && b == 1);
	CHECK(fgit_config_get_bool(&b, cfg, "t.b") == 0 && b == 0);
	CHECK(fgit_config_get_bool(&b, cfg, "t.c") == 0 && b == 1);
	CHECK(fgit_config_get_bool(&b, cfg, "t.d") == 0 && b == 1);
	CHECK(fgit_config_get_bool(&b, cfg, "t.e") == FGIT_EINVALID);
	CHECK(fgit_config_get_int64(&n, cfg, "t.k") == 0 && n == 4096);
	CHECK(fgit_config_get_int64(&n, cfg, "t.m") == 0 && n == 3 * 1024 * 1024);
	CHECK(fgit_config_get_int64(&n, cfg, "t.g") == 0 && n == 1024LL * 1024 * 1024);
	CHECK(fgit_config_get_int64(&n, cfg, "t.bad") == FGIT_EINVALID);
	CHECK(strstr(fgit_error_last(), "invalid unit"));
	CHECK(fgit_config_get_int64(&n, cfg, "t.big") == FGIT_EINVALID);
	CHECK(strstr(fgit_error_last(), "out of range"));
	fgit_config_free(cfg);
}

TEST(config, syntax_errors_name_the_line)
{
	struct fgit_config *cfg;
	const char *bad[] = { "[core]\n\tx = \"open\n", "[core\n", "[s]\n 1x = 2\n",
			      "[s]\n\ta = b\\q\n", NULL };
	int lines[] = { 2, 1, 2, 2 };
	int i;
	for (i = 0; bad[i]; i++) {
		char want[64];
		CHECK(fgit_config_new(&cfg) == 0);
		CHECK(fgit_config_add_buffer(cfg, bad[i], strlen(bad[i]), "blob",
					     FGIT_CONFIG_SCOPE_LOCAL, NULL) == FGIT_EINVALID);
		snprintf(want, sizeof(want), "bad config line %d in blob", lines[i]);
		CHECK_MSG(!strcmp(fgit_error_last(), want), "%d: %s", i, fgit_error_last());
		fgit_config_free(cfg);
	}
}

TEST(config, last_value_wins_and_get_all)
{
	struct fgit_config *cfg = load("[x]\n v = 1\n v = 2\n[x]\n v = 3\n");
	const char *v;
	CHECK(cfg);
	CHECK(fgit_config_get_string(&v, cfg, "x.v") == 0 && !strcmp(v, "3"));
	fgit_config_free(cfg);
}

TEST(config, env_parameters)
{
	struct fgit_config *cfg;
	const char *v;
	setenv("GIT_CONFIG_PARAMETERS", "'a.b'='it'\\''s' 'C.D=e=f' 'bare.key'", 1);
	setenv("GIT_CONFIG_COUNT", "1", 1);
	setenv("GIT_CONFIG_KEY_0", "x.Y", 1);
	setenv("GIT_CONFIG_VALUE_0", "z", 1);
	CHECK(fgit_config_new(&cfg) == 0);
	CHECK(fgit_config_add_env(cfg) == 0);
	CHECK(fgit_config_get_string(&v, cfg, "a.b") == 0 && !strcmp(v, "it's"));
	CHECK(fgit_config_get_string(&v, cfg, "c.d") == 0 && !strcmp(v, "e=f"));
	CHECK(fgit_config_get_string(&v, cfg, "bare.key") == 0 && v == NULL);
	CHECK(fgit_config_get_string(&v, cfg, "x.y") == 0 && !strcmp(v, "z"));
	fgit_config_free(cfg);
	unsetenv("GIT_CONFIG_PARAMETERS");
	unsetenv("GIT_CONFIG_COUNT");
}

TEST(config, canonical_keys)
{
	char *k = fgit_config_canonical_key("Remote.OrIgin.URL");
	CHECK(k && !strcmp(k, "remote.OrIgin.url"));
	free(k);
	CHECK(!fgit_config_canonical_key("nosection"));
	CHECK(!fgit_config_canonical_key("a.1b"));
	CHECK(!fgit_config_canonical_key("a."));
}

TEST(config, set_in_file)
{
	char path[] = "/tmp/fgit-unit-config-XXXXXX";
	int fd = mkstemp(path);
	struct fgit_buf;
	FILE *f;
	char buf[512];
	size_t n;
	const char *orig = "[core]\n\tbare = false\n# keep me\n[user]\n\tname = A\n";
	CHECK(fd >= 0);
	CHECK(write(fd, orig, strlen(orig)) == (ssize_t)strlen(orig));
	close(fd);
	CHECK(fgit_config_set_in_file(path, "core.bare", "true") == 0);
	CHECK(fgit_config_set_in_file(path, "core.filemode", "true") == 0);
	CHECK(fgit_config_set_in_file(path, "remote.o\"x.url", " sp;ace ") == 0);
	f = fopen(path, "r");
	CHECK(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	unlink(path);
	CHECK_MSG(!strcmp(buf, "[core]\n\tbare = true\n\tfilemode = true\n# keep me\n[user]\n\tname = A\n"
			  "[remote \"o\\\"x\"]\n\turl = \" sp;ace \"\n"), "%s", buf);
}

static int collect(const char *key, const char *value, void *payload)
{
	char *out = payload;
	size_t n = strlen(out);
	snprintf(out + n, 256 - n, "%s=%s;", key, value ? value : "(null)");
	return !strcmp(key, "stop.here") ? 7 : 0;
}

TEST(config, parse_buffer_without_includes)
{
	const char *text = "[include]\n\tpath = /etc/passwd\n[Submodule \"A b\"]\n\tURL = x\n\tbare\n";
	char out[256] = "";
	CHECK(fgit_config_parse_buffer(text, strlen(text), collect, out) == 0);
	CHECK_MSG(!strcmp(out, "include.path=/etc/passwd;submodule.A b.url=x;submodule.A b.bare=(null);"),
		  "%s", out);
	out[0] = 0;
	CHECK(fgit_config_parse_buffer("[a]\nb = 1\n[bad\n", 15, collect, out) == FGIT_EINVALID);
	CHECK(!strcmp(out, "a.b=1;") && !strcmp(fgit_error_last(), "bad config line 3"));
	out[0] = 0;
	CHECK(fgit_config_parse_buffer("[stop]\nhere\nx.y = 1\n", 20, collect, out) == 7);
	CHECK(!strcmp(out, "stop.here=(null);"));
}
