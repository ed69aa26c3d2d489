//! What every chart of the page shares: a figure as wide as its container (redrawn when the
//! container's width changes) at the screen's pixel density, a title on top, the legend in rows
//! below the plot (never over the data), axes with readable ticks ([`axis`]), a qualitative
//! palette (Okabe and Ito's, cycling with dashes past its colours), and PNG and SVG export.
//!
//! A chart is a drawing function on a [`Fig`]. [`show`] runs it on a recording backend
//! ([`record`]) and paints what it drew on the canvas ([`render`]); the canvas keeps the
//! drawing, so its PNG (twice the size) and its SVG are the same drawing. The canvas tells
//! tests where its plotting areas and its legend are (`data-plots`, `data-legend`: `x0 y0
//! x1 y1` in CSS pixels, plotting areas separated by `;`).

pub mod axis;
pub mod record;
pub mod render;

pub use axis::Axis;
use axis::Coord;

use plotters::chart::DualCoordChartContext;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use record::{Rec, Shape, Shapes};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// A drawing area of a figure.
pub type Area = DrawingArea<Rec, Shift>;

/// A plot: a drawing area with two [`Axis`].
pub type Plot<'a> = ChartContext<'a, Rec, Cartesian2d<Coord, Coord>>;

/// A plot with a second y axis.
pub type Dual<'a> =
    DualCoordChartContext<'a, Rec, Cartesian2d<Coord, Coord>, Cartesian2d<Coord, Coord>>;

/// Okabe and Ito's colour-blind-safe palette (yellow left out: it does not show on white),
/// in an order that keeps neighbours apart.
pub const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(213, 94, 0),
    RGBColor(86, 180, 233),
    RGBColor(204, 121, 167),
    RGBColor(40, 40, 40),
];

/// Grey for references (needs, exact lines).
pub const GREY: RGBColor = RGBColor(120, 120, 120);

/// How a line is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dash {
    /// Solid.
    Solid,
    /// Long dashes.
    Dashed,
    /// Short dots.
    Dotted,
}

/// The colour and dash of the `i`-th series: the palette's colours, then again dashed, then
/// dotted.
pub fn look(i: usize) -> (RGBColor, Dash) {
    let dash = match (i / PALETTE.len()) % 3 {
        0 => Dash::Solid,
        1 => Dash::Dashed,
        _ => Dash::Dotted,
    };
    (PALETTE[i % PALETTE.len()], dash)
}

/// CSS colour of the `i`-th series (for the tables' swatches).
pub fn css_color(i: usize) -> String {
    let c = PALETTE[i % PALETTE.len()];
    format!("rgb({},{},{})", c.0, c.1, c.2)
}

/// What a legend entry shows before its name.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Swatch {
    /// A line of this colour, dash and width.
    Line(RGBColor, Dash, u32),
    /// A filled block.
    Block(RGBAColor),
    /// A dot.
    Dot(RGBColor),
    /// A ring (a hollow circle).
    Ring(RGBColor),
}

/// A legend entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    /// The series' name.
    pub name: String,
    /// Its swatch.
    pub swatch: Swatch,
}

impl Key {
    /// The entry of the `i`-th series, drawn as a line.
    pub fn series(i: usize, name: &str) -> Key {
        let (c, d) = look(i);
        Key {
            name: name.to_string(),
            swatch: Swatch::Line(c, d, 2),
        }
    }

    /// An entry with its swatch.
    pub fn new(name: impl Into<String>, swatch: Swatch) -> Key {
        Key {
            name: name.into(),
            swatch,
        }
    }
}

fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("{e:?}")
}

const FONT: &str = "sans-serif";
const INK: RGBColor = RGBColor(40, 44, 52);
const MUTED: RGBColor = RGBColor(103, 112, 133);
const MESH: RGBColor = RGBColor(228, 231, 236);

/// A figure being drawn: its size (CSS pixels) and where its plots and legend went.
pub struct Fig {
    root: Area,
    /// Width (px).
    pub w: u32,
    /// Height (px).
    pub h: u32,
    plots: Vec<[i32; 4]>,
    legend: Option<[i32; 4]>,
}

