/* test_plot.c: the bench plot (src/bench/plot.c).
 *
 * Fake results for 3 layers x 4 methods (cudnn never ran, clblast wrong on one
 * layer, times from 20 us to 5000 us) go to an SVG in a temporary directory;
 * the file must be well-formed XML (a tag-balance check here, and xmllint when
 * it is installed), name every layer and method, carry the "n/a" and "wrong"
 * marks, have one bar per timed result and per method that ran, and escape
 * the title. A path in a missing directory and bad counts must fail with a
 * message and leave nothing behind.
 */
#include <ctype.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/bench.h"
#include "test.h"

enum { NL = 3, NM = 4 };

/* Well-formed enough: every tag closed in order, one root, quoted attributes
 * closed, every '&' an entity. Returns false with the reason in why. */
static bool xml_balanced(const char *s, const char **why) {
  const char *stack[256];
  size_t lens[256];
  int depth = 0, roots = 0;
  for (const char *p = s; *p;) {
    if (*p == '&') {
      const char *q = p + 1;
      if (*q == '#') q++;
      while (isalnum((unsigned char)*q)) q++;
      if (q == p + 1 || *q != ';') return *why = "a bare '&'", false;
      p = q + 1;
      continue;
    }
    if (*p == '>') return *why = "a bare '>' in text", false;
    if (*p != '<') {
      if (!isspace((unsigned char)*p) && depth == 0) return *why = "text outside the root", false;
      p++;
      continue;
    }
    if (strncmp(p, "<?", 2) == 0 || strncmp(p, "<!--", 4) == 0) {
      const char *end = strstr(p, p[1] == '?' ? "?>" : "-->");
      if (!end) return *why = "an unclosed declaration or comment", false;
      p = end + (p[1] == '?' ? 2 : 3);
      continue;
    }
    bool closing = p[1] == '/';
    const char *name = p + 1 + closing;
    size_t len = strcspn(name, " \t\n/>");
    if (len == 0) return *why = "a tag without a name", false;
    const char *q = name + len;
    char quote = 0;
    for (; *q && (quote || *q != '>'); q++) {
      if (quote && *q == '<') return *why = "'<' in an attribute value", false;
      if (*q == quote) quote = 0;
      else if (!quote && (*q == '"' || *q == '\'')) quote = *q;
    }
    if (!*q) return *why = "an unclosed tag", false;
    bool empty = q[-1] == '/';
    if (closing) {
      if (depth == 0 || lens[depth - 1] != len || strncmp(stack[depth - 1], name, len) != 0)
        return *why = "a closing tag that does not match", false;
      depth--;
    } else if (!empty) {
      if (depth == 0 && roots++ > 0) return *why = "two roots", false;
      if (depth == 256) return *why = "nested too deep", false;
      stack[depth] = name, lens[depth++] = len;
    } else if (depth == 0) {
      return *why = "an empty root", false;
    }
    p = q + 1;
  }
  if (depth != 0) return *why = "unclosed elements at the end", false;
  if (roots != 1) return *why = "no root element", false;
  return true;
}

static void test_checker(void) {   // the checker itself must be able to say no
  const char *why = "";
  CHECK(xml_balanced("<?xml version=\"1.0\"?>\n<svg><g><rect x=\"1\"/></g><text>a &amp; b</text></svg>\n", &why));
  CHECK(!xml_balanced("<svg><g></svg>", &why));
  CHECK(!xml_balanced("<svg><g></g>", &why));
  CHECK(!xml_balanced("<svg><text>a & b</text></svg>", &why));
  CHECK(!xml_balanced("<svg><text>a < b</text></svg>", &why));
  CHECK(!xml_balanced("<svg><rect x=\"1/></svg>", &why));
  CHECK(!xml_balanced("<svg></svg><svg></svg>", &why));
}

static int count(const char *s, const char *needle) {
  int k = 0;
  for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle)) k++;
  return k;
}

