/* plot.c: the picture of a `convgen bench` run (docs/design.md section 9): an SVG 1.1
 * file, written by hand, with per-layer time (one bar per method, median on a
 * log10 axis, a whisker from min to max) above per-layer device memory (linear,
 * MB = 10^6 bytes). A method that did not run gets a grey "n/a" where its bar
 * would be, one that failed the check a red "wrong"; hovering shows the reason.
 *
 * Invariant: every piece of outside text (title, layer and method names,
 * reasons, details) goes through put_text, which escapes it and replaces
 * bytes XML does not allow, so the output is well-formed whatever the input.
 * The file is built in memory and written through path.tmp and a rename.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"

enum {
  PLOT_MAX_LAYERS = 100000,   // bounds n * m far from INT_MAX
  PLOT_MAX_METHODS = 64,
  LABEL_MAX_CHARS = 40,       // longer layer names are cut in the label (whole in the tooltip)
};

static const double BAR_W = 14;      // one method's bar
static const double GROUP_GAP = 22;  // between two layers' groups of bars
static const double MIN_PLOT_W = 360;
static const double TIME_H = 260, MEM_H = 170;   // plot-area heights of the two panels
static const double CHAR_W = 7.0;    // advance of one 11px sans-serif character, on the wide side (DejaVu Sans)

/* Okabe and Ito's colour-blind-safe palette (yellow left out: too pale on white). */
static const char *const PALETTE[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                      "#56B4E9", "#D55E00", "#000000"};
enum { NPALETTE = sizeof PALETTE / sizeof *PALETTE };
static const char *const NA_COLOUR = "#8a8a8a", *const WRONG_COLOUR = "#c62828";

typedef struct Plot {
  StrBuf *sb;                 // the SVG text
  const Layer *layers;        // n of them
  int n;
  const BenchResult *res;     // res[i * m + j]: layer i, method j
  int m;
  double left;                // x of the plot areas' left edge
  double group_w;             // width of one layer's group
  double plot_w;              // n * group_w
  bool rotate;                // layer labels at 45 degrees (they do not fit level)
  double label_h;             // room under each panel for the layer labels
} Plot;

/* Length of the valid UTF-8 sequence at s (at most n bytes) that XML 1.0 allows;
 * 0 when it is not one (stray, overlong or truncated bytes, surrogates, U+FFFE/F). */
static int utf8_len(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  int len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (len == 0 || (size_t)len > n) return 0;
  for (int k = 1; k < len; k++)
    if ((s[k] & 0xC0) != 0x80) return 0;
  if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0) || (c == 0xF0 && s[1] < 0x90) ||
      (c == 0xF4 && s[1] >= 0x90))
    return 0;
  if (c == 0xEF && s[1] == 0xBF && (s[2] == 0xBE || s[2] == 0xBF)) return 0;
  return len;
}

/* At most max bytes of s as XML text or attribute value. */
static void put_text(StrBuf *sb, const char *s, size_t max) {
  const unsigned char *p = (const unsigned char *)s;
  size_t n = strnlen(s, max);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = p[i];
    int len;
    if (c == '&') sb_puts(sb, "&amp;");
    else if (c == '<') sb_puts(sb, "&lt;");
    else if (c == '>') sb_puts(sb, "&gt;");
    else if (c == '"') sb_puts(sb, "&quot;");
    else if (c == '\'') sb_puts(sb, "&#39;");
    else if (c == '\t' || c == '\n' || c == '\r') sb_putc(sb, ' ');
    else if (c < 0x20) sb_putc(sb, '?');
    else if (c < 0x80) sb_putc(sb, (char)c);
    else if ((len = utf8_len(p + i, n - i)) == 0) sb_putc(sb, '?');
    else {
      for (int k = 0; k < len; k++) sb_putc(sb, (char)p[i + k]);
      i += (size_t)len - 1;
    }
  }
}

static const BenchResult *result(const Plot *p, int i, int j) { return &p->res[(size_t)i * (size_t)p->m + (size_t)j]; }

