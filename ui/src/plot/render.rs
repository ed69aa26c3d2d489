//! Recorded shapes painted on a canvas's 2D context, or written out as an SVG document.

use super::record::{font, Anchor, Rgba, Shape, Text};
use std::fmt::Write;
use web_sys::CanvasRenderingContext2d;

/// Paint `shapes` on `ctx`, every coordinate times `scale` (device pixels per CSS pixel).
pub fn paint(ctx: &CanvasRenderingContext2d, shapes: &[Shape], scale: f64) {
    let _ = ctx.set_transform(scale, 0.0, 0.0, scale, 0.0, 0.0);
    ctx.set_line_join("round");
    let mut current_font = String::new();
    for s in shapes {
        match s {
            Shape::Path(pts, c, w) => {
                ctx.set_stroke_style_str(&c.css());
                ctx.set_line_width(f64::from((*w).max(1)));
                ctx.begin_path();
                for (i, &(x, y)) in pts.iter().enumerate() {
                    let (x, y) = crisp(pts, x, y, *w);
                    if i == 0 {
                        ctx.move_to(x, y);
                    } else {
                        ctx.line_to(x, y);
                    }
                }
                ctx.stroke();
            }
            Shape::Polygon(pts, c) => {
                ctx.set_fill_style_str(&c.css());
                ctx.begin_path();
                for (i, &(x, y)) in pts.iter().enumerate() {
                    if i == 0 {
                        ctx.move_to(f64::from(x), f64::from(y));
                    } else {
                        ctx.line_to(f64::from(x), f64::from(y));
                    }
                }
                ctx.close_path();
                ctx.fill();
            }
            Shape::Rect(a, b, c, w, fill) => {
                let (x, y, rw, rh) = rect(*a, *b);
                if *fill {
                    ctx.set_fill_style_str(&c.css());
                    ctx.fill_rect(x, y, rw, rh);
                } else {
                    ctx.set_stroke_style_str(&c.css());
                    ctx.set_line_width(f64::from((*w).max(1)));
                    ctx.stroke_rect(x + 0.5, y + 0.5, rw, rh);
                }
            }
            Shape::Circle(at, r, c, w, fill) => {
                ctx.begin_path();
                let _ = ctx.arc(
                    f64::from(at.0),
                    f64::from(at.1),
                    f64::from(*r),
                    0.0,
                    std::f64::consts::TAU,
                );
                if *fill {
                    ctx.set_fill_style_str(&c.css());
                    ctx.fill();
                } else {
                    ctx.set_stroke_style_str(&c.css());
                    ctx.set_line_width(f64::from((*w).max(1)));
                    ctx.stroke();
                }
            }
            Shape::Text(t) => paint_text(ctx, t, scale, &mut current_font),
        }
    }
    let _ = ctx.set_transform(1.0, 0.0, 0.0, 1.0, 0.0, 0.0);
}

/// Thin horizontal and vertical lines on the pixel grid, so they are sharp.
fn crisp(pts: &[(i32, i32)], x: i32, y: i32, w: u32) -> (f64, f64) {
    let (x, y) = (f64::from(x), f64::from(y));
    if pts.len() != 2 || w.is_multiple_of(2) {
        return (x, y);
    }
    let (a, b) = (pts[0], pts[1]);
    if a.0 == b.0 {
        (x + 0.5, y)
    } else if a.1 == b.1 {
        (x, y + 0.5)
    } else {
        (x, y)
    }
}

fn rect(a: (i32, i32), b: (i32, i32)) -> (f64, f64, f64, f64) {
    let (x0, x1) = (a.0.min(b.0), a.0.max(b.0));
    let (y0, y1) = (a.1.min(b.1), a.1.max(b.1));
    (
        f64::from(x0),
        f64::from(y0),
        f64::from(x1 - x0),
        f64::from(y1 - y0),
    )
}

