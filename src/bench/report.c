/* report.c: what `convgen bench` prints and writes: per layer a table of the
 * methods (time, spread, GFLOP/s, time against convgen's, error, memory),
 * a summary against the targets of issue 5 (geometric means of the time
 * ratios, mean memory ratio), and the same figures as CSV. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

static bool timed(const BenchResult *r) { return r->ran && r->correct && r->us.n > 0 && r->us.median > 0; }

static double mb(uint64_t bytes) { return (double)bytes / 1e6; }

/* A method's time over convgen's on one layer (> 1: convgen is faster); NAN
 * when either has no time. */
static double time_ratio(const BenchResult *r, const BenchResult *convgen) {
  return timed(r) && timed(convgen) ? r->us.median / convgen->us.median : NAN;
}

void bench_print_table(StrBuf *sb, const Layer *layers, const char *const *names, int n, const BenchResult *res) {
  for (int i = 0; i < n; i++) {
    const Layer *l = &layers[i];
    const BenchResult *r = &res[(size_t)i * BENCH_METHODS];
    StrBuf spec;
    sb_init(&spec);
    layer_format(&spec, l);
    sb_printf(sb, "\n%s  %s  (%.3g GFLOP)\n", names[i], sb_str(&spec), layer_flops(l) / 1e9);
    sb_free(&spec);
    sb_printf(sb, "  %-8s %11s %7s %9s %13s %9s %10s  %s\n", "method", "median us", "spread", "GFLOP/s",
              "time/convgen", "error", "memory MB", "beyond input, weights, output");
    for (int j = 0; j < BENCH_METHODS; j++) {
      const BenchResult *m = &r[j];
      if (!timed(m)) {
        sb_printf(sb, "  %-8s %s%s\n", m->method, m->ran ? "" : "not run: ", m->why[0] ? m->why : "no result");
        continue;
      }
      double ratio = time_ratio(m, &r[BENCH_CONVGEN]);
      char ratio_text[32] = "-";
      if (!isnan(ratio)) snprintf(ratio_text, sizeof ratio_text, "%.2f", ratio);
      char extra[160] = "-";
      if (m->mem.extra) snprintf(extra, sizeof extra, "%.3g MB %s", mb(m->mem.extra), m->mem.extra_what);
      sb_printf(sb, "  %-8s %11.1f %6.1f%% %9.1f %13s %9.1e %10.3g  %s\n", m->method, m->us.median,
                m->us.spread * 100, layer_flops(l) / (m->us.median * 1e3), ratio_text, m->error,
                mb(bench_memory_total(&m->mem)), extra);
    }
  }
}

void bench_print_summary(StrBuf *sb, int n, const BenchResult *res) {
  sb_printf(sb, "\nsummary over %d layer%s: each method's time and memory over convgen's (above 1: convgen is "
                "faster or smaller), geometric means over the layers where both were timed\n", n, n == 1 ? "" : "s");
  sb_printf(sb, "  %-8s %13s %15s %15s\n", "method", "time/convgen", "convgen faster", "memory/convgen");
  for (int j = 1; j < BENCH_METHODS; j++) {
    double log_sum = 0, mem_log_sum = 0, mem_frac = 0;
    int both = 0, faster = 0, mem_both = 0;
    for (int i = 0; i < n; i++) {
      const BenchResult *r = &res[(size_t)i * BENCH_METHODS];
      double ratio = time_ratio(&r[j], &r[BENCH_CONVGEN]);
      if (!isnan(ratio)) {
        log_sum += log(ratio);
        both++;
        faster += ratio > 1;
      }
      uint64_t mc = bench_memory_total(&r[BENCH_CONVGEN].mem), mm = bench_memory_total(&r[j].mem);
      if (timed(&r[j]) && timed(&r[BENCH_CONVGEN]) && mc && mm) {
        mem_log_sum += log((double)mm / (double)mc);
        mem_frac += (double)mc / (double)mm;
        mem_both++;
      }
    }
    if (!both) {
      sb_printf(sb, "  %-8s no layer where both were timed\n", bench_method_names[j]);
      continue;
    }
    sb_printf(sb, "  %-8s %13.2f %9d of %-3d %15.2f   (convgen's memory is %.2f of it, mean over the layers)\n",
              bench_method_names[j], exp(log_sum / both), faster, both, mem_both ? exp(mem_log_sum / mem_both) : NAN,
              mem_both ? mem_frac / mem_both : NAN);
  }
}

/* A CSV field: quoted when it holds a comma, a quote or a line break. */
void bench_csv_field(StrBuf *sb, const char *s) {
  if (!strpbrk(s, ",\"\n\r")) {
    sb_puts(sb, s);
    return;
  }
  sb_putc(sb, '"');
  for (; *s; s++) {
    if (*s == '"') sb_putc(sb, '"');
    sb_putc(sb, *s);
  }
  sb_putc(sb, '"');
}

char *bench_csv(const Layer *layers, const char *const *names, int n, const BenchResult *res) {
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, "layer,spec,method,ran,correct,error,median_us,min_us,max_us,spread,runs,reps,gflops,time_over_convgen,"
               "bytes_input,bytes_weights,bytes_bias,bytes_output,bytes_extra,bytes_total,extra_what,detail,why\n");
  for (int i = 0; i < n; i++) {
    StrBuf spec;
    sb_init(&spec);
    layer_format(&spec, &layers[i]);
    const BenchResult *r = &res[(size_t)i * BENCH_METHODS];
    for (int j = 0; j < BENCH_METHODS; j++) {
      const BenchResult *m = &r[j];
      bench_csv_field(&sb, names[i]);
      sb_putc(&sb, ',');
      bench_csv_field(&sb, sb_str(&spec));
      sb_printf(&sb, ",%s,%d,%d,", m->method, m->ran, m->ran && m->correct);
      if (!isnan(m->error)) sb_printf(&sb, "%.3e", m->error);
      if (timed(m))
        sb_printf(&sb, ",%.3f,%.3f,%.3f,%.4f,%d,%d,%.1f,", m->us.median, m->us.min, m->us.max, m->us.spread,
                  m->us.n, m->reps, layer_flops(&layers[i]) / (m->us.median * 1e3));
      else
        sb_puts(&sb, ",,,,,,,,");
      double ratio = time_ratio(m, &r[BENCH_CONVGEN]);
      if (!isnan(ratio)) sb_printf(&sb, "%.4f", ratio);
      sb_printf(&sb, ",%llu,%llu,%llu,%llu,%llu,%llu,", (unsigned long long)m->mem.input,
                (unsigned long long)m->mem.weights, (unsigned long long)m->mem.bias,
                (unsigned long long)m->mem.output, (unsigned long long)m->mem.extra,
                (unsigned long long)bench_memory_total(&m->mem));
      bench_csv_field(&sb, m->mem.extra_what);
      sb_putc(&sb, ',');
      bench_csv_field(&sb, m->detail);
      sb_putc(&sb, ',');
      bench_csv_field(&sb, m->why);
      sb_putc(&sb, '\n');
    }
    sb_free(&spec);
  }
  return sb_take(&sb);
}