impl Fig {
    /// The whole figure, white, with `title` on top and `keys` in rows along the bottom:
    /// the area left between them for the plot.
    pub fn frame(&mut self, title: &str, keys: &[Key]) -> Result<Area, String> {
        self.root.fill(&WHITE).map_err(err)?;
        let mut size = 15;
        while size > 11 && self.text_width(title, size) > self.w as i32 - 80 {
            size -= 1;
        }
        let style = TextStyle::from((FONT, size).into_font().style(FontStyle::Bold))
            .color(&INK)
            .pos(Pos::new(HPos::Center, VPos::Top));
        self.root
            .draw_text(title, &style, (self.w as i32 / 2, 8))
            .map_err(err)?;
        let top = 30;
        let legend_h = self.legend(keys)?;
        Ok(self.root.margin(top, legend_h, 0, 0))
    }

    fn text_width(&self, text: &str, size: u32) -> i32 {
        self.root
            .estimate_text_size(text, &TextStyle::from((FONT, size).into_font()))
            .map_or(text.len() as i32 * size as i32 / 2, |s| s.0 as i32)
    }

    /// Draw `keys` in rows at the bottom; the height they take.
    fn legend(&mut self, keys: &[Key]) -> Result<i32, String> {
        if keys.is_empty() {
            return Ok(0);
        }
        let (row_h, gap, swatch) = (18, 16, 22);
        let max_x = self.w as i32 - 8;
        let mut rows: Vec<Vec<(i32, &Key)>> = vec![Vec::new()];
        let mut x = 12;
        let mut widest = 0;
        for k in keys {
            let wk = swatch + self.text_width(&k.name, 12).min(self.w as i32 - 60);
            let row_used = rows.last().is_some_and(|r| !r.is_empty());
            if row_used && x + wk > max_x {
                rows.push(Vec::new());
                x = 12;
            }
            if let Some(r) = rows.last_mut() {
                r.push((x, k));
            }
            x += wk + gap;
            widest = widest.max(x - gap);
        }
        let h = rows.len() as i32 * row_h + 8;
        let y0 = self.h as i32 - h + 4;
        let style = TextStyle::from((FONT, 12).into_font())
            .color(&INK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        for (r, row) in rows.iter().enumerate() {
            let y = y0 + r as i32 * row_h + row_h / 2;
            for &(x, k) in row {
                self.swatch(k.swatch, x, y)?;
                self.root
                    .draw_text(&k.name, &style, (x + swatch, y))
                    .map_err(err)?;
            }
        }
        self.legend = Some([8, y0, widest.min(self.w as i32), self.h as i32]);
        Ok(h)
    }

    fn swatch(&self, s: Swatch, x: i32, y: i32) -> Result<(), String> {
        let r = &self.root;
        match s {
            Swatch::Line(c, dash, w) => {
                let pieces: Vec<(i32, i32)> = match dash {
                    Dash::Solid => vec![(0, 16)],
                    Dash::Dashed => vec![(0, 6), (10, 16)],
                    Dash::Dotted => vec![(0, 2), (5, 7), (10, 12), (15, 17)],
                };
                for (a, b) in pieces {
                    r.draw(&PathElement::new(
                        vec![(x + a, y), (x + b, y)],
                        c.stroke_width(w.max(2)),
                    ))
                    .map_err(err)?;
                }
            }
            Swatch::Block(c) => r
                .draw(&Rectangle::new([(x, y - 5), (x + 16, y + 5)], c.filled()))
                .map_err(err)?,
            Swatch::Dot(c) => r
                .draw(&Circle::new((x + 8, y), 4, c.filled()))
                .map_err(err)?,
            Swatch::Ring(c) => r
                .draw(&Circle::new((x + 8, y), 5, c.stroke_width(2)))
                .map_err(err)?,
        }
        Ok(())
    }

    /// A plot on `area` with axes `x` and `y`, their descriptions and mesh drawn; `right`
    /// pixels are left free on the right (to line it up with a plot with a second y axis).
    pub fn plot<'a>(
        &mut self,
        area: &'a Area,
        (x, x_desc): (Axis, &str),
        (y, y_desc): (Axis, &str),
        right: i32,
    ) -> Result<Plot<'a>, String> {
        let mut plot = self.build(area, (&x, x_desc), &y, 0, right)?;
        self.mesh(&mut plot, x_desc, y_desc)?;
        Ok(plot)
    }

    /// A plot with a second y axis (`y2`, described by `y2_desc` in `color`) in a
    /// `right`-pixel area on the right.
    #[allow(clippy::too_many_arguments)]
    pub fn dual<'a>(
        &mut self,
        area: &'a Area,
        (x, x_desc): (Axis, &str),
        (y, y_desc): (Axis, &str),
        (y2, y2_desc): (Axis, &str),
        color: RGBColor,
        right: i32,
    ) -> Result<Dual<'a>, String> {
        let plot = self.build(area, (&x, x_desc), &y, right, 0)?;
        // The primary mesh after the second axis takes the right label area, so the
        // primary labels stay on the left.
        let mut dual = plot.set_secondary_coord(Coord(x), Coord(y2));
        self.mesh(&mut dual, x_desc, y_desc)?;
        dual.configure_secondary_axes()
            .y_desc(y2_desc)
            .axis_style(MUTED)
            .label_style((FONT, 12).into_font().color(&color))
            .axis_desc_style((FONT, 12).into_font().color(&color))
            .draw()
            .map_err(err)?;
        Ok(dual)
    }

    fn build<'a>(
        &mut self,
        area: &'a Area,
        (x, x_desc): (&Axis, &str),
        y: &Axis,
        right_labels: i32,
        right_margin: i32,
    ) -> Result<Plot<'a>, String> {
        let y_area = 24 + 7 * y.label_chars() as i32;
        let x_area = if x_desc.is_empty() { 22 } else { 40 };
        ChartBuilder::on(area)
            .margin_top(6)
            .margin_left(4)
            .margin_right(16 + right_margin)
            .x_label_area_size(x_area)
            .y_label_area_size(y_area)
            .right_y_label_area_size(right_labels)
            .build_cartesian_2d(Coord(x.clone()), Coord(y.clone()))
            .map_err(err)
    }

    fn mesh(&mut self, plot: &mut Plot, x_desc: &str, y_desc: &str) -> Result<(), String> {
        plot.configure_mesh()
            .x_labels(64)
            .y_labels(64)
            .x_desc(x_desc)
            .y_desc(y_desc)
            .bold_line_style(MESH)
            .light_line_style(TRANSPARENT)
            .axis_style(MUTED)
            .label_style((FONT, 12).into_font().color(&INK))
            .axis_desc_style((FONT, 12).into_font().color(&MUTED))
            .draw()
            .map_err(err)?;
        let (xs, ys) = plot.plotting_area().get_pixel_range();
        self.plots.push([xs.start, ys.start, xs.end, ys.end]);
        Ok(())
    }

    /// The x axis's most ticks for a plot as wide as the figure.
    pub fn x_ticks(&self) -> usize {
        axis::tick_count(self.w as i32 - 90, 80)
    }

    /// The y axis's most ticks for a plot `share` of the figure's height.
    pub fn y_ticks(&self, share: f64) -> usize {
        axis::tick_count(((self.h as f64 - 90.0) * share) as i32, 40)
    }

    /// A figure with its title and `message` in the middle (a chart with nothing to show).
    pub fn message(&mut self, title: &str, message: &str) -> Result<(), String> {
        let area = self.frame(title, &[])?;
        let (w, h) = area.dim_in_pixel();
        let style = TextStyle::from((FONT, 13).into_font())
            .color(&MUTED)
            .pos(Pos::new(HPos::Center, VPos::Center));
        let per_line = ((w as i32 - 24) / 7).max(20) as usize;
        let mut lines: Vec<String> = Vec::new();
        for word in message.split_whitespace() {
            match lines.last_mut() {
                Some(l) if l.len() + word.len() < per_line => {
                    l.push(' ');
                    l.push_str(word);
                }
                _ => lines.push(word.to_string()),
            }
        }
        let n = lines.len() as i32;
        for (i, l) in lines.iter().enumerate() {
            let y = h as i32 / 2 + (2 * i as i32 - n + 1) * 9;
            area.draw_text(l, &style, (w as i32 / 2, y)).map_err(err)?;
        }
        Ok(())
    }
}

