//! Lengths of UTF-8 strings in code points, counted exactly as `BinaryStringData.numChars` and
//! `substring` count them: a lead byte says how many bytes its character takes, a byte that can
//! lead nothing counts as one character, and a character cut off at the end still counts.

/// `BinaryStringData.numBytesForFirstByte`.
fn bytes_of_char(lead: u8) -> usize {
    let b = lead as i8;
    if b >= 0 {
        1
    } else if (b >> 5) == -2 && (b & 0x1e) != 0 {
        2
    } else if (b >> 4) == -2 {
        3
    } else if (b >> 3) == -2 {
        4
    } else {
        1
    }
}

/// The number of characters of `utf8`, as `numChars()`.
pub fn count(utf8: &[u8]) -> usize {
    let (mut at, mut chars) = (0, 0);
    while at < utf8.len() {
        at += bytes_of_char(utf8[at]);
        chars += 1;
    }
    chars
}

/// The first `chars` characters of `utf8`, as `substring(0, chars)`; a character cut off at the
/// end is kept as far as it goes (Flink would copy the bytes after it).
pub fn prefix(utf8: &[u8], chars: usize) -> &[u8] {
    let (mut at, mut taken) = (0, 0);
    while at < utf8.len() && taken < chars {
        at += bytes_of_char(utf8[at]);
        taken += 1;
    }
    &utf8[..at.min(utf8.len())]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_code_points_not_bytes() {
        assert_eq!(count(b""), 0);
        assert_eq!(count("abc".as_bytes()), 3);
        assert_eq!(count("äöü".as_bytes()), 3);
        assert_eq!(count("日本語".as_bytes()), 3);
        assert_eq!(count("a😀b".as_bytes()), 3, "a four-byte character is one");
    }

    #[test]
    fn prefixes_end_on_character_boundaries() {
        assert_eq!(prefix("日本語".as_bytes(), 2), "日本".as_bytes());
        assert_eq!(prefix("a😀b".as_bytes(), 2), "a😀".as_bytes());
        assert_eq!(prefix("abc".as_bytes(), 5), b"abc");
        assert_eq!(prefix("abc".as_bytes(), 0), b"");
    }

    #[test]
    fn malformed_bytes_count_as_flink_counts_them() {
        // 0xC0 and 0xC1 lead nothing (overlong), a lone continuation byte counts as one.
        assert_eq!(count(&[0xc0, 0x80]), 2);
        assert_eq!(count(&[0x80, 0x80, b'a']), 3);
        // A three-byte lead with one byte left still counts once, and the prefix stops at the end.
        assert_eq!(count(&[b'a', 0xe6, 0x97]), 2);
        assert_eq!(prefix(&[b'a', 0xe6, 0x97], 2), &[b'a', 0xe6, 0x97]);
    }
}
