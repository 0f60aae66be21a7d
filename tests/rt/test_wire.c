/* test_wire.c: the remote protocol (src/rt/wire.c) and the remote target's
 * selector and connection (src/rt/rt_remote.c), without a device: fields
 * and RtDeviceInfo round trips, readers that run past their payload,
 * frames cut short or over the limit, the HOST:PORT forms, and a peer that
 * is not a convgen-server (it answers HELLO with an oversize frame, with
 * garbage, or not at all): a clear Diag every time, never a crash. */
#include "rt/rt_impl.h"
#include "rt/wire.h"
#include "test.h"

#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_fields(void) {
  WireBuf b;
  wire_init(&b);
  wire_u64(&b, 0x0102030405060708ull);
  wire_f64(&b, -1.25);
  wire_str(&b, "kernel");
  wire_str(&b, NULL);
  wire_bytes(&b, "\0\1\2", 3);
  CHECK(b.data[0] == 0x08 && b.data[7] == 0x01);   // little-endian whatever the host
  WireReader r = wire_reader(b.data, b.len);
  CHECK(wire_get_u64(&r) == 0x0102030405060708ull);
  CHECK(wire_get_f64(&r) == -1.25);
  char *s = wire_get_str(&r), *e = wire_get_str(&r);
  CHECK_STR(s, "kernel");
  CHECK_STR(e, "");
  free(s), free(e);
  size_t n = 0;
  const unsigned char *p = wire_get_bytes(&r, &n);
  CHECK(p && n == 3 && p[2] == 2);
  CHECK(wire_ok(&r));
  // one more field than there is: bad, and it stays bad
  CHECK(wire_get_u64(&r) == 0 && r.bad && !wire_ok(&r));
  // a string whose length runs past the payload, or is huge
  WireReader t = wire_reader(b.data, 8 + 8 + 8 + 3);
  wire_get_u64(&t), wire_get_f64(&t);
  CHECK(wire_get_str(&t) == NULL && t.bad);
  WireBuf h;
  wire_init(&h);
  wire_u64(&h, UINT64_MAX);
  WireReader u = wire_reader(h.data, h.len);
  CHECK(wire_get_bytes(&u, &n) == NULL && n == 0 && u.bad);
  // a payload with bytes left over is not ok
  WireReader v = wire_reader(b.data, b.len);
  wire_get_u64(&v);
  CHECK(!v.bad && !wire_ok(&v));
  wire_free(&b), wire_free(&h);
  CHECK_STR(wire_op_name(WIRE_ENQUEUE), "ENQUEUE");
  CHECK_STR(wire_op_name(999), "unknown");
}

static void test_info(void) {
  RtDeviceInfo a;
  memset(&a, 0, sizeof a);   // padding too: the two are compared byte by byte
  a.index = 3, a.is_gpu = true, a.compute_units = 132, a.max_wg_size = 1024;
  a.max_wi_sizes[0] = a.max_wi_sizes[1] = 1024, a.max_wi_sizes[2] = 64;
  a.local_mem = 49152, a.global_mem = 1ull << 37, a.max_alloc = 1ull << 35, a.clock_mhz = 1980, a.pref_float_width = 1;
  snprintf(a.platform, sizeof a.platform, "NVIDIA CUDA");
  snprintf(a.name, sizeof a.name, "NVIDIA H100");
  snprintf(a.driver, sizeof a.driver, "580.1");
  snprintf(a.extensions, sizeof a.extensions, "cl_khr_fp16 cl_khr_fp64");
  snprintf(a.platform_vendor, sizeof a.platform_vendor, "NVIDIA Corporation");
  WireBuf b;
  wire_init(&b);
  wire_info(&b, &a);
  RtDeviceInfo c;
  WireReader r = wire_reader(b.data, b.len);
  wire_get_info(&r, &c);
  CHECK(wire_ok(&r));
  CHECK(memcmp(&a, &c, sizeof a) == 0);   // both zeroed first: padding and string tails alike
  r = wire_reader(b.data, b.len - 1);     // cut short: bad, not a read past the end
  wire_get_info(&r, &c);
  CHECK(r.bad);
  wire_free(&b);
}

