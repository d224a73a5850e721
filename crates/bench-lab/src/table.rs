//! Plain-text and Markdown tables of the lab's and xtask's reports (the appendix's block and
//! statistics tables, the chain sweep, the calibration table): one helper, so every
//! report aligns and escapes the same way.
//!
//! The tables here hold preformatted strings and no analysis model, so they live with
//! the lab rather than in `bench-report`, whose tables render a `bench_stats::Analysis`.

/// Text alignment of one table column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Flush left (labels).
    Left,
    /// Flush right (numbers).
    Right,
}

/// A simple table rendered either as aligned plain text or as GitHub Markdown.
#[derive(Debug, Clone, Default)]
pub struct TextTable {
    /// Column headers.
    pub headers: Vec<String>,
    /// Rows, each as long as `headers`.
    pub rows: Vec<Vec<String>>,
    /// Alignment per column (missing entries: right, the first column: left).
    pub align: Vec<Align>,
}

impl TextTable {
    /// A table with these headers; the first column is left-aligned, the others right.
    pub fn new<S: Into<String>>(headers: impl IntoIterator<Item = S>) -> Self {
        let headers: Vec<String> = headers.into_iter().map(Into::into).collect();
        let align = (0..headers.len())
            .map(|i| if i == 0 { Align::Left } else { Align::Right })
            .collect();
        TextTable {
            headers,
            rows: Vec::new(),
            align,
        }
    }

    /// Appends a row.
    pub fn row<S: Into<String>>(&mut self, cells: impl IntoIterator<Item = S>) {
        self.rows.push(cells.into_iter().map(Into::into).collect());
    }

    fn widths(&self) -> Vec<usize> {
        let mut w: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (i, c) in row.iter().enumerate() {
                if i < w.len() {
                    w[i] = w[i].max(c.chars().count());
                }
            }
        }
        w
    }

    fn cell(&self, i: usize, text: &str, width: usize) -> String {
        match self.align.get(i).copied().unwrap_or(Align::Right) {
            Align::Left => format!("{text:<width$}"),
            Align::Right => format!("{text:>width$}"),
        }
    }

    /// Aligned plain text, two spaces between columns, a rule under the header.
    pub fn plain(&self) -> String {
        let w = self.widths();
        let line = |cells: &[String]| {
            let parts: Vec<String> = cells
                .iter()
                .enumerate()
                .map(|(i, c)| self.cell(i, c, w.get(i).copied().unwrap_or(0)))
                .collect();
            parts.join("  ").trim_end().to_owned() + "\n"
        };
        let mut out = line(&self.headers);
        out += &(w
            .iter()
            .map(|&n| "-".repeat(n))
            .collect::<Vec<_>>()
            .join("  ")
            + "\n");
        for row in &self.rows {
            out += &line(row);
        }
        out
    }

    /// GitHub-flavoured Markdown, one space around each cell.
    pub fn markdown(&self) -> String {
        let esc = |s: &str| s.replace('|', "\\|");
        let mut out = format!(
            "| {} |\n",
            self.headers
                .iter()
                .map(|h| esc(h))
                .collect::<Vec<_>>()
                .join(" | ")
        );
        let rule: Vec<&str> = (0..self.headers.len())
            .map(
                |i| match self.align.get(i).copied().unwrap_or(Align::Right) {
                    Align::Left => "---",
                    Align::Right => "---:",
                },
            )
            .collect();
        out += &format!("| {} |\n", rule.join(" | "));
        for row in &self.rows {
            out += &format!(
                "| {} |\n",
                row.iter().map(|c| esc(c)).collect::<Vec<_>>().join(" | ")
            );
        }
        out
    }
    /// GitHub-flavoured Markdown with every column padded to its width, so the table also
    /// reads aligned on a terminal; the rule under the header is as wide as the column
    /// (`---:` at its end for right-aligned columns).
    pub fn markdown_padded(&self) -> String {
        let esc = |s: &str| s.replace('|', "\\|");
        let headers: Vec<String> = self.headers.iter().map(|h| esc(h)).collect();
        let rows: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| r.iter().map(|c| esc(c)).collect())
            .collect();
        let escaped = TextTable {
            headers,
            rows,
            align: self.align.clone(),
        };
        let w = escaped.widths();
        let line = |cells: &[String]| {
            let mut out = String::from("|");
            for (i, c) in cells.iter().enumerate() {
                out += &format!(" {} |", escaped.cell(i, c, w.get(i).copied().unwrap_or(0)));
            }
            out + "\n"
        };
        let rule: Vec<String> = w
            .iter()
            .enumerate()
            .map(
                |(i, &n)| match self.align.get(i).copied().unwrap_or(Align::Right) {
                    Align::Left => "-".repeat(n),
                    Align::Right => "-".repeat(n.max(2) - 1) + ":",
                },
            )
            .collect();
        let mut out = line(&escaped.headers);
        out += &line(&rule);
        for row in &escaped.rows {
            out += &line(row);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_render_aligned_and_as_markdown() {
        let mut t = TextTable::new(["name", "value"]);
        t.row(["a|b", "1.0"]);
        t.row(["long name", "10.25"]);
        assert_eq!(
            t.plain(),
            "name       value\n---------  -----\na|b          1.0\nlong name  10.25\n"
        );
        assert_eq!(
            t.markdown(),
            "| name | value |\n| --- | ---: |\n| a\\|b | 1.0 |\n| long name | 10.25 |\n"
        );
    }

    #[test]
    fn padded_markdown_aligns_columns_and_escapes_bars() {
        let mut t = TextTable::new(["name", "v"]);
        t.row(["a|b", "1.0"]);
        t.row(["long name", "10.25"]);
        assert_eq!(
            t.markdown_padded(),
            "| name      |     v |\n\
             | --------- | ----: |\n\
             | a\\|b      |   1.0 |\n\
             | long name | 10.25 |\n"
        );
        t.align = vec![Align::Left; 2];
        assert!(t.markdown_padded().contains("| --------- | ----- |"));
    }
}