static BenchResult fake(const char *method, int i, int j) {
  BenchResult r;
  memset(&r, 0, sizeof r);
  snprintf(r.method, sizeof r.method, "%s", method);
  r.error = 1e-6;
  if (j == 3) {   // cudnn: not an NVIDIA device
    snprintf(r.why, sizeof r.why, "not an NVIDIA device <PoCL> & no libcudnn");
    return r;
  }
  r.ran = true;
  r.mem.input = 3211264 * (uint64_t)(i + 1);
  r.mem.weights = 147456;
  r.mem.output = 3211264;
  if (j == 2) {   // clblast: im2col
    r.mem.extra = 28901376 * (uint64_t)(i + 1);
    snprintf(r.mem.extra_what, sizeof r.mem.extra_what, "im2col \"%d\" MB", 29 * (i + 1));
  }
  if (j == 2 && i == 1) {
    r.error = 0.5;
    snprintf(r.why, sizeof r.why, "wrong: relative L2 error 0.5 is over 0.0001");
    return r;
  }
  static const double median[NL][3] = {{20, 150, 90}, {400, 5000, 0}, {60, 900, 2500}};
  r.correct = true;
  r.us.median = median[i][j];
  r.us.min = r.us.median * 0.9;
  r.us.max = r.us.median * 1.3;
  r.us.n = 20;
  snprintf(r.detail, sizeof r.detail, "strategy %d", j);
  return r;
}

static void make_data(Layer *layers, BenchResult *res) {
  static const char *const names[NL] = {"vgg16.conv1_1", "alexnet.conv2,n=2", ""};
  static const char *const methods[NM] = {"convgen", "naive", "clblast", "cudnn"};
  for (int i = 0; i < NL; i++) {
    Diag d = {0};
    if (!layer_parse(i == 2 ? "c=64,h=56,w=56,k=64,pad=1" : names[i], &layers[i], &d)) {
      fprintf(stderr, "layer: %s\n", d.msg);
      test_failed++;
    }
    snprintf(layers[i].name, sizeof layers[i].name, "%s", names[i]);
    for (int j = 0; j < NM; j++) res[i * NM + j] = fake(methods[j], i, j);
  }
}

static bool exists(const char *path) { return access(path, F_OK) == 0; }

static void test_plot(const char *dir) {
  Layer layers[NL];
  BenchResult res[NL * NM];
  make_data(layers, res);
  char path[512], tmp[540];
  snprintf(path, sizeof path, "%s/bench.svg", dir);
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());   // file_write's temporary
  Diag d = {0};
  bool ok = bench_plot_svg(path, "convgen bench <H200> & \"friends\"", layers, NL, res, NM, &d);
  CHECK(ok && !d.set);
  if (d.set) fprintf(stderr, "plot: %s\n", d.msg);
  CHECK(exists(path));
  CHECK(!exists(tmp));
  size_t len = 0;
  Diag rd = {0};
  char *svg = file_read(path, &len, &rd);
  CHECK(svg != NULL);
  if (!svg) return;
  CHECK(strncmp(svg, "<svg", 4) == 0 || strncmp(svg, "<?xml", 5) == 0);
  CHECK(strstr(svg, "</svg>") != NULL);
  const char *why = "";
  bool balanced = xml_balanced(svg, &why);
  CHECK(balanced);
  if (!balanced) fprintf(stderr, "not well-formed: %s\n", why);
  if (exists("/usr/bin/xmllint")) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "/usr/bin/xmllint --noout '%s'", path);
    CHECK(system(cmd) == 0);
  }
  CHECK(strstr(svg, ">vgg16.conv1_1<") != NULL);
  CHECK(strstr(svg, ">alexnet.conv2,n=2<") != NULL);
  CHECK(strstr(svg, ">layer 2<") != NULL);   // the layer without a name
  CHECK(strstr(svg, ">convgen<") && strstr(svg, ">naive<") && strstr(svg, ">clblast<") && strstr(svg, ">cudnn<"));
  CHECK(strstr(svg, ">n/a<") != NULL);
  CHECK(strstr(svg, ">wrong<") != NULL);
  CHECK(strstr(svg, "convgen bench &lt;H200&gt; &amp; &quot;friends&quot;") != NULL);
  CHECK(strstr(svg, "&lt;PoCL&gt; &amp; no libcudnn") != NULL);   // the reason, in the tooltip
  CHECK(strstr(svg, "<H200>") == NULL && strstr(svg, "<PoCL>") == NULL);
  // A bar for each correct timed result (12 - 3 not run - 1 wrong), a memory
  // bar for each that ran (12 - 3); marks: 3 n/a in each panel, 1 wrong.
  CHECK(count(svg, "class=\"tbar\"") == 8);
  CHECK(count(svg, "class=\"whisker\"") == 8);
  CHECK(count(svg, "class=\"mbar\"") == 9);
  CHECK(count(svg, "<g class=\"na\"") == 6);
  CHECK(count(svg, "<g class=\"wrong\"") == 1);
  // The log axis covers 18 us (20 * 0.9) to 6500 us (5000 * 1.3): decades 10 .. 10000.
  CHECK(strstr(svg, ">10<") && strstr(svg, ">100<") && strstr(svg, ">1000<") && strstr(svg, ">10000<"));
  CHECK(strstr(svg, ">100000<") == NULL && strstr(svg, ">1<") == NULL);

  // A second plot replaces the first, with a wider picture for more layers.
  Layer more[NL * 4];
  BenchResult mres[NL * 4 * NM];
  for (int k = 0; k < 4; k++) {
    memcpy(more + k * NL, layers, sizeof layers);
    memcpy(mres + k * NL * NM, res, sizeof res);
  }
  Diag d2 = {0};
  CHECK(bench_plot_svg(path, "more", more, NL * 4, mres, NM, &d2));
  char *svg2 = file_read(path, &len, &rd);
  CHECK(svg2 && count(svg2, "class=\"tbar\"") == 32 && xml_balanced(svg2, &why));
  int w1 = 0, w2 = 0;
  const char *a = strstr(svg, " width=\""), *b = svg2 ? strstr(svg2, " width=\"") : NULL;
  if (a) w1 = atoi(a + 8);
  if (b) w2 = atoi(b + 8);
  CHECK(w1 > 0 && w2 > w1);
  CHECK(!exists(tmp));
  free(svg2);
  free(svg);
  remove(path);
}

