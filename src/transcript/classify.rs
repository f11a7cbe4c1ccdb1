//! How a recorded line is kept: as the JSON value it is, as text, or as
//! bytes.
//!
//! The recorder classifies every line it forwards, so the check is one pass
//! over the bytes that neither allocates nor builds anything. It accepts
//! exactly the lines the checker reads as JSON (`check::wire` parses a
//! server's line into a serde_json `Value`): RFC 8259 JSON, strings of valid
//! UTF-8 without control characters, `\uXXXX` escapes whose surrogates come
//! in pairs, numbers within the range of an `f64`, and at most
//! [`MAX_DEPTH`] levels of arrays and objects. A line that is JSON beyond
//! those limits is kept as text, so that a replay
//! never expects as a message what it cannot read as one. The tests hold
//! the classifier to serde_json on generated and mutated lines.

/// The deepest nesting of arrays and objects read as a message: serde_json
/// refuses a 128th level.
pub(crate) const MAX_DEPTH: usize = 127;

/// How a line is kept, decided without copying it.
pub(crate) enum LineKind<'a> {
    /// Exactly one JSON value, nothing around it (so valid UTF-8 too).
    Json(&'a [u8]),
    /// UTF-8, but not exactly one JSON value.
    Text(&'a str),
    /// Not UTF-8.
    Bytes(&'a [u8]),
}

impl LineKind<'_> {
    /// Classifies one line, without its terminator.
    pub(crate) fn of(line: &[u8]) -> LineKind<'_> {
        if is_json(line) {
            return LineKind::Json(line);
        }
        match std::str::from_utf8(line) {
            Ok(text) => LineKind::Text(text),
            Err(_) => LineKind::Bytes(line),
        }
    }
}

/// Whether `line` is exactly one JSON value with no whitespace around it.
///
/// One loop over the bytes with the containers it is inside kept as bits:
/// this runs for every line a recording forwards.
pub(crate) fn is_json(line: &[u8]) -> bool {
    let len = line.len();
    match (line.first(), line.last()) {
        (Some(first), Some(last)) if !is_space(*first) && !is_space(*last) => {}
        _ => return false,
    }
    let mut at = 0;
    let mut frames = Frames::default();
    macro_rules! skip_space {
        () => {
            while at < len && is_space(line[at]) {
                at += 1;
            }
        };
    }
    macro_rules! string {
        () => {
            match string_end(line, at) {
                Some(end) => at = end,
                None => return false,
            }
        };
    }
    // An object key and its colon.
    macro_rules! key {
        () => {{
            skip_space!();
            if at >= len || line[at] != b'"' {
                return false;
            }
            at += 1;
            string!();
            skip_space!();
            if at >= len || line[at] != b':' {
                return false;
            }
            at += 1;
        }};
    }
    'value: loop {
        skip_space!();
        if at >= len {
            return false;
        }
        match line[at] {
            b'"' => {
                at += 1;
                string!();
            }
            // An empty array or object is a level too, to serde_json.
            b'{' | b'[' if frames.depth >= MAX_DEPTH => return false,
            b'{' => {
                at += 1;
                skip_space!();
                if at < len && line[at] == b'}' {
                    at += 1;
                } else {
                    if !frames.push(true) {
                        return false;
                    }
                    key!();
                    continue 'value;
                }
            }
            b'[' => {
                at += 1;
                skip_space!();
                if at < len && line[at] == b']' {
                    at += 1;
                } else {
                    if !frames.push(false) {
                        return false;
                    }
                    continue 'value;
                }
            }
            b't' | b'f' | b'n' => {
                let word: &[u8] = match line[at] {
                    b't' => b"true",
                    b'f' => b"false",
                    _ => b"null",
                };
                if !line[at..].starts_with(word) {
                    return false;
                }
                at += word.len();
            }
            _ => match number_end(line, at) {
                Some(end) => at = end,
                None => return false,
            },
        }
        // After a value: close what ends here, then a comma (and a key, in an
        // object) before the next value; at the top, the line must end.
        loop {
            if frames.depth == 0 {
                return at == len;
            }
            skip_space!();
            if at >= len {
                return false;
            }
            let object = frames.in_object();
            match line[at] {
                b',' => {
                    at += 1;
                    if object {
                        key!();
                    }
                    continue 'value;
                }
                b']' if !object => {
                    at += 1;
                    frames.pop();
                }
                b'}' if object => {
                    at += 1;
                    frames.pop();
                }
                _ => return false,
            }
        }
    }
}

fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

/// The arrays and objects the validator is inside, innermost last, as bits:
/// [`MAX_DEPTH`] levels fit in one word.
#[derive(Default)]
struct Frames {
    depth: usize,
    /// Bit `d` is set when level `d` is an object.
    objects: u128,
}

impl Frames {
    /// Enters a level; `false` past [`MAX_DEPTH`].
    #[inline]
    fn push(&mut self, object: bool) -> bool {
        if self.depth >= MAX_DEPTH {
            return false;
        }
        self.objects = (self.objects & !(1 << self.depth)) | (u128::from(object) << self.depth);
        self.depth += 1;
        true
    }

    #[inline]
    fn pop(&mut self) {
        self.depth -= 1;
    }

    /// Whether the innermost level is an object; at least one level is open.
    #[inline]
    fn in_object(&self) -> bool {
        self.objects & (1 << (self.depth - 1)) != 0
    }
}

/// Where the number starting at `at` ends:
/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, and its value within
/// the range of an `f64` (serde_json refuses a number that overflows it).
fn number_end(line: &[u8], at: usize) -> Option<usize> {
    let end = number_syntax_end(line, at)?;
    let number = &line[at..end];
    // Only an exponent or more than 300 digits can reach 1.8e308: those
    // few numbers are read by serde_json itself, for its exact verdict.
    let long = number.len() > 300;
    if (long || number.iter().any(|b| matches!(b, b'e' | b'E')))
        && serde_json::from_slice::<f64>(number).is_err()
    {
        return None;
    }
    Some(end)
}

fn number_syntax_end(line: &[u8], mut at: usize) -> Option<usize> {
    let digit = |at: usize| line.get(at).is_some_and(u8::is_ascii_digit);
    let digits_end = |mut at: usize| {
        while digit(at) {
            at += 1;
        }
        at
    };
    if line[at] == b'-' {
        at += 1;
    }
    match line.get(at) {
        Some(b'0') if digit(at + 1) => return None,
        Some(b'0') => at += 1,
        Some(b'1'..=b'9') => at = digits_end(at + 1),
        _ => return None,
    }
    if line.get(at) == Some(&b'.') {
        if !digit(at + 1) {
            return None;
        }
        at = digits_end(at + 1);
    }
    if matches!(line.get(at), Some(b'e' | b'E')) {
        at += 1;
        if matches!(line.get(at), Some(b'+' | b'-')) {
            at += 1;
        }
        if !digit(at) {
            return None;
        }
        at = digits_end(at);
    }
    Some(at)
}

/// Bytes that end a run of plain string content: control characters, the
/// quote, the backslash, and the start of a multi-byte character.
static STOP: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] =
            byte < 0x20 || byte >= 0x80 || byte == b'"' as usize || byte == b'\\' as usize;
        byte += 1;
    }
    table
};

/// Where the string whose content starts at `at` (just after its opening
/// quote) ends: just after its closing quote.
fn string_end(line: &[u8], mut at: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    loop {
        // Eight bytes at a time while none of them needs a look: a byte
        // below 0x20 or at or above 0x80, a quote or a backslash sets the
        // high bit of its place (and perhaps of places after it).
        while let Some(chunk) = line.get(at..at + 8) {
            let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
            let quote = word ^ (ONES * u64::from(b'"'));
            let backslash = word ^ (ONES * u64::from(b'\\'));
            let special = (word.wrapping_sub(ONES * 0x20)
                | (quote.wrapping_sub(ONES) & !quote)
                | (backslash.wrapping_sub(ONES) & !backslash)
                | word)
                & HIGHS;
            if special != 0 {
                at += (special.trailing_zeros() / 8) as usize;
                break;
            }
            at += 8;
        }
        while at < line.len() && !STOP[usize::from(line[at])] {
            at += 1;
        }
        match line.get(at)? {
            b'"' => return Some(at + 1),
            b'\\' => match line.get(at + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => at += 2,
                b'u' => {
                    let unit = hex4(line, at + 2)?;
                    at += 6;
                    match unit {
                        // A high surrogate must be followed by a low one.
                        0xD800..=0xDBFF => {
                            if line.get(at..at + 2) != Some(b"\\u") {
                                return None;
                            }
                            if !(0xDC00..=0xDFFF).contains(&hex4(line, at + 2)?) {
                                return None;
                            }
                            at += 6;
                        }
                        0xDC00..=0xDFFF => return None,
                        _ => {}
                    }
                }
                _ => return None,
            },
            0x80.. => at += utf8_len(&line[at..])?,
            // A control character.
            _ => return None,
        }
    }
}

