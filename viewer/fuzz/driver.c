/*
 * driver.c -- a stand-in for libFuzzer where clang's is missing: the same
 * target (viewer_fuzz.c), built with ASan and UBSan by the system cc, run
 * on each seed given (files, or the files of a directory), then on seeds
 * changed at random (bytes set, flipped, inserted, dropped, two seeds
 * joined) and on plain noise until -seconds=N have passed.  No coverage
 * guidance, so far weaker than libFuzzer; it still puts every build
 * machine's compiler and sanitizers on the target.  Each input is handed
 * over in an allocation of exactly its size, so ASan sees a read past it.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "viewer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define DRIVER_MAX_SEEDS 512
#define DRIVER_MAX_INPUT_BYTES (256 * 1024)
#define DRIVER_NOISE_MAX_BYTES 2048
#define DRIVER_RUNS_PER_CLOCK_CHECK 256

struct seed {
	uint8_t *bytes;
	size_t len;
};

static struct seed seeds[DRIVER_MAX_SEEDS];
static size_t seed_count;
static uint64_t random_state = UINT64_C(0x2545f4914f6cdd1d);

/* xorshift64*: cheap, and the same sequence on every run (a failure can be found again). */
static uint64_t
random_next(void)
{
	random_state ^= random_state >> 12;
	random_state ^= random_state << 25;
	random_state ^= random_state >> 27;
	return random_state * UINT64_C(0x2545f4914f6cdd1d);
}

static size_t
random_below(size_t n)
{
	return n == 0 ? 0 : (size_t)(random_next() % n);
}

static void
run_exact(const uint8_t *p, size_t n)
{
	uint8_t *copy = malloc(n > 0 ? n : 1);

	if (copy == NULL)
		return;
	memcpy(copy, p, n);
	LLVMFuzzerTestOneInput(copy, n);
	free(copy);
}

static void
run_seed_file(const char *path)
{
	static uint8_t bytes[DRIVER_MAX_INPUT_BYTES];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (f == NULL) {
		fprintf(stderr, "viewer-fuzz: cannot read %s\n", path);
		return;
	}
	n = fread(bytes, 1, sizeof bytes, f);
	fclose(f);
	run_exact(bytes, n);
	if (seed_count < DRIVER_MAX_SEEDS) {
		struct seed *s = &seeds[seed_count];

		if ((s->bytes = malloc(n > 0 ? n : 1)) != NULL) {
			memcpy(s->bytes, bytes, n);
			s->len = n;
			seed_count++;
		}
	}
}

static void
run_seeds(const char *path)
{
	struct stat st;
	DIR *dir;
	struct dirent *e;
	char child[4096];

	if (stat(path, &st) != 0) {
		fprintf(stderr, "viewer-fuzz: no such seed file or directory: %s\n", path);
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		run_seed_file(path);
		return;
	}
	if ((dir = opendir(path)) == NULL)
		return;
	while ((e = readdir(dir)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(child, sizeof child, "%s/%s", path, e->d_name);
		run_seed_file(child);
	}
	closedir(dir);
}

/* One changed seed (or noise) into out; its length. */
static size_t
next_input(uint8_t *out)
{
	size_t n;

	if (seed_count == 0 || random_below(8) == 0) {
		n = random_below(DRIVER_NOISE_MAX_BYTES);
		for (size_t i = 0; i < n; i++)
			out[i] = (uint8_t)random_next();
		return n;
	}
	{
		const struct seed *s = &seeds[random_below(seed_count)];

		n = s->len;
		memcpy(out, s->bytes, n);
	}
	for (size_t edits = 1 + random_below(4); edits > 0; edits--) {
		size_t at = random_below(n + 1);

		switch (random_below(6)) {
		case 0:		/* set a byte */
			if (n > 0)
				out[random_below(n)] = (uint8_t)random_next();
			break;
		case 1:		/* flip a bit */
			if (n > 0)
				out[random_below(n)] ^= (uint8_t)(1u << random_below(8));
			break;
		case 2:		/* insert a byte */
			if (n < DRIVER_MAX_INPUT_BYTES) {
				memmove(out + at + 1, out + at, n - at);
				out[at] = (uint8_t)random_next();
				n++;
			}
			break;
		case 3:		/* drop a run */
			if (at < n) {
				size_t run = 1 + random_below(n - at < 16 ? n - at : 16);

				memmove(out + at, out + at + run, n - at - run);
				n -= run;
			}
			break;
		case 4:		/* cut the end */
			n = at;
			break;
		default: {	/* another seed's tail after this one's head */
			const struct seed *t = &seeds[random_below(seed_count)];
			size_t from = random_below(t->len + 1), take = t->len - from;

			if (take > DRIVER_MAX_INPUT_BYTES - at)
				take = DRIVER_MAX_INPUT_BYTES - at;
			memcpy(out + at, t->bytes + from, take);
			n = at + take;
			break;
		}
		}
	}
	return n;
}

int
main(int argc, char **argv)
{
	static uint8_t input[DRIVER_MAX_INPUT_BYTES];
	long seconds = 10;
	unsigned long runs = 0;
	time_t until;

	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], "-seconds=", 9) == 0)
			seconds = strtol(argv[i] + 9, NULL, 10);
		else
			run_seeds(argv[i]);
	}
	until = time(NULL) + seconds;
	while (time(NULL) < until) {
		for (int i = 0; i < DRIVER_RUNS_PER_CLOCK_CHECK; i++, runs++)
			run_exact(input, next_input(input));
	}
	printf("viewer-fuzz: %zu seeds and %lu changed or random inputs, no failure\n", seed_count, runs);
	for (size_t i = 0; i < seed_count; i++)
		free(seeds[i].bytes);
	return 0;
}
