//! A plotters drawing backend that records what is drawn as a list of shapes, in CSS
//! pixels: the page paints the list on a canvas (at the screen's pixel ratio, or twice the
//! size for a PNG) and writes it out as SVG, so both exports are the drawing itself.

use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
    FontTransform,
};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::CanvasRenderingContext2d;

/// A colour: red, green, blue and opacity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rgba(pub u8, pub u8, pub u8, pub f64);

impl From<BackendColor> for Rgba {
    fn from(c: BackendColor) -> Self {
        Rgba(c.rgb.0, c.rgb.1, c.rgb.2, c.alpha)
    }
}

impl Rgba {
    /// As CSS (and SVG) colour text.
    pub fn css(&self) -> String {
        if self.3 >= 1.0 {
            format!("rgb({},{},{})", self.0, self.1, self.2)
        } else {
            format!("rgba({},{},{},{:.3})", self.0, self.1, self.2, self.3)
        }
    }
}

/// Where a text's anchor point is on the text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Anchor {
    /// -1 left, 0 centre, 1 right.
    pub h: i8,
    /// -1 top, 0 middle, 1 bottom.
    pub v: i8,
}

/// One recorded shape.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// An open path: points, colour, stroke width.
    Path(Vec<(i32, i32)>, Rgba, u32),
    /// A closed, filled polygon.
    Polygon(Vec<(i32, i32)>, Rgba),
    /// A rectangle: corners, colour, stroke width, filled.
    Rect((i32, i32), (i32, i32), Rgba, u32, bool),
    /// A circle: centre, radius, colour, stroke width, filled.
    Circle((i32, i32), u32, Rgba, u32, bool),
    /// A text at a point.
    Text(Text),
}

/// A recorded text.
#[derive(Debug, Clone, PartialEq)]
pub struct Text {
    /// What it says.
    pub text: String,
    /// Anchor point.
    pub at: (i32, i32),
    /// Font size (px), family and weight or style (`normal`, `bold`, `italic`).
    pub size: f64,
    /// Font family.
    pub family: String,
    /// `normal`, `bold`, `italic` or `oblique`.
    pub style: String,
    /// Colour.
    pub color: Rgba,
    /// Where the anchor point is on the text.
    pub anchor: Anchor,
    /// Rotation, degrees clockwise.
    pub rotate: i32,
}

/// The shapes drawn so far, shared between the backend and its owner.
pub type Shapes = Rc<RefCell<Vec<Shape>>>;

/// The recording backend: a size in CSS pixels and the shapes.
pub struct Rec {
    size: (u32, u32),
    shapes: Shapes,
}

/// A recording backend never fails to draw; its one error is a text it cannot measure.
#[derive(Debug)]
pub struct RecError;

impl std::fmt::Display for RecError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("cannot measure text")
    }
}

impl std::error::Error for RecError {}

/// Texts measured so far: one detached canvas's 2D context for every chart (creating a
/// context and setting its font are the costly part of measuring), and each font's texts'
/// widths, which the charts ask for again at every redraw.
struct Measurer {
    ctx: CanvasRenderingContext2d,
    /// The font the context has.
    font: String,
    /// Widths by font and text (`font\ntext`).
    widths: BTreeMap<String, f64>,
}

/// Most widths remembered; past it they are forgotten and measured again.
const MAX_WIDTHS: usize = 4096;

thread_local! {
    static MEASURER: RefCell<Option<Measurer>> = const { RefCell::new(None) };
}

/// A 2D context of a detached canvas, to measure text with.
fn measuring_context() -> Option<CanvasRenderingContext2d> {
    let doc = web_sys::window()?.document()?;
    let canvas: web_sys::HtmlCanvasElement = doc.create_element("canvas").ok()?.dyn_into().ok()?;
    canvas.get_context("2d").ok()??.dyn_into().ok()
}