/// Draw a line through `pts` in `color` and `dash`.
pub fn line(
    plot: &mut Plot,
    pts: impl IntoIterator<Item = (f64, f64)>,
    (color, dash): (RGBColor, Dash),
    width: u32,
) -> Result<(), String> {
    let style = color.stroke_width(width);
    let pts: Vec<(f64, f64)> = pts.into_iter().collect();
    match dash {
        Dash::Solid => plot.draw_series(LineSeries::new(pts, style)).map(|_| ()),
        Dash::Dashed => plot
            .draw_series(DashedLineSeries::new(pts, 8, 5, style))
            .map(|_| ()),
        Dash::Dotted => plot
            .draw_series(DashedLineSeries::new(pts, 2, 4, style))
            .map(|_| ()),
    }
    .map_err(err)
}

/// The drawing function of a chart.
pub type Draw = Rc<dyn Fn(&mut Fig) -> Result<(), String>>;

/// The resize observer of the charts' canvases and its two callbacks (kept alive).
type Watcher = (
    web_sys::ResizeObserver,
    Closure<dyn FnMut()>,
    Closure<dyn FnMut()>,
);

/// A chart on the page: its canvas, height, drawing function and last drawing.
struct Shown {
    canvas: HtmlCanvasElement,
    height: u32,
    draw: Draw,
    shapes: Vec<Shape>,
    size: (u32, u32),
}

