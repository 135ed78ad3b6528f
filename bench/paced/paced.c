/*
 * paced: an open-loop HTTP/1.1 load generator at a fixed offered rate (issue 15's "gateway p99
 * overhead at a fixed offered rate").
 *
 * Request i is due at start + i / rate, whatever happened to the ones before it. It goes out on
 * an idle keep-alive connection at once, or waits in a queue until one is free; its latency runs
 * from when it was due, not from when it was sent, so a server that falls behind is charged for
 * the queue it causes (the coordinated omission a closed-loop or ticker-paced client hides).
 * Written in C so that the generator costs the two shared cores little and keeps its pace: a
 * Node generator on the same cores measured mostly its own event-loop lag.
 *
 * paced --url http://127.0.0.1:8080/path --rate 2000 --seconds 10 [--connections 64]
 *       [--header 'name: value']...
 * prints one JSON object: offered and achieved rates, counts by status, errors, requests never
 * sent before the end, and latency percentiles in milliseconds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNECTIONS 1024
#define BUFFER_BYTES 65536
#define MAX_STATUS 600

enum body_mode { BODY_NONE, BODY_LENGTH, BODY_CHUNKED };

struct conn {
  int fd;
  int busy;
  uint64_t due_ns;
  char buf[BUFFER_BYTES];
  size_t len;
  int headers_done;
  int status;
  int close_after;
  enum body_mode mode;
  size_t body_start;
  size_t need; /* BODY_LENGTH: bytes of body still expected */
  size_t pos;  /* BODY_CHUNKED: where the next chunk-size line starts */
};

static struct conn conns[MAX_CONNECTIONS];
static int nconns = 64;
static int epfd;
static struct addrinfo *target;
static char request[8192];
static size_t request_len;

static uint64_t *latencies;
static size_t nlat, caplat;
static uint64_t status_counts[MAX_STATUS];
static uint64_t errors;

/* due times of requests waiting for a free connection (a ring) */
static uint64_t *queue;
static size_t qcap, qhead, qlen;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die(const char *what) {
  fprintf(stderr, "paced: %s\n", what);
  exit(2);
}

static void record(uint64_t ns) {
  if (nlat == caplat) {
    caplat = caplat ? caplat * 2 : 65536;
    latencies = realloc(latencies, caplat * sizeof *latencies);
    if (!latencies) die("out of memory");
  }
  latencies[nlat++] = ns;
}

static void reset_response(struct conn *c) {
  c->len = 0;
  c->headers_done = 0;
  c->status = 0;
  c->close_after = 0;
  c->mode = BODY_NONE;
  c->body_start = c->need = c->pos = 0;
}

static void open_conn(struct conn *c) {
  c->fd = socket(target->ai_family, SOCK_STREAM, 0);
  if (c->fd < 0) die("socket");
  if (connect(c->fd, target->ai_addr, target->ai_addrlen) < 0) die("connect refused");
  int one = 1;
  setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
  struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP, .data.ptr = c};
  if (epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &ev) < 0) die("epoll_ctl");
  c->busy = 0;
  reset_response(c);
}

static void reopen(struct conn *c) {
  epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
  close(c->fd);
  open_conn(c);
}

static int send_on(struct conn *c, uint64_t due) {
  ssize_t n = send(c->fd, request, request_len, MSG_NOSIGNAL);
  if (n != (ssize_t)request_len) { /* a short write of a small request: count it and start over */
    errors++;
    reopen(c);
    return 0;
  }
  c->busy = 1;
  c->due_ns = due;
  return 1;
}

static struct conn *idle_conn(void) {
  static int next;
  for (int k = 0; k < nconns; k++) {
    struct conn *c = &conns[(next + k) % nconns];
    if (!c->busy) {
      next = (next + k + 1) % nconns;
      return c;
    }
  }
  return NULL;
}

static void enqueue(uint64_t due) {
  if (qlen == qcap) die("queue overflow");
  queue[(qhead + qlen++) % qcap] = due;
}

