/*
 * A very small unit-test harness.  Each tests/unit/<module>/<topic>.c is one
 * program; its cases are functions registered with TEST(suite, name) and run
 * in order (or only those named on the command line as suite::name).  Each
 * case prints "PASS suite::name" or "FAIL suite::name: why"; the runner
 * counts those lines.
 */
#ifndef FGIT_UNIT_H
#define FGIT_UNIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct unit_case {
	const char *label;
	void (*fn)(void);
};

#define UNIT_MAX_CASES 256
static struct unit_case unit_cases[UNIT_MAX_CASES];
static int unit_ncases;
static int unit_failed_now;

#define TEST(suite, name) \
	static void test_##suite##__##name(void); \
	__attribute__((constructor)) static void reg_##suite##__##name(void) \
	{ \
		if (unit_ncases < UNIT_MAX_CASES) { \
			unit_cases[unit_ncases].label = #suite "::" #name; \
			unit_cases[unit_ncases++].fn = test_##suite##__##name; \
		} \
	} \
	static void test_##suite##__##name(void)

#define CHECK(cond) do { \
	if (!(cond)) { \
		printf("  %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		unit_failed_now = 1; \
		return; \
	} \
} while (0)

#define CHECK_MSG(cond, ...) do { \
	if (!(cond)) { \
		printf("  %s:%d: ", __FILE__, __LINE__); \
		printf(__VA_ARGS__); \
		printf("\n"); \
		unit_failed_now = 1; \
		return; \
	} \
} while (0)

int main(int argc, char **argv)
{
	int i, j, failed = 0;
	for (i = 0; i < unit_ncases; i++) {
		if (argc > 1) {
			int want = 0;
			for (j = 1; j < argc; j++)
				if (!strcmp(argv[j], unit_cases[i].label))
					want = 1;
			if (!want)
				continue;
		}
		unit_failed_now = 0;
		unit_cases[i].fn();
		printf("%s %s\n", unit_failed_now ? "FAIL" : "PASS", unit_cases[i].label);
		fflush(stdout);
		failed += unit_failed_now;
	}
	return failed ? 1 : 0;
}

#endif
