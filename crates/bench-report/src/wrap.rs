//! Prose wrapped to a width at word boundaries, with a hanging indent.

/// `text` wrapped to lines of at most `width` characters (counted as `char`s): the first
/// line starts with `indent`, every further line with `hang`, and lines break at spaces.
/// A word longer than a whole line is cut (the only case a word is split), so every line
/// fits. Newlines in `text` start a new paragraph with the same indents. `width` `None`:
/// no wrapping, the indent only. Runs of spaces inside a line are kept where the line is
/// not broken. The result has no trailing newline. Time: O(characters of `text`).
///
/// # Examples
///
/// ```
/// use bench_report::wrap;
///
/// let text = wrap("B vs A: 1.036x slower by the signed-rank test", Some(20), "", "  ");
/// assert_eq!(text, "B vs A: 1.036x\n  slower by the\n  signed-rank test");
/// assert!(text.lines().all(|l| l.chars().count() <= 20));
/// assert_eq!(wrap("short", None, "- ", "  "), "- short");
/// ```
pub fn wrap(text: &str, width: Option<usize>, indent: &str, hang: &str) -> String {
    let mut out = Vec::new();
    for paragraph in text.split('\n') {
        wrap_paragraph(paragraph, width, indent, hang, &mut out);
    }
    out.join("\n")
}

fn len(s: &str) -> usize {
    s.chars().count()
}

fn wrap_paragraph(
    text: &str,
    width: Option<usize>,
    indent: &str,
    hang: &str,
    out: &mut Vec<String>,
) {
    let Some(width) = width.filter(|&w| len(indent) + len(text) > w) else {
        out.push(format!("{indent}{text}").trim_end().to_owned());
        return;
    };
    let mut line = indent.to_owned();
    // Characters of `line` beyond its prefix; 0 means nothing written after the prefix.
    let mut used = 0usize;
    let mut prefix = len(indent);
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let mut word = word.to_owned();
        loop {
            let n = len(&word);
            let gap = usize::from(used > 0);
            if prefix + used + gap + n <= width {
                if gap == 1 {
                    line.push(' ');
                }
                line.push_str(&word);
                used += gap + n;
                break;
            }
            if used > 0 {
                out.push(std::mem::replace(&mut line, hang.to_owned()));
                used = 0;
                prefix = len(hang);
                continue;
            }
            // A word longer than a whole line: cut it (at least one character per line).
            let room = width.saturating_sub(prefix).max(1);
            let head: String = word.chars().take(room).collect();
            let tail: String = word.chars().skip(room).collect();
            line.push_str(&head);
            out.push(std::mem::replace(&mut line, hang.to_owned()));
            prefix = len(hang);
            if tail.is_empty() {
                break;
            }
            word = tail;
        }
    }
    if used > 0 || out.is_empty() {
        out.push(line.trim_end().to_owned());
    }
}

/// A schedule line (`block 3: a | b | b | a`) wrapped to `width` at run boundaries:
/// continuation lines are indented under the first run, and a line continued after a
/// ` | ` separator ends with `|`. A single run wider than the line is left whole (the
/// `--dry-run` schedule of `abba compare`). Time: O(line length).
pub fn wrap_schedule_line(line: &str, width: Option<usize>) -> String {
    let Some(width) = width.filter(|&w| line.chars().count() > w) else {
        return line.to_owned();
    };
    let Some(colon) = line.find(": ") else {
        return wrap(line, Some(width), "", "    ");
    };
    let (head, rest) = line.split_at(colon + 2);
    let (cells, sep, tail): (Vec<&str>, &str, &str) = if rest.contains(" | ") {
        (rest.split(" | ").collect(), " | ", " |")
    } else {
        (rest.split(' ').collect(), " ", "")
    };
    let indent = " ".repeat(head.chars().count().min(width / 2));
    let mut out = String::new();
    let mut current = head.to_owned();
    let mut empty = true;
    for cell in cells {
        let len = |s: &str| s.chars().count();
        if !empty && len(&current) + len(sep) + len(cell) + len(tail) > width {
            out.push_str(current.trim_end());
            out.push_str(tail);
            out.push('\n');
            current = indent.clone();
            empty = true;
        }
        if !empty {
            current.push_str(sep);
        }
        current.push_str(cell);
        empty = false;
    }
    out.push_str(&current);
    out
}

#[cfg(test)]
mod tests {
    use super::wrap;

    fn longest(s: &str) -> usize {
        s.lines().map(|l| l.chars().count()).max().unwrap_or(0)
    }

    #[test]
    fn breaks_at_spaces_with_a_hanging_indent() {
        let text = "one two three four five six seven eight nine ten";
        let w = wrap(text, Some(16), "  ", "      ");
        assert_eq!(
            w,
            "  one two three\n      four five\n      six seven\n      eight nine\n      ten"
        );
        // Every word survives, in order.
        let words: Vec<&str> = w.split_whitespace().collect();
        assert_eq!(words.join(" "), text);
    }

    #[test]
    fn fits_or_is_left_alone() {
        assert_eq!(wrap("a b", Some(80), "x: ", "   "), "x: a b");
        assert_eq!(wrap("a  b", Some(80), "", ""), "a  b");
        assert_eq!(wrap("a b c", None, "", "  "), "a b c");
    }

    #[test]
    fn a_word_longer_than_a_line_is_cut_so_every_line_fits() {
        let w = wrap(
            "see /a/very/long/path/to/a/file.jsonl now",
            Some(12),
            "",
            "  ",
        );
        assert!(longest(&w) <= 12, "{w}");
        assert_eq!(
            w.replace("\n  ", "").replace(' ', ""),
            "see/a/very/long/path/to/a/file.jsonlnow"
        );
    }

    #[test]
    fn counts_characters_not_bytes_and_keeps_paragraphs() {
        let w = wrap("µs µs µs µs\nσ σ", Some(6), "", " ");
        assert_eq!(w, "µs µs\n µs µs\nσ σ");
    }

    #[test]
    fn many_widths_every_line_fits() {
        let text = "design abba · seed 42 · alpha 0.05 · confidence 95% · 2000 resamples · verdict estimator hl-log-ratio";
        for width in 8..120 {
            let w = wrap(text, Some(width), "  ", "    ");
            assert!(longest(&w) <= width, "{width}: {w}");
            assert_eq!(
                w.split_whitespace().collect::<String>(),
                text.split_whitespace().collect::<String>()
            );
        }
    }
}
