#include "service/render/map_svg.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "rules/geometry/geometry.h"
#include "rules/text_escape.h"

namespace gunbai::service {
namespace {

using replay::MapAction;
using replay::MapClan;
using replay::MapScene;
using replay::MapTerrain;
using replay::MapTerrainKind;
using replay::MapUnit;

using geometry::OrientedRect;
using geometry::Vec2;

// Sanitising: what a scene may ask for before it is clamped or left out.
constexpr double kDefaultPxPerCm = 5;
constexpr double kMinPxPerCm = 0.5;
constexpr double kMaxPxPerCm = 50;
constexpr double kDefaultWidthCm = 180;
constexpr double kDefaultDepthCm = 120;
constexpr double kMaxTableCm = 5000;
// A point further than this from the origin is not drawn (nor is whatever
// it belongs to): it cannot be on the table, and keeps numbers short.
constexpr double kMaxCoordCm = 1e5;
constexpr double kMaxUnitSizeCm = 1000;
constexpr int kMaxStands = 256;
constexpr std::size_t kMaxLeadersDrawn = 6;

// Text: sizes in cm of the picture, lengths in characters (code points).
constexpr double kTitleFont = 3.0;
constexpr double kLabelFont = 2.0;
constexpr double kSmallFont = 1.6;
constexpr double kBadgeFont = 1.4;
constexpr double kCharWidthEm = 0.6;  // An estimate: no font metrics here.
constexpr std::size_t kLabelChars = 40;
constexpr std::size_t kIdChars = 100;

// The legend band below the table.
constexpr double kLegendRowCm = 3.5;
constexpr double kLegendFirstRowStartCm = 19;  // Right of the scale bar.
constexpr double kSwatchCm = 2.2;
constexpr double kBottomPadCm = 1.5;

constexpr char kTableFill[] = "#dfe6d8";
constexpr char kActionRed[] = "#d61a1a";
constexpr char kHighlight[] = "#ff7f00";

// A clan's colours: the bases' fill and an ink that reads on it. Their
// greys (luminance) run 77, 52, 178, 110, 146, 26: distinct in grey too.
struct ClanColour {
  const char* fill;
  const char* ink;
};
constexpr std::array<ClanColour, 6> kPalette = {{
    {"#a82820", "#ffffff"},  // Dark red.
    {"#1c3278", "#ffffff"},  // Dark blue.
    {"#e6b422", "#000000"},  // Gold.
    {"#3f8f3f", "#ffffff"},  // Green.
    {"#a87cc8", "#000000"},  // Purple.
    {"#1a1a1a", "#ffffff"},  // Black.
}};
constexpr ClanColour kNoClan = {"#9a9a9a", "#000000"};

// ---------------------------------------------------------------- Text.

// Decodes the UTF-8 sequence at s[i] into *cp and returns its length, or
// returns 0 when the bytes there are not valid UTF-8 (overlong forms and
// surrogates included).
int DecodeUtf8(absl::string_view s, std::size_t i, char32_t* cp) {
  const unsigned char b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    *cp = b0;
    return 1;
  }
  int len = 0;
  char32_t v = 0, min = 0;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2, v = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, v = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, v = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (int k = 1; k < len; ++k) {
    const unsigned char b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    v = (v << 6) | (b & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return len;
}

// Returns whether XML 1.0 allows the code point in a document.
bool XmlChar(char32_t cp) {
  return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
         (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
}

// Returns `s` as one line of valid UTF-8 that XML allows (invalid bytes
// become U+FFFD, line breaks and tabs spaces, other controls '?'), cut to
// at most `max_chars` code points with "…" standing for what was cut.
std::string CleanText(absl::string_view s, std::size_t max_chars) {
  std::string out;
  std::vector<std::size_t> starts;  // Where each code point begins in out.
  for (std::size_t i = 0; i < s.size() && starts.size() <= max_chars;) {
    char32_t cp = 0;
    const int len = DecodeUtf8(s, i, &cp);
    starts.push_back(out.size());
    if (len == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    if (cp == 0x9 || cp == 0xA || cp == 0xD) {
      out += ' ';
    } else if (!XmlChar(cp)) {
      out += '?';
    } else {
      out.append(s.data() + i, len);
    }
    i += len;
  }
  if (starts.size() > max_chars && max_chars > 0) {
    out.resize(starts[max_chars - 1]);
    out += "\xE2\x80\xA6";  // "…"
  }
  return out;
}

// Returns untrusted text cleaned, cut and escaped, ready for the SVG.
std::string Text(absl::string_view s, std::size_t max_chars = kLabelChars) {
  return base::HtmlEscape(CleanText(s, max_chars));
}

// Returns an estimate of the drawn width (cm) of cleaned text at `font`:
// wide (CJK and like) characters count one em, the others kCharWidthEm.
double TextWidth(absl::string_view cleaned, double font) {
  double ems = 0;
  for (std::size_t i = 0; i < cleaned.size();) {
    char32_t cp = 0;
    const int len = std::max(DecodeUtf8(cleaned, i, &cp), 1);
    ems += cp >= 0x1100 ? 1.0 : kCharWidthEm;
    i += len;
  }
  return ems * font;
}

// Returns `v` (mm) with two decimals, never "nan" nor "-0.00".
std::string Num(double v) {
  if (!std::isfinite(v) || std::abs(v) < 0.005) return "0.00";
  return absl::StrFormat("%.2f", v);
}

// ------------------------------------------------------------- Layout.

// Returns `v` if it is finite and in (0, max], else `fallback` (or max).
double Sane(double v, double fallback, double max) {
  if (!std::isfinite(v) || v <= 0) return fallback;
  return std::min(v, max);
}

double SanePxPerCm(double px_per_cm) {
  return std::clamp(Sane(px_per_cm, kDefaultPxPerCm, kMaxPxPerCm), kMinPxPerCm,
                    kMaxPxPerCm);
}

// One entry of the legend: a clan's swatch, a marker's badge, the mounted
// mark or the highlight, with its words; placed by LayOutLegend.
struct LegendItem {
  enum class Kind { kClan, kBadge, kMounted, kHighlight };
  Kind kind = Kind::kClan;
  int clan = -1;
  std::string badge;  // kBadge: the letters.
  std::string text;   // Cleaned, not yet escaped.
  double x = 0;       // Left, cm from the table's left edge.
  int row = 0;        // Legend row; row 0 also holds the scale bar.
};

struct Layout {
  double ppc = kDefaultPxPerCm;
  double width = kDefaultWidthCm;  // The table, cm.
  double depth = kDefaultDepthCm;
  double content = kMapMinContentWidthCm;  // Between the side margins.
  std::vector<LegendItem> legend;
  int legend_rows = 2;
  int width_px = 0;
  int height_px = 0;
};

// Returns the cm taken by a legend item: its mark, its words, a gap.
double LegendItemWidth(const LegendItem& item) {
  double mark = kSwatchCm;
  if (item.kind == LegendItem::Kind::kBadge) {
    mark = (kCharWidthEm * item.badge.size() + 0.6) * kBadgeFont;
  }
  return mark + 0.6 + TextWidth(item.text, kLabelFont) + 2.5;
}

// Returns the legend's items: the clans, then (on a new row) the markers.
std::vector<LegendItem> LegendItems(const MapScene& scene) {
  using Kind = LegendItem::Kind;
  std::vector<LegendItem> items;
  for (std::size_t i = 0; i < scene.clans.size(); ++i) {
    const MapClan& clan = scene.clans[i];
    items.push_back(
        {Kind::kClan, static_cast<int>(i), "",
         CleanText(clan.name.empty() ? clan.id : clan.name, kLabelChars)});
  }
  constexpr std::array<std::array<const char*, 2>, 6> kBadges = {{
      {"D", "disordered"},
      {"R", "routing"},
      {"F", "frenzied"},
      {"H", "halted"},
      {"M", "in melee"},
      {"+N", "N hits carried"},
  }};
  for (const auto& [badge, words] : kBadges) {
    items.push_back({Kind::kBadge, -1, badge, words});
  }
  items.push_back({Kind::kMounted, -1, "", "mounted"});
  items.push_back({Kind::kHighlight, -1, "", "acts in this event"});
  return items;
}

// Places the legend's items in rows `content` cm wide, markers on a row of
// their own; returns the number of rows.
int LayOutLegend(std::vector<LegendItem>& items, double content) {
  int row = 0;
  double x = kLegendFirstRowStartCm;
  bool markers_started = false;
  for (LegendItem& item : items) {
    const double w = LegendItemWidth(item);
    const bool first_marker =
        item.kind != LegendItem::Kind::kClan && !markers_started;
    if (first_marker) markers_started = true;
    const double row_start = row == 0 ? kLegendFirstRowStartCm : 0;
    if (first_marker || (x + w > content && x > row_start)) {
      ++row;
      x = 0;
    }
    item.x = x;
    item.row = row;
    x += w;
  }
  return row + 1;
}

Layout MakeLayout(const MapScene& scene, double px_per_cm) {
  Layout l;
  l.ppc = SanePxPerCm(px_per_cm);
  l.width = Sane(scene.width, kDefaultWidthCm, kMaxTableCm);
  l.depth = Sane(scene.depth, kDefaultDepthCm, kMaxTableCm);
  l.content = std::max(l.width, kMapMinContentWidthCm);
  l.legend = LegendItems(scene);
  l.legend_rows = LayOutLegend(l.legend, l.content);
  const double w_cm = 2 * kMapSideMarginCm + l.content;
  const double h_cm = kMapTitleBandCm + l.depth + kMapScaleBarGapCm +
                      l.legend_rows * kLegendRowCm + kBottomPadCm;
  l.width_px = static_cast<int>(std::ceil(w_cm * l.ppc - 1e-6));
  l.height_px = static_cast<int>(std::ceil(h_cm * l.ppc - 1e-6));
  return l;
}

// Returns the table point `p` (cm) in the SVG's user units (mm).
Vec2 ToMm(const Layout& l, Vec2 p) {
  return {(kMapSideMarginCm + p.x) * 10,
          (kMapTitleBandCm + l.depth - p.y) * 10};
}

// Returns the picture point (cm from the table's left edge, cm from the
// picture's top) in user units (mm): for the margins' contents.
Vec2 PicMm(double x_from_table_cm, double y_cm) {
  return {(kMapSideMarginCm + x_from_table_cm) * 10, y_cm * 10};
}

// Returns the top of the legend row `row`, cm from the picture's top.
double LegendRowTop(const Layout& l, int row) {
  return kMapTitleBandCm + l.depth + kMapScaleBarGapCm + row * kLegendRowCm;
}

bool Drawable(Vec2 p) {
  return std::isfinite(p.x) && std::isfinite(p.y) &&
         std::abs(p.x) <= kMaxCoordCm && std::abs(p.y) <= kMaxCoordCm;
}

bool AllDrawable(absl::Span<const Vec2> points) {
  return std::all_of(points.begin(), points.end(), Drawable);
}

// -------------------------------------------------------- SVG pieces.

std::string PointsAttr(const Layout& l, absl::Span<const Vec2> points) {
  std::vector<std::string> parts;
  parts.reserve(points.size());
  for (const Vec2 p : points) {
    const Vec2 m = ToMm(l, p);
    parts.push_back(absl::StrCat(Num(m.x), ",", Num(m.y)));
  }
  return absl::StrJoin(parts, " ");
}

// Appends a line between two points in user units.
void AppendLine(std::string& out, Vec2 a, Vec2 b, absl::string_view style) {
  absl::StrAppend(&out, "<line x1=\"", Num(a.x), "\" y1=\"", Num(a.y),
                  "\" x2=\"", Num(b.x), "\" y2=\"", Num(b.y), "\" ", style,
                  "/>\n");
}

void AppendRect(std::string& out, Vec2 at, double w, double h,
                absl::string_view style) {
  absl::StrAppend(&out, "<rect x=\"", Num(at.x), "\" y=\"", Num(at.y),
                  "\" width=\"", Num(w), "\" height=\"", Num(h), "\" ", style,
                  "/>\n");
}

// Appends escaped text at `at` (user units, its baseline), `font` cm high,
// filled with `fill`, with more attributes in `style`; with `halo`, first a
// white outline of it so that it reads on anything.
void AppendText(std::string& out, Vec2 at, double font,
                absl::string_view anchor, absl::string_view escaped,
                absl::string_view fill, absl::string_view style, bool halo) {
  const std::string base = absl::StrCat(
      "<text x=\"", Num(at.x), "\" y=\"", Num(at.y), "\" font-size=\"",
      Num(font * 10), "\" text-anchor=\"", anchor, "\" ", style);
  if (halo) {
    absl::StrAppend(
        &out, base, " fill=\"#ffffff\" stroke=\"#ffffff\" stroke-width=\"",
        Num(font * 2.5), "\" stroke-linejoin=\"round\">", escaped, "</text>\n");
  }
  absl::StrAppend(&out, base, " fill=\"", fill, "\">", escaped, "</text>\n");
}

const ClanColour& ColourOf(const MapScene& scene, int clan) {
  if (clan < 0 || clan >= static_cast<int>(scene.clans.size())) {
    return kNoClan;
  }
  return kPalette[clan % kPalette.size()];
}

// Appends the patterns and arrow heads the drawing refers to.
void AppendDefs(std::string& out) {
  absl::StrAppend(&out, "<defs>\n",
                  "<pattern id=\"woods-trees\" patternUnits=\"userSpaceOnUse\" "
                  "width=\"60\" height=\"60\">"
                  "<circle cx=\"15\" cy=\"15\" r=\"7\" fill=\"#17331a\" "
                  "fill-opacity=\"0.55\"/>"
                  "<circle cx=\"45\" cy=\"45\" r=\"7\" fill=\"#17331a\" "
                  "fill-opacity=\"0.55\"/></pattern>\n",
                  "<pattern id=\"cross-hatch\" patternUnits=\"userSpaceOnUse\" "
                  "width=\"20\" height=\"20\"><path d=\"M0,0L20,20M20,0L0,20\" "
                  "stroke=\"#222222\" stroke-width=\"2\"/></pattern>\n");
  for (const auto& [id, colour] :
       {std::array<const char*, 2>{"arrow-charge", kActionRed},
        std::array<const char*, 2>{"arrow-move", "#222222"}}) {
    absl::StrAppend(&out, "<marker id=\"", id,
                    "\" viewBox=\"0 0 10 10\" refX=\"7\" refY=\"5\" "
                    "markerWidth=\"4\" markerHeight=\"4\" orient=\"auto\">"
                    "<path d=\"M0,0L10,5L0,10z\" fill=\"",
                    colour, "\"/></marker>\n");
  }
  out += "</defs>\n";
}

// Appends the white page, the title and the table.
void AppendPageAndTable(std::string& out, const Layout& l,
                        const MapScene& scene) {
  AppendRect(out, {0, 0}, l.width_px / l.ppc * 10, l.height_px / l.ppc * 10,
             "fill=\"#ffffff\"");
  const double title_chars =
      std::clamp(l.content / (kCharWidthEm * kTitleFont), 20.0, 200.0);
  AppendText(out, PicMm(0, kMapTitleBandCm * 0.62), kTitleFont, "start",
             Text(scene.title, static_cast<std::size_t>(title_chars)),
             "#1a1a1a", "font-weight=\"bold\"", false);
  AppendRect(out, ToMm(l, {0, l.depth}), l.width * 10, l.depth * 10,
             absl::StrCat("id=\"table\" fill=\"", kTableFill,
                          "\" stroke=\"#6f7f66\" stroke-width=\"3\""));
}

// ------------------------------------------------------------ Terrain.

// Returns the mean of the points: where a terrain's label goes.
Vec2 Mean(absl::Span<const Vec2> points) {
  Vec2 sum;
  for (const Vec2 p : points) sum = sum + p;
  return points.empty() ? sum : sum * (1.0 / points.size());
}

void AppendPolygon(std::string& out, const Layout& l,
                   const geometry::Polygon& area, absl::string_view style) {
  absl::StrAppend(&out, "<polygon points=\"", PointsAttr(l, area.vertices),
                  "\" ", style, "/>\n");
}

void AppendPolyline(std::string& out, const Layout& l,
                    const geometry::Polyline& line, absl::string_view style) {
  absl::StrAppend(&out, "<polyline points=\"", PointsAttr(l, line.points),
                  "\" fill=\"none\" ", style, "/>\n");
}

// Appends the fill(s) of an area terrain, by kind.
void AppendArea(std::string& out, const Layout& l, const MapScene& scene,
                const MapTerrain& t) {
  switch (t.kind) {
    case MapTerrainKind::kWoods:
      AppendPolygon(out, l, t.area,
                    "fill=\"#2f5a2a\" fill-opacity=\"0.55\" "
                    "stroke=\"#1f3d1c\" stroke-width=\"2\"");
      AppendPolygon(out, l, t.area, "fill=\"url(#woods-trees)\"");
      break;
    case MapTerrainKind::kBuilding:
      AppendPolygon(out, l, t.area,
                    "fill=\"#8d7b6a\" stroke=\"#3f352c\" stroke-width=\"2\"");
      break;
    case MapTerrainKind::kHill:
      AppendPolygon(out, l, t.area,
                    "fill=\"#d8bf8f\" stroke=\"#a88a5a\" stroke-width=\"2\"");
      break;
    case MapTerrainKind::kImpassable:
      AppendPolygon(out, l, t.area,
                    "fill=\"#5a5a5a\" stroke=\"#2a2a2a\" stroke-width=\"2\"");
      AppendPolygon(out, l, t.area, "fill=\"url(#cross-hatch)\"");
      break;
    case MapTerrainKind::kCamp:
      AppendPolygon(out, l, t.area,
                    absl::StrCat("fill=\"", ColourOf(scene, t.clan).fill,
                                 "\" fill-opacity=\"0.12\" stroke=\"",
                                 ColourOf(scene, t.clan).fill,
                                 "\" stroke-width=\"3\" "
                                 "stroke-dasharray=\"15 10\""));
      break;
    case MapTerrainKind::kLinearObstacle:
      break;
  }
}

// Returns the words a terrain is labelled with: its id (and a camp's clan).
std::string TerrainLabel(const MapScene& scene, const MapTerrain& t) {
  std::string label = CleanText(t.id, kLabelChars);
  if (t.kind == MapTerrainKind::kCamp && t.clan >= 0 &&
      t.clan < static_cast<int>(scene.clans.size())) {
    absl::StrAppend(&label, " (camp of ",
                    CleanText(scene.clans[t.clan].id, kLabelChars), ")");
  }
  return label;
}

constexpr std::array<const char*, 6> kTerrainWords = {
    "woods", "building", "hill", "linear obstacle", "impassable", "camp"};

void AppendTerrain(std::string& out, const Layout& l, const MapScene& scene,
                   const MapTerrain& t) {
  const bool area_ok =
      t.area.vertices.size() >= 3 && AllDrawable(t.area.vertices);
  const bool line_ok = t.line.points.size() >= 2 && AllDrawable(t.line.points);
  const bool linear = t.kind == MapTerrainKind::kLinearObstacle;
  if (linear ? !line_ok : !area_ok) return;
  const std::string label = base::HtmlEscape(TerrainLabel(scene, t));
  const auto kind = static_cast<std::size_t>(t.kind);
  absl::StrAppend(&out, "<g class=\"terrain\" id=\"terrain-",
                  Text(t.id, kIdChars), "\"><title>",
                  kind < kTerrainWords.size() ? kTerrainWords[kind] : "terrain",
                  " ", label, "</title>\n");
  AppendArea(out, l, scene, t);
  if (linear) {
    AppendPolyline(out, l, t.line,
                   "stroke=\"#6b4423\" stroke-width=\"8\" "
                   "stroke-linecap=\"round\" stroke-linejoin=\"round\"");
  } else if (t.kind == MapTerrainKind::kHill && line_ok) {
    AppendPolyline(out, l, t.line,
                   "stroke=\"#7a5a30\" stroke-width=\"3\" "
                   "stroke-dasharray=\"12 8\"");
  }
  const Vec2 at =
      linear ? t.line.points[t.line.points.size() / 2] : Mean(t.area.vertices);
  AppendText(out, ToMm(l, at) + Vec2{0, linear ? -8.0 : 5.0}, kSmallFont,
             "middle", label, "#222222", "font-style=\"italic\"", true);
  out += "</g>\n";
}

// -------------------------------------------------------------- Units.

bool UnitDrawable(const MapUnit& u) {
  const OrientedRect& r = u.footprint;
  return Drawable(r.front_centre) && std::isfinite(r.facing) &&
         std::abs(r.facing) < 1e6 && std::isfinite(r.frontage) &&
         std::isfinite(r.depth) && r.frontage > 0 && r.depth > 0 &&
         r.frontage <= kMaxUnitSizeCm && r.depth <= kMaxUnitSizeCm;
}

// Returns each base's corners (front left, front right, rear right, rear
// left): the footprint cut into stands_per_rank columns and as many ranks
// as the stands fill, front rank first; a partial rear rank is centred.
std::vector<std::array<Vec2, 4>> BaseCorners(const MapUnit& u) {
  const int stands = std::clamp(u.stands, 1, kMaxStands);
  const int per_rank = std::clamp(u.stands_per_rank, 1, kMaxStands);
  const int ranks = (stands + per_rank - 1) / per_rank;
  const Vec2 forward = geometry::Forward(u.footprint);
  const Vec2 right = geometry::Rotate(forward, -geometry::kPi / 2);
  const Vec2 front_left = geometry::Corners(u.footprint)[0];
  const double w = u.footprint.frontage / per_rank;
  const double d = u.footprint.depth / ranks;
  std::vector<std::array<Vec2, 4>> bases;
  for (int rank = 0; rank < ranks; ++rank) {
    const int n = std::min(per_rank, stands - rank * per_rank);
    const double offset = (per_rank - n) / 2.0;
    for (int c = 0; c < n; ++c) {
      const Vec2 fl =
          front_left + right * ((offset + c) * w) - forward * (rank * d);
      const Vec2 fr = fl + right * w;
      bases.push_back({fl, fr, fr - forward * d, fl - forward * d});
    }
  }
  return bases;
}

void AppendBases(std::string& out, const Layout& l, const MapUnit& u,
                 const ClanColour& colour) {
  for (const std::array<Vec2, 4>& c : BaseCorners(u)) {
    absl::StrAppend(&out, "<polygon class=\"base\" points=\"", PointsAttr(l, c),
                    "\" fill=\"", colour.fill,
                    "\" stroke=\"#000000\" stroke-width=\"1.5\" "
                    "stroke-linejoin=\"round\"/>\n");
    if (u.mounted) {
      AppendLine(
          out, ToMm(l, c[0]), ToMm(l, c[2]),
          absl::StrCat("stroke=\"", colour.ink, "\" stroke-width=\"1.5\""));
    }
  }
}

// Appends the front edge (thick, white under black) and the arrow head at
// its centre pointing the way the unit faces.
void AppendFront(std::string& out, const Layout& l, const MapUnit& u,
                 const ClanColour& colour) {
  const std::array<Vec2, 4> c = geometry::Corners(u.footprint);
  AppendLine(out, ToMm(l, c[0]), ToMm(l, c[1]),
             "stroke=\"#ffffff\" stroke-width=\"5\" stroke-linecap=\"round\"");
  AppendLine(out, ToMm(l, c[0]), ToMm(l, c[1]),
             "stroke=\"#000000\" stroke-width=\"1.5\"");
  const Vec2 forward = geometry::Forward(u.footprint);
  const Vec2 left = geometry::Rotate(forward, geometry::kPi / 2);
  const double half = std::min(1.0, u.footprint.frontage / 2);
  const Vec2 fc = u.footprint.front_centre;
  absl::StrAppend(
      &out, "<polygon class=\"facing\" points=\"",
      PointsAttr(l, {fc + left * half, fc + forward * 1.7, fc - left * half}),
      "\" fill=\"", colour.fill,
      "\" stroke=\"#ffffff\" stroke-width=\"1\"/>\n");
}

void AppendHighlight(std::string& out, const Layout& l, const MapUnit& u) {
  const std::array<Vec2, 4> c = geometry::Corners(u.footprint);
  absl::StrAppend(&out, "<polygon class=\"highlight\" points=\"",
                  PointsAttr(l, c), "\" fill=\"none\" stroke=\"", kHighlight,
                  "\" stroke-width=\"4\" stroke-linejoin=\"round\"/>\n");
}

// Returns the unit's markers as badges ("D", "+2") and as words.
std::vector<std::array<std::string, 2>> Markers(const MapUnit& u) {
  std::vector<std::array<std::string, 2>> m;
  if (u.disordered) m.push_back({"D", "disordered"});
  if (u.routing) m.push_back({"R", "routing"});
  if (u.frenzied) m.push_back({"F", "frenzied"});
  if (u.halted) m.push_back({"H", "halted"});
  if (u.in_melee) m.push_back({"M", "in melee"});
  if (u.carried_hits > 0) {
    const int hits = std::min(u.carried_hits, 999);
    m.push_back({absl::StrCat("+", hits),
                 absl::StrCat(hits, hits == 1 ? " hit" : " hits", " carried")});
  }
  return m;
}

// Returns the unit's tooltip: its label, clan and markers in words.
std::string UnitTitle(const MapScene& scene, const MapUnit& u) {
  std::string title = Text(u.label.empty() ? u.id : u.label);
  if (u.clan >= 0 && u.clan < static_cast<int>(scene.clans.size())) {
    absl::StrAppend(&title, " (", Text(scene.clans[u.clan].name), ")");
  }
  std::vector<std::string> words;
  if (u.mounted) words.push_back("mounted");
  for (const auto& marker : Markers(u)) words.push_back(marker[1]);
  if (u.highlighted) words.push_back("acts in this event");
  if (!words.empty()) absl::StrAppend(&title, ": ", absl::StrJoin(words, ", "));
  std::vector<std::string> leaders;
  for (const std::string& leader : u.leaders) leaders.push_back(Text(leader));
  if (!leaders.empty()) {
    absl::StrAppend(&title, "; leaders: ", absl::StrJoin(leaders, ", "));
  }
  return title;
}

// Returns the picture's size in user units (mm).
Vec2 PictureMm(const Layout& l) {
  return {l.width_px / l.ppc * 10, l.height_px / l.ppc * 10};
}

// Where a unit's label block goes: just beyond the side of its bounding
// box (on screen) that its rear faces, so that its front stays clear; below
// the unit when a block `width` wide would not fit beside it.
struct LabelPlace {
  Vec2 at;             // User units.
  const char* anchor;  // "middle", "start" or "end".
  int vertical;        // +1: the block hangs below at, -1: stands above
                       // it, 0: is centred on it.
};

LabelPlace PlaceLabel(const Layout& l, const MapUnit& u, double width) {
  const std::array<Vec2, 4> c = geometry::Corners(u.footprint);
  Vec2 lo = ToMm(l, c[0]), hi = lo;
  for (const Vec2 p : c) {
    const Vec2 m = ToMm(l, p);
    lo = {std::min(lo.x, m.x), std::min(lo.y, m.y)};
    hi = {std::max(hi.x, m.x), std::max(hi.y, m.y)};
  }
  const Vec2 mid = (lo + hi) * 0.5;
  const Vec2 forward = geometry::Forward(u.footprint);
  // On screen the rear is -forward with y flipped: (-f.x, f.y).
  constexpr double kGap = 8;  // mm
  const LabelPlace below = {{mid.x, hi.y + kGap}, "middle", 1};
  if (std::abs(forward.y) >= 0.5) {
    return forward.y > 0 ? below
                         : LabelPlace{{mid.x, lo.y - kGap}, "middle", -1};
  }
  // Beside, unless the block would run off the picture: then below.
  if (forward.x < 0) {
    return hi.x + kGap + width <= PictureMm(l).x
               ? LabelPlace{{hi.x + kGap, mid.y}, "start", 0}
               : below;
  }
  return lo.x - kGap - width >= 0 ? LabelPlace{{lo.x - kGap, mid.y}, "end", 0}
                                  : below;
}

// Appends the badges in a row whose left end is at `x`, top at `top`.
void AppendBadges(std::string& out, double x, double top,
                  const std::vector<std::array<std::string, 2>>& markers) {
  for (const auto& [badge, words] : markers) {
    const double w = (kCharWidthEm * badge.size() + 0.6) * kBadgeFont * 10;
    const double h = kBadgeFont * 13;
    const bool routing = badge == "R";
    AppendRect(
        out, {x, top}, w, h,
        absl::StrCat("rx=\"3\" fill=\"", routing ? kActionRed : "#ffffff",
                     "\" stroke=\"#000000\" stroke-width=\"1\""));
    AppendText(out, {x + w / 2, top + h * 0.78}, kBadgeFont, "middle", badge,
               routing ? "#ffffff" : "#000000", "font-weight=\"bold\"", false);
    x += w + 3;
  }
}

double BadgesWidth(const std::vector<std::array<std::string, 2>>& markers) {
  double w = 0;
  for (const auto& marker : markers) {
    w += (kCharWidthEm * marker[0].size() + 0.6) * kBadgeFont * 10 + 3;
  }
  return std::max(w - 3, 0.0);
}

// Moves place->at.x so that a label block `width` x `height` (user units)
// lies inside the picture, and returns the block's top, also inside.
double FitLabel(const Layout& l, double width, double height,
                LabelPlace* place) {
  const Vec2 picture = PictureMm(l);
  const absl::string_view anchor = place->anchor;
  const double left_of_at = anchor == "start" ? 0
                            : anchor == "end" ? width
                                              : width / 2;
  const double left = std::clamp(place->at.x - left_of_at, 2.0,
                                 std::max(2.0, picture.x - 2 - width));
  place->at.x = left + left_of_at;
  const double top = place->at.y - (place->vertical > 0   ? 0
                                    : place->vertical < 0 ? height
                                                          : height / 2);
  return std::clamp(top, 2.0, std::max(2.0, picture.y - 2 - height));
}

// Returns the left end of a row `width` wide written at `place`.
double RowLeft(const LabelPlace& place, double width) {
  const absl::string_view anchor = place.anchor;
  return anchor == "start" ? place.at.x
         : anchor == "end" ? place.at.x - width
                           : place.at.x - width / 2;
}

// Appends the label, the markers' badges and the leaders beside the unit,
// kept inside the picture.
void AppendUnitLabel(std::string& out, const Layout& l, const MapUnit& u) {
  const auto markers = Markers(u);
  const std::string label =
      CleanText(u.label.empty() ? u.id : u.label, kLabelChars);
  std::vector<std::string> leaders;
  // Bold text runs about a tenth wider than the estimate.
  double width = TextWidth(label, kLabelFont) * 11;
  for (std::size_t i = 0; i < u.leaders.size() && i < kMaxLeadersDrawn; ++i) {
    leaders.push_back(CleanText(u.leaders[i], kLabelChars));
    width = std::max(width, TextWidth(leaders.back(), kSmallFont) * 10);
  }
  width = std::max(width, BadgesWidth(markers));
  const double label_h = kLabelFont * 12, badge_h = kBadgeFont * 15,
               leader_h = kSmallFont * 12;
  const double height =
      label_h + (markers.empty() ? 0 : badge_h) + leaders.size() * leader_h;
  LabelPlace place = PlaceLabel(l, u, width);
  double top = FitLabel(l, width, height, &place);
  AppendText(out, {place.at.x, top + kLabelFont * 8.5}, kLabelFont,
             place.anchor, base::HtmlEscape(label), "#111111",
             "font-weight=\"bold\"", true);
  top += label_h;
  if (!markers.empty()) {
    AppendBadges(out, RowLeft(place, BadgesWidth(markers)), top + 2, markers);
    top += badge_h;
  }
  for (const std::string& leader : leaders) {
    AppendText(out, {place.at.x, top + kSmallFont * 8.5}, kSmallFont,
               place.anchor, base::HtmlEscape(leader), "#333333", "", true);
    top += leader_h;
  }
}

void AppendUnit(std::string& out, const Layout& l, const MapScene& scene,
                const MapUnit& u) {
  if (!UnitDrawable(u)) return;
  const ClanColour& colour = ColourOf(scene, u.clan);
  absl::StrAppend(&out, "<g class=\"unit\" id=\"unit-", Text(u.id, kIdChars),
                  "\"><title>", UnitTitle(scene, u), "</title>\n");
  AppendBases(out, l, u, colour);
  AppendFront(out, l, u, colour);
  if (u.highlighted) AppendHighlight(out, l, u);
  AppendUnitLabel(out, l, u);
  out += "</g>\n";
}

// ------------------------------------------------------------- Action.

// Returns the unit normal (user units) to the action's line on the side
// its caption goes: the right on screen, or below a horizontal line. The
// range rings' labels go on the other side.
Vec2 CaptionSide(const Layout& l, const MapAction& a) {
  const Vec2 d = ToMm(l, a.to) - ToMm(l, a.from);
  const double length = geometry::Length(d);
  if (!std::isfinite(length) || length < 1e-6) return {1, 0};
  Vec2 n = Vec2{-d.y, d.x} * (1 / length);
  if (n.x < -1e-9 || (std::abs(n.x) <= 1e-9 && n.y < 0)) n = n * -1;
  return n;
}

// Returns the text anchor for a label placed off a point towards `n`.
const char* AnchorToward(Vec2 n) {
  return n.x > 0.3 ? "start" : n.x < -0.3 ? "end" : "middle";
}

// Appends a ring's label where it crosses the ray 45 degrees off the line
// of fire (`dir`, on screen) on the side away from the caption.
void AppendRingLabel(std::string& out, Vec2 centre, double r, Vec2 dir,
                     Vec2 caption_side, absl::string_view escaped) {
  const double c = std::cos(geometry::kPi / 4);
  Vec2 off = (dir + caption_side * -1) * c;  // Both unit, at right angles.
  if (geometry::Length(off) < 1e-6) off = {0, -1};
  const Vec2 at = centre + off * (r + 3);
  AppendText(out,
             at + Vec2{0, off.y > 0.3    ? 12.0
                          : off.y < -0.3 ? -2.0
                                         : 5.0},
             kSmallFont, AnchorToward(off), escaped, kActionRed, "", true);
}

// Appends the firer's range rings (drawn under the units).
void AppendRings(std::string& out, const Layout& l, const MapScene& scene) {
  const MapAction& a = scene.action;
  if (a.kind != MapAction::Kind::kFire || a.actor < 0 ||
      a.actor >= static_cast<int>(scene.units.size()) ||
      !UnitDrawable(scene.units[a.actor])) {
    return;
  }
  const Vec2 centre = ToMm(l, scene.units[a.actor].footprint.front_centre);
  const Vec2 side = CaptionSide(l, a);
  // Along the line, from -> to: the caption side turned back a right angle,
  // either way round as CaptionSide chose.
  const Vec2 d = ToMm(l, a.to) - ToMm(l, a.from);
  Vec2 dir = {side.y, -side.x};
  if (geometry::Dot(dir, d) < 0) dir = dir * -1;
  out += "<g class=\"rings\">\n";
  for (const MapAction::Ring& ring : a.rings) {
    if (!std::isfinite(ring.radius) || ring.radius <= 0 ||
        ring.radius > kMaxUnitSizeCm) {
      continue;
    }
    const double r = ring.radius * 10;
    // Every point within `radius` of the footprint (range is measured
    // between nearest points): the footprint grown by r, its corners
    // rounded with radius r. Its local x runs along the unit's facing.
    const geometry::OrientedRect& f = scene.units[a.actor].footprint;
    const Vec2 mid = ToMm(l, geometry::Centre(f));
    const double turn = -f.facing * 180 / geometry::kPi;
    const double w = f.depth * 10 + 2 * r;
    const double h = f.frontage * 10 + 2 * r;
    absl::StrAppend(&out, "<rect x=\"", Num(-w / 2), "\" y=\"", Num(-h / 2),
                    "\" width=\"", Num(w), "\" height=\"", Num(h), "\" rx=\"",
                    Num(r), "\" ry=\"", Num(r), "\" transform=\"translate(",
                    Num(mid.x), " ", Num(mid.y), ") rotate(", Num(turn),
                    ")\" fill=\"none\" stroke=\"", kActionRed,
                    "\" stroke-opacity=\"0.7\" stroke-width=\"2\" "
                    "stroke-dasharray=\"6 6\"/>\n");
    AppendRingLabel(out, centre, r, dir, side, Text(ring.label));
  }
  out += "</g>\n";
}

// Appends an eight-pointed star about `c` (user units): a melee's contact.
void AppendStar(std::string& out, Vec2 c) {
  std::vector<std::string> points;
  for (int i = 0; i < 16; ++i) {
    const double r = i % 2 == 0 ? 22 : 9;
    const Vec2 p = c + geometry::Direction(i * geometry::kPi / 8) * r;
    points.push_back(absl::StrCat(Num(p.x), ",", Num(p.y)));
  }
  absl::StrAppend(&out, "<polygon points=\"", absl::StrJoin(points, " "),
                  "\" fill=\"", kHighlight,
                  "\" stroke=\"#000000\" stroke-width=\"1\"/>\n");
}

// Returns the attributes of the action's line, by kind: a dashed line of
// fire, a charge's or a move's arrow, a melee's thick contact.
std::string ActionLineStyle(MapAction::Kind kind) {
  switch (kind) {
    case MapAction::Kind::kFire:
      return absl::StrCat("stroke=\"", kActionRed,
                          "\" stroke-width=\"3.5\" stroke-dasharray=\"14 8\"");
    case MapAction::Kind::kCharge:
      return absl::StrCat("stroke=\"", kActionRed,
                          "\" stroke-width=\"4\" "
                          "marker-end=\"url(#arrow-charge)\"");
    case MapAction::Kind::kMove:
      return "stroke=\"#222222\" stroke-width=\"3\" "
             "stroke-dasharray=\"10 6\" marker-end=\"url(#arrow-move)\"";
    case MapAction::Kind::kMelee:
      return absl::StrCat("stroke=\"", kHighlight,
                          "\" stroke-width=\"8\" stroke-linecap=\"round\"");
    case MapAction::Kind::kNone:
      break;
  }
  return "stroke=\"none\"";
}

// Appends the line of fire, the arrow or the contact, and the caption.
void AppendActionLine(std::string& out, const Layout& l, const MapAction& a) {
  if (a.kind == MapAction::Kind::kNone || !Drawable(a.from) ||
      !Drawable(a.to)) {
    return;
  }
  const Vec2 from = ToMm(l, a.from), to = ToMm(l, a.to);
  out += "<g class=\"action\">\n";
  AppendLine(out, from, to, ActionLineStyle(a.kind));
  if (a.kind == MapAction::Kind::kMelee) AppendStar(out, (from + to) * 0.5);
  const Vec2 side = CaptionSide(l, a);
  // Clear of the line, or of the melee's star (its radius is 22 mm).
  const double clear = a.kind == MapAction::Kind::kMelee ? 26 : 6;
  const Vec2 at = (from + to) * 0.5 + side * clear +
                  Vec2{0, side.y > 0.3 ? kLabelFont * 8 : kLabelFont * 3};
  AppendText(out, at, kLabelFont, AnchorToward(side), Text(a.caption, 60),
             kActionRed, "font-weight=\"bold\"", true);
  out += "</g>\n";
}

// ------------------------------------------------- Legend, scale bar.

// Appends the scale bar: a black bar exactly 10 cm long with ticks at 0,
// 5 and 10 cm inside its length, and "10 cm" to its right.
void AppendScaleBar(std::string& out, const Layout& l) {
  const double top = kMapTitleBandCm + l.depth + kMapScaleBarGapCm;
  const Vec2 left = PicMm(0, top);
  out += "<g id=\"scale-bar\">\n";
  AppendRect(out, left, 100, kMapScaleBarHeightCm * 10, "fill=\"#000000\"");
  for (const double x : {0.0, 48.5, 97.0}) {
    AppendRect(out, left + Vec2{x, -8}, 3, 8, "fill=\"#000000\"");
  }
  AppendText(out, left + Vec2{108, kMapScaleBarHeightCm * 10}, kLabelFont,
             "start", "10 cm", "#000000", "", false);
  out += "</g>\n";
}

// Appends one legend item's mark (a swatch, a badge...) at `at` (its top
// left, user units), and returns the mark's width.
double AppendLegendMark(std::string& out, const MapScene& scene,
                        const LegendItem& item, Vec2 at) {
  const double s = kSwatchCm * 10;
  switch (item.kind) {
    case LegendItem::Kind::kClan:
      AppendRect(out, at, s, s,
                 absl::StrCat("fill=\"", ColourOf(scene, item.clan).fill,
                              "\" stroke=\"#000000\" stroke-width=\"1.5\""));
      return s;
    case LegendItem::Kind::kBadge:
      AppendBadges(out, at.x, at.y + 2, {{item.badge, item.text}});
      return BadgesWidth({{item.badge, item.text}});
    case LegendItem::Kind::kMounted:
      AppendRect(out, at, s, s,
                 absl::StrCat("fill=\"", kNoClan.fill,
                              "\" stroke=\"#000000\" "
                              "stroke-width=\"1.5\""));
      AppendLine(out, at, at + Vec2{s, s},
                 "stroke=\"#000000\" stroke-width=\"1.5\"");
      return s;
    case LegendItem::Kind::kHighlight:
      AppendRect(out, at, s, s,
                 absl::StrCat("fill=\"", kNoClan.fill, "\" stroke=\"",
                              kHighlight, "\" stroke-width=\"4\""));
      return s;
  }
  return s;
}

void AppendLegend(std::string& out, const Layout& l, const MapScene& scene) {
  out += "<g id=\"legend\">\n";
  for (const LegendItem& item : l.legend) {
    const Vec2 at = PicMm(item.x, LegendRowTop(l, item.row));
    const double w = AppendLegendMark(out, scene, item, at);
    AppendText(out, at + Vec2{w + 6, kSwatchCm * 8}, kLabelFont, "start",
               base::HtmlEscape(item.text), "#111111", "", false);
  }
  out += "</g>\n";
}

}  // namespace

std::string RenderMapSvg(const MapScene& scene, double px_per_cm) {
  const Layout l = MakeLayout(scene, px_per_cm);
  const double vb_w = l.width_px / l.ppc * 10, vb_h = l.height_px / l.ppc * 10;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  absl::StrAppend(&out,
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
                  "width=\"",
                  l.width_px, "\" height=\"", l.height_px, "\" viewBox=\"0 0 ",
                  Num(vb_w), " ", Num(vb_h),
                  "\" font-family=\"DejaVu Sans, Verdana, sans-serif\">\n");
  absl::StrAppend(&out, "<title>", Text(scene.title, 200), "</title>\n");
  AppendDefs(out);
  AppendPageAndTable(out, l, scene);
  out += "<g id=\"terrain\">\n";
  for (const MapTerrain& t : scene.terrain) AppendTerrain(out, l, scene, t);
  out += "</g>\n";
  AppendRings(out, l, scene);
  out += "<g id=\"units\">\n";
  for (const MapUnit& u : scene.units) AppendUnit(out, l, scene, u);
  out += "</g>\n";
  AppendActionLine(out, l, scene.action);
  AppendScaleBar(out, l);
  AppendLegend(out, l, scene);
  out += "</svg>\n";
  return out;
}

geometry::Vec2 MapPixel(const MapScene& scene, geometry::Vec2 p,
                        double px_per_cm) {
  const double ppc = SanePxPerCm(px_per_cm);
  const double depth = Sane(scene.depth, kDefaultDepthCm, kMaxTableCm);
  return {(kMapSideMarginCm + p.x) * ppc,
          (kMapTitleBandCm + depth - p.y) * ppc};
}

}  // namespace gunbai::service
