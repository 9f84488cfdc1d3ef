//! SVG charts, drawn one way for every command: `run --plots` and `run-ptx --plots` (a timing
//! run's charts, [`run`]), `rf --svg` / `rf --plots` (the techniques side by side,
//! [`panels`]), `characterize --plots` (its columns per sample). Each chart is a title with its
//! legend above a plot of bars ([`bars`]) or lines ([`lines`]), written whole or not at all.

pub(crate) mod panels;
pub(crate) mod run;

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

/// Series colours, in order: grey first (a baseline, or the first series), then distinct.
pub(crate) const COLOURS: [RGBColor; 8] = [
    RGBColor(140, 140, 140),
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
];

/// Height of the strip holding a chart's title and legend.
pub(crate) const TITLE_HEIGHT: u32 = 60;

type Drawn = Result<(), Box<dyn std::error::Error>>;

/// Draws the title and, under it, a legend entry per series name, centred in `top`; series
/// `i` has colour `first_colour + i` of [`COLOURS`].
pub(crate) fn title_and_legend<DB: DrawingBackend>(
    top: &DrawingArea<DB, plotters::coord::Shift>,
    width: u32,
    title: &str,
    names: &[String],
    first_colour: usize,
) -> Drawn
where
    DB::ErrorType: 'static,
{
    top.draw(&Text::new(
        title.to_string(),
        (width as i32 / 2, 10),
        ("sans-serif", 18)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Top)),
    ))?;
    let entry = |t: &String| 40 + 7 * t.chars().count() as i32;
    let legend_width: i32 = names.iter().map(entry).sum();
    let mut x = (width as i32 - legend_width).max(0) / 2;
    for (i, name) in names.iter().enumerate() {
        let colour = COLOURS[(first_colour + i) % COLOURS.len()];
        top.draw(&Rectangle::new([(x, 38), (x + 14, 50)], colour.filled()))?;
        top.draw(&Text::new(
            name.clone(),
            (x + 20, 44),
            ("sans-serif", 15)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
        x += entry(name);
    }
    Ok(())
}

/// Writes the SVG at `path` whole: `draw` draws onto a file beside it, renamed once complete.
pub(crate) fn write_svg(path: &Path, draw: impl FnOnce(&Path) -> Drawn) -> Result<(), String> {
    crate::output::write_whole(path, |temp| {
        draw(temp).map_err(|e| format!("cannot draw {}: {e}", path.display()))
    })
    .map_err(|e| format!("error: {e}"))
}

/// A bar chart: per category a group of bars, one per series (or one bar of the series
/// stacked, with `stacked`), labelled under the axis.
pub(crate) struct Bars<'a> {
    pub title: &'a str,
    pub y_label: &'a str,
    pub categories: Vec<String>,
    /// Per series its name and its value in each category.
    pub series: Vec<(String, Vec<f64>)>,
    pub stacked: bool,
}

/// Writes `chart` to `path`.
pub(crate) fn bars(path: &Path, chart: &Bars<'_>) -> Result<(), String> {
    write_svg(path, |file| draw_bars(file, chart))
}

fn draw_bars(path: &Path, c: &Bars<'_>) -> Drawn {
    let groups = c.categories.len().max(1);
    let per_group = if c.stacked { 1 } else { c.series.len().max(1) };
    let label_height = 20 + 7 * c.categories.iter().map(|s| s.len()).max().unwrap_or(0) as u32;
    let width = (110 + groups * (per_group * 14 + 12)).max(760) as u32;
    let height = TITLE_HEIGHT + 340 + label_height;
    let root = SVGBackend::new(path, (width, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let (top, plot) = root.split_vertically(TITLE_HEIGHT);
    let names: Vec<String> = c.series.iter().map(|(n, _)| n.clone()).collect();
    title_and_legend(&top, width, c.title, &names, 0)?;
    let top_value = (0..c.categories.len())
        .map(|g| {
            let values = c
                .series
                .iter()
                .map(|(_, v)| v.get(g).copied().unwrap_or(0.0));
            if c.stacked {
                values.sum()
            } else {
                values.fold(0.0, f64::max)
            }
        })
        .fold(0.0f64, f64::max);
    let y_max = if top_value > 0.0 {
        top_value * 1.1
    } else {
        1.0
    };
    let mut chart = ChartBuilder::on(&plot)
        .margin_left(10)
        .margin_right(20)
        .margin_top(16)
        .x_label_area_size(label_height)
        .y_label_area_size(80)
        .build_cartesian_2d(0f64..groups as f64, 0f64..y_max)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .disable_x_axis()
        .x_labels(0)
        .y_desc(c.y_label)
        .y_label_formatter(&|v| format_value(*v))
        .axis_desc_style(("sans-serif", 14))
        .label_style(("sans-serif", 12))
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.12))
        .draw()?;
    let bar = 0.8 / per_group as f64;
    for (s, (_, values)) in c.series.iter().enumerate() {
        let colour = COLOURS[s % COLOURS.len()];
        chart.draw_series(values.iter().enumerate().map(|(g, &v)| {
            let (x0, below) = if c.stacked {
                let below: f64 = c.series[..s]
                    .iter()
                    .map(|(_, v)| v.get(g).copied().unwrap_or(0.0))
                    .sum();
                (g as f64 + 0.1, below)
            } else {
                (g as f64 + 0.1 + s as f64 * bar, 0.0)
            };
            Rectangle::new([(x0, below), (x0 + bar * 0.92, below + v)], colour.filled())
        }))?;
    }
    group_labels(&plot, &chart, c.categories.iter())?;
    root.present()?;
    Ok(())
}