static void test_frames(void) {
  int sv[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  WireBuf b, in;
  wire_init(&b), wire_init(&in);
  wire_str(&b, "hello");
  Diag d = {0};
  CHECK(wire_send(sv[0], WIRE_BUILD, &b, &d));
  uint32_t head = 0;
  CHECK(wire_recv(sv[1], &head, &in, &d) == WIRE_RECV_OK);
  CHECK(head == WIRE_BUILD && in.len == b.len && memcmp(in.data, b.data, b.len) == 0);
  // a length over the limit: refused before anything is allocated for it
  unsigned char big[8] = {2, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
  CHECK(write(sv[0], big, sizeof big) == 8);
  Diag e = {0};
  CHECK(wire_recv(sv[1], &head, &in, &e) == WIRE_RECV_TOO_BIG);
  CHECK(strstr(e.msg, "over the protocol's limit") != NULL);
  // a frame cut short by the peer closing
  unsigned char cut[10] = {2, 0, 0, 0, 100, 0, 0, 0, 1, 2};
  CHECK(write(sv[0], cut, sizeof cut) == 10);
  close(sv[0]);
  Diag f = {0};
  CHECK(wire_recv(sv[1], &head, &in, &f) == WIRE_RECV_BROKEN);
  CHECK(strstr(f.msg, "cut short") != NULL);
  Diag g = {0};
  CHECK(wire_recv(sv[1], &head, &in, &g) == WIRE_RECV_CLOSED);
  close(sv[1]);
  // sending to a closed peer is an error, not a SIGPIPE
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  close(sv[1]);
  Diag h = {0};
  CHECK(!wire_send(sv[0], WIRE_HELLO, &b, &h) && h.set);
  close(sv[0]);
  wire_free(&b), wire_free(&in);
}

static void test_selector(void) {
  char host[256], port[6];
  CHECK(rt_remote_selector("127.0.0.1:9190", host, sizeof host, port));
  CHECK_STR(host, "127.0.0.1");
  CHECK_STR(port, "9190");
  CHECK(rt_remote_selector("board.local:1", host, sizeof host, port));
  CHECK(rt_remote_selector("[::1]:65535", host, sizeof host, port));
  CHECK_STR(host, "::1");
  const char *no[] = {"pocl", "0", "nvidia", ":9190", "host:", "host:0", "host:65536", "host:12a",
                      "::1:9190", "a b:9190", "[]:9190", "host:123456", "NVIDIA: 1", NULL};
  for (int i = 0; no[i]; i++) {
    bool remote = rt_remote_selector(no[i], host, sizeof host, port);
    CHECK(!remote);
    if (remote) fprintf(stderr, "  '%s' taken for HOST:PORT\n", no[i]);
  }
}

/* A listening socket on 127.0.0.1 (its port into *port) whose one client
 * gets `reply` (n bytes) after its first frame, from a child process. */
static pid_t fake_server(const void *reply, size_t n, int *port) {
  int lfd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(lfd, 1) < 0 ||
      getsockname(lfd, (struct sockaddr *)&a, &len) < 0)
    return -1;
  *port = ntohs(a.sin_port);
  pid_t pid = fork();
  if (pid == 0) {
    int fd = accept(lfd, NULL, NULL);
    WireBuf in;
    wire_init(&in);
    uint32_t head;
    Diag d = {0};
    wire_recv(fd, &head, &in, &d);
    if (n && write(fd, reply, n) < 0) _exit(1);
    sleep(n ? 1 : 3);   // (no reply: the client's timeout must end the wait)
    _exit(0);
  }
  close(lfd);
  return pid;
}

static void hostile(const void *reply, size_t n, const char *want) {
  int port = 0;
  pid_t pid = fake_server(reply, n, &port);
  CHECK(pid > 0);
  char sel[64];
  snprintf(sel, sizeof sel, "127.0.0.1:%d", port);
  Diag d = {0};
  RtDevice *dev = rt_open(sel, &d);
  CHECK(dev == NULL && d.kind == DIAG_DEVICE);
  CHECK(strstr(d.msg, sel) != NULL);
  if (!strstr(d.msg, want)) fprintf(stderr, "  got '%s', want '%s'\n", d.msg, want);
  CHECK(strstr(d.msg, want) != NULL);
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
}

static void test_hostile_peer(void) {
  unsigned char big[8] = {0, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f};
  hostile(big, sizeof big, "over the protocol's limit");
  unsigned char junk[12] = {0, 0, 0, 0, 4, 0, 0, 0, 1, 2, 3, 4};   // ok, and a payload HELLO's reply cannot be
  hostile(junk, sizeof junk, "malformed reply to HELLO");
  unsigned char refuse[8 + 8 + 5] = {3, 0, 0, 0, 13, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 'n', 'o', 'p', 'e', '!'};
  Diag d = {0};
  int port = 0;
  pid_t pid = fake_server(refuse, sizeof refuse, &port);
  char sel[64];
  snprintf(sel, sizeof sel, "127.0.0.1:%d", port);
  CHECK(!rt_select_info(sel, &(RtDeviceInfo){0}, &d));
  CHECK_STR(d.msg, "nope!");   // a server's refusal as it said it
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  setenv("CONVGEN_REMOTE_TIMEOUT", "0.5", 1);
  hostile(NULL, 0, "timed out");
  setenv("CONVGEN_REMOTE_TIMEOUT", "soon", 1);
  Diag t = {0};
  CHECK(!rt_open("127.0.0.1:9", &t) && strstr(t.msg, "CONVGEN_REMOTE_TIMEOUT"));
  unsetenv("CONVGEN_REMOTE_TIMEOUT");
  Diag c = {0};
  CHECK(!rt_open_target("cuda", "127.0.0.1:9190", &c) && c.kind == DIAG_USER && strstr(c.msg, "OpenCL only"));
}

/* A server that says HELLO properly, then goes: the device opens, and every
 * call after fails naming it, the same way each time, without a hang. */
static void test_dropped(void) {
  RtDeviceInfo info;
  memset(&info, 0, sizeof info);
  snprintf(info.name, sizeof info.name, "Far Away GPU");
  snprintf(info.platform, sizeof info.platform, "Far Away OpenCL");
  info.max_alloc = 1 << 20, info.max_wg_size = 256;
  WireBuf p;
  wire_init(&p);
  wire_u64(&p, WIRE_VERSION);
  wire_str(&p, "0.0.0 (test)");
  wire_info(&p, &info);
  unsigned char head[8] = {0, 0, 0, 0, (unsigned char)p.len, (unsigned char)(p.len >> 8), 0, 0};
  int port = 0;
  unsigned char *bytes = malloc(8 + p.len);
  memcpy(bytes, head, 8), memcpy(bytes + 8, p.data, p.len);
  pid_t pid = fake_server(bytes, 8 + p.len, &port);
  char sel[64];
  snprintf(sel, sizeof sel, "127.0.0.1:%d", port);
  Diag d = {0};
  RtDevice *dev = rt_open(sel, &d);
  CHECK(dev != NULL);
  if (dev) {
    CHECK_STR(rt_info(dev)->name, "Far Away GPU");
    CHECK_STR(rt_target(dev), "opencl");
    CHECK(!rt_device_lost(dev));
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    pid = -1;
    Diag a = {0}, b = {0};
    CHECK(rt_alloc(dev, 64, &a) == NULL && a.kind == DIAG_DEVICE);
    CHECK(strstr(a.msg, "the connection was lost") && strstr(a.msg, sel));
    CHECK(rt_device_lost(dev));
    CHECK(rt_build(dev, "__kernel void k(void) {}", NULL, &b) == NULL && strstr(b.msg, "the connection was lost"));
    rt_close(dev);
  }
  if (pid > 0) kill(pid, SIGKILL), waitpid(pid, NULL, 0);
  free(bytes);
  wire_free(&p);
}

int main(void) {
  test_fields();
  test_info();
  test_frames();
  test_selector();
  test_hostile_peer();
  test_dropped();
  TEST_MAIN_END();
}