/// Paint text `t`; `current` is the context's font, set only when it changes (outside the
/// saved state, so that restoring keeps it): parsing a font is the costly part.
fn paint_text(ctx: &CanvasRenderingContext2d, t: &Text, scale: f64, current: &mut String) {
    let f = font(&t.style, t.size, &t.family);
    if *current != f {
        ctx.set_font(&f);
        *current = f;
    }
    ctx.save();
    let _ = ctx.set_transform(scale, 0.0, 0.0, scale, 0.0, 0.0);
    let _ = ctx.translate(f64::from(t.at.0), f64::from(t.at.1));
    if t.rotate != 0 {
        let _ = ctx.rotate(f64::from(t.rotate).to_radians());
    }
    ctx.set_fill_style_str(&t.color.css());
    ctx.set_text_align(match t.anchor.h {
        -1 => "left",
        0 => "center",
        _ => "right",
    });
    ctx.set_text_baseline(match t.anchor.v {
        -1 => "top",
        0 => "middle",
        _ => "bottom",
    });
    let _ = ctx.fill_text(&t.text, 0.0, 0.0);
    ctx.restore();
}

/// `shapes` as an SVG document of `w` × `h` pixels.
pub fn svg(shapes: &[Shape], w: u32, h: u32) -> String {
    let mut out = String::with_capacity(64 * shapes.len() + 256);
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">"#
    );
    out.push('\n');
    for s in shapes {
        let _ = match s {
            Shape::Path(pts, c, w) => writeln!(
                out,
                r#"<polyline points="{}" fill="none" {} stroke-width="{}" stroke-linejoin="round"/>"#,
                points(pts),
                paint_attr("stroke", c),
                (*w).max(1)
            ),
            Shape::Polygon(pts, c) => writeln!(
                out,
                r#"<polygon points="{}" {}/>"#,
                points(pts),
                paint_attr("fill", c)
            ),
            Shape::Rect(a, b, c, w, fill) => {
                let (x, y, rw, rh) = rect(*a, *b);
                let look = look(c, *w, *fill);
                writeln!(
                    out,
                    r#"<rect x="{x}" y="{y}" width="{rw}" height="{rh}" {look}/>"#
                )
            }
            Shape::Circle(at, r, c, w, fill) => {
                let look = look(c, *w, *fill);
                writeln!(
                    out,
                    r#"<circle cx="{}" cy="{}" r="{r}" {look}/>"#,
                    at.0, at.1
                )
            }
            Shape::Text(t) => writeln!(out, "{}", svg_text(t)),
        };
    }
    out.push_str("</svg>\n");
    out
}

fn points(pts: &[(i32, i32)]) -> String {
    let mut s = String::with_capacity(pts.len() * 8);
    for (i, (x, y)) in pts.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        let _ = write!(s, "{x},{y}");
    }
    s
}

/// `fill="..."` or `stroke="..."`, with its opacity when not opaque.
fn paint_attr(what: &str, c: &Rgba) -> String {
    let base = format!(r#"{what}="rgb({},{},{})""#, c.0, c.1, c.2);
    if c.3 >= 1.0 {
        base
    } else {
        format!(r#"{base} {what}-opacity="{:.3}""#, c.3)
    }
}

fn svg_text(t: &Text) -> String {
    let Anchor { h, v } = t.anchor;
    let anchor = match h {
        -1 => "start",
        0 => "middle",
        _ => "end",
    };
    let baseline = match v {
        -1 => "text-before-edge",
        0 => "central",
        _ => "text-after-edge",
    };
    let weight = match t.style.as_str() {
        "bold" => r#" font-weight="bold""#,
        "italic" | "oblique" => r#" font-style="italic""#,
        _ => "",
    };
    let rotate = if t.rotate != 0 {
        format!(r#" transform="rotate({} {} {})""#, t.rotate, t.at.0, t.at.1)
    } else {
        String::new()
    };
    format!(
        r#"<text x="{}" y="{}" font-family="{}" font-size="{}"{weight} {} text-anchor="{anchor}" dominant-baseline="{baseline}"{rotate}>{}</text>"#,
        t.at.0,
        t.at.1,
        escape(&t.family),
        t.size,
        paint_attr("fill", &t.color),
        escape(&t.text)
    )
}

/// Text with XML's special characters escaped.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

/// The SVG attributes of a filled shape, or of an outline `w` pixels wide.
fn look(c: &Rgba, w: u32, fill: bool) -> String {
    if fill {
        paint_attr("fill", c)
    } else {
        format!(
            r#"fill="none" {} stroke-width="{}""#,
            paint_attr("stroke", c),
            w.max(1)
        )
    }
}