/// A chart whose x axis counts groups of bars (group `g` spans `g..g + 1`).
pub(crate) type GroupChart<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Writes each name under its group of bars in `area` (the chart's drawing area), turned to
/// read upwards.
pub(crate) fn group_labels<S: AsRef<str>>(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    chart: &GroupChart<'_, '_>,
    names: impl Iterator<Item = S>,
) -> Drawn {
    let (x0, y0) = area.get_base_pixel();
    for (g, name) in names.enumerate() {
        let (px, py) = chart.backend_coord(&(g as f64 + 0.5, 0.0));
        area.draw(&Text::new(
            name.as_ref().to_string(),
            (px - x0, py - y0 + 8),
            ("sans-serif", 13)
                .into_font()
                .transform(FontTransform::Rotate270)
                .color(&BLACK)
                .pos(Pos::new(HPos::Right, VPos::Center)),
        ))?;
    }
    Ok(())
}

/// A line chart: each series a line through its points.
pub(crate) struct Lines<'a> {
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    /// Per series its name and its points.
    pub series: Vec<(String, Vec<(f64, f64)>)>,
}

/// Writes `chart` to `path`.
pub(crate) fn lines(path: &Path, chart: &Lines<'_>) -> Result<(), String> {
    write_svg(path, |file| draw_lines(file, chart))
}

fn draw_lines(path: &Path, c: &Lines<'_>) -> Drawn {
    let (width, height) = (900u32, TITLE_HEIGHT + 420);
    let root = SVGBackend::new(path, (width, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let (top, plot) = root.split_vertically(TITLE_HEIGHT);
    let names: Vec<String> = c.series.iter().map(|(n, _)| n.clone()).collect();
    // Lines start at the first colour that is not grey.
    title_and_legend(&top, width, c.title, &names, 1)?;
    let points = || c.series.iter().flat_map(|(_, p)| p.iter().copied());
    let x_max = points().map(|(x, _)| x).fold(0.0f64, f64::max).max(1.0);
    let y_max = points().map(|(_, y)| y).fold(0.0f64, f64::max);
    let y_max = if y_max > 0.0 { y_max * 1.1 } else { 1.0 };
    let mut chart = ChartBuilder::on(&plot)
        .margin_left(10)
        .margin_right(30)
        .margin_top(16)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .build_cartesian_2d(0f64..x_max, 0f64..y_max)?;
    chart
        .configure_mesh()
        .x_desc(c.x_label)
        .y_desc(c.y_label)
        .x_label_formatter(&|v| format_value(*v))
        .y_label_formatter(&|v| format_value(*v))
        .axis_desc_style(("sans-serif", 14))
        .label_style(("sans-serif", 12))
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.12))
        .draw()?;
    for (s, (_, p)) in c.series.iter().enumerate() {
        let colour = COLOURS[(s + 1) % COLOURS.len()];
        chart.draw_series([PathElement::new(p.clone(), colour.stroke_width(2))])?;
    }
    root.present()?;
    Ok(())
}

/// An axis value: integers as they are, large ones in k/M/G, fractions to two places.
fn format_value(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{:.1}G", v / 1e9)
    } else if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The text of the SVG `write` draws at a temporary path, checked to be one well-formed
    /// `<svg>` document.
    pub(crate) fn drawn(name: &str, write: impl FnOnce(&Path) -> Result<(), String>) -> String {
        let path = std::env::temp_dir().join(format!("warpsim-{name}-{}.svg", std::process::id()));
        write(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        text
    }

    #[test]
    fn grouped_and_stacked_bars_and_lines_are_svg_with_their_series() {
        for stacked in [false, true] {
            let text = drawn("bars", |p| {
                bars(
                    p,
                    &Bars {
                        title: "a bar chart",
                        y_label: "count",
                        categories: vec!["first".into(), "second".into()],
                        series: vec![
                            ("reads".into(), vec![3.0, 4.0]),
                            ("writes".into(), vec![1.0, 0.0]),
                        ],
                        stacked,
                    },
                )
            });
            for name in ["a bar chart", "reads", "writes", "first", "second", "count"] {
                assert!(text.contains(name), "{name} missing");
            }
        }
        let text = drawn("lines", |p| {
            lines(
                p,
                &Lines {
                    title: "over time",
                    x_label: "cycle",
                    y_label: "IPC",
                    series: vec![("IPC".into(), vec![(0.0, 1.0), (100.0, 2.5)])],
                },
            )
        });
        assert!(
            text.contains("<polyline") || text.contains("<path"),
            "no line drawn"
        );
        assert!(text.contains("over time") && text.contains("cycle"));
    }

    #[test]
    fn axis_values_read_short() {
        assert_eq!(format_value(3.0), "3");
        assert_eq!(format_value(0.256), "0.26");
        assert_eq!(format_value(25_000.0), "25k");
        assert_eq!(format_value(2_500_000.0), "2.5M");
    }
}
