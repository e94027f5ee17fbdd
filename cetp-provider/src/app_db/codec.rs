//! The bytes that cross JNI for one read: the values to bind, and the reply of the template's
//! `CetpAppDatabase.query` (one `byte[]` each way, so a read crosses JNI once whatever its
//! rows). Big-endian, as Java's `DataOutputStream` writes.
//!
//! A value is a tag and its payload: `0` null; `1` integer (8 bytes); `2` real (8 bytes, IEEE
//! 754 bits); `3` text (4-byte length, UTF-8); `4` blob (4-byte length, bytes). A reply starts
//! with a status: `0` rows follow (4-byte column count, each name as a text without its tag,
//! then the rows' values, row after row, to the end); `1` no database file; `2` cancelled at
//! the deadline; `3` SQLite failed (a text without its tag: the exception's class); `4` the
//! rows exceeded the byte budget the call gave.

#![cfg_attr(not(any(test, feature = "jni")), allow(dead_code))]

use super::{SqlFailure, SqlRows, SqlValue};

const NULL: u8 = 0;
const INTEGER: u8 = 1;
const REAL: u8 = 2;
const TEXT: u8 = 3;
const BLOB: u8 = 4;

const ROWS: u8 = 0;
const MISSING: u8 = 1;
const CANCELLED: u8 = 2;
const FAILED: u8 = 3;
const TOO_LARGE: u8 = 4;

/// The values to bind, for `CetpAppDatabase.query`.
pub(crate) fn encode_params(params: &[SqlValue]) -> Vec<u8> {
    let mut out = Vec::new();
    for value in params {
        match value {
            SqlValue::Null => out.push(NULL),
            SqlValue::Integer(i) => {
                out.push(INTEGER);
                out.extend_from_slice(&i.to_be_bytes());
            }
            SqlValue::Real(r) => {
                out.push(REAL);
                out.extend_from_slice(&r.to_bits().to_be_bytes());
            }
            SqlValue::Text(t) => {
                out.push(TEXT);
                put_bytes(&mut out, t.as_bytes());
            }
            SqlValue::Blob(b) => {
                out.push(BLOB);
                put_bytes(&mut out, b);
            }
        }
    }
    out
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    // Java arrays hold at most i32::MAX bytes; a longer value cannot be bound anyway.
    let len = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(bytes);
}

/// The reply of `CetpAppDatabase.query`, read; `max_bytes` is the budget the call gave.
pub(crate) fn decode_reply(bytes: &[u8], max_bytes: usize) -> Result<SqlRows, SqlFailure> {
    let mut r = Reader { bytes, at: 0 };
    match r.u8()? {
        ROWS => {}
        MISSING => return Err(SqlFailure::Missing),
        CANCELLED => return Err(SqlFailure::Cancelled),
        FAILED => {
            let why = r.text()?;
            return Err(SqlFailure::Failed(format!("SQLite answered {why}")));
        }
        TOO_LARGE => {
            return Err(SqlFailure::Failed(format!(
                "the rows are larger than the {max_bytes} bytes one call may read; ask for fewer (LIMIT ?) or smaller columns"
            )));
        }
        other => return Err(malformed(&format!("status {other}"))),
    }
    let count = usize::try_from(r.u32()?).map_err(|_| malformed("column count"))?;
    if count > r.bytes.len() {
        return Err(malformed("column count"));
    }
    let columns = (0..count)
        .map(|_| r.text())
        .collect::<Result<Vec<_>, _>>()?;
    let mut rows = Vec::new();
    while r.at < r.bytes.len() {
        if count == 0 {
            return Err(malformed("a row without columns"));
        }
        let row = (0..count)
            .map(|_| r.value())
            .collect::<Result<Vec<_>, _>>()?;
        rows.push(row);
    }
    Ok(SqlRows { columns, rows })
}

