//! Standard base64 (RFC 4648, with padding) for the `bytes` of non-UTF-8
//! lines. Small enough to keep here rather than take a dependency.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Appends the base64 encoding of `bytes` to `out`.
pub(crate) fn encode_into(bytes: &[u8], out: &mut Vec<u8>) {
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let symbols = [(n >> 18) & 63, (n >> 12) & 63, (n >> 6) & 63, n & 63];
        for (i, symbol) in symbols.iter().enumerate() {
            if i <= chunk.len() {
                out.push(ALPHABET[*symbol as usize]);
            } else {
                out.push(b'=');
            }
        }
    }
}

/// Decodes standard base64; `None` on any character outside the alphabet or
/// a length that is not a multiple of four.
pub(crate) fn decode(text: &str) -> Option<Vec<u8>> {
    let text = text.as_bytes();
    if text.len() % 4 != 0 {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    for chunk in text.chunks(4) {
        let pad = chunk.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 {
            return None;
        }
        let mut n = 0u32;
        for &c in &chunk[..4 - pad] {
            let value = ALPHABET.iter().position(|&a| a == c)? as u32;
            n = (n << 6) | value;
        }
        n <<= 6 * pad as u32;
        let decoded = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&decoded[..3 - pad]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_length() {
        let data: Vec<u8> = (0..=255u8).collect();
        for len in 0..20 {
            let mut encoded = Vec::new();
            encode_into(&data[..len], &mut encoded);
            let text = String::from_utf8(encoded).unwrap();
            assert_eq!(decode(&text).unwrap(), &data[..len], "length {len}");
        }
    }

    #[test]
    fn known_vectors() {
        let mut out = Vec::new();
        encode_into(b"foobar", &mut out);
        assert_eq!(out, b"Zm9vYmFy");
        out.clear();
        encode_into(b"fo", &mut out);
        assert_eq!(out, b"Zm8=");
        assert_eq!(decode("Zg==").unwrap(), b"f");
        assert_eq!(decode("Zg="), None);
        assert_eq!(decode("Z!=="), None);
    }
}