static void layer_label(const Plot *p, int i, char *buf, size_t size) {
  const char *name = p->layers[i].name;
  if (strnlen(name, sizeof p->layers[i].name) == 0) snprintf(buf, size, "layer %d", i);
  else snprintf(buf, size, "%.*s", (int)strnlen(name, sizeof p->layers[i].name), name);
}

static void method_name(const Plot *p, int j, char *buf, size_t size) {
  const char *name = p->res[j].method;
  size_t len = strnlen(name, sizeof p->res[j].method);
  if (len == 0) snprintf(buf, size, "method %d", j);
  else snprintf(buf, size, "%.*s", (int)len, name);
}

/* Left edge of layer i's bar for method j: the group centred in its slot. */
static double bar_x(const Plot *p, int i, int j) {
  return p->left + i * p->group_w + (p->group_w - p->m * BAR_W) / 2 + j * BAR_W;
}

/* A text label; s is escaped. */
static void text(StrBuf *sb, double x, double y, const char *attrs, const char *s) {
  sb_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" %s>", x, y, attrs);
  put_text(sb, s, strlen(s));
  sb_puts(sb, "</text>\n");
}

static void hline(StrBuf *sb, double x0, double x1, double y, const char *stroke) {
  sb_printf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1\"/>\n", x0, y,
            x1, y, stroke);
}

/* A tooltip: "<title>", what the caller adds, then the closing tag. */
static void title_open(StrBuf *sb) { sb_puts(sb, "<title>"); }
static void title_close(StrBuf *sb) { sb_puts(sb, "</title>"); }

/* The small upright word ("n/a", "wrong") standing where layer i's bar for method j would be. */
static void mark(const Plot *p, int i, int j, double bottom, const char *cls, const char *colour,
                 const char *word) {
  StrBuf *sb = p->sb;
  const BenchResult *r = result(p, i, j);
  char lname[LAYER_NAME_MAX + 16], mname[32];
  layer_label(p, i, lname, sizeof lname);
  method_name(p, j, mname, sizeof mname);
  double x = bar_x(p, i, j) + BAR_W / 2 + 3, y = bottom - 3;
  sb_printf(sb, "<g class=\"%s\">", cls);
  title_open(sb);
  put_text(sb, mname, sizeof mname);
  sb_puts(sb, ", ");
  put_text(sb, lname, sizeof lname);
  sb_puts(sb, ": ");
  put_text(sb, r->why[0] ? r->why : word, sizeof r->why);
  title_close(sb);
  sb_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" transform=\"rotate(-90 %.1f %.1f)\" font-size=\"9\" fill=\"%s\">",
            x, y, x, y, colour);
  sb_printf(sb, "%s</text></g>\n", word);
}

/* The layer names under a panel whose plot area ends at y; the shape in the tooltip. */
static void layer_labels(const Plot *p, double y) {
  StrBuf *sb = p->sb;
  for (int i = 0; i < p->n; i++) {
    char label[LAYER_NAME_MAX + 16];
    layer_label(p, i, label, sizeof label);
    bool cut = strlen(label) > LABEL_MAX_CHARS;
    double x = p->left + (i + 0.5) * p->group_w;
    sb_puts(sb, "<g class=\"xlabel\">");
    title_open(sb);
    put_text(sb, label, sizeof label);
    StrBuf shape;
    sb_init(&shape);
    layer_format(&shape, &p->layers[i]);
    sb_puts(sb, ": ");
    put_text(sb, sb_str(&shape), shape.len);
    sb_free(&shape);
    title_close(sb);
    if (p->rotate)
      sb_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" transform=\"rotate(-45 %.1f %.1f)\" text-anchor=\"end\">", x + 4,
                y + 14, x + 4, y + 14);
    else
      sb_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x, y + 16);
    put_text(sb, label, cut ? LABEL_MAX_CHARS - 3 : sizeof label);
    sb_puts(sb, cut ? "...</text></g>\n" : "</text></g>\n");
  }
}