static void dispatch(void) {
  while (qlen) {
    struct conn *c = idle_conn();
    if (!c) return;
    uint64_t due = queue[qhead];
    qhead = (qhead + 1) % qcap;
    qlen--;
    send_on(c, due);
  }
}

/* Parses what has arrived; returns 1 once the whole response is in. */
static int response_complete(struct conn *c) {
  if (!c->headers_done) {
    char *end = memmem(c->buf, c->len, "\r\n\r\n", 4);
    if (!end) return 0;
    c->headers_done = 1;
    c->body_start = (size_t)(end - c->buf) + 4;
    if (c->len < 12 || strncmp(c->buf, "HTTP/1.", 7) != 0) return -1;
    c->status = atoi(c->buf + 9);
    c->mode = BODY_NONE;
    for (char *line = strstr(c->buf, "\r\n") + 2; line < end; line = strstr(line, "\r\n") + 2) {
      if (strncasecmp(line, "content-length:", 15) == 0) {
        c->mode = BODY_LENGTH;
        c->need = strtoul(line + 15, NULL, 10);
      } else if (strncasecmp(line, "transfer-encoding:", 18) == 0 && strcasestr(line, "chunked") && strcasestr(line, "chunked") < strstr(line, "\r\n")) {
        c->mode = BODY_CHUNKED;
        c->pos = c->body_start;
      } else if (strncasecmp(line, "connection:", 11) == 0 && strcasestr(line, "close") && strcasestr(line, "close") < strstr(line, "\r\n")) {
        c->close_after = 1;
      }
    }
  }
  if (c->mode == BODY_NONE) return 1;
  if (c->mode == BODY_LENGTH) return c->len - c->body_start >= c->need;
  for (;;) { /* chunked: walk the chunks that have fully arrived */
    char *eol = memmem(c->buf + c->pos, c->len - c->pos, "\r\n", 2);
    if (!eol) return 0;
    size_t size = strtoul(c->buf + c->pos, NULL, 16);
    size_t data = (size_t)(eol - c->buf) + 2;
    if (size == 0) return memmem(c->buf + data - 2, c->len - (data - 2), "\r\n\r\n", 4) != NULL;
    if (c->len < data + size + 2) return 0;
    c->pos = data + size + 2;
  }
}

