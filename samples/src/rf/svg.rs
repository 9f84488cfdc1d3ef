//! The bar chart `warpsim rf --svg` draws: one panel per figure, a group of bars per sample
//! (and one for the geometric mean), a bar per technique, each relative to the baseline.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

/// Bar colours by technique: the baseline grey, the others distinct.
const COLOURS: [RGBColor; 8] = [
    RGBColor(140, 140, 140),
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
];

const PANEL_HEIGHT: u32 = 300;
const TITLE_HEIGHT: u32 = 60;
const LABEL_HEIGHT: u32 = 150;

/// Writes the chart. `panels` holds, per panel, its axis title and per technique the ratio
/// on each sample followed by the geometric mean (`None`: nothing to draw).
pub(super) fn write(
    path: &Path,
    title: &str,
    techniques: &[String],
    samples: &[&str],
    panels: &[(&str, Vec<Vec<Option<f64>>>)],
) -> Result<(), String> {
    crate::output::write_whole(path, |temp| {
        draw(temp, title, techniques, samples, panels)
            .map_err(|e| format!("cannot draw {}: {e}", path.display()))
    })
    .map_err(|e| format!("error: {e}"))
}

fn draw(
    path: &Path,
    title: &str,
    techniques: &[String],
    samples: &[&str],
    panels: &[(&str, Vec<Vec<Option<f64>>>)],
) -> Result<(), Box<dyn std::error::Error>> {
    let groups = samples.len() + 1;
    let nt = techniques.len();
    let width = (110 + groups * (nt * 14 + 12)).max(760) as u32;
    let height = TITLE_HEIGHT + PANEL_HEIGHT * panels.len() as u32 + LABEL_HEIGHT;
    let root = SVGBackend::new(path, (width, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let (top, rest) = root.split_vertically(TITLE_HEIGHT);
    top.draw(&Text::new(
        title.to_string(),
        (width as i32 / 2, 10),
        ("sans-serif", 18)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Top)),
    ))?;
    // The legend, in the title strip where it can never hide a bar.
    let entry = |t: &String| 40 + 7 * t.chars().count() as i32;
    let legend_width: i32 = techniques.iter().map(entry).sum();
    let mut x = (width as i32 - legend_width) / 2;
    for (t, name) in techniques.iter().enumerate() {
        let colour = COLOURS[t % COLOURS.len()];
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
    let mut area = rest;
    for (p, (axis, series)) in panels.iter().enumerate() {
        let last = p + 1 == panels.len();
        let (panel, below) = area.split_vertically(if last {
            PANEL_HEIGHT + LABEL_HEIGHT
        } else {
            PANEL_HEIGHT
        });
        area = below;
        let top_value = series
            .iter()
            .flatten()
            .flatten()
            .copied()
            .fold(1.0f64, f64::max);
        let y_max = (top_value * 1.15).max(1.2);
        let mut chart = ChartBuilder::on(&panel)
            .margin_left(10)
            .margin_right(20)
            .margin_top(16)
            .x_label_area_size(if last { LABEL_HEIGHT } else { 4 })
            .y_label_area_size(70)
            .build_cartesian_2d(0f64..groups as f64, 0f64..y_max)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .disable_x_axis()
            .x_labels(0)
            .y_desc(*axis)
            .y_label_formatter(&|v| format!("{v:.2}"))
            .axis_desc_style(("sans-serif", 14))
            .label_style(("sans-serif", 12))
            .light_line_style(WHITE.mix(0.0))
            .bold_line_style(BLACK.mix(0.12))
            .draw()?;
        // The baseline's level, and the boundary between the samples and their mean.
        chart.draw_series([
            PathElement::new(
                vec![(0.0, 1.0), (groups as f64, 1.0)],
                BLACK.stroke_width(1),
            ),
            PathElement::new(
                vec![(samples.len() as f64, 0.0), (samples.len() as f64, y_max)],
                BLACK.mix(0.4).stroke_width(1),
            ),
        ])?;
        let bar = 0.8 / nt as f64;
        for (t, values) in series.iter().enumerate() {
            let colour = COLOURS[t % COLOURS.len()];
            chart.draw_series(values.iter().enumerate().filter_map(|(g, v)| {
                let v = (*v)?;
                let x0 = g as f64 + 0.1 + t as f64 * bar;
                Some(Rectangle::new(
                    [(x0, 0.0), (x0 + bar * 0.92, v.min(y_max))],
                    colour.filled(),
                ))
            }))?;
            // The geometric mean's value over its bar.
            if let Some(Some(g)) = values.last() {
                let x = samples.len() as f64 + 0.1 + (t as f64 + 0.5) * bar;
                let (px, py) = chart.backend_coord(&(x, g.min(y_max)));
                panel.draw(&Text::new(
                    format!("{g:.2}"),
                    (
                        px - panel.get_base_pixel().0,
                        py - panel.get_base_pixel().1 - 3,
                    ),
                    ("sans-serif", 11)
                        .into_font()
                        .color(&BLACK)
                        .pos(Pos::new(HPos::Center, VPos::Bottom)),
                ))?;
            }
        }
        if last {
            // Sample names under their groups, turned to read upwards.
            let names = samples
                .iter()
                .map(|s| s.strip_prefix("rodinia/").unwrap_or(s))
                .chain(["geometric mean"]);
            for (g, name) in names.enumerate() {
                let (px, py) = chart.backend_coord(&(g as f64 + 0.5, 0.0));
                panel.draw(&Text::new(
                    name.to_string(),
                    (
                        px - panel.get_base_pixel().0,
                        py - panel.get_base_pixel().1 + 8,
                    ),
                    ("sans-serif", 13)
                        .into_font()
                        .transform(FontTransform::Rotate270)
                        .color(&BLACK)
                        .pos(Pos::new(HPos::Right, VPos::Center)),
                ))?;
            }
        }
    }
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_of_three_techniques_is_well_formed_svg() {
        let path = std::env::temp_dir().join(format!("warpsim-rf-svg-{}.svg", std::process::id()));
        let techniques: Vec<String> = ["baseline", "corf", "bow-wr"].map(String::from).into();
        let samples = ["saxpy", "rodinia/particlefilter_float", "rodinia/nn"];
        let cycles = vec![
            vec![Some(1.0), Some(1.0), Some(1.0), Some(1.0)],
            vec![Some(0.9), Some(1.3), None, Some(1.08)],
            vec![Some(0.7), Some(0.8), Some(2.5), Some(1.1)],
        ];
        let energy = vec![vec![Some(1.0); 4], vec![Some(0.8); 4], vec![Some(0.5); 4]];
        write(
            &path,
            "test chart",
            &techniques,
            &samples,
            &[("cycles / baseline", cycles), ("energy / baseline", energy)],
        )
        .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        assert!(text.starts_with("<svg"), "{}", &text[..80.min(text.len())]);
        assert!(text.trim_end().ends_with("</svg>"));
        for name in [
            "bow-wr",
            "corf",
            "particlefilter_float",
            "geometric mean",
            "1.10",
            "1.08",
        ] {
            assert!(text.contains(name), "{name} missing");
        }
    }
}