thread_local! {
    static SHOWN: RefCell<HashMap<String, Shown>> = RefCell::new(HashMap::new());
    static WATCH: RefCell<Option<Watcher>> = const { RefCell::new(None) };
    static TAG: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Draw a chart on `canvas` (`height` CSS pixels high, as wide as the canvas is laid out)
/// and keep its drawing function, to redraw it when its width changes and to export it.
pub fn show(
    canvas: &HtmlCanvasElement,
    height: u32,
    draw: impl Fn(&mut Fig) -> Result<(), String> + 'static,
) -> Result<(), String> {
    show_drawing(canvas, height, Rc::new(draw))
}

/// [`show`] for any drawing function: one copy of the code for every chart (a copy per
/// caller took 2.9 KB of the module).
fn show_drawing(canvas: &HtmlCanvasElement, height: u32, draw: Draw) -> Result<(), String> {
    watch(canvas);
    let drawn = paint(canvas, height, &draw);
    let (shapes, size) = match &drawn {
        Ok((s, size)) => (s.clone(), *size),
        Err(_) => (Vec::new(), (0, 0)),
    };
    SHOWN.with(|m| {
        let mut m = m.borrow_mut();
        m.retain(|_, s| s.canvas.is_connected());
        m.insert(
            canvas.id(),
            Shown {
                canvas: canvas.clone(),
                height,
                draw,
                shapes,
                size,
            },
        )
    });
    drawn.map(|_| ())
}

/// The width a canvas is laid out at (its container's when it is not laid out yet).
fn layout_width(canvas: &HtmlCanvasElement) -> u32 {
    let own = canvas.client_width();
    let w = if own > 0 {
        own
    } else {
        canvas.parent_element().map_or(0, |p| p.client_width())
    };
    if w > 0 {
        w.clamp(200, 4000) as u32
    } else {
        520
    }
}

/// Run `draw` at the canvas's width and paint it; the drawing and its size.
fn paint(
    canvas: &HtmlCanvasElement,
    height: u32,
    draw: &Draw,
) -> Result<(Vec<Shape>, (u32, u32)), String> {
    let (w, h) = (layout_width(canvas), height);
    let shapes: Shapes = Rc::new(RefCell::new(Vec::new()));
    let mut fig = Fig {
        root: Rec::new(w, h, shapes.clone()).into_drawing_area(),
        w,
        h,
        plots: Vec::new(),
        legend: None,
    };
    let drawn = draw(&mut fig);
    let shapes = shapes.take();
    let ratio = web_sys::window()
        .map_or(1.0, |w| w.device_pixel_ratio())
        .clamp(1.0, 4.0);
    canvas.set_width((f64::from(w) * ratio).round() as u32);
    canvas.set_height((f64::from(h) * ratio).round() as u32);
    let _ = canvas.set_attribute("style", &format!("height:{h}px"));
    let rect = |r: &[i32; 4]| format!("{} {} {} {}", r[0], r[1], r[2], r[3]);
    let plots: Vec<String> = fig.plots.iter().map(rect).collect();
    let _ = canvas.set_attribute("data-plots", &plots.join(";"));
    let _ = canvas.set_attribute(
        "data-legend",
        &fig.legend.as_ref().map(rect).unwrap_or_default(),
    );
    let _ = canvas.set_attribute("data-size", &format!("{w} {h}"));
    let ctx = context(canvas)?;
    ctx.set_fill_style_str("#fff");
    ctx.fill_rect(
        0.0,
        0.0,
        f64::from(canvas.width()),
        f64::from(canvas.height()),
    );
    render::paint(&ctx, &shapes, ratio);
    drawn?;
    Ok((shapes, (w, h)))
}

fn context(canvas: &HtmlCanvasElement) -> Result<CanvasRenderingContext2d, String> {
    canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into().ok())
        .ok_or_else(|| "no 2D canvas".to_string())
}

