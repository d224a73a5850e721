//! A run line as abba writes it, read without a JSON tree and without an allocation a
//! line: one flat object of the record's own fields, no whitespace, integers, `true`,
//! `false`, `null` and strings without escapes. Any other line (a float, an escape, an
//! unknown or repeated field, a missing one, a number out of range) is left to serde
//! ([`read_plain`] returns `false`), which reads it or names its problem: what is read
//! here is the record serde reads from the same line, field for field.

use super::RunRecord;

/// The fields of [`RunRecord`], by their number (bit) in a line's mask.
const FIELDS: [&[u8]; 29] = [
    b"run",
    b"block",
    b"position",
    b"variant",
    b"is_reference",
    b"beside",
    b"wall_ns",
    b"user_ns",
    b"sys_ns",
    b"max_rss_kib",
    b"exit_code",
    b"signal",
    b"timed_out",
    b"env_pad",
    b"metric",
    b"allowed_cpus",
    b"session",
    b"prepare_ns",
    b"conclude_ns",
    b"hook_failure",
    b"benchmark",
    b"instructions",
    b"cycles",
    b"branches",
    b"branch_misses",
    b"cache_misses",
    b"counted_processes",
    b"count_error",
    b"run_delay_ns",
];

/// The fields serde requires (no default): block, position, variant, the three times,
/// max_rss_kib, timed_out, env_pad.
const REQUIRED: u32 =
    1 << 1 | 1 << 2 | 1 << 3 | 1 << 6 | 1 << 7 | 1 << 8 | 1 << 9 | 1 << 12 | 1 << 13;

/// A cursor over a line's bytes.
struct Cursor<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.text.get(self.at) == Some(&byte)).then(|| self.at += 1)
    }

    fn eat_word(&mut self, word: &[u8]) -> bool {
        let end = self.at + word.len();
        let hit = self.text.get(self.at..end) == Some(word);
        if hit {
            self.at = end;
        }
        hit
    }

    /// A string without escapes or control characters, UTF-8.
    fn string(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let rest = &self.text[self.at..];
        let len = rest
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
        if rest[len] != b'"' {
            return None;
        }
        let s = std::str::from_utf8(&rest[..len]).ok()?;
        self.at += len + 1;
        Some(s)
    }

    /// A non-negative JSON integer (`0` or no leading zero) up to `max`.
    fn unsigned(&mut self, max: u64) -> Option<u64> {
        let rest = &self.text[self.at..];
        let len = rest
            .iter()
            .position(|b| !b.is_ascii_digit())
            .unwrap_or(rest.len());
        if len == 0 || (len > 1 && rest[0] == b'0') || len > 20 {
            return None;
        }
        let mut x: u64 = 0;
        for &d in &rest[..len] {
            x = x.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
        }
        // A number goes on as a float (`1.5`, `1e3`): serde's to read.
        if matches!(rest.get(len), Some(b'.' | b'e' | b'E')) || x > max {
            return None;
        }
        self.at += len;
        Some(x)
    }

    /// An `i32` (a `-` and digits, not `-0`).
    fn signed(&mut self) -> Option<i32> {
        if self.eat(b'-').is_some() {
            let x = self.unsigned(1 << 31)?;
            if x == 0 {
                return None;
            }
            i32::try_from(-(x as i64)).ok()
        } else {
            i32::try_from(self.unsigned(i32::MAX as u64)?).ok()
        }
    }

    fn boolean(&mut self) -> Option<bool> {
        if self.eat_word(b"true") {
            Some(true)
        } else if self.eat_word(b"false") {
            Some(false)
        } else {
            None
        }
    }

    /// `null` (`Some(None)`), or `Some(value)` read by `f`.
    fn nullable<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        if self.eat_word(b"null") {
            Some(None)
        } else {
            f(self).map(Some)
        }
    }
}

/// A record for [`read_plain`] to fill.
pub(super) fn blank() -> RunRecord {
    RunRecord {
        run: 0,
        block: 0,
        position: 0,
        variant: String::new(),
        is_reference: false,
        beside: None,
        wall_ns: 0,
        user_ns: 0,
        sys_ns: 0,
        max_rss_kib: 0,
        exit_code: None,
        signal: None,
        timed_out: false,
        env_pad: 0,
        metric: None,
        allowed_cpus: None,
        session: 0,
        prepare_ns: None,
        conclude_ns: None,
        hook_failure: None,
        benchmark: None,
        instructions: None,
        cycles: None,
        branches: None,
        branch_misses: None,
        cache_misses: None,
        counted_processes: None,
        count_error: None,
        run_delay_ns: None,
    }
}

/// `slot` set to `s`, its allocation reused.
fn set_string(slot: &mut String, s: &str) {
    slot.clear();
    slot.push_str(s);
}