static void test_errors(const char *dir) {
  Layer layers[NL];
  BenchResult res[NL * NM];
  make_data(layers, res);
  char path[512], tmp[540];
  snprintf(path, sizeof path, "%s/no-such-dir/bench.svg", dir);
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());   // file_write's temporary
  Diag d = {0};
  CHECK(!bench_plot_svg(path, "t", layers, NL, res, NM, &d));
  CHECK(d.set && strstr(d.msg, path) != NULL);
  CHECK(strstr(d.msg, "No such file or directory") != NULL);
  CHECK(!exists(path) && !exists(tmp));

  // The temporary is written but the rename fails (the target is a non-empty
  // directory): the temporary must go and the directory stay as it was.
  char target[512], inside[530];
  snprintf(target, sizeof target, "%s/taken.svg", dir);
  snprintf(inside, sizeof inside, "%s/keep", target);
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", target, (long)getpid());
  CHECK(mkdir(target, 0700) == 0);
  FILE *f = fopen(inside, "w");
  CHECK(f != NULL);
  if (f) fclose(f);
  Diag dr = {0};
  CHECK(!bench_plot_svg(target, "t", layers, NL, res, NM, &dr));
  CHECK(dr.set && strstr(dr.msg, target) != NULL);
  CHECK(!exists(tmp) && exists(inside));
  remove(inside);
  rmdir(target);

  char ok_path[512];
  snprintf(ok_path, sizeof ok_path, "%s/bad.svg", dir);
  Diag d0 = {0}, d1 = {0}, d2 = {0};
  CHECK(!bench_plot_svg(ok_path, "t", layers, 0, res, NM, &d0));
  CHECK(d0.set && strstr(d0.msg, "0 layers") != NULL);
  CHECK(!bench_plot_svg(ok_path, "t", layers, NL, res, 0, &d1));
  CHECK(d1.set && strstr(d1.msg, "0 methods") != NULL);
  CHECK(!bench_plot_svg(ok_path, "t", layers, -1, res, NM, &d2));
  CHECK(!exists(ok_path));
}

int main(void) {
  char dir[] = "/tmp/convgen-plot-XXXXXX";
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  test_checker();
  test_plot(dir);
  test_errors(dir);
  const char *keep = getenv("CONVGEN_PLOT_KEEP");   // a copy to look at: CONVGEN_PLOT_KEEP=out.svg
  if (keep && *keep) {
    Layer layers[NL];
    BenchResult res[NL * NM];
    make_data(layers, res);
    Diag d = {0};
    if (!bench_plot_svg(keep, "convgen bench: 3 layers on a fake device", layers, NL, res, NM, &d))
      fprintf(stderr, "%s\n", d.msg);
  }
  bool empty = rmdir(dir) == 0;
  CHECK(empty);   // nothing was left behind
  if (!empty) fprintf(stderr, "left in %s\n", dir);
  TEST_MAIN_END();
}