/// Redraw, once, every chart whose canvas changed width.
fn redraw_resized() {
    let stale: Vec<(String, HtmlCanvasElement, u32, Draw)> = SHOWN.with(|m| {
        let mut m = m.borrow_mut();
        m.retain(|_, s| s.canvas.is_connected());
        m.iter()
            .filter(|(_, s)| layout_width(&s.canvas) != s.size.0)
            .map(|(id, s)| (id.clone(), s.canvas.clone(), s.height, s.draw.clone()))
            .collect()
    });
    for (id, canvas, height, draw) in stale {
        if let Ok((shapes, size)) = paint(&canvas, height, &draw) {
            SHOWN.with(|m| {
                if let Some(s) = m.borrow_mut().get_mut(&id) {
                    s.shapes = shapes;
                    s.size = size;
                }
            });
        }
    }
}

/// Watch `canvas`'s size: when any chart's container changes width (the window is resized,
/// the layout changes), the charts whose width changed are redrawn a little later.
fn watch(canvas: &HtmlCanvasElement) {
    WATCH.with(|w| {
        let mut w = w.borrow_mut();
        if w.is_none() {
            *w = watcher();
        }
        if let Some((observer, _, _)) = w.as_ref() {
            observer.observe(canvas);
        }
    });
}

/// A resize observer that redraws resized charts 100 ms after the last change it saw.
fn watcher() -> Option<Watcher> {
    let window = web_sys::window()?;
    let pending = Rc::new(RefCell::new(None::<i32>));
    let redraw = Closure::<dyn FnMut()>::new(redraw_resized);
    let callback = redraw.as_ref().clone();
    let on_resize = Closure::<dyn FnMut()>::new(move || {
        if let Some(t) = pending.borrow_mut().take() {
            window.clear_timeout_with_handle(t);
        }
        if let Ok(t) = window
            .set_timeout_with_callback_and_timeout_and_arguments_0(callback.unchecked_ref(), 100)
        {
            *pending.borrow_mut() = Some(t);
        }
    });
    let observer = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()).ok()?;
    Some((observer, on_resize, redraw))
}

/// Name exported files after this experiment (a short name; see [`file_tag`]).
pub fn set_file_tag(name: &str) {
    let tag = file_tag(name);
    TAG.with(|t| *t.borrow_mut() = tag);
}

/// `name` as a file-name part: lower-case letters, digits and dashes, at most 40.
pub fn file_tag(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
        if out.len() >= 40 {
            break;
        }
    }
    out.trim_end_matches('-').to_string()
}

/// An export's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// PNG at twice the CSS size.
    Png,
    /// SVG.
    Svg,
}

/// Download the chart on canvas `id` (named `name` in the file) as `format`:
/// `orrery-<name>-<experiment>.png` or `.svg`.
pub fn export(id: &str, name: &str, format: Format) -> Result<(), String> {
    let (shapes, (w, h)) = SHOWN
        .with(|m| m.borrow().get(id).map(|s| (s.shapes.clone(), s.size)))
        .ok_or("the chart is not drawn yet")?;
    let tag = TAG.with(|t| t.borrow().clone());
    let stem = if tag.is_empty() {
        format!("orrery-{name}")
    } else {
        format!("orrery-{name}-{tag}")
    };
    match format {
        Format::Svg => {
            let text = render::svg(&shapes, w, h);
            super::files::download_bytes(&format!("{stem}.svg"), "image/svg+xml", text.as_bytes())
        }
        Format::Png => {
            let doc = web_sys::window()
                .and_then(|w| w.document())
                .ok_or("no document")?;
            let canvas: HtmlCanvasElement = doc
                .create_element("canvas")
                .map_err(err)?
                .dyn_into()
                .map_err(err)?;
            canvas.set_width(w * 2);
            canvas.set_height(h * 2);
            let ctx = context(&canvas)?;
            ctx.set_fill_style_str("#fff");
            ctx.fill_rect(0.0, 0.0, f64::from(w * 2), f64::from(h * 2));
            render::paint(&ctx, &shapes, 2.0);
            let url = canvas.to_data_url().map_err(err)?;
            let data = url
                .split_once(',')
                .map(|(_, d)| d)
                .ok_or("the canvas gave no PNG")?;
            use base64::Engine;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(data)
                .map_err(err)?;
            super::files::download_bytes(&format!("{stem}.png"), "image/png", &bytes)
        }
    }
}