/// `slot` set to `s` (or `None`), an allocation it holds reused.
fn set_optional(slot: &mut Option<String>, s: Option<&str>) {
    match (slot.as_mut(), s) {
        (Some(kept), Some(s)) => set_string(kept, s),
        (None, Some(s)) => *slot = Some(s.to_owned()),
        (_, None) => *slot = None,
    }
}

/// Reads `text`, a run line in abba's own layout, into `run` (every field set: a field the
/// line leaves out gets serde's default); `false`, with `run` in no particular state, for
/// any line it leaves to serde (see the module docs). Time: O(line); no allocation once
/// `run`'s strings have room.
pub(super) fn read_plain(text: &[u8], run: &mut RunRecord) -> bool {
    read(text, run).is_some()
}

fn read(text: &[u8], run: &mut RunRecord) -> Option<()> {
    let mut c = Cursor { text, at: 0 };
    let mut seen = 0u32;
    c.eat(b'{')?;
    loop {
        let key = c.string()?.as_bytes();
        c.eat(b':')?;
        let field = FIELDS.iter().position(|&f| f == key)?;
        if seen >> field & 1 == 1 {
            return None;
        }
        seen |= 1 << field;
        const U32: u64 = u32::MAX as u64;
        let opt_u64 = |c: &mut Cursor<'_>| c.nullable(|c| c.unsigned(u64::MAX));
        match field {
            0 => run.run = c.unsigned(U32)? as u32,
            1 => run.block = c.unsigned(U32)? as u32,
            2 => run.position = c.unsigned(U32)? as u32,
            3 => set_string(&mut run.variant, c.string()?),
            4 => run.is_reference = c.boolean()?,
            5 => set_optional(&mut run.beside, c.nullable(Cursor::string)?),
            6 => run.wall_ns = c.unsigned(u64::MAX)?,
            7 => run.user_ns = c.unsigned(u64::MAX)?,
            8 => run.sys_ns = c.unsigned(u64::MAX)?,
            9 => run.max_rss_kib = c.unsigned(u64::MAX)?,
            10 => run.exit_code = c.nullable(Cursor::signed)?,
            11 => run.signal = c.nullable(Cursor::signed)?,
            12 => run.timed_out = c.boolean()?,
            13 => run.env_pad = usize::try_from(c.unsigned(u64::MAX)?).ok()?,
            // A metric value is a float: serde's to read (only `null` here).
            14 => run.metric = c.nullable(|_| None::<f64>)?,
            15 => set_optional(&mut run.allowed_cpus, c.nullable(Cursor::string)?),
            16 => run.session = c.unsigned(U32)? as u32,
            17 => run.prepare_ns = opt_u64(&mut c)?,
            18 => run.conclude_ns = opt_u64(&mut c)?,
            19 => set_optional(&mut run.hook_failure, c.nullable(Cursor::string)?),
            20 => set_optional(&mut run.benchmark, c.nullable(Cursor::string)?),
            21 => run.instructions = opt_u64(&mut c)?,
            22 => run.cycles = opt_u64(&mut c)?,
            23 => run.branches = opt_u64(&mut c)?,
            24 => run.branch_misses = opt_u64(&mut c)?,
            25 => run.cache_misses = opt_u64(&mut c)?,
            26 => run.counted_processes = c.nullable(|c| c.unsigned(U32))?.map(|x| x as u32),
            27 => set_optional(&mut run.count_error, c.nullable(Cursor::string)?),
            _ => run.run_delay_ns = opt_u64(&mut c)?,
        }
        if c.eat(b',').is_none() {
            c.eat(b'}')?;
            break;
        }
    }
    if c.at != text.len() || seen & REQUIRED != REQUIRED {
        return None;
    }
    defaults(seen, run);
    Some(())
}