/// The four hex digits at `at`, as a UTF-16 code unit.
fn hex4(line: &[u8], at: usize) -> Option<u32> {
    let hex = line.get(at..at + 4)?;
    hex.iter().try_fold(0, |unit, &digit| {
        Some(unit * 16 + char::from(digit).to_digit(16)?)
    })
}

pub(crate) use crate::jsonrpc::wire::beyond_limits;

/// The length of the UTF-8 sequence at the start of `bytes`, when it is a
/// valid one (no overlong forms, no surrogates, nothing above U+10FFFF).
fn utf8_len(bytes: &[u8]) -> Option<usize> {
    let continuation = |index: usize| bytes.get(index).is_some_and(|b| b & 0xC0 == 0x80);
    let second =
        |range: std::ops::RangeInclusive<u8>| bytes.get(1).is_some_and(|b| range.contains(b));
    let len = match bytes[0] {
        0xC2..=0xDF => 2,
        0xE0 if second(0xA0..=0xBF) => 3,
        0xE1..=0xEC | 0xEE..=0xEF if second(0x80..=0xBF) => 3,
        0xED if second(0x80..=0x9F) => 3,
        0xF0 if second(0x90..=0xBF) => 4,
        0xF1..=0xF3 if second(0x80..=0xBF) => 4,
        0xF4 if second(0x80..=0x8F) => 4,
        _ => return None,
    };
    (1..len).all(continuation).then_some(len)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::value::RawValue;

    use super::*;

    /// What serde_json says: the line is one JSON value and nothing else,
    /// and it reads into a `Value`, as the checker reads a server's line.
    fn serde_says(line: &[u8]) -> bool {
        match std::str::from_utf8(line) {
            Ok(text) => {
                matches!(
                    serde_json::from_str::<&RawValue>(text),
                    Ok(raw) if raw.get().len() == text.len()
                ) && serde_json::from_str::<serde_json::Value>(text).is_ok()
            }
            Err(_) => false,
        }
    }

    /// The classifier, the checker's reading of a server line, and the
    /// account of a line beyond the limits give one verdict.
    fn agrees(line: &[u8]) {
        let shown = String::from_utf8_lossy(line);
        let json = is_json(line);
        assert_eq!(json, serde_says(line), "{shown:?}");
        // The checker's reading (a trailing `\r` aside, which it strips and
        // the recorder keeps): JSON there is JSON here (the recorder keeps
        // the whitespace around a value as text, which the replay reads as
        // the value), and a line beyond the limits is named so, never as
        // "not JSON".
        if !line.ends_with(b"\r") {
            match crate::jsonrpc::wire::parse(line, true) {
                Ok(_) => assert!(is_json(line.trim_ascii()), "{shown:?}"),
                Err(err) if json => assert!(!err.reason.starts_with("not JSON"), "{shown:?}"),
                Err(err) => {
                    if let Some(why) = beyond_limits(line) {
                        assert_eq!(err.reason, why, "{shown:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn known_lines() {
        for line in [
            &br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#[..],
            b"0",
            b"-0.5e+10",
            b"1E3",
            b"\"\"",
            b"[]",
            b"{}",
            b"[[],{},[{}]]",
            b"{ \"a\" : [ 1 , 2 ] }",
            br#""\ud800 lone""#,
            br#""\udc00 lone""#,
            br#""\ud800\u0041""#,
            br#""\ud800\ud800""#,
            br#""\ud800\""#,
            br#""\ud800\udc00\udc00""#,
            br#""\uD83D\uDE00 pair""#,
            br#""\udbff\udfff""#,
            "\"é and 😀\"".as_bytes(),
            b"true",
            b"null",
            b"1e-400",
            b"1.7976931348623157e308",
            // Beyond an f64.
            b"1e400",
            b"-1e309",
            b"1.7976931348623159e308",
            // Not JSON.
            b"",
            b" 1",
            b"1 ",
            b"01",
            b"-",
            b"1.",
            b".5",
            b"1e",
            b"1e+",
            b"+1",
            b"[1,]",
            b"{,}",
            b"{\"a\"}",
            b"{\"a\":}",
            b"{1:2}",
            b"[1 2]",
            b"\"tab\there\"",
            br#""\x""#,
            br#""\u12""#,
            br#""\u12g4""#,
            b"\"open",
            b"tru",
            b"nulll",
            b"[1]]",
            b"1 2",
            b"\"\xff\"",
            b"\"\xed\xa0\x80\"",
            b"\"\xc0\xaf\"",
            b"\"\xf4\x90\x80\x80\"",
            b"\x0c1",
            b"Server ready",
        ] {
            agrees(line);
        }
    }

    #[test]
    fn nesting_stops_where_the_checker_stops() {
        for depth in [126, 127, 128, 129, 1000] {
            let line = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            agrees(line.as_bytes());
            let line = format!("{}1{}", "{\"a\":[".repeat(depth), "]}".repeat(depth));
            agrees(line.as_bytes());
            let line = format!("{}{}", "[".repeat(depth), "]".repeat(depth - 1));
            agrees(line.as_bytes());
        }
    }

    #[test]
    fn long_numbers_agree() {
        for digits in [299, 300, 301, 308, 309, 310, 400] {
            agrees("9".repeat(digits).as_bytes());
            agrees(format!("0.{}", "9".repeat(digits)).as_bytes());
        }
    }

    #[test]
    fn json_beyond_the_limits_is_named() {
        let deep = format!("{}{}", "[".repeat(128), "]".repeat(128));
        assert_eq!(
            beyond_limits(deep.as_bytes()),
            Some("nested deeper than 127 levels, beyond what mcp-replay reads as a message")
        );
        let fits = format!("{}{}", "[".repeat(127), "]".repeat(127));
        assert_eq!(beyond_limits(fits.as_bytes()), None);
        assert!(
            beyond_limits(br#"{"jsonrpc":"2.0","method":"m","params":"\ud800"}"#)
                .is_some_and(|why| why.contains("lone surrogate"))
        );
        assert_eq!(beyond_limits(b"not json"), None);
        assert!(matches!(LineKind::of(deep.as_bytes()), LineKind::Text(_)));
    }

    #[test]
    fn every_byte_in_a_string_and_outside() {
        for byte in 0..=255u8 {
            agrees(&[b'"', byte, b'"']);
            agrees(&[b'[', byte, b']']);
            agrees(&[b'"', b'\\', byte, b'"']);
            for len in 0..10 {
                let mut line = vec![b'"'];
                line.extend(std::iter::repeat_n(b'a', len));
                line.push(byte);
                line.extend_from_slice(b"bc\"");
                agrees(&line);
            }
        }
    }

    #[test]
    fn every_two_byte_sequence_in_a_string() {
        for first in 0x80..=0xFFu8 {
            for second in 0..=0xFFu8 {
                agrees(&[b'"', first, second, b'"']);
                agrees(&[b'"', first, second, 0x80, b'"']);
                agrees(&[b'"', first, second, 0x80, 0x80, b'"']);
            }
        }
    }

    /// A JSON text as some encoder writes it: compact or spaced, escaped or
    /// not, with numbers in every form.
    fn json_text() -> impl Strategy<Value = String> {
        let number = prop_oneof![
            any::<i64>().prop_map(|n| n.to_string()),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(|f| f.to_string()),
            "-?(0|[1-9][0-9]{0,20})(\\.[0-9]{1,5})?([eE][+-]?[0-9]{1,2})?",
        ];
        let string = prop_oneof![
            any::<String>().prop_map(|s| serde_json::to_string(&s).unwrap()),
            "([ -!#-\\[\\]-~]|\\\\[\"\\\\/bfnrt]|\\\\u[0-9a-cefA-CEF][0-9a-fA-F]{3}|\\\\u[dD][89abAB][0-9a-fA-F]{2}\\\\u[dD][c-fC-F][0-9a-fA-F]{2}){0,12}"
                .prop_map(|s| format!("\"{s}\"")),
        ];
        let space = "[ \t\r\n]{0,2}";
        let leaf = prop_oneof![
            number,
            string.clone(),
            Just("true".to_owned()),
            Just("false".to_owned()),
            Just("null".to_owned()),
        ];
        leaf.prop_recursive(6, 64, 5, move |inner| {
            prop_oneof![
                (prop::collection::vec((inner.clone(), space), 0..5), space).prop_map(
                    |(items, pad)| {
                        let items: Vec<String> = items
                            .into_iter()
                            .map(|(v, s)| format!("{s}{v}{s}"))
                            .collect();
                        format!("[{pad}{}]", items.join(","))
                    }
                ),
                (
                    prop::collection::vec((string.clone(), inner, space), 0..5),
                    space
                )
                    .prop_map(|(entries, pad)| {
                        let entries: Vec<String> = entries
                            .into_iter()
                            .map(|(k, v, s)| format!("{s}{k}{s}:{s}{v}{s}"))
                            .collect();
                        format!("{{{pad}{}}}", entries.join(","))
                    }),
            ]
        })
    }

    /// A change to a line: a byte replaced, removed, inserted or doubled.
    fn mutate(line: &mut Vec<u8>, at: usize, byte: u8, how: u8) {
        if line.is_empty() {
            line.push(byte);
            return;
        }
        let at = at % line.len();
        match how % 4 {
            0 => line[at] = byte,
            1 => {
                line.remove(at);
            }
            2 => line.insert(at, byte),
            _ => {
                let doubled = line[at];
                line.insert(at, doubled);
            }
        }
    }

    /// Bytes a mutation likely puts somewhere interesting.
    fn telling_byte() -> impl Strategy<Value = u8> {
        prop_oneof![
            prop::sample::select(b"{}[]\",:\\/-+.eE0123456789tfnul \t\r\n\x00\x1f\x7f".to_vec()),
            any::<u8>(),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        #[test]
        fn generated_json_agrees(text in json_text()) {
            prop_assert!(serde_says(text.trim().as_bytes()));
            agrees(text.as_bytes());
            agrees(text.trim().as_bytes());
        }

        #[test]
        fn mutated_json_agrees(
            text in json_text(),
            changes in prop::collection::vec((any::<usize>(), telling_byte(), any::<u8>()), 1..4),
        ) {
            let mut line = text.trim().as_bytes().to_vec();
            for (at, byte, how) in changes {
                mutate(&mut line, at, byte, how);
                agrees(&line);
            }
        }

        #[test]
        fn messages_agree_with_the_checker(
            text in json_text(),
            depth in 0usize..140,
            changes in prop::collection::vec((any::<usize>(), telling_byte(), any::<u8>()), 0..3),
        ) {
            // A response holding the value `depth` arrays down: below the
            // limit, at it and past it.
            let mut line = format!(
                r#"{{"jsonrpc":"2.0","id":1,"result":{}{}{}}}"#,
                "[".repeat(depth),
                text.trim(),
                "]".repeat(depth)
            )
            .into_bytes();
            agrees(&line);
            for (at, byte, how) in changes {
                mutate(&mut line, at, byte, how);
                agrees(&line);
            }
        }

        #[test]
        fn arbitrary_bytes_agree(line in prop::collection::vec(any::<u8>(), 0..64)) {
            agrees(&line);
        }

        #[test]
        fn arbitrary_text_agrees(line in "\\PC{0,40}") {
            agrees(line.as_bytes());
        }
    }
}
