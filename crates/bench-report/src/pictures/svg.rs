//! A small SVG writer: elements appended to a string, numbers rounded to 0.1 px, text
//! escaped. Nothing here knows about charts.

use std::fmt::Write as _;

/// Escapes text for XML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A coordinate with at most one decimal, without a trailing `.0`.
pub fn num(v: f64) -> String {
    let r = (v * 10.0).round() / 10.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

/// One SVG document under construction.
#[derive(Debug)]
pub struct Svg {
    body: String,
    width: f64,
    height: f64,
}

/// Horizontal anchor of a text.
#[derive(Debug, Clone, Copy)]
pub enum Anchor {
    /// Text starts at x.
    Start,
    /// Text is centred on x.
    Middle,
    /// Text ends at x.
    End,
}

impl Anchor {
    fn as_str(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

impl Svg {
    /// An empty drawing of `width` x `height` px.
    pub fn new(width: f64, height: f64) -> Svg {
        Svg {
            body: String::new(),
            width,
            height,
        }
    }

    /// A line; `extra` holds further attributes (`stroke-dasharray="4 2"`).
    pub fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str, extra: &str) {
        let _ = write!(
            self.body,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{stroke}"{}/>"#,
            num(x1),
            num(y1),
            num(x2),
            num(y2),
            spaced(extra)
        );
    }

    /// A rectangle from its corner and size (negative sizes are flipped).
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, extra: &str) {
        let (x, w) = if w < 0.0 { (x + w, -w) } else { (x, w) };
        let (y, h) = if h < 0.0 { (y + h, -h) } else { (y, h) };
        let _ = write!(
            self.body,
            r#"<rect x="{}" y="{}" width="{}" height="{}"{}/>"#,
            num(x),
            num(y),
            num(w),
            num(h),
            spaced(extra)
        );
    }

    /// A path with `d` built by the caller.
    pub fn path(&mut self, d: &str, extra: &str) {
        let _ = write!(self.body, r#"<path d="{d}"{}/>"#, spaced(extra));
    }

    /// Text at (x, y), escaped.
    pub fn text(&mut self, x: f64, y: f64, anchor: Anchor, text: &str, extra: &str) {
        let _ = write!(
            self.body,
            r#"<text x="{}" y="{}" text-anchor="{}"{}>{}</text>"#,
            num(x),
            num(y),
            anchor.as_str(),
            spaced(extra),
            escape(text)
        );
    }

    /// The finished document: a title (also read by screen readers), a description, and
    /// the body on a white background.
    pub fn finish(self, title: &str, description: &str) -> String {
        format!(
            concat!(
                r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" font-family="sans-serif" font-size="12">"#,
                "<title>{t}</title><desc>{d}</desc>",
                r##"<rect width="{w}" height="{h}" fill="#ffffff"/>{body}</svg>"##
            ),
            w = num(self.width),
            h = num(self.height),
            t = escape(title),
            d = escape(description),
            body = self.body
        )
    }
}

fn spaced(extra: &str) -> String {
    if extra.is_empty() {
        String::new()
    } else {
        format!(" {extra}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short_and_text_is_escaped() {
        assert_eq!(num(3.0), "3");
        assert_eq!(num(3.04), "3");
        assert_eq!(num(-2.26), "-2.3");
        assert_eq!(escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
        let mut s = Svg::new(10.0, 5.0);
        s.text(1.0, 2.0, Anchor::Middle, "x<y", "");
        let doc = s.finish("T&", "d");
        assert!(doc.contains("<title>T&amp;</title>"));
        assert!(doc.contains(">x&lt;y</text>"));
    }
}