/// The fields a line left out (not in `seen`) set to serde's defaults.
fn defaults(seen: u32, run: &mut RunRecord) {
    let unset = |field: usize| seen >> field & 1 == 0;
    if unset(0) {
        run.run = 0;
    }
    if unset(4) {
        run.is_reference = false;
    }
    if unset(5) {
        run.beside = None;
    }
    if unset(10) {
        run.exit_code = None;
    }
    if unset(11) {
        run.signal = None;
    }
    if unset(14) {
        run.metric = None;
    }
    if unset(15) {
        run.allowed_cpus = None;
    }
    if unset(16) {
        run.session = 0;
    }
    if unset(17) {
        run.prepare_ns = None;
    }
    if unset(18) {
        run.conclude_ns = None;
    }
    if unset(19) {
        run.hook_failure = None;
    }
    if unset(20) {
        run.benchmark = None;
    }
    if unset(21) {
        run.instructions = None;
    }
    if unset(22) {
        run.cycles = None;
    }
    if unset(23) {
        run.branches = None;
    }
    if unset(24) {
        run.branch_misses = None;
    }
    if unset(25) {
        run.cache_misses = None;
    }
    if unset(26) {
        run.counted_processes = None;
    }
    if unset(27) {
        run.count_error = None;
    }
    if unset(28) {
        run.run_delay_ns = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The record serde reads from `line`, and the one read here (`None` when left to
    /// serde).
    fn both(line: &str) -> (Option<RunRecord>, Option<RunRecord>) {
        let by_serde = serde_json::from_str::<RunRecord>(line).ok();
        // A filled record first: every field must be set again.
        let mut run = serde_json::from_str::<RunRecord>(FULL).unwrap();
        let here = read_plain(line.as_bytes(), &mut run).then_some(run);
        (by_serde, here)
    }

    const FULL: &str = r#"{"run":9,"block":3,"position":1,"variant":"other","is_reference":true,"beside":"B","wall_ns":1,"user_ns":2,"sys_ns":3,"max_rss_kib":4,"exit_code":-1,"signal":9,"timed_out":true,"env_pad":64,"metric":2.5,"allowed_cpus":"2","session":2,"prepare_ns":5,"conclude_ns":6,"hook_failure":"prepare: exit code 1","benchmark":"b","instructions":7,"cycles":8,"branches":9,"branch_misses":10,"cache_misses":11,"counted_processes":2,"count_error":"x","run_delay_ns":12}"#;

    #[test]
    fn abbas_own_lines_read_as_serde_reads_them() {
        let lines = [
            r#"{"run":1,"block":0,"position":1,"variant":"B","is_reference":false,"wall_ns":50437436,"user_ns":49933061,"sys_ns":0,"max_rss_kib":3000,"exit_code":0,"signal":null,"timed_out":false,"env_pad":0,"metric":null,"allowed_cpus":"0-1"}"#,
            r#"{"block":7,"position":0,"variant":"A","wall_ns":1,"user_ns":0,"sys_ns":0,"max_rss_kib":0,"timed_out":false,"env_pad":0}"#,
            r#"{"run":4294967295,"block":1,"position":2,"variant":"é","is_reference":true,"beside":"A","wall_ns":18446744073709551615,"user_ns":0,"sys_ns":0,"max_rss_kib":0,"exit_code":-2147483648,"signal":2147483647,"timed_out":true,"env_pad":3,"metric":null,"allowed_cpus":null,"session":3,"prepare_ns":null,"conclude_ns":4,"hook_failure":"conclude: exit code 2","benchmark":"x","instructions":1,"cycles":null,"branches":2,"branch_misses":3,"cache_misses":4,"counted_processes":1,"count_error":null,"run_delay_ns":0}"#,
            // Another order of the fields.
            r#"{"variant":"A","env_pad":0,"timed_out":false,"max_rss_kib":1,"sys_ns":2,"user_ns":3,"wall_ns":4,"position":5,"block":6,"run":7}"#,
            FULL.replace(r#""metric":2.5"#, r#""metric":null"#).as_str(),
        ]
        .map(str::to_owned);
        for line in &lines {
            let (serde, here) = both(line);
            assert!(serde.is_some(), "{line}");
            assert_eq!(here, serde, "{line}");
        }
    }

    #[test]
    fn any_other_line_is_left_to_serde() {
        let base = r#"{"run":1,"block":0,"position":1,"variant":"B","is_reference":false,"wall_ns":5,"user_ns":4,"sys_ns":0,"max_rss_kib":3000,"exit_code":0,"signal":null,"timed_out":false,"env_pad":0,"metric":null,"allowed_cpus":"0-1"}"#;
        let edits: [(&str, &str); 16] = [
            (r#""metric":null"#, r#""metric":2.5"#),
            (r#""metric":null"#, r#""metric":3"#),
            (r#""variant":"B""#, r#""variant":"B\u0041""#),
            (r#""wall_ns":5"#, r#""wall_ns":5.0"#),
            (r#""wall_ns":5"#, r#""wall_ns":05"#),
            (r#""wall_ns":5"#, r#""wall_ns":-5"#),
            (r#""wall_ns":5"#, r#""wall_ns":18446744073709551616"#),
            (r#""run":1"#, r#""run":4294967296"#),
            (r#""exit_code":0"#, r#""exit_code":-0"#),
            (r#""exit_code":0"#, r#""exit_code":2147483648"#),
            (r#""run":1,"#, r#""run":1, "#),
            (r#""run":1,"#, r#""run":1,"run":2,"#),
            (r#""run":1,"#, r#""run":1,"new_field":2,"#),
            (r#""block":0,"#, ""),
            (r#""timed_out":false"#, r#""timed_out":0"#),
            (r#""allowed_cpus":"0-1"}"#, r#""allowed_cpus":"0-1"} "#),
        ];
        for (from, to) in edits {
            let line = base.replacen(from, to, 1);
            assert_ne!(line, base, "{from}");
            let (_, here) = both(&line);
            assert_eq!(here, None, "{line}");
        }
        assert!(both(base).1.is_some());
        assert_eq!(both(&base[..base.len() - 1]).1, None);
        assert_eq!(both("").1, None);
        assert_eq!(both("{}").1, None);
    }
}
