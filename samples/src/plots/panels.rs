//! The bar chart `warpsim rf --svg` draws: one panel per figure, a group of bars per sample
//! (and one for the geometric mean), a bar per technique, each relative to the baseline.

use super::{COLOURS, Drawn, TITLE_HEIGHT, group_labels, title_and_legend, write_svg};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

const PANEL_HEIGHT: u32 = 300;
const LABEL_HEIGHT: u32 = 150;

/// Writes the chart. `panels` holds, per panel, its axis title and per technique the ratio
/// on each sample followed by the geometric mean (`None`: nothing to draw).
pub(crate) fn write(
    path: &Path,
    title: &str,
    techniques: &[String],
    samples: &[&str],
    panels: &[(&str, Vec<Vec<Option<f64>>>)],
) -> Result<(), String> {
    write_svg(path, |file| draw(file, title, techniques, samples, panels))
}

fn draw(
    path: &Path,
    title: &str,
    techniques: &[String],
    samples: &[&str],
    panels: &[(&str, Vec<Vec<Option<f64>>>)],
) -> Drawn {
    let groups = samples.len() + 1;
    let nt = techniques.len();
    let width = (110 + groups * (nt * 14 + 12)).max(760) as u32;
    let height = TITLE_HEIGHT + PANEL_HEIGHT * panels.len() as u32 + LABEL_HEIGHT;
    let root = SVGBackend::new(path, (width, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let (top, rest) = root.split_vertically(TITLE_HEIGHT);
    title_and_legend(&top, width, title, techniques, 0)?;
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
            group_labels(&panel, &chart, names)?;
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
        let techniques: Vec<String> = ["baseline", "corf", "bow-wr"].map(String::from).into();
        let samples = ["saxpy", "rodinia/particlefilter_float", "rodinia/nn"];
        let cycles = vec![
            vec![Some(1.0), Some(1.0), Some(1.0), Some(1.0)],
            vec![Some(0.9), Some(1.3), None, Some(1.08)],
            vec![Some(0.7), Some(0.8), Some(2.5), Some(1.1)],
        ];
        let energy = vec![vec![Some(1.0); 4], vec![Some(0.8); 4], vec![Some(0.5); 4]];
        let text = crate::plots::tests::drawn("rf", |path| {
            write(
                path,
                "test chart",
                &techniques,
                &samples,
                &[("cycles / baseline", cycles), ("energy / baseline", energy)],
            )
        });
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
