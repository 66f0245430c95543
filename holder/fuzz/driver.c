/*
 * driver.c -- runs the fuzz target without libFuzzer (when clang is not
 * there): every file given (or in a directory given), then random inputs
 * and mutations of the seeds for -seconds=N.  Weaker than libFuzzer, but
 * the target still runs under ASan/UBSan on every build machine.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "holder.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_SEEDS 256
#define MAX_INPUT_BYTES (140 * 1024)

static uint8_t *seeds[MAX_SEEDS];
static size_t seed_lengths[MAX_SEEDS];
static int seed_count;
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t
next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void
run_file(const char *path)
{
	static uint8_t buf[MAX_INPUT_BYTES];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (f == NULL)
		return;
	n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	if (seed_count < MAX_SEEDS && (seeds[seed_count] = malloc(n + 1))) {
		memcpy(seeds[seed_count], buf, n);
		seed_lengths[seed_count++] = n;
	}
}

static void
run_path(const char *path)
{
	struct stat st;
	struct dirent *e;
	DIR *d;
	char full[4096];

	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		run_file(path);
		return;
	}
	if ((d = opendir(path)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(full, sizeof full, "%s/%s", path, e->d_name);
		run_file(full);
	}
	closedir(d);
}

/* A seed with a few bytes changed, or plain noise when there is none. */
static size_t
make_input(uint8_t *out)
{
	size_t n = next_random() % 4096;

	if (seed_count > 0 && next_random() % 4 != 0) {
		int k = (int)(next_random() % (uint64_t)seed_count);

		n = seed_lengths[k];
		memcpy(out, seeds[k], n);
		for (int i = 0; n > 0 && i < 1 + (int)(next_random() % 8); i++)
			out[next_random() % n] = (uint8_t)next_random();
		return n;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = (uint8_t)next_random();
	return n;
}

int
main(int argc, char **argv)
{
	static uint8_t input[MAX_INPUT_BYTES];
	long seconds = 10;
	time_t end;
	unsigned long runs = 0;

	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], "-seconds=", 9) == 0)
			seconds = atol(argv[i] + 9);
		else
			run_path(argv[i]);
	}
	end = time(NULL) + seconds;
	while (time(NULL) < end) {
		for (int i = 0; i < 1000; i++, runs++)
			LLVMFuzzerTestOneInput(input, make_input(input));
	}
	printf("frame-fuzz: %lu random runs, %d seeds, no failure\n", runs,
	    seed_count);
	return 0;
}
