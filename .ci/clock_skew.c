/* The wall clock shifted by the number of seconds in a file, for `make test-clock-skew`.
 *
 * LD_PRELOAD'ed into the test run: CLOCK_REALTIME (clock_gettime, gettimeofday,
 * time) reads GC_CLOCK_SKEW_FILE's signed seconds off the real time; monotonic
 * clocks, sleeps and waits are untouched. The conftest writes 0 there once
 * collection is over, so a timestamp taken at import or collection is stale by
 * the skew when a test uses it. libfaketime does this too, but its sleep
 * wrappers answer EINVAL to Python 3.11's clock_nanosleep on Debian 12.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static int (*real_clock_gettime)(clockid_t, struct timespec *);

static long skew_seconds(void) {
    const char *path = getenv("GC_CLOCK_SKEW_FILE");
    long seconds = 0;
    FILE *file;
    if (path == NULL || (file = fopen(path, "r")) == NULL) return 0;
    if (fscanf(file, "%ld", &seconds) != 1) seconds = 0;
    fclose(file);
    return seconds;
}

int clock_gettime(clockid_t clock, struct timespec *ts) {
    if (real_clock_gettime == NULL) real_clock_gettime = dlsym(RTLD_NEXT, "clock_gettime");
    int rc = real_clock_gettime(clock, ts);
    if (rc == 0 && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE)) {
        ts->tv_sec += skew_seconds();
    }
    return rc;
}

int gettimeofday(struct timeval *tv, void *tz) {
    struct timespec ts;
    (void)tz;
    if (tv == NULL) return 0;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return -1;
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = ts.tv_nsec / 1000;
    return 0;
}

time_t time(time_t *out) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (out != NULL) *out = ts.tv_sec;
    return ts.tv_sec;
}
