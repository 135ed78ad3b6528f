/*
 * stalls: how long the machine holds a process that asks for nothing but the time.
 *
 * It sleeps until the next millisecond, again and again, and measures how late each wake-up
 * comes. A process with no work of its own is late only when the kernel or the hypervisor does
 * not run it: the stalls every process on the machine shares, whatever its code (issue 15's
 * gateway p99 overhead is read against them). It asks for real-time scheduling (SCHED_FIFO)
 * so that the other processes' load does not delay it; without the privilege it runs as an
 * ordinary process and says so, and its lateness then includes waiting for a core.
 *
 * A wake-up that comes late starts the schedule again from itself, so one stall is counted
 * once, not as every tick it covered.
 *
 * stalls --seconds 10 [--period-ms 1]
 * prints one JSON object: whether it ran real-time, the wake-ups, lateness percentiles and the
 * longest in milliseconds, how many wake-ups were more than 2, 5 and 10 ms late, and the
 * milliseconds lost to lateness beyond 1 ms.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double percentile(const double *sorted, size_t n, double p) {
  if (n == 0) return 0;
  size_t i = (size_t)(p / 100.0 * (double)(n - 1) + 0.5);
  return sorted[i < n ? i : n - 1];
}

int main(int argc, char **argv) {
  double seconds = 10, period_ms = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--seconds") == 0) seconds = atof(argv[i + 1]);
    else if (strcmp(argv[i], "--period-ms") == 0) period_ms = atof(argv[i + 1]);
    else {
      fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (seconds <= 0 || seconds > 3600 || period_ms < 0.1 || period_ms > 1000) {
    fprintf(stderr, "--seconds must be in (0, 3600] and --period-ms in [0.1, 1000]\n");
    return 2;
  }
  struct sched_param sp = {.sched_priority = 10};
  int realtime = sched_setscheduler(0, SCHED_FIFO, &sp) == 0;

  uint64_t period = (uint64_t)(period_ms * 1e6);
  size_t cap = (size_t)(seconds * 1000.0 / period_ms) + 16;
  double *late = malloc(cap * sizeof(double));
  if (!late) return 1;
  size_t n = 0;
  size_t over2 = 0, over5 = 0, over10 = 0;
  double lost = 0;

  uint64_t start = now_ns(), end = start + (uint64_t)(seconds * 1e9), due = start;
  while (n < cap) {
    due += period;
    if (due > end) break;
    struct timespec ts = {.tv_sec = (time_t)(due / 1000000000ull), .tv_nsec = (long)(due % 1000000000ull)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0) {
    }
    uint64_t woke = now_ns();
    double ms = (double)(woke - due) / 1e6;
    late[n++] = ms;
    if (ms > 2) over2++;
    if (ms > 5) over5++;
    if (ms > 10) over10++;
    if (ms > 1) {
      lost += ms - 1;
      due = woke; /* one stall, counted once */
    }
  }
  qsort(late, n, sizeof(double), compare);
  printf("{\"realtime\":%s,\"seconds\":%.3f,\"wakeups\":%zu,\"p50\":%.3f,\"p99\":%.3f,\"p999\":%.3f,\"max\":%.3f,"
         "\"over_2ms\":%zu,\"over_5ms\":%zu,\"over_10ms\":%zu,\"lost_ms\":%.1f}\n",
         realtime ? "true" : "false", (double)(now_ns() - start) / 1e9, n, percentile(late, n, 50), percentile(late, n, 99),
         percentile(late, n, 99.9), n ? late[n - 1] : 0.0, over2, over5, over10, lost);
  free(late);
  return 0;
}
