#include "report/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace ktune::svg {
namespace {

constexpr double kWidth = 560, kHeight = 340, kLeft = 72, kRight = 16, kTop = 30, kBottom = 56;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// Tick label: short, without trailing zeros.
std::string tick_label(double v) {
  char buf[32];
  if (v != 0 && (std::abs(v) >= 1e5 || std::abs(v) < 1e-2)) std::snprintf(buf, sizeof buf, "%.0e", v);
  else std::snprintf(buf, sizeof buf, "%g", std::round(v * 1000) / 1000);
  return buf;
}

// Data range to pixels, linear or logarithmic, with "nice" ticks.
class Scale {
 public:
  Scale(double lo, double hi, bool log, double p0, double p1) : log_(log), p0_(p0), p1_(p1) {
    if (!(hi > lo)) {  // a single value: widen so it sits in the middle
      const double pad = log ? 0 : std::max(std::abs(lo) * 0.1, 1.0);
      if (log) { lo /= 1.5; hi = lo * 2.25; } else { lo -= pad; hi += pad; }
    }
    lo_ = f(lo);
    hi_ = f(hi);
  }
  double operator()(double v) const { return p0_ + (f(v) - lo_) / (hi_ - lo_) * (p1_ - p0_); }
  std::vector<double> ticks() const {
    std::vector<double> out;
    if (log_) {
      const double a = std::pow(10, lo_), b = std::pow(10, hi_);
      const bool dense = hi_ - lo_ < 1.5;  // within a decade and a half: 1-2-5 steps
      // (bounded: at a range near the doubles' ends d underflows to 0 or stops growing)
      int decades = 0;
      for (double d = std::pow(10, std::floor(lo_)); d > 0 && d <= b * 1.0001 && decades < 700; d *= 10, ++decades)
        for (double m : {1.0, 2.0, 5.0})
          if ((m == 1 || dense) && d * m >= a * 0.9999 && d * m <= b * 1.0001) out.push_back(d * m);
      if (out.size() >= 3) return out;
      return linear_ticks(a, b);  // a narrow range: evenly spaced values read better
    }
    return linear_ticks(lo_, hi_);
  }

 private:
  static std::vector<double> linear_ticks(double lo, double hi) {
    std::vector<double> out;
    if (!std::isfinite(lo) || !std::isfinite(hi) || !(hi > lo)) return {std::isfinite(lo) ? lo : 0.0};  // nothing to step
    const double raw = (hi - lo) / 5, mag = std::pow(10, std::floor(std::log10(raw)));
    const double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
    const double first = std::ceil(lo / step) * step;  // steps counted, not summed: t += step can stall
    for (int k = 0; k <= 20; ++k) {
      const double t = first + k * step;
      if (!(t <= hi + step * 1e-9)) break;
      out.push_back(t);
    }
    return out;
  }
  double f(double v) const { return log_ ? std::log10(v) : v; }
  bool log_;
  double p0_, p1_, lo_ = 0, hi_ = 1;
};

struct Frame {
  std::ostringstream s;
  Frame(const std::string& title) {
    s << "<svg class=\"plot\" width=\"" << kWidth << "\" height=\"" << kHeight << "\" viewBox=\"0 0 " << kWidth << ' '
      << kHeight << "\" role=\"img\"><title>" << escape(title) << "</title>"
      << "<rect x=\"0\" y=\"0\" width=\"" << kWidth << "\" height=\"" << kHeight << "\" fill=\"#ffffff\"/>"
      << "<text class=\"plot-title\" x=\"" << kWidth / 2 << "\" y=\"18\" text-anchor=\"middle\" font-size=\"14\" "
         "font-weight=\"bold\">"
      << escape(title) << "</text>";
  }
  void axes(const std::string& x_label, const std::string& y_label) {
    s << "<line x1=\"" << kLeft << "\" y1=\"" << kHeight - kBottom << "\" x2=\"" << kWidth - kRight << "\" y2=\""
      << kHeight - kBottom << "\" stroke=\"#333\"/>"
      << "<line x1=\"" << kLeft << "\" y1=\"" << kTop << "\" x2=\"" << kLeft << "\" y2=\"" << kHeight - kBottom
      << "\" stroke=\"#333\"/>"
      << "<text class=\"axis-label\" x=\"" << (kLeft + kWidth - kRight) / 2 << "\" y=\"" << kHeight - 12
      << "\" text-anchor=\"middle\" font-size=\"13\">" << escape(x_label) << "</text>"
      << "<text class=\"axis-label\" transform=\"translate(16," << (kTop + kHeight - kBottom) / 2
      << ") rotate(-90)\" text-anchor=\"middle\" font-size=\"13\">" << escape(y_label) << "</text>";
  }
  void x_tick(double px, const std::string& label, bool grid = false) {
    if (grid)
      s << "<line x1=\"" << num(px) << "\" y1=\"" << kTop << "\" x2=\"" << num(px) << "\" y2=\"" << kHeight - kBottom
        << "\" stroke=\"#eee\"/>";
    s << "<line x1=\"" << num(px) << "\" y1=\"" << kHeight - kBottom << "\" x2=\"" << num(px) << "\" y2=\""
      << kHeight - kBottom + 5 << "\" stroke=\"#333\"/><text x=\"" << num(px) << "\" y=\"" << kHeight - kBottom + 18
      << "\" text-anchor=\"middle\" font-size=\"11\">" << escape(label) << "</text>";
  }
  void y_tick(double py, const std::string& label) {
    s << "<line x1=\"" << kLeft << "\" y1=\"" << num(py) << "\" x2=\"" << kWidth - kRight << "\" y2=\"" << num(py)
      << "\" stroke=\"#eee\"/><line x1=\"" << kLeft - 5 << "\" y1=\"" << num(py) << "\" x2=\"" << kLeft << "\" y2=\""
      << num(py) << "\" stroke=\"#333\"/><text x=\"" << kLeft - 8 << "\" y=\"" << num(py + 4)
      << "\" text-anchor=\"end\" font-size=\"11\">" << escape(label) << "</text>";
  }
  std::string done() {
    s << "</svg>";
    return s.str();
  }
};

// "1.23x" under 10, "12x" above.
std::string ratio_label(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, x < 9.95 ? "%.2fx" : "%.0fx", x);
  return buf;
}