fn malformed(what: &str) -> SqlFailure {
    SqlFailure::Failed(format!(
        "the template's reply is malformed ({what}); are the library and the template from the same SDK version?"
    ))
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], SqlFailure> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or_else(|| malformed("truncated"))?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u8(&mut self) -> Result<u8, SqlFailure> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> Result<u32, SqlFailure> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn bits(&mut self) -> Result<[u8; 8], SqlFailure> {
        let mut a = [0; 8];
        a.copy_from_slice(self.take(8)?);
        Ok(a)
    }

    fn bytes(&mut self) -> Result<Vec<u8>, SqlFailure> {
        let len = usize::try_from(self.u32()?).map_err(|_| malformed("length"))?;
        Ok(self.take(len)?.to_vec())
    }

    fn text(&mut self) -> Result<String, SqlFailure> {
        // Java's encoder replaces unpaired surrogates, so this is UTF-8; stay lossy anyway.
        Ok(String::from_utf8_lossy(&self.bytes()?).into_owned())
    }

    fn value(&mut self) -> Result<SqlValue, SqlFailure> {
        Ok(match self.u8()? {
            NULL => SqlValue::Null,
            INTEGER => SqlValue::Integer(i64::from_be_bytes(self.bits()?)),
            REAL => SqlValue::Real(f64::from_be_bytes(self.bits()?)),
            TEXT => SqlValue::Text(self.text()?),
            BLOB => SqlValue::Blob(self.bytes()?),
            other => return Err(malformed(&format!("value tag {other}"))),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reply as the template writes it, from the same pieces.
    fn reply(columns: &[&str], rows: &[Vec<SqlValue>]) -> Vec<u8> {
        let mut out = vec![ROWS];
        out.extend_from_slice(&u32::try_from(columns.len()).unwrap().to_be_bytes());
        for c in columns {
            put_bytes(&mut out, c.as_bytes());
        }
        for row in rows {
            out.extend(encode_params(row));
        }
        out
    }

    #[test]
    fn every_value_crosses_both_ways() {
        let row = vec![
            SqlValue::Null,
            SqlValue::Integer(i64::MIN),
            SqlValue::Integer(-1),
            SqlValue::Real(-0.5),
            SqlValue::Text("été 🌞".into()),
            SqlValue::Text(String::new()),
            SqlValue::Blob(vec![0, 255, 7]),
        ];
        let names = ["a", "b", "c", "d", "e", "f", "g"];
        let rows = decode_reply(&reply(&names, &[row.clone(), row.clone()]), 1).unwrap();
        assert_eq!(rows.columns, names);
        assert_eq!(rows.rows, vec![row.clone(), row]);
        let none = decode_reply(&reply(&names, &[]), 1).unwrap();
        assert!(none.rows.is_empty());
    }

    #[test]
    fn the_params_are_spelled_as_the_template_reads_them() {
        let bytes = encode_params(&[
            SqlValue::Integer(1),
            SqlValue::Text("é".into()),
            SqlValue::Null,
        ]);
        assert_eq!(
            bytes,
            [1, 0, 0, 0, 0, 0, 0, 0, 1, 3, 0, 0, 0, 2, 0xc3, 0xa9, 0]
        );
    }

    #[test]
    fn failures_and_malformed_replies_are_errors() {
        assert_eq!(decode_reply(&[MISSING], 1), Err(SqlFailure::Missing));
        assert_eq!(decode_reply(&[CANCELLED], 1), Err(SqlFailure::Cancelled));
        let mut failed = vec![FAILED];
        put_bytes(&mut failed, b"SQLiteException");
        assert_eq!(
            decode_reply(&failed, 1),
            Err(SqlFailure::Failed("SQLite answered SQLiteException".into()))
        );
        assert!(
            matches!(decode_reply(&[TOO_LARGE], 64), Err(SqlFailure::Failed(m)) if m.contains("64 bytes"))
        );
        for bad in [
            vec![],
            vec![9],
            vec![ROWS, 0, 0],
            vec![ROWS, 0xff, 0xff, 0xff, 0xff],
            {
                let mut r = reply(&["a"], &[vec![SqlValue::Integer(1)]]);
                r.pop();
                r
            },
            {
                let mut r = reply(&["a"], &[]);
                r.push(9);
                r
            },
            vec![ROWS, 0, 0, 0, 0, INTEGER],
        ] {
            assert!(
                matches!(decode_reply(&bad, 1), Err(SqlFailure::Failed(m)) if m.contains("malformed")),
                "{bad:?}"
            );
        }
    }
}