static void on_readable(struct conn *c, uint64_t now) {
  for (;;) {
    if (c->len == sizeof c->buf) { /* a response larger than the buffer: keep only the tail's framing */
      if (c->mode != BODY_LENGTH) {
        errors++;
        reopen(c);
        return;
      }
      size_t have = c->len - c->body_start;
      c->need -= have;
      c->len = c->body_start = 0;
    }
    ssize_t n = recv(c->fd, c->buf + c->len, sizeof c->buf - c->len, 0);
    if (n > 0) {
      c->len += (size_t)n;
      int done = response_complete(c);
      if (done < 0) {
        errors++;
        reopen(c);
        return;
      }
      if (done) {
        if (c->busy) {
          record(now - c->due_ns);
          if (c->status > 0 && c->status < MAX_STATUS) status_counts[c->status]++;
        }
        int close_after = c->close_after;
        c->busy = 0;
        reset_response(c);
        if (close_after) reopen(c);
      }
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    /* closed or failed: a request in flight is lost */
    if (c->busy) errors++;
    reopen(c);
    return;
  }
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static double pct(double p) {
  if (!nlat) return 0;
  size_t i = (size_t)(p / 100.0 * (double)nlat);
  if (i >= nlat) i = nlat - 1;
  return (double)latencies[i] / 1e6;
}

int main(int argc, char **argv) {
  const char *url = NULL;
  double rate = 0, seconds = 0;
  char headers[4096] = "";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--url")) url = argv[i + 1];
    else if (!strcmp(argv[i], "--rate")) rate = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--seconds")) seconds = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--connections")) nconns = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--header")) {
      if (strlen(headers) + strlen(argv[i + 1]) + 3 >= sizeof headers) die("headers too long");
      strcat(headers, argv[i + 1]);
      strcat(headers, "\r\n");
    } else die("unknown option");
  }
  if (!url || rate <= 0 || seconds <= 0 || nconns < 1 || nconns > MAX_CONNECTIONS) die("usage: paced --url http://host:port/path --rate R --seconds S [--connections C] [--header 'k: v']...");
  if (strncmp(url, "http://", 7) != 0) die("only http:// URLs");
  char host[256], port[16] = "80";
  const char *hp = url + 7, *slash = strchr(hp, '/');
  const char *path = slash ? slash : "/";
  size_t hlen = slash ? (size_t)(slash - hp) : strlen(hp);
  if (hlen >= sizeof host) die("host too long");
  memcpy(host, hp, hlen);
  host[hlen] = 0;
  char *colon = strrchr(host, ':');
  if (colon) {
    snprintf(port, sizeof port, "%s", colon + 1);
    *colon = 0;
  }
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
  if (getaddrinfo(host, port, &hints, &target) != 0) die("cannot resolve host");
  request_len = (size_t)snprintf(request, sizeof request, "GET %s HTTP/1.1\r\nHost: %s:%s\r\n%s\r\n", path, host, port, headers);
  if (request_len >= sizeof request) die("request too long");
  signal(SIGPIPE, SIG_IGN);

  uint64_t total = (uint64_t)(rate * seconds);
  qcap = total + 1;
  queue = malloc(qcap * sizeof *queue);
  if (!queue) die("out of memory");
  epfd = epoll_create1(0);
  for (int i = 0; i < nconns; i++) open_conn(&conns[i]);

  uint64_t interval = (uint64_t)(1e9 / rate);
  uint64_t start = now_ns(), end = start + (uint64_t)(seconds * 1e9), issued = 0;
  struct epoll_event events[256];
  for (;;) {
    uint64_t now = now_ns();
    while (issued < total && start + issued * interval <= now) enqueue(start + issued++ * interval);
    dispatch();
    int inflight = 0;
    for (int i = 0; i < nconns; i++) inflight += conns[i].busy;
    if (issued >= total && !inflight) break;
    if (now > end + 2000000000ull) break; /* answers still missing 2 s after the end: given up */
    uint64_t next = start + issued * interval;
    uint64_t wait = issued < total ? (next > now ? next - now : 0) : 10000000ull;
    struct timespec ts = {.tv_sec = (time_t)(wait / 1000000000ull), .tv_nsec = (long)(wait % 1000000000ull)};
    int n = epoll_pwait2(epfd, events, 256, &ts, NULL);
    now = now_ns();
    for (int k = 0; k < n; k++) on_readable(events[k].data.ptr, now);
  }
  double elapsed = (double)(now_ns() - start) / 1e9;
  uint64_t inflight = 0;
  for (int i = 0; i < nconns; i++) inflight += conns[i].busy;
  qsort(latencies, nlat, sizeof *latencies, cmp_u64);

  printf("{\"offered_rate\":%.1f,\"rate\":%.1f,\"seconds\":%.3f,\"completed\":%zu,\"errors\":%lu,\"unanswered\":%lu,\"unsent\":%zu,\"status\":{",
         rate, (double)nlat / seconds, elapsed, nlat, (unsigned long)errors, (unsigned long)inflight, qlen);
  int first = 1;
  for (int s = 0; s < MAX_STATUS; s++)
    if (status_counts[s]) {
      printf("%s\"%d\":%lu", first ? "" : ",", s, (unsigned long)status_counts[s]);
      first = 0;
    }
  printf("},\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"p999\":%.3f,\"max\":%.3f}\n", pct(50), pct(90), pct(99), pct(99.9), nlat ? (double)latencies[nlat - 1] / 1e6 : 0.0);
  return 0;
}