/* A panel's frame (left and bottom axes), its heading above and its y-axis title. */
static void panel_frame(const Plot *p, double top, double h, const char *heading, const char *ytitle) {
  StrBuf *sb = p->sb;
  text(sb, p->left, top - 10, "font-size=\"12\" font-weight=\"bold\"", heading);
  sb_printf(sb, "<path d=\"M%.1f %.1f V%.1f H%.1f\" fill=\"none\" stroke=\"#333\" stroke-width=\"1\"/>\n", p->left,
            top, top + h, p->left + p->plot_w);
  double x = p->left - 52, y = top + h / 2;
  sb_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" transform=\"rotate(-90 %.1f %.1f)\" text-anchor=\"middle\">", x, y, x, y);
  put_text(sb, ytitle, strlen(ytitle));
  sb_puts(sb, "</text>\n");
}

/* Decades [*lo, *hi] of the log axis: every min, median and max of a correct run. */
static void log_range(const Plot *p, int *lo, int *hi) {
  double vmin = INFINITY, vmax = 0;
  for (int i = 0; i < p->n; i++)
    for (int j = 0; j < p->m; j++) {
      const BenchResult *r = result(p, i, j);
      if (!r->ran || !r->correct) continue;
      double v[3] = {r->us.min, r->us.median, r->us.max};
      for (int k = 0; k < 3; k++)
        if (isfinite(v[k]) && v[k] > 0) {
          vmin = fmin(vmin, v[k]);
          vmax = fmax(vmax, v[k]);
        }
    }
  if (vmax == 0) {
    *lo = 0, *hi = 3;
    return;
  }
  *lo = (int)floor(log10(vmin));
  *hi = (int)ceil(log10(vmax));
  if (*hi <= *lo) *hi = *lo + 1;
  if (*lo < *hi - 12) *lo = *hi - 12;   // a stray tiny value must not squash the rest
}

/* y of a time in microseconds on the log axis of decades lo..hi ending at bottom (clamped). */
static double y_log(double v, int lo, int hi, double bottom) {
  return bottom - (fmin(fmax(log10(v), lo), hi) - lo) / (hi - lo) * TIME_H;
}

static void decade_label(char *buf, size_t size, int e) {
  if (e >= 0 && e <= 6) snprintf(buf, size, "%.0f", pow(10, e));
  else if (e < 0 && e >= -3) snprintf(buf, size, "%.*f", -e, pow(10, e));
  else snprintf(buf, size, "1e%d", e);
}

static void time_panel(const Plot *p, double top) {
  StrBuf *sb = p->sb;
  int lo, hi;
  log_range(p, &lo, &hi);
  double bottom = top + TIME_H, right = p->left + p->plot_w;
  for (int e = lo; e < hi; e++)
    for (int k = 2; k <= 9; k++) hline(sb, p->left, right, y_log(k * pow(10, e), lo, hi, bottom), "#f0f0f0");
  for (int e = lo; e <= hi; e++) {
    double y = y_log(pow(10, e), lo, hi, bottom);
    char buf[32];
    decade_label(buf, sizeof buf, e);
    hline(sb, p->left, right, y, "#c8c8c8");
    text(sb, p->left - 6, y + 4, "text-anchor=\"end\"", buf);
  }
  panel_frame(p, top, TIME_H, "Time per layer: median, whisker min to max (log scale)", "time (\u00b5s)");
  for (int i = 0; i < p->n; i++)
    for (int j = 0; j < p->m; j++) {
      const BenchResult *r = result(p, i, j);
      if (!r->ran) mark(p, i, j, bottom, "na", NA_COLOUR, "n/a");
      else if (!r->correct) mark(p, i, j, bottom, "wrong", WRONG_COLOUR, "wrong");
      else if (!(isfinite(r->us.median) && r->us.median > 0)) mark(p, i, j, bottom, "na", NA_COLOUR, "n/a");
      else {
        double x = bar_x(p, i, j), y = y_log(r->us.median, lo, hi, bottom), cx = x + BAR_W / 2;
        char mname[32];
        method_name(p, j, mname, sizeof mname);
        sb_printf(sb, "<rect class=\"tbar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">", x + 1,
                  y, BAR_W - 2, bottom - y, PALETTE[j % NPALETTE]);
        title_open(sb);
        put_text(sb, mname, sizeof mname);
        sb_printf(sb, ": median %.4g us, min %.4g, max %.4g, %d runs", r->us.median, r->us.min, r->us.max, r->us.n);
        if (r->detail[0]) sb_puts(sb, "; ");
        put_text(sb, r->detail, sizeof r->detail);
        title_close(sb);
        sb_puts(sb, "</rect>\n");
        if (isfinite(r->us.min) && isfinite(r->us.max) && r->us.min > 0 && r->us.max >= r->us.min) {
          double y0 = y_log(r->us.min, lo, hi, bottom), y1 = y_log(r->us.max, lo, hi, bottom);
          sb_printf(sb, "<path class=\"whisker\" d=\"M%.1f %.1f V%.1f M%.1f %.1f h6 M%.1f %.1f h6\" stroke=\"#222\" "
                        "stroke-width=\"1\" fill=\"none\"/>\n",
                    cx, y0, y1, cx - 3, y0, cx - 3, y1);
        }
      }
    }
  layer_labels(p, bottom);
}

