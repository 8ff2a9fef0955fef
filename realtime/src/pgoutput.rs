//! PostgreSQL's built-in logical decoding output (`pgoutput`, protocol version 1) as
//! `pg_logical_slot_peek_binary_changes` returns it: one message per row.

use std::collections::HashMap;

/// A column value in a tuple.
#[derive(Debug, Clone, PartialEq)]
pub enum Datum {
    Null,
    /// A TOASTed value the change left as it was (not sent).
    Unchanged,
    Text(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct RelColumn {
    pub name: String,
    pub type_oid: u32,
    /// Part of the replica identity (the primary key by default).
    pub key: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Relation {
    pub id: u32,
    pub schema: String,
    pub name: String,
    /// `d` default (primary key), `f` full, `i` index, `n` nothing.
    pub replica_identity: u8,
    pub columns: Vec<RelColumn>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// Microseconds since 2000-01-01 UTC.
    Begin {
        commit_time: i64,
        xid: u32,
    },
    Commit {
        end_lsn: u64,
        commit_time: i64,
    },
    Relation(Relation),
    Insert {
        rel: u32,
        new: Vec<Datum>,
    },
    Update {
        rel: u32,
        /// The old key ('K') or whole old row ('O'), when sent.
        old: Option<Vec<Datum>>,
        new: Vec<Datum>,
    },
    Delete {
        rel: u32,
        old: Vec<Datum>,
    },
    /// Truncate, origin, type and logical messages: not changes of rows.
    Other,
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

/// A message of the slot that cannot be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct DecodeError(String);

impl From<String> for DecodeError {
    fn from(s: String) -> Self {
        DecodeError(s)
    }
}

impl From<&str> for DecodeError {
    fn from(s: &str) -> Self {
        DecodeError(s.to_string())
    }
}

type R<T> = Result<T, DecodeError>;

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> R<&'a [u8]> {
        let s = self
            .b
            .get(self.at..self.at + n)
            .ok_or_else(|| format!("message ends early (at byte {})", self.at))?;
        self.at += n;
        Ok(s)
    }
    fn u8(&mut self) -> R<u8> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> R<u16> {
        Ok(u16::from_be_bytes(self.take(2)?.try_into().expect("2")))
    }
    fn u32(&mut self) -> R<u32> {
        Ok(u32::from_be_bytes(self.take(4)?.try_into().expect("4")))
    }
    fn u64(&mut self) -> R<u64> {
        Ok(u64::from_be_bytes(self.take(8)?.try_into().expect("8")))
    }
    fn cstr(&mut self) -> R<String> {
        let rest = &self.b[self.at..];
        let end = rest
            .iter()
            .position(|&c| c == 0)
            .ok_or("unterminated string")?;
        let s = String::from_utf8_lossy(&rest[..end]).into_owned();
        self.at += end + 1;
        Ok(s)
    }
    fn tuple(&mut self) -> R<Vec<Datum>> {
        let n = self.u16()?;
        (0..n)
            .map(|_| match self.u8()? {
                b'n' => Ok(Datum::Null),
                b'u' => Ok(Datum::Unchanged),
                b't' => {
                    let len = self.u32()? as usize;
                    Ok(Datum::Text(
                        String::from_utf8_lossy(self.take(len)?).into_owned(),
                    ))
                }
                k => Err(format!("unknown tuple value kind {k}").into()),
            })
            .collect()
    }
}

pub fn parse(b: &[u8]) -> R<Message> {
    let mut r = Reader { b, at: 1 };
    Ok(match b.first().copied().ok_or("empty message")? {
        b'B' => {
            let _final_lsn = r.u64()?;
            let commit_time = r.u64()? as i64;
            let xid = r.u32()?;
            Message::Begin { commit_time, xid }
        }
        b'C' => {
            let _flags = r.u8()?;
            let _commit_lsn = r.u64()?;
            let end_lsn = r.u64()?;
            let commit_time = r.u64()? as i64;
            Message::Commit {
                end_lsn,
                commit_time,
            }
        }
        b'R' => {
            let id = r.u32()?;
            let schema = match r.cstr()? {
                s if s.is_empty() => "pg_catalog".to_string(),
                s => s,
            };
            let name = r.cstr()?;
            let replica_identity = r.u8()?;
            let n = r.u16()?;
            let mut columns = Vec::with_capacity(n as usize);
            for _ in 0..n {
                let flags = r.u8()?;
                let name = r.cstr()?;
                let type_oid = r.u32()?;
                let _typmod = r.u32()?;
                columns.push(RelColumn {
                    name,
                    type_oid,
                    key: flags & 1 == 1,
                });
            }
            Message::Relation(Relation {
                id,
                schema,
                name,
                replica_identity,
                columns,
            })
        }
        b'I' => {
            let rel = r.u32()?;
            if r.u8()? != b'N' {
                return Err("insert without a new tuple".into());
            }
            Message::Insert {
                rel,
                new: r.tuple()?,
            }
        }
        b'U' => {
            let rel = r.u32()?;
            let (old, new) = match r.u8()? {
                b'K' | b'O' => {
                    let old = r.tuple()?;
                    if r.u8()? != b'N' {
                        return Err("update without a new tuple".into());
                    }
                    (Some(old), r.tuple()?)
                }
                b'N' => (None, r.tuple()?),
                k => return Err(format!("unknown update tuple kind {k}").into()),
            };
            Message::Update { rel, old, new }
        }
        b'D' => {
            let rel = r.u32()?;
            match r.u8()? {
                b'K' | b'O' => Message::Delete {
                    rel,
                    old: r.tuple()?,
                },
                k => return Err(format!("unknown delete tuple kind {k}").into()),
            }
        }
        b'T' | b'O' | b'Y' | b'M' => Message::Other,
        k => return Err(format!("unknown pgoutput message {:?}", k as char).into()),
    })
}

/// The relations seen so far (each decoding call describes a relation before its first change).
#[derive(Default)]
pub struct Relations(HashMap<u32, Relation>);

impl Relations {
    pub fn insert(&mut self, r: Relation) {
        self.0.insert(r.id, r);
    }
    pub fn get(&self, id: u32) -> Option<&Relation> {
        self.0.get(&id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// Messages captured from PostgreSQL 15 (table t(id int primary key, v text, ts timestamptz,
    /// arr int[], j jsonb)).
    #[test]
    fn parses_captured_messages() {
        let rel = parse(&hex("520000400a7075626c69630074006400050169640000000017ffffffff00760000000019ffffffff00747300000004a0ffffffff0061727200000003efffffffff006a0000000edaffffffff")).unwrap();
        let Message::Relation(rel) = rel else {
            panic!()
        };
        assert_eq!((rel.schema.as_str(), rel.name.as_str()), ("public", "t"));
        assert_eq!(rel.replica_identity, b'd');
        assert_eq!(rel.columns.len(), 5);
        assert!(rel.columns[0].key && !rel.columns[1].key);
        assert_eq!(rel.columns[3].type_oid, 1007);
        let up = parse(&hex("550000400a4e0005740000000131740000000163740000001d323032362d31312d32322031313a33343a31302e3036333436392b303074000000057b312c327d74000000087b2261223a20317d")).unwrap();
        let Message::Update { old, new, .. } = up else {
            panic!()
        };
        assert_eq!(old, None);
        assert_eq!(new[0], Datum::Text("1".into()));
        assert_eq!(new[3], Datum::Text("{1,2}".into()));
        let del = parse(&hex("440000400a4b00057400000001326e6e6e6e")).unwrap();
        assert_eq!(
            del,
            Message::Delete {
                rel: 0x400a,
                old: vec![
                    Datum::Text("2".into()),
                    Datum::Null,
                    Datum::Null,
                    Datum::Null,
                    Datum::Null
                ]
            }
        );
        let commit = parse(&hex("430000000000015311c800000000015311f8000303da9fdecea6")).unwrap();
        assert!(matches!(
            commit,
            Message::Commit {
                end_lsn: 0x15311f8,
                ..
            }
        ));
        assert!(matches!(
            parse(&hex("4200000000015311c8000303da9fdecea6000002d8")).unwrap(),
            Message::Begin { xid: 0x2d8, .. }
        ));
        assert!(parse(&hex("4400")).is_err());
        assert!(parse(b"Z").is_err());
    }
}