std::pair<double, double> range_of(const std::vector<double>& v) {
  if (v.empty()) return {1, 1};
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return {*lo, *hi};
}

}  // namespace

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string step_plot(const std::string& title, const Axis& x, const Axis& y, const std::vector<Series>& series) {
  std::vector<double> xs, ys;
  for (const auto& s : series) {
    xs.insert(xs.end(), s.x.begin(), s.x.end());
    ys.insert(ys.end(), s.y.begin(), s.y.end());
  }
  const auto [x0, x1] = range_of(xs);
  const auto [y0, y1] = range_of(ys);
  const Scale sx(x.log ? x0 : 0, x1, x.log, kLeft, kWidth - kRight);
  const Scale sy(y0, y1, y.log, kHeight - kBottom, kTop);
  Frame f(title);
  for (double t : sy.ticks()) f.y_tick(sy(t), tick_label(t));
  for (double t : sx.ticks()) f.x_tick(sx(t), tick_label(t));
  f.axes(x.label, y.label);
  for (std::size_t k = 0; k < series.size(); ++k) {
    const auto& s = series[k];
    const double legend_y = kTop + 6 + 18 * static_cast<double>(k);
    if (s.x.empty()) continue;
    std::string d = "M" + num(sx(s.x[0])) + "," + num(sy(s.y[0]));
    for (std::size_t i = 1; i < s.x.size(); ++i) d += " H" + num(sx(s.x[i])) + " V" + num(sy(s.y[i]));
    f.s << "<path class=\"series\" d=\"" << d << "\" fill=\"none\" stroke=\"" << s.colour << "\" stroke-width=\"2.5\"/>";
    if (series.size() > 1)
      f.s << "<rect x=\"" << kWidth - kRight - 190 << "\" y=\"" << legend_y << "\" width=\"14\" height=\"10\" fill=\""
          << s.colour << "\"/><text x=\"" << kWidth - kRight - 170 << "\" y=\"" << legend_y + 9
          << "\" font-size=\"11\">" << escape(s.name) << "</text>";
  }
  return f.done();
}

std::string histogram(const std::string& title, const Axis& x, const std::vector<double>& values, int bins) {
  const auto [lo, hi] = range_of(values);
  const double width = hi > lo ? (hi - lo) / bins : 1;
  std::vector<int> count(static_cast<std::size_t>(bins), 0);
  for (double v : values) ++count[std::min<std::size_t>(static_cast<std::size_t>((v - lo) / width), count.size() - 1)];
  const Scale sx(lo, lo + width * bins, false, kLeft, kWidth - kRight);
  const Scale sy(0, std::max(1, *std::max_element(count.begin(), count.end())), false, kHeight - kBottom, kTop);
  Frame f(title);
  for (double t : sy.ticks()) f.y_tick(sy(t), tick_label(t));
  for (double t : sx.ticks()) f.x_tick(sx(t), tick_label(t));
  f.axes(x.label, "candidates");
  for (int b = 0; b < bins; ++b) {
    if (!count[b]) continue;
    const double px0 = sx(lo + width * b), px1 = sx(lo + width * (b + 1)), py = sy(count[b]);
    f.s << "<rect class=\"bar\" x=\"" << num(px0 + 0.5) << "\" y=\"" << num(py) << "\" width=\"" << num(px1 - px0 - 1)
        << "\" height=\"" << num(kHeight - kBottom - py) << "\" fill=\"#1f77b4\"><title>" << count[b] << " in ["
        << tick_label(lo + width * b) << ", " << tick_label(lo + width * (b + 1)) << ")</title></rect>";
  }
  return f.done();
}