/// The width of `text` in CSS `font` (None without a document to measure in).
fn text_width(font: &str, text: &str) -> Option<f64> {
    MEASURER.with(|m| {
        let mut m = m.borrow_mut();
        if m.is_none() {
            *m = Some(Measurer {
                ctx: measuring_context()?,
                font: String::new(),
                widths: BTreeMap::new(),
            });
        }
        let m = m.as_mut()?;
        let key = format!("{font}\n{text}");
        if let Some(&w) = m.widths.get(&key) {
            return Some(w);
        }
        if m.font != font {
            m.ctx.set_font(font);
            m.font = font.to_string();
        }
        let w = m.ctx.measure_text(text).ok()?.width();
        if m.widths.len() >= MAX_WIDTHS {
            m.widths.clear();
        }
        m.widths.insert(key, w);
        Some(w)
    })
}

impl Rec {
    /// A backend of `w` × `h` CSS pixels recording into `shapes`.
    pub fn new(w: u32, h: u32, shapes: Shapes) -> Self {
        Rec {
            size: (w, h),
            shapes,
        }
    }

    fn push(&self, s: Shape) {
        self.shapes.borrow_mut().push(s);
    }
}

/// The CSS font of a text style.
pub fn font(style: &str, size: f64, family: &str) -> String {
    format!("{style} {size}px {family}")
}

type Res = Result<(), DrawingErrorKind<RecError>>;

impl DrawingBackend for Rec {
    type ErrorType = RecError;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }

    fn ensure_prepared(&mut self) -> Res {
        Ok(())
    }

    fn present(&mut self) -> Res {
        Ok(())
    }

    fn draw_pixel(&mut self, p: BackendCoord, c: BackendColor) -> Res {
        if c.alpha > 0.0 {
            self.push(Shape::Rect(p, (p.0 + 1, p.1 + 1), c.into(), 0, true));
        }
        Ok(())
    }

    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, s: &S) -> Res {
        if s.color().alpha > 0.0 {
            self.push(Shape::Path(
                vec![from, to],
                s.color().into(),
                s.stroke_width(),
            ));
        }
        Ok(())
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        s: &S,
        fill: bool,
    ) -> Res {
        if s.color().alpha > 0.0 {
            self.push(Shape::Rect(a, b, s.color().into(), s.stroke_width(), fill));
        }
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        s: &S,
    ) -> Res {
        if s.color().alpha > 0.0 {
            let pts: Vec<(i32, i32)> = path.into_iter().collect();
            if pts.len() > 1 {
                self.push(Shape::Path(pts, s.color().into(), s.stroke_width()));
            }
        }
        Ok(())
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        s: &S,
    ) -> Res {
        if s.color().alpha > 0.0 {
            let pts: Vec<(i32, i32)> = path.into_iter().collect();
            if pts.len() > 2 {
                self.push(Shape::Polygon(pts, s.color().into()));
            }
        }
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(&mut self, c: BackendCoord, r: u32, s: &S, fill: bool) -> Res {
        if s.color().alpha > 0.0 {
            self.push(Shape::Circle(
                c,
                r,
                s.color().into(),
                s.stroke_width(),
                fill,
            ));
        }
        Ok(())
    }

    fn draw_text<S: BackendTextStyle>(&mut self, text: &str, s: &S, at: BackendCoord) -> Res {
        if s.color().alpha <= 0.0 || text.is_empty() {
            return Ok(());
        }
        let a = s.anchor();
        self.push(Shape::Text(Text {
            text: text.to_string(),
            at,
            size: s.size(),
            family: s.family().as_str().to_string(),
            style: s.style().as_str().to_string(),
            color: s.color().into(),
            anchor: Anchor {
                h: match a.h_pos {
                    HPos::Left => -1,
                    HPos::Center => 0,
                    HPos::Right => 1,
                },
                v: match a.v_pos {
                    VPos::Top => -1,
                    VPos::Center => 0,
                    VPos::Bottom => 1,
                },
            },
            rotate: match s.transform() {
                FontTransform::None => 0,
                FontTransform::Rotate90 => 90,
                FontTransform::Rotate180 => 180,
                FontTransform::Rotate270 => 270,
            },
        }));
        Ok(())
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        s: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<RecError>> {
        let w = text_width(
            &font(s.style().as_str(), s.size(), s.family().as_str()),
            text,
        )
        .ok_or(DrawingErrorKind::DrawingError(RecError))?;
        // Unrotated, as plotters' own estimate is.
        Ok((w.ceil() as u32, (s.size() * 1.2).ceil() as u32))
    }
}