/* A round step (1, 2 or 5 times a power of ten) that cuts [0, vmax] into at most about 5 parts. */
static double nice_step(double vmax) {
  double raw = vmax / 5, mag = pow(10, floor(log10(raw))), f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

static void memory_panel(const Plot *p, double top) {
  StrBuf *sb = p->sb;
  double vmax = 0;
  for (int i = 0; i < p->n; i++)
    for (int j = 0; j < p->m; j++)
      if (result(p, i, j)->ran) vmax = fmax(vmax, (double)bench_memory_total(&result(p, i, j)->mem) / 1e6);
  double step = vmax > 0 ? nice_step(vmax) : 0.2, axis_top = vmax > 0 ? ceil(vmax / step - 1e-9) * step : 1;
  if (vmax > 0.95 * axis_top) axis_top += step;   // room above the tallest bar
  int decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
  double bottom = top + MEM_H, right = p->left + p->plot_w;
  for (int k = 0; k * step <= axis_top * (1 + 1e-9); k++) {
    double y = bottom - k * step / axis_top * MEM_H;
    char buf[32];
    snprintf(buf, sizeof buf, "%.*f", decimals, k * step);
    if (k > 0) hline(sb, p->left, right, y, "#c8c8c8");
    text(sb, p->left - 6, y + 4, "text-anchor=\"end\"", buf);
  }
  panel_frame(p, top, MEM_H, "Device memory per layer", "memory (MB)");
  for (int i = 0; i < p->n; i++)
    for (int j = 0; j < p->m; j++) {
      const BenchResult *r = result(p, i, j);
      if (!r->ran) {
        mark(p, i, j, bottom, "na", NA_COLOUR, "n/a");
        continue;
      }
      const BenchMemory *mem = &r->mem;
      double mb = (double)bench_memory_total(mem) / 1e6, hgt = mb / axis_top * MEM_H;
      char mname[32];
      method_name(p, j, mname, sizeof mname);
      sb_printf(sb, "<rect class=\"mbar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">",
                bar_x(p, i, j) + 1, bottom - hgt, BAR_W - 2, hgt, PALETTE[j % NPALETTE]);
      title_open(sb);
      put_text(sb, mname, sizeof mname);
      sb_printf(sb, ": %.3f MB (input %.3f, weights %.3f, bias %.3f, output %.3f, extra %.3f", mb, mem->input / 1e6,
                mem->weights / 1e6, mem->bias / 1e6, mem->output / 1e6, mem->extra / 1e6);
      if (mem->extra_what[0]) sb_puts(sb, ": ");
      put_text(sb, mem->extra_what, sizeof mem->extra_what);
      sb_puts(sb, ")");
      title_close(sb);
      sb_puts(sb, "</rect>\n");
    }
  layer_labels(p, bottom);
}

/* Width of the legend: the swatches and names, then the note on the marks. */
static double legend_width(const Plot *p) {
  double w = 0;
  for (int j = 0; j < p->m; j++) {
    char mname[32];
    method_name(p, j, mname, sizeof mname);
    w += 16 + strlen(mname) * CHAR_W + 14;
  }
  return w + 8 + 40 * 5.6;
}

/* One swatch per method, then what the two marks mean. */
static void legend(const Plot *p, double x0, double y) {
  StrBuf *sb = p->sb;
  double x = x0;
  for (int j = 0; j < p->m; j++) {
    char mname[32];
    method_name(p, j, mname, sizeof mname);
    sb_printf(sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", x, y - 10,
              PALETTE[j % NPALETTE]);
    text(sb, x + 16, y, "class=\"legend\"", mname);
    x += 16 + strlen(mname) * CHAR_W + 14;
  }
  sb_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\"><tspan fill=\"%s\">n/a</tspan> did not run, "
                "<tspan fill=\"%s\">wrong</tspan> failed the check</text>\n",
            x + 8, y, NA_COLOUR, WRONG_COLOUR);
}