std::string strip_plot(const std::string& title, const Axis& y, const std::vector<std::string>& categories,
                       const std::vector<std::vector<double>>& values) {
  std::vector<double> all;
  for (const auto& v : values) all.insert(all.end(), v.begin(), v.end());
  const auto [y0, y1] = range_of(all);
  const Scale sy(y0, y1, y.log, kHeight - kBottom, kTop);
  const double slot = (kWidth - kRight - kLeft) / std::max<double>(1, static_cast<double>(categories.size()));
  Frame f(title);
  for (double t : sy.ticks()) f.y_tick(sy(t), tick_label(t));
  for (std::size_t c = 0; c < categories.size(); ++c) {
    const double cx = kLeft + slot * (static_cast<double>(c) + 0.5);
    f.x_tick(cx, categories[c]);
    // Deterministic jitter: the same log always draws the same picture.
    unsigned h = 2166136261u;
    std::vector<double> sorted = values[c];
    for (double v : values[c]) {
      h = (h ^ static_cast<unsigned>(v * 1000)) * 16777619u;
      const double jitter = (static_cast<double>(h % 1000) / 1000 - 0.5) * slot * 0.5;
      f.s << "<circle class=\"point\" cx=\"" << num(cx + jitter) << "\" cy=\"" << num(sy(v))
          << "\" r=\"3\" fill=\"#2ca02c\"/>";
    }
    if (sorted.empty()) continue;
    std::sort(sorted.begin(), sorted.end());
    const double m = sy(sorted[sorted.size() / 2]);
    f.s << "<line x1=\"" << num(cx - slot * 0.35) << "\" y1=\"" << num(m) << "\" x2=\"" << num(cx + slot * 0.35)
        << "\" y2=\"" << num(m) << "\" stroke=\"#000\" stroke-width=\"2\"><title>median " << tick_label(sorted[sorted.size() / 2])
        << "</title></line>";
  }
  f.axes("", y.label);
  return f.done();
}

std::string heat_map(const std::string& title, const std::string& x_label, const std::vector<std::string>& x_cats,
                     const std::string& y_label, const std::vector<std::string>& y_cats,
                     const std::vector<std::vector<double>>& cells, const std::string& value_label) {
  // Viridis stops, dark (fast) to light (slow), by rank of log value between the extremes.
  static const int stops[][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& row : cells)
    for (double v : row)
      if (!std::isnan(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  const auto colour = [&](double v) {
    const double t = hi > lo ? (std::log(v) - std::log(lo)) / (std::log(hi) - std::log(lo)) * 4 : 0;
    const int k = std::min(3, static_cast<int>(t));
    const double u = t - k;
    char buf[16];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", static_cast<int>(std::lround(stops[k][0] + u * (stops[k + 1][0] - stops[k][0]))),
                  static_cast<int>(std::lround(stops[k][1] + u * (stops[k + 1][1] - stops[k][1]))),
                  static_cast<int>(std::lround(stops[k][2] + u * (stops[k + 1][2] - stops[k][2]))));
    return std::string(buf);
  };
  const double cw = (kWidth - kRight - kLeft) / std::max<double>(1, static_cast<double>(x_cats.size()));
  const double ch = (kHeight - kBottom - kTop) / std::max<double>(1, static_cast<double>(y_cats.size()));
  Frame f(title);
  for (std::size_t r = 0; r < y_cats.size(); ++r) {
    const double y = kTop + ch * static_cast<double>(r);
    f.y_tick(y + ch / 2, y_cats[r]);
    for (std::size_t c = 0; c < x_cats.size(); ++c) {
      const double v = cells[r][c];
      if (std::isnan(v)) continue;
      const double x = kLeft + cw * static_cast<double>(c);
      f.s << "<rect class=\"cell\" x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"" << num(cw - 1) << "\" height=\""
          << num(ch - 1) << "\" fill=\"" << colour(v) << "\"><title>" << escape(x_cats[c]) << ", " << escape(y_cats[r])
          << ": " << tick_label(v) << ' ' << escape(value_label) << "</title></rect>";
      if (cw > 34 && ch > 14)
        f.s << "<text x=\"" << num(x + cw / 2) << "\" y=\"" << num(y + ch / 2 + 4) << "\" text-anchor=\"middle\" font-size=\"10\" fill=\""
            << (std::log(v) - std::log(lo) < 0.6 * (std::log(hi) - std::log(lo)) ? "#fff" : "#000") << "\">"
            << ratio_label(v / lo) << "</text>";
    }
  }
  for (std::size_t c = 0; c < x_cats.size(); ++c) f.x_tick(kLeft + cw * (static_cast<double>(c) + 0.5), x_cats[c]);
  f.axes(x_label, y_label);
  return f.done();
}

}  // namespace ktune::svg