/* Widths and label room from the number and names of the layers. */
static void layout(Plot *p) {
  double longest = 0;
  for (int i = 0; i < p->n; i++) {
    char label[LAYER_NAME_MAX + 16];
    layer_label(p, i, label, sizeof label);
    size_t len = strlen(label);
    longest = fmax(longest, (double)(len > LABEL_MAX_CHARS ? LABEL_MAX_CHARS : len) * CHAR_W);
  }
  p->group_w = fmax(p->m * BAR_W + GROUP_GAP, MIN_PLOT_W / p->n);
  p->plot_w = p->n * p->group_w;
  p->rotate = 0.9 * longest > p->group_w - 6;   // longest errs wide; room below does not
  p->label_h = p->rotate ? longest * 0.71 + 22 : 24;
  p->left = 72;
  if (p->rotate) p->left = fmax(p->left, longest * 0.71 - p->group_w / 2 + 12);   // the first label's tail
}

bool bench_plot_svg(const char *path, const char *title, const Layer *layers, int n, const BenchResult *res, int m,
                    Diag *d) {
  if (!path || !path[0]) return diag_error(d, "bench plot: no output path");
  if (!layers || !res) return diag_error(d, "%s: bench plot: no layers or no results", path);
  if (n < 1 || n > PLOT_MAX_LAYERS)
    return diag_error(d, "%s: bench plot: %d layers (want 1 to %d)", path, n, PLOT_MAX_LAYERS);
  if (m < 1 || m > PLOT_MAX_METHODS)
    return diag_error(d, "%s: bench plot: %d methods (want 1 to %d)", path, m, PLOT_MAX_METHODS);
  if (!title) title = "";

  StrBuf sb;
  sb_init(&sb);
  Plot p = {.sb = &sb, .layers = layers, .n = n, .res = res, .m = m};
  layout(&p);
  double title_w = 24 + strlen(title) * 9.0;
  double width = fmax(p.left + p.plot_w + 24, fmax(p.left + legend_width(&p) + 12, title_w));
  double time_top = 92, mem_top = time_top + TIME_H + p.label_h + 44;
  double height = mem_top + MEM_H + p.label_h + 12;

  sb_puts(&sb, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
  sb_printf(&sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" height=\"%.0f\" "
                 "viewBox=\"0 0 %.0f %.0f\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"11\">\n",
            ceil(width), ceil(height), ceil(width), ceil(height));
  sb_puts(&sb, "<title>");
  put_text(&sb, title, strlen(title));
  sb_puts(&sb, "</title>\n");
  sb_puts(&sb, "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
  text(&sb, 12, 26, "font-size=\"16\" font-weight=\"bold\"", title);
  legend(&p, p.left, 54);
  time_panel(&p, time_top);
  memory_panel(&p, mem_top);
  sb_puts(&sb, "</svg>\n");

  bool ok = file_write(path, sb_str(&sb), sb.len, d);   // whole, or not at all
  sb_free(&sb);
  return ok;
}
